#!/usr/bin/env python3
"""Profiler overhead: the field suite's program (test/field/app) plainly
and under libilmap's shim in each mode, in the same run:

  startup     wall time of `IlmapField --startup` (loads the runtime and
              Newtonsoft.Json, serializes one object, exits): median of
              --startup-runs runs
  first       the program's first workload iteration (JIT + ReJIT), ms
  throughput  the program's own steady-state throughput (workload
              iterations after the first, per second, Stopwatch-timed
              inside the program): median of --throughput-runs runs

Modes: plain (no profiler), none (shim loaded, nothing selected), then
methods, late, tiering, hooks (test/field/field_common.py), selecting
whole namespaces of Newtonsoft.Json and the framework. Ratios are against
plain. floor is hooks with ILMAP_SHIM_ELT_FLOOR=1: the same event mask,
FunctionIDMapper and functions hooked, but hooks that only return, so it
measures what calling hooks on every function costs the runtime itself
(inlining off, every method JIT-compiled); the hooks row is also shown
against it. Exits 0 with a note when `dotnet` is not on PATH.

  python3 bench/overhead.py --shim build-release/shim/libilmap_clr.so \\
      --work build-release/bench/overhead

With --rid/--runner (as the clr suite's runners take them) the program is
published self-contained for another platform's runtime and run through
the runner, under the shim of that platform's build, e.g. Windows x64
under wine (which runs x86-64 code natively, so its ratios are the
platform's; under qemu-user they are an emulator's):

  python3 bench/overhead.py --shim build-win64/shim/libilmap_clr.dll \\
      --work build-win64/bench/overhead --rid win-x64 --runner wine --modes plain,floor,hooks
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "field"))
import field_common as fc  # noqa: E402
import clr_common  # noqa: E402

MODES = ["plain", "none", "methods", "late", "tiering", "floor", "hooks"]


def program_figure(stderr, label):
    m = re.search(rf"^{label}: ([0-9.]+)", stderr, re.MULTILINE)
    return float(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--app", default=fc.APP)
    ap.add_argument("--startup-runs", type=int, default=5)
    ap.add_argument("--throughput-runs", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=8,
                    help="workload iterations per throughput run")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--rid", default="", help="a .NET runtime identifier (win-x64, "
                    "linux-arm64): the program published for it, run through --runner")
    ap.add_argument("--runner", default="", help="the command that runs a --rid program "
                    "here, blank-separated (wine; qemu-aarch64 -L /usr/aarch64-linux-gnu)")
    args = ap.parse_args()
    args.target = clr_common.Target(args.rid, args.runner)
    target = args.target
    args.sanitize, args.cc, args.cc_path = "none", "", ""

    if shutil.which("dotnet") is None:
        print("[overhead] dotnet is not on PATH: no profiler overhead figures")
        return 0
    if not os.path.isfile(args.shim):
        print("[overhead] no shim at", args.shim)
        return 1
    code, env, _, dll = clr_common.prepare(args, program=fc.PROGRAM, online=True)
    if code is not None:
        return code
    selection, how = fc.NAMESPACE_SELECTION, "namespaces " + ", ".join(fc.NAMESPACES)
    print(f"[overhead] selection: {how}; runtime: {target.describe()}", flush=True)

    modes = [m for m in args.modes.split(",") if m]
    started = time.monotonic()
    results = {}
    for mode in modes:
        if mode == "plain":
            e = env
        elif mode == "floor":
            e = dict(fc.mode_env(env, args.shim, "hooks", selection, target=target),
                     ILMAP_SHIM_ELT_FLOOR="1")
        else:
            e = fc.mode_env(env, args.shim, mode, selection, target=target)
        starts = []
        for _ in range(args.startup_runs):
            proc, secs = clr_common.run(target.argv(dll, "--startup"), e,
                                        timeout=target.timeout(300))
            if proc.returncode != 0:
                print(f"[overhead] {mode}: --startup failed (rc {proc.returncode})")
                break
            starts.append(secs)
        firsts, rates = [], []
        for _ in range(args.throughput_runs):
            proc, _ = clr_common.run(target.argv(dll, "--iterations", str(args.iterations)),
                                     e, timeout=target.timeout(600))
            rate = program_figure(proc.stderr, "throughput")
            first = program_figure(proc.stderr, "first iteration")
            if proc.returncode != 0 or rate is None:
                print(f"[overhead] {mode}: workload failed (rc {proc.returncode})")
                break
            rates.append(rate)
            firsts.append(first)
        results[mode] = (statistics.median(starts) if starts else None,
                         statistics.median(firsts) if firsts else None,
                         statistics.median(rates) if rates else None)
        print(f"[overhead] {mode}: done", flush=True)

    base = results.get("plain", (None, None, None))

    def ratio(v, b):
        return f"{v / b:6.2f}x" if v and b else "     -"

    def fmt(v, spec):
        return format(v, spec) if v is not None else "-"
    print()
    print(f"profiler overhead, {target.describe()}, {os.cpu_count()} cores; startup median of "
          f"{args.startup_runs}, "
          f"throughput median of {args.throughput_runs} runs x {args.iterations} iterations")
    print(f"{'mode':10} {'startup ms':>10} {'ratio':>7} {'first it ms':>11} {'ratio':>7} "
          f"{'ops/s':>8} {'ratio':>7}")
    for mode in modes:
        s, f, t = results[mode]
        print(f"{mode:10} {fmt(s and s * 1000, '10.0f'):>10} {ratio(s, base[0]):>7} "
              f"{fmt(f, '11.0f'):>11} {ratio(f, base[1]):>7} {fmt(t, '8.2f'):>8} "
              f"{ratio(t, base[2]):>7}")
    floor, hooks = results.get("floor"), results.get("hooks")
    if floor and hooks and floor[2] and hooks[2]:
        print(f"hooks against the floor (hooks that only return): steady state "
              f"{floor[2] / hooks[2]:.2f}x the time per iteration ({hooks[2]:.3f} vs "
              f"{floor[2]:.3f} ops/s), first iteration {hooks[1] / floor[1]:.2f}x")
    print(f"[overhead] {time.monotonic() - started:.0f} s")
    return 0 if all(all(v is not None for v in r) for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
