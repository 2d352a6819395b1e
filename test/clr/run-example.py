#!/usr/bin/env python3
"""The clr suite's test of examples/minimal-profiler: run the suite's C#
program plainly and under the example profiler, twice: the module this
build made, and the example directory copied out of the tree and built
there with its own Makefile against a `meson install` of this build (what
its README documents). Fails if the program's output changes, it crashes,
a module exports more than DllGetClassObject or (the copied-out one)
loads libilmap dynamically, or the profiler's lines say something wrong:

- bodies (ilmap_store_add_body at JITCompilationFinished and
  ReJITCompilationFinished): at least MINIMUM_BODIES, each code start
  once, one for every method the program always calls, none refused by
  libilmap or the store;
- samples (the sampler thread's ilmap_store_lookup): one per body; each
  answered one in its body's code, of its body's function and version, with
  a known mapping, an IL offset inside the method's IL, and the runtime
  agreeing on function and version (GetFunctionFromIP2); "gone" only for a
  body of a module that was unloaded; some answers exact or approximate;
- ReJIT (ILMAP_EXAMPLE_REJIT=Step): the request succeeded, Hot.Step got
  bodies of a ReJIT version, and one of them was sampled and agreed on;
- unloads (the program's UNLOAD_CYCLES collectible copies of itself):
  one ilmap_store_remove_module per copy, removing as many bodies as the
  example attached in it (Plugin.Work and Plugin.Describe at least);
- the summary line agrees with all of it.

Exit codes as in clr_common: 77 only without `dotnet` (or for the
sanitizer runtime reason), or when the copied-out build cannot run (no
make, pkg-config or meson on PATH) after everything else passed; 99 when
the program does not build.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clr_common import (SKIP, check_run, finish, profiler_env, remove_stale,  # noqa: E402
                        run, say, start)

CLSID = "{7F3E2D1C-5B4A-4C3D-8E9F-0A1B2C3D4E5F}"

# Methods of app/Program.cs that every run calls, so JIT-compiles: each
# must have a body. (Probe.Hit is called only by the shim's probes;
# generic Max<T> and Box<T> are left out: which instantiations get a JIT
# event of their own is the runtime's choice.)
EXPECTED = ["Main", "Record", "Write", "Loops", "NestedLoops", "Classify", "Word",
            "Guarded", "Filtered", "NestedTry", "Mixed", "Compute", "TwinA", "TwinB",
            "TwinC", "TwinD", "Step", "Loop"]
# A run attaches about 280 bodies on .NET 10 (the program's methods, their
# later tiers, and the generic library instantiations that are not
# precompiled): the minimum leaves room for a runtime that precompiles more.
MINIMUM_BODIES = 40
# Hot.Step is called 1,600 times over 1.2 s (app/Program.cs): its ReJIT,
# requested once its first body is attached, is compiled at a later call.
REJIT = "Step"
# Collectible copies of the program (app/Unloads.cs), each unloaded; the
# example attaches at least Plugin.Work and Plugin.Describe in each.
UNLOAD_CYCLES = 2
PLUGIN_BODIES = 2

KINDS = {"prolog", "epilog", "exact", "approximate", "unmapped", "no-info"}
HEX = r"0x([0-9A-F]+)"
BODY = re.compile(rf"^body (\S+) token={HEX} rejit=(\d+) module={HEX} start={HEX} size=(\d+) "
                  rf"ranges=(\d+) entries=(\d+) il_size={HEX}$")
SAMPLE = re.compile(rf"^sample (\S+) token={HEX} rejit=(\d+) ip={HEX} native=(\d+) "
                    rf"mapping=(\S+) il={HEX} original={HEX} il_size={HEX} "
                    rf"runtime=(agrees|disagrees)$")
GONE = re.compile(rf"^sample (\S+) token={HEX} rejit=(\d+) module={HEX} ip={HEX} gone$")
UNLOAD = re.compile(rf"^unload module={HEX} functions=(\d+) versions=(\d+) bodies=(\d+) "
                    rf"attached=(\d+)$")
REQUEST = re.compile(rf"^rejit-requested (\S+) token={HEX} hr={HEX}$")
SUMMARY = re.compile(r"\[ilmap-example\] (\d+) bodies attached \((\d+) of ReJIT versions\), "
                     r"(\d+) refused, (\d+) without a map; (\d+) samples: (\d+) answered, "
                     r"(\d+) gone, (\d+) runtime disagreements, (\d+) not sampled; "
                     r"(\d+) modules unloaded, (\d+) bodies removed")


def check_lines(path, summary, failures):
    """Checks the example's output file against itself and the summary
    (the groups of SUMMARY's match, or None)."""
    bodies, samples, gone, unloads, requests, bad = [], [], [], [], [], []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            for pattern, into in ((BODY, bodies), (SAMPLE, samples), (GONE, gone),
                                  (UNLOAD, unloads), (REQUEST, requests)):
                m = pattern.match(line)
                if m:
                    into.append(m.groups())
                    break
            else:
                bad.append(line)
    if bad:
        failures.append(f"{len(bad)} lines of no known form, first: {bad[0]!r}")

    # Bodies: (name, token, rejit, module, start, size, ranges, entries, il_size)
    by_start = {}
    for name, token, rejit, module, start, size, ranges, entries, il_size in bodies:
        start, size = int(start, 16), int(size)
        if start in by_start:
            failures.append(f"the body at 0x{start:X} was attached twice")
        if size == 0 or int(entries) == 0 or not 1 <= int(ranges) <= 8:
            failures.append(f"a body with no code, no map or odd ranges: {name} 0x{start:X}")
        by_start[start] = dict(name=name, token=int(token, 16), rejit=int(rejit),
                               module=int(module, 16), size=size, il_size=int(il_size, 16))
    if len(bodies) < MINIMUM_BODIES:
        failures.append(f"only {len(bodies)} bodies attached (want >= {MINIMUM_BODIES})")
    names = {b["name"] for b in by_start.values() if b["rejit"] == 0}
    missing = [n for n in EXPECTED if n not in names]
    if missing:
        failures.append(f"no body for {missing}")

    def body_of(ip):
        # The body whose first range holds ip (the sampler picks the middle
        # of the hot range, which comes first).
        for s, b in by_start.items():
            if s <= ip < s + b["size"]:
                return s, b
        return None, None

    # Samples: (name, token, rejit, ip, native, mapping, il, original, il_size, runtime)
    answers = {k: 0 for k in KINDS}
    sampled, insane = set(), []
    for name, token, rejit, ip, native, mapping, il, original, il_size, runtime in samples:
        ip, il, il_size = int(ip, 16), int(il, 16), int(il_size, 16)
        s, b = body_of(ip)
        line = f"sample {name} ip=0x{ip:X}"
        if b is None:
            insane.append(f"{line}: in no body attached")
            continue
        sampled.add(s)
        if (b["name"], b["token"], b["rejit"]) != (name, int(token, 16), int(rejit)):
            insane.append(f"{line}: answered {name}/{token}/{rejit}, the body is "
                          f"{b['name']}/{b['token']:08X}/{b['rejit']}")
        if mapping not in KINDS or int(native) >= b["size"] or int(native) != ip - s:
            insane.append(f"{line}: native {native}, mapping {mapping}")
        if runtime != "agrees":
            insane.append(f"{line}: the runtime disagrees on function or version")
        if mapping in ("exact", "approximate", "epilog") and il_size and \
                (il >= il_size or int(original, 16) >= il_size):
            insane.append(f"{line}: IL offset 0x{il:X} outside the method's 0x{il_size:X} bytes")
        if mapping in KINDS:
            answers[mapping] += 1
    unloaded = {int(u[0], 16) for u in unloads}
    for name, token, rejit, module, ip in gone:
        s, b = body_of(int(ip, 16))
        if b is None or int(module, 16) not in unloaded:
            insane.append(f"sample {name} ip=0x{ip}: gone, but its module was not unloaded")
        else:
            sampled.add(s)
    if insane:
        failures.append(f"{len(insane)} insane samples, first: {insane[0]}")
    if len(samples) + len(gone) != len(bodies) or len(sampled) != len(bodies):
        failures.append(f"{len(samples)} samples answered and {len(gone)} gone for "
                        f"{len(bodies)} bodies ({len(sampled)} distinct): want one per body")
    if answers["exact"] + answers["approximate"] == 0:
        failures.append("no sample answered with an IL offset (exact or approximate)")
    say(f"  {len(bodies)} bodies, {len(samples)} samples answered ({answers}), "
        f"{len(gone)} gone")

    # ReJIT of Hot.Step, bodies of a version != 0 and one agreed-on sample.
    rejit_bodies = [b for b in by_start.values() if b["rejit"] and b["name"] == REJIT]
    rejit_samples = [x for x in samples if x[0] == REJIT and x[2] != "0" and x[9] == "agrees"]
    if not any(r[0] == REJIT and int(r[2], 16) == 0 for r in requests):
        failures.append(f"no successful ReJIT request for {REJIT}: {requests}")
    if not rejit_bodies or not rejit_samples:
        failures.append(f"{len(rejit_bodies)} bodies of a ReJIT version of {REJIT} attached, "
                        f"{len(rejit_samples)} sampled: want >= 1 of each")
    say(f"  ReJIT of {REJIT}: {len(rejit_bodies)} bodies, {len(rejit_samples)} sampled")

    # Unloads: (module, functions, versions, bodies, attached)
    for module, functions, versions, removed, attached in unloads:
        ours = sum(1 for b in by_start.values() if b["module"] == int(module, 16))
        if int(removed) != int(attached) or int(removed) != ours or ours < PLUGIN_BODIES:
            failures.append(f"unload of 0x{module}: {removed} bodies removed, {attached} "
                            f"attached by its count, {ours} by the body lines "
                            f"(want equal, >= {PLUGIN_BODIES})")
    if len(unloads) != UNLOAD_CYCLES:
        failures.append(f"{len(unloads)} modules unloaded with bodies in the store, "
                        f"want {UNLOAD_CYCLES}")
    say(f"  unloads: {[(int(u[1]), int(u[3])) for u in unloads]} (functions, bodies removed)")

    if summary is None:
        return
    (n_attached, n_rejit, n_refused, _unavailable, n_samples, n_answered, n_gone,
     n_disagreed, n_unsampled, n_unloaded, n_removed) = (int(g) for g in summary)
    want = (len(bodies), sum(1 for b in by_start.values() if b["rejit"]), 0,
            len(samples) + len(gone), len(samples), len(gone), 0, 0, len(unloads),
            sum(int(u[3]) for u in unloads))
    got = (n_attached, n_rejit, n_refused, n_samples, n_answered, n_gone, n_disagreed,
           n_unsampled, n_unloaded, n_removed)
    if got != want:
        failures.append(f"the summary (attached, ReJIT, refused, samples, answered, gone, "
                        f"disagreements, not sampled, unloaded, removed) says {got}, the "
                        f"lines {want}")


def exports(path):
    """The dynamic symbols the module defines (nm), or None without nm."""
    if shutil.which("nm") is None:
        return None
    proc = subprocess.run(["nm", "-D", "--defined-only", path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    return sorted(line.split()[-1] for line in proc.stdout.splitlines() if line.strip())


def needed(path):
    """The module's DT_NEEDED libraries (readelf), or None without readelf."""
    if shutil.which("readelf") is None:
        return None
    proc = subprocess.run(["readelf", "-d", path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    return re.findall(r"\(NEEDED\).*\[(.+)\]", proc.stdout)


def run_under(what, module, env, preload, dll, work, plain_stdout, failures):
    """One run of the program under the example module, and every check."""
    symbols = exports(module)
    if symbols is not None and symbols != ["DllGetClassObject"]:
        failures.append(f"{what}: the module exports {symbols[:8]}, not just DllGetClassObject")
    lines = os.path.join(work, "example-out.txt")
    remove_stale(lines)
    prof_env = profiler_env(env, CLSID, module, preload, ILMAP_EXAMPLE_OUT=lines,
                            ILMAP_EXAMPLE_REJIT=REJIT)
    prof, secs = run(["dotnet", dll], prof_env, timeout=180)
    say(f"run under the {what}: rc {prof.returncode}, {secs:.1f} s")
    ours = [line for line in prof.stderr.splitlines() if "[ilmap-example]" in line]
    for line in ours[-10:]:
        say("  stderr|", line)
    mine = []
    check_run(what, prof, plain_stdout, mine.append)
    summary = [m for m in (SUMMARY.search(line) for line in ours) if m]
    if not summary:
        mine.append("no summary line from the profiler: was it loaded, did Shutdown run?")
    if not os.path.isfile(lines):
        mine.append(f"no output file {lines}")
    else:
        check_lines(lines, summary[-1].groups() if summary else None, mine)
        shutil.copy(lines, os.path.join(work, f"example-out-{what.split()[0]}.txt"))
    failures.extend(f"{what}: {m}" for m in mine)


def copy_out_and_build(args, env, work, failures):
    """Installs this build into a scratch prefix, copies the example
    directory out of the tree and runs its Makefile there (pkg-config
    pointed at the scratch prefix; the build's compiler and sanitizer
    flags, as its README shows). Returns the module built, or None (with a
    reason to skip, or a failure recorded)."""
    missing = [p for p in ("make", "pkg-config", "meson") if shutil.which(p) is None]
    if missing:
        return None, f"not on PATH: {' '.join(missing)}"
    scratch = os.path.join(work, "copied-out")
    shutil.rmtree(scratch, ignore_errors=True)
    root = os.path.join(scratch, "root")
    # Not --no-rebuild: `meson test --suite examples` builds only what
    # the tests depend on, and an install needs every installed target.
    # This test runs alone (is_parallel: false), so no other ninja runs.
    proc = subprocess.run(["meson", "install", "-C", args.build, "--destdir", root],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-3000:])
        failures.append(f"meson install into {root} failed (rc {proc.returncode})")
        return None, None
    pcs = glob.glob(os.path.join(root, "**", "ilmap.pc"), recursive=True)
    if not pcs:
        failures.append(f"no ilmap.pc installed under {root}")
        return None, None
    # Out of the source tree: a directory of its own under the system's
    # temporary directory, so that no relative path can reach the tree.
    outside = tempfile.mkdtemp(prefix="ilmap-example-")
    copy = os.path.join(outside, "minimal-profiler")
    shutil.copytree(args.example, copy)
    make_env = dict(env, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=root)
    cmd = ["make", "-C", copy]
    if args.cc_path:
        cmd.append("CC=" + args.cc_path)
    if args.sanitize not in ("", "none"):
        cmd.append(f"CFLAGS=-O1 -g -fsanitize={args.sanitize} -fno-sanitize-recover=all")
    say("copied out to", copy, "and built with:", " ".join(cmd))
    proc = subprocess.run(cmd, env=make_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)
    module = os.path.join(copy, "libilmap_minimal_profiler.so")
    if proc.returncode != 0 or not os.path.isfile(module):
        sys.stdout.write(proc.stdout[-6000:])
        failures.append(f"the copied-out example does not build with make (rc {proc.returncode})")
        shutil.rmtree(outside, ignore_errors=True)
        return None, None
    libs = needed(module)
    if libs is not None and any("ilmap" in lib for lib in libs):
        failures.append(f"the copied-out module loads libilmap dynamically: {libs}")
    # Kept next to this build's other test output; the copy goes.
    kept = os.path.join(scratch, "libilmap_minimal_profiler.so")
    shutil.copy(module, kept)
    shutil.rmtree(outside, ignore_errors=True)
    return kept, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiler", required=True, help="the example profiler's .so (this build)")
    ap.add_argument("--example", required=True, help="examples/minimal-profiler in the source")
    ap.add_argument("--build", required=True, help="this build's directory (meson install)")
    code, args, env, preload, dll = start(ap)
    if code is not None:
        return code

    failures = []
    # The program's own collectible copies are unloaded in both runs, so
    # that their output is the same.
    env = dict(env, ILMAP_TEST_UNLOADS=str(UNLOAD_CYCLES))
    plain, secs = run(["dotnet", dll], env, timeout=120)
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the profiler (rc {plain.returncode})")

    run_under("in-tree module", args.profiler, env, preload, dll, args.work, plain.stdout,
              failures)

    module, skipped = copy_out_and_build(args, env, args.work, failures)
    if module:
        run_under("copied-out module", module, env, preload, dll, args.work, plain.stdout,
                  failures)
    code = finish(failures)
    if code == 0 and skipped:
        say(f"the copied-out build did not run ({skipped}): skipped")
        return SKIP
    return code


if __name__ == "__main__":
    sys.exit(main())
