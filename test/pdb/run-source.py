#!/usr/bin/env python3
"""The pdb suite's comparison with the runtime's rule: builds the C# checker
(test/pdb/check) with `dotnet build`, then for each assembly (the checker's
own, with its PDB beside it; every SDK assembly that embeds a PDB, among
them FSharp.Compiler.Service.dll when present) runs the checker and
`ilmap source` side by side and compares their lines: every method with
sequence points, every IL offset from 0 to its body's size. Any difference
fails (the first few are shown).

Exit codes (Meson): 0 no difference; 1 differences or a failing tool; 77
when `dotnet` is not on PATH; 99 when the checker does not build.
"""
import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clr"))
from clr_common import SETUP, SKIP, base_env, build, dotnet_installs, run, say  # noqa: E402


def compare(dotnet_cmd, ilmap, path, env):
    """Runs both on one assembly; returns (lines, differences, error)."""
    chk = subprocess.Popen(dotnet_cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env)
    ilm = subprocess.Popen([ilmap, "source", path], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    expected = queue.Queue()
    err = {}

    def feed():
        try:
            for line in chk.stdout:
                expected.put(line)
                ilm.stdin.write(b" ".join(line.split(b" ", 2)[:2]).rstrip(b"\n") + b"\n")
        except BrokenPipeError:
            pass
        finally:
            expected.put(None)
            try:
                ilm.stdin.close()
            except BrokenPipeError:
                pass
        err["checker"] = chk.stderr.read().decode(errors="replace")

    t = threading.Thread(target=feed)
    t.start()
    lines = diffs = 0
    for got in ilm.stdout:
        want = expected.get()
        if want is None:
            diffs += 1
            if diffs <= 5:
                say(f"  extra from ilmap: {got!r}")
            continue
        lines += 1
        if got != want:
            diffs += 1
            if diffs <= 5:
                say(f"  runtime rule: {want!r}")
                say(f"  ilmap source: {got!r}")
    while True:
        want = expected.get()
        if want is None:
            break
        diffs += 1
        if diffs <= 5:
            say(f"  missing from ilmap: {want!r}")
    t.join()
    ilm_err = ilm.stderr.read().decode(errors="replace")
    rc_chk, rc_ilm = chk.wait(), ilm.wait()
    checker_says = err.get("checker", "").strip()
    say(f"  {checker_says}")
    m = re.search(r"(\d+) methods", checker_says)
    problem = None
    if rc_chk != 0 or rc_ilm != 0:
        problem = f"checker rc {rc_chk}, ilmap rc {rc_ilm}: {ilm_err.strip()}"
    return lines, diffs, problem, int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True, help="the checker's source directory")
    ap.add_argument("--work", required=True, help="build directory")
    ap.add_argument("--ilmap", required=True, help="the ilmap tool")
    ap.add_argument("--max", type=int, default=0, help="at most this many SDK assemblies (0: all)")
    args = ap.parse_args()
    if shutil.which("dotnet") is None:
        say("dotnet is not on PATH: skipping")
        return SKIP
    os.makedirs(args.work, exist_ok=True)
    env = base_env()
    dll = build(args, env, program="PdbCheck")
    if dll is None:
        return SETUP
    assemblies = [dll]
    for _, _, d in dotnet_installs(env, "sdks"):
        proc, _ = run(["dotnet", dll, "--embedded", d], env, timeout=600)
        found = sorted(set(proc.stdout.split("\n")) - {""})
        # One copy of each file name is enough (the SDK ships some twice).
        seen = {}
        for p in found:
            seen.setdefault(os.path.basename(p), p)
        assemblies += sorted(seen.values())
    if args.max:
        assemblies = assemblies[:1 + args.max]
    total_lines = total_diffs = total_methods = 0
    failed = False
    for path in assemblies:
        say(path)
        lines, diffs, problem, methods = compare(["dotnet", dll], args.ilmap, path, env)
        total_lines += lines
        total_methods += methods
        total_diffs += diffs
        if problem:
            say("  FAILED:", problem)
            failed = True
        if diffs:
            say(f"  {diffs} differences")
    say(f"{len(assemblies)} assemblies, {total_methods} methods, "
        f"{total_lines} (token, IL offset) queries, "
        f"{total_diffs} differences")
    return 1 if failed or total_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
