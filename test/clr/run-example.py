#!/usr/bin/env python3
"""The clr suite's test of examples/minimal-profiler: run the suite's C#
program plainly and under the example profiler, and fail if its output
changes, it crashes, libilmap refuses a map the runtime exported, or the
example's lines are too few or not sane.

Exit codes as in clr_common: 77 only without `dotnet` (or for the
sanitizer runtime reason), 99 when the program does not build.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clr_common import (check_run, finish, profiler_env, run, say,  # noqa: E402
                        start)

CLSID = "{7F3E2D1C-5B4A-4C3D-8E9F-0A1B2C3D4E5F}"

# Methods of app/Program.cs that every run calls, so JIT-compiles: each
# must have its line. (Probe.Hit is called only by the shim's probes;
# generic Max<T> and Box<T> are left out: which instantiations get a JIT
# event of their own is the runtime's choice.)
EXPECTED = ["Main", "Record", "Write", "Loops", "NestedLoops", "Classify", "Word",
            "Guarded", "Filtered", "NestedTry", "Mixed", "Compute", "TwinA", "TwinB",
            "TwinC", "TwinD"]
# A run maps 28 methods on .NET 10 (the program's own, plus the few
# generic library instantiations that are not precompiled): the minimum
# leaves room for a runtime that precompiles more.
MINIMUM_METHODS = 20

KINDS = {"prolog", "epilog", "exact", "approximate", "unmapped", "no-info"}
LINE = re.compile(r"^method (\S+) token=0x([0-9A-F]{8}) code=(\d+) entries=(\d+) \|((?: \S+)+)$")
SUMMARY = re.compile(r"\[ilmap-example\] (\d+) methods mapped, (\d+) refused by libilmap, "
                     r"(\d+) without a map")


def check_lines(path, failures):
    """Parses the example's output; returns the method names seen."""
    names, bad, answers = [], [], {k: 0 for k in KINDS}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                bad.append(line.rstrip("\n"))
                continue
            name, code, entries = m.group(1), int(m.group(3)), int(m.group(4))
            names.append(name)
            if code == 0 or entries == 0:
                bad.append(line.rstrip("\n"))
            for sample in m.group(5).split():
                native, kind, il = sample.split(":")
                if int(native) >= code or kind not in KINDS or not il.startswith("0x"):
                    bad.append(line.rstrip("\n"))
                    break
                answers[kind] += 1
    if bad:
        failures.append(f"{len(bad)} malformed or insane lines, first: {bad[0]!r}")
    say(f"{len(names)} method lines; answers by kind: {answers}")
    if answers["exact"] + answers["approximate"] == 0:
        failures.append("no sampled offset mapped to an IL offset")
    return names


def exports(path):
    """The dynamic symbols the module defines (nm), or None without nm."""
    if shutil.which("nm") is None:
        return None
    proc = subprocess.run(["nm", "-D", "--defined-only", path], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    return sorted(line.split()[-1] for line in proc.stdout.splitlines() if line.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiler", required=True, help="the example profiler's .so")
    code, args, env, preload, dll = start(ap)
    if code is not None:
        return code

    failures = []
    # The version script must leave the runtime's entry point alone
    # exported: statically linked libilmap stays private.
    symbols = exports(args.profiler)
    if symbols is not None and symbols != ["DllGetClassObject"]:
        failures.append(f"the module exports {symbols[:8]}, not just DllGetClassObject")
    lines = os.path.join(args.work, "example-maps.txt")
    if os.path.exists(lines):
        os.remove(lines)

    plain, secs = run(["dotnet", dll], env, timeout=120)
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the profiler (rc {plain.returncode})")

    prof_env = profiler_env(env, CLSID, args.profiler, preload, ILMAP_EXAMPLE_OUT=lines)
    prof, secs = run(["dotnet", dll], prof_env, timeout=180)
    say(f"run under the example profiler: rc {prof.returncode}, {secs:.1f} s")
    ours = [line for line in prof.stderr.splitlines() if "[ilmap-example]" in line]
    for line in ours[-10:]:
        say("  stderr|", line)
    check_run("profiler", prof, plain.stdout, failures.append)

    summary = [SUMMARY.search(line) for line in ours]
    summary = [m for m in summary if m]
    if not summary:
        failures.append("no summary line from the profiler: was it loaded, did Shutdown run?")
    if not os.path.isfile(lines):
        failures.append(f"no output file {lines}")
    else:
        names = check_lines(lines, failures)
        if len(names) < MINIMUM_METHODS:
            failures.append(f"only {len(names)} methods mapped (want >= {MINIMUM_METHODS})")
        missing = [n for n in EXPECTED if n not in names]
        if missing:
            failures.append(f"no line for {missing}")
        if summary:
            mapped, refused, unavailable = (int(g) for g in summary[-1].groups())
            say(f"summary: {mapped} mapped, {refused} refused, {unavailable} without a map")
            if refused:
                failures.append(f"libilmap refused {refused} maps the runtime exported")
            if mapped != len(names):
                failures.append(f"the summary says {mapped} methods, the file has {len(names)}")

    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
