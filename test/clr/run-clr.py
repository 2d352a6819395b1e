#!/usr/bin/env python3
"""The clr suite's end-to-end test: build the C# program offline, run it
without and with libilmap's profiler shim, and fail on any difference in
its output, any crash, any failed check in the shim's report, or too few
checks.

Exit codes (Meson): 0 pass, 1 fail, 77 skipped (no `dotnet` on PATH, or a
sanitizer build whose runtime cannot be found, see sanitizer_preload), 99
setup failure (the program does not build).
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time

CLSID = "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"
NS = "IlmapShimTest"

# What the shim instruments in the program (see app/Program.cs).
METHODS = f"{NS}.Shapes::*;{NS}.Box`1::*"
TWINS = f"{NS}.Twins::TwinA={NS}.Twins::TwinB;{NS}.Twins::TwinC={NS}.Twins::TwinD"
LATE = f"{NS}.Late::Compute"
PROBE = f"{NS}.Probe::Hit"

# The least the report must show for the run to count. Set well below what
# the program produces (see shim-readme.md) so that a JIT change moving a
# few boundaries does not fail the suite, while a shim that checks nothing
# does.
MINIMUM = {
    "a": 200,            # exported IL offsets that are old offsets of our map
    "a_unmapped": 20,    # the unmapped twin's offsets are new instruction starts
    "b": 20,             # twin entries rebuilt by ilmap_native_compose
    "c": 50,             # StackFrame native->IL answers vs ilmap_native_to_il
    "protocol_truncate": 10,
    "spec4_rejitid_ignored": 10,
    "rejit_compiled": 14,
}

SKIP, SETUP = 77, 99


def say(*parts):
    print("[run-clr]", *parts, flush=True)


def run(cmd, env, timeout, cwd=None):
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    return proc, time.monotonic() - start


def sanitizer_preload(args):
    """An instrumented .so can only live in a process whose first library is
    the sanitizer runtime. dotnet is not built with one, so the runtime is
    preloaded into the run under the shim (never into `dotnet build`), with
    the options CoreCLR needs: it handles SIGSEGV itself and its own memory
    is not ours to leak-check. Returns the environment additions, or None
    (skip) when the runtime library cannot be found."""
    cc = args.cc_path or ("clang" if args.cc == "clang" else "gcc")
    names = ["libclang_rt.asan-x86_64.so"] if args.cc == "clang" else ["libasan.so", "libubsan.so"]
    wanted = [n for n in names
              if ("address" in args.sanitize or "asan" not in n) and
              ("undefined" in args.sanitize or "ubsan" not in n)]
    libs = []
    for name in wanted:
        try:
            path = subprocess.run([cc, "-print-file-name=" + name], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            path = ""
        if not path or not os.path.isabs(path) or not os.path.isfile(path):
            say(f"sanitizer build (b_sanitize={args.sanitize}) but {name} not found via {cc}: "
                "skipping the real-runtime run (shim-unit covers the shim under the sanitizers)")
            return None
        libs.append(path)
    if not libs:
        say(f"b_sanitize={args.sanitize}: no runtime to preload; skipping")
        return None
    say("sanitizer build: preloading", " ".join(libs))
    return {
        "LD_PRELOAD": " ".join(libs),
        "ASAN_OPTIONS": "detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:"
                        "use_sigaltstack=0:abort_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }


def base_env(work):
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("CORECLR_", "ILMAP_SHIM_", "DOTNET_TieredCompilation")):
            del env[name]
    env.update({
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_NOLOGO": "1",
        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
        "DOTNET_GENERATE_ASPNET_CERTIFICATE": "0",
        "MSBUILDDISABLENODEREUSE": "1",  # no build server left behind by the test
        "DOTNET_CLI_DO_NOT_USE_MSBUILD_SERVER": "1",
    })
    return env


def build(args, env):
    """Copies the program into the build dir and builds it there, offline."""
    src = os.path.join(args.work, "src")
    os.makedirs(src, exist_ok=True)
    for name in os.listdir(args.app):
        if name.endswith((".cs", ".csproj")):
            shutil.copy2(os.path.join(args.app, name), os.path.join(src, name))
    # No network: only the offline package folder, if there is one. The
    # program references no package, so an empty source list restores too.
    sources = '<add key="offline" value="/opt/nuget/packages" />' \
        if os.path.isdir("/opt/nuget/packages") else ""
    with open(os.path.join(src, "nuget.config"), "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n'
                f'  <packageSources>\n    <clear />\n    {sources}\n  </packageSources>\n'
                '</configuration>\n')
    out = os.path.join(args.work, "out")
    cmd = ["dotnet", "build", os.path.join(src, "IlmapShimTest.csproj"), "-c", "Release",
           "-o", out, "--nologo", "-v", "quiet", "-p:UseSharedCompilation=false"]
    say("building the C# program:", " ".join(cmd))
    proc, secs = run(cmd, env, timeout=600)
    if proc.returncode != 0:
        say(f"dotnet build failed (rc {proc.returncode}, {secs:.0f} s)")
        sys.stdout.write(proc.stdout[-4000:])
        sys.stderr.write(proc.stderr[-4000:])
        return None
    say(f"built in {secs:.0f} s")
    return os.path.join(out, "IlmapShimTest.dll")


def load_report(path):
    checks, events, summary, bad = [], [], None, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                bad.append(f"line {n}: {e}")
                continue
            kind = obj.get("type")
            if kind == "check":
                checks.append(obj)
            elif kind == "event":
                events.append(obj)
            elif kind == "summary":
                summary = obj
    return checks, events, summary, bad


def frames_agreement(plain_path, shim_path):
    """How many recorded frames report the same (method, IL offset) with
    and without the shim: informational, since probes change where the JIT
    puts its boundaries (see shim-findings.md)."""
    try:
        with open(plain_path) as f:
            plain = [line.split()[0::2] for line in f if line.strip()]
        with open(shim_path) as f:
            shim = [line.split()[0::2] for line in f if line.strip()]
    except OSError:
        return None
    same = sum(1 for a, b in zip(plain, shim) if a == b)
    return same, len(plain), len(shim)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sanitize", default="none")
    ap.add_argument("--cc", default="")
    ap.add_argument("--cc-path", default="")
    args = ap.parse_args()

    if shutil.which("dotnet") is None:
        say("dotnet is not on PATH: skipping")
        return SKIP
    preload = None
    if args.sanitize not in ("", "none"):
        preload = sanitizer_preload(args)
        if preload is None:
            return SKIP
    if not os.path.isfile(args.shim):
        say("no shim at", args.shim)
        return SETUP

    os.makedirs(args.work, exist_ok=True)
    env = base_env(args.work)
    dll = build(args, env)
    if dll is None:
        return SETUP

    failures = []
    frames_plain = os.path.join(args.work, "frames-plain.txt")
    frames_shim = os.path.join(args.work, "frames-shim.txt")
    report = os.path.join(args.work, "report.jsonl")
    for path in (frames_plain, frames_shim, report):
        if os.path.exists(path):
            os.remove(path)

    plain_env = dict(env, ILMAP_SHIM_FRAMES=frames_plain)
    plain, secs = run(["dotnet", dll], plain_env, timeout=120)
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the shim (rc {plain.returncode})")

    shim_env = dict(env,
                    CORECLR_ENABLE_PROFILING="1",
                    CORECLR_PROFILER=CLSID,
                    CORECLR_PROFILER_PATH=args.shim,
                    ILMAP_SHIM_METHODS=METHODS,
                    ILMAP_SHIM_TWINS=TWINS,
                    ILMAP_SHIM_LATE=LATE,
                    ILMAP_SHIM_PROBE=PROBE,
                    ILMAP_SHIM_REPORT=report,
                    ILMAP_SHIM_FRAMES=frames_shim)
    if preload:
        shim_env.update(preload)
    shim, secs = run(["dotnet", dll], shim_env, timeout=180)
    say(f"run under the shim: rc {shim.returncode}, {secs:.1f} s")
    if shim.stderr:
        sys.stdout.write("".join("  stderr| " + line + "\n"
                                 for line in shim.stderr.splitlines()[-20:]))
    if shim.returncode != 0:
        failures.append(f"the program fails under the shim (rc {shim.returncode})")
    if plain.stdout != shim.stdout:
        failures.append("the program's output differs under the shim")
        for n, (a, b) in enumerate(zip(plain.stdout.splitlines(), shim.stdout.splitlines())):
            if a != b:
                say(f"first difference, line {n + 1}: {a!r} vs {b!r}")
                break
    hits = [line for line in shim.stderr.splitlines() if line.startswith("probe hits: ")]
    if not hits or int(hits[-1].split()[-1]) <= 0:
        failures.append("the probes never ran (no instrumented code executed)")
    if "[ilmap-shim]" not in shim.stderr:
        failures.append("the shim left no trace on stderr: was it loaded?")

    if not os.path.isfile(report):
        failures.append("no report written")
    else:
        checks, events, summary, bad = load_report(report)
        if bad:
            failures.append(f"{len(bad)} report lines are not JSON: {bad[:3]}")
        if summary is None:
            failures.append("the report has no summary line (did Shutdown run?)")
        counts = collections.Counter()
        failed = collections.Counter()
        for c in checks:
            counts[c["check"]] += 1
            if c.get("ok") is not True:
                failed[c["check"]] += 1
        for c in [c for c in checks if c.get("ok") is not True][:20]:
            say("FAILED CHECK:", json.dumps(c))
        if failed:
            failures.append(f"{sum(failed.values())} failed checks: {dict(failed)}")
        for kind, least in MINIMUM.items():
            if counts[kind] < least:
                failures.append(f"only {counts[kind]} '{kind}' checks (want >= {least})")
        if summary is not None:
            if (summary.get("checks") != len(checks)
                    or summary.get("failed") != sum(failed.values())):
                failures.append("the summary does not match the check lines")
            if summary.get("rejit_errors"):
                failures.append(f"{summary['rejit_errors']} ReJIT errors")
        say(f"report: {len(checks)} checks, {sum(failed.values())} failed, "
            f"{len(events)} events")
        for kind in sorted(counts):
            extra = f"  FAILED {failed[kind]}" if failed[kind] else ""
            say(f"  {kind:28} {counts[kind]:5}{extra}")
        for e in events:
            if e.get("event") in ("runtime", "initialized", "frames_done"):
                say("  event", json.dumps(e))

    agreement = frames_agreement(frames_plain, frames_shim)
    if agreement:
        same, n_plain, n_shim = agreement
        say(f"frames: {same} of {n_plain} report the same IL offset with and without probes "
            f"({n_shim} under the shim; informational)")
        if n_plain != n_shim:
            failures.append(f"the program recorded {n_plain} frames plainly, "
                            f"{n_shim} under the shim")

    for f in failures:
        say("FAIL:", f)
    say("PASS" if not failures else "FAIL")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
