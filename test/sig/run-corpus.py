#!/usr/bin/env python3
"""The sig suite's corpus test: builds the C# dumper (test/sig/dump) with
`dotnet build`, runs it over a few framework assemblies of the newest
Microsoft.NETCore.App that `dotnet --list-runtimes` names, and over its own
assembly, then runs test-sig-corpus on what it wrote.

Exit codes (Meson): the checker's; 77 when `dotnet` is not on PATH; 99
when the dumper does not build or run, or no runtime is found.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clr"))
from clr_common import SETUP, SKIP, base_env, build, dotnet_installs, run, say  # noqa: E402

ASSEMBLIES = ["System.Private.CoreLib.dll", "System.Linq.dll", "System.Collections.dll",
              "System.Linq.Expressions.dll", "System.Text.RegularExpressions.dll",
              "System.Reflection.Metadata.dll"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True, help="the dumper's source directory")
    ap.add_argument("--work", required=True, help="build and output directory")
    ap.add_argument("--checker", required=True, help="test-sig-corpus")
    args = ap.parse_args()
    if shutil.which("dotnet") is None:
        say("dotnet is not on PATH: skipping")
        return SKIP
    os.makedirs(args.work, exist_ok=True)
    env = base_env()
    dll = build(args, env, program="SigDump")
    if dll is None:
        return SETUP
    runtimes = [d for name, _, d in dotnet_installs(env, "runtimes")
                if name == "Microsoft.NETCore.App"]
    where = runtimes[-1] if runtimes else None
    if where is None:
        say("no Microsoft.NETCore.App runtime found by dotnet --list-runtimes")
        return SETUP
    paths = [os.path.join(where, a) for a in ASSEMBLIES if os.path.isfile(os.path.join(where, a))]
    say("assemblies:", " ".join(paths), "and the dumper's own")
    corpus = os.path.join(args.work, "corpus.txt")
    proc, secs = run(["dotnet", dll, corpus] + paths + ["self"], env, timeout=600)
    if proc.returncode != 0:
        say(f"the dumper failed (rc {proc.returncode})")
        sys.stdout.write(proc.stdout[-4000:])
        sys.stderr.write(proc.stderr[-4000:])
        return SETUP
    say(f"corpus written in {secs:.1f} s: {corpus}")
    proc, secs = run([args.checker, corpus], dict(os.environ), timeout=600)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
