#!/usr/bin/env python3
"""The ilmap tool when memory runs out (issue 14): every command (source
with queries on standard input, over the fuzz corpus's small PDBs) is run
once per allocation it makes, with that allocation failing (fail-nth.so,
LD_PRELOAD). Each run must either end as the run without failures ended
(same exit status, same standard output, same output file: the failure
was absorbed, as glibc's stdio does when it cannot get a buffer) or exit
5 with a message on standard error and no output file left behind.

usage: cli-nomem.py TOOL FAIL_NTH_SO
"""
import os
import shutil
import subprocess
import sys
import tempfile

tool, preload = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="cli-nomem-")
MAX_POINTS = 100000  # a guard against a program that never stops allocating


def write(name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    return path


seed = write("seed.txt", "# example\n0 0\n5 10\n9 20\n")
pass2 = write("pass2.txt", "0 0\n4 4\n10 10\n12 15\n20 23\n")
late = write("late.txt", "2 10\n6 36\n")
steps = write("steps.txt", "0 100\n2 102\n8 110\n12 120\n20 130\n26 140\n")
unsorted = write("unsorted.txt", "0 0\n6 36\n4 50\n")
out = os.path.join(work, "out")
serialized = os.path.join(work, "c.ilmap")
subprocess.run([tool, "compose", seed, pass2, "-o", serialized], check=True,
               stdout=subprocess.DEVNULL)

pdbs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus-pdb")
queries = b"0x06000001 0\n0x06000002 7\n0x02000001 0\n"
# Standard input per command (others get none).
stdin_of = {"source pdb": queries, "source embedded": queries}

# (name, arguments, writes `out`)
commands = [
    ("show text", ["show", seed], False),
    ("show serialized", ["show", serialized], False),
    ("validate", ["validate", seed], False),
    ("validate lenient", ["validate", unsorted, "--lenient"], False),
    ("translate", ["translate", serialized, "--old", "7"], False),
    ("translate dac", ["translate", late, "--new-dac", "5"], False),
    ("compose", ["compose", seed, pass2, "-o", out, "--require-exact"], True),
    ("compose text", ["compose", serialized, seed, "-o", out, "--text"], True),
    ("compose lenient", ["compose", unsorted, seed, "-o", out, "--lenient"], True),
    ("source pdb", ["source", os.path.join(pdbs, "tiny.pdb")], False),
    ("source embedded", ["source", os.path.join(pdbs, "tiny-embedded.dll")], False),
    ("validate pdb", ["validate", steps, "--pdb", os.path.join(pdbs, "tiny-embedded.dll"),
                      "--token", "0x06000001"], False),
]


def run(args, fail_at, stdin=b""):
    if os.path.exists(out):
        os.remove(out)
    report = os.path.join(work, "report")
    if os.path.exists(report):
        os.remove(report)
    env = dict(os.environ)
    if fail_at:
        env.update(LD_PRELOAD=preload, ILMAP_FAIL_AT=str(fail_at), ILMAP_FAIL_REPORT=report)
    p = subprocess.run([tool] + args, env=env, capture_output=True, timeout=60, input=stdin)
    written = None
    if os.path.exists(out):
        with open(out, "rb") as f:
            written = f.read()
    state = None
    if fail_at and os.path.exists(report):
        with open(report) as f:
            state = f.read().strip()
    return p.returncode, p.stdout, p.stderr, written, state


failures = 0
total = 0
for name, args, writes in commands:
    base = run(args, 0, stdin_of.get(name, b""))
    if base[0] not in (0, 4):
        print(f"FAIL {name}: exit {base[0]} without failures\n{base[2].decode()}")
        failures += 1
        continue
    points = absorbed = 0
    for k in range(1, MAX_POINTS + 1):
        rc, so, se, written, state = run(args, k, stdin_of.get(name, b""))
        if state == "clean":
            break
        points += 1
        case = f"{name}: allocation {k} failing (ilmap {' '.join(args)})"
        if rc < 0:
            print(f"FAIL {case}: killed by signal {-rc}\n{se.decode()}")
            failures += 1
        elif state != "injected":
            print(f"FAIL {case}: exit {rc} and no report from the allocator")
            failures += 1
        elif (rc, so, written) == (base[0], base[1], base[3]):
            absorbed += 1
        elif rc != 5:
            print(f"FAIL {case}: exit {rc}, want 5 or the clean run's result\n{se.decode()}")
            failures += 1
        elif not se.strip():
            print(f"FAIL {case}: exit 5 without a message")
            failures += 1
        elif written is not None:
            print(f"FAIL {case}: exit 5 left an output file of {len(written)} bytes")
            failures += 1
    else:
        print(f"FAIL {name}: still allocating after {MAX_POINTS} points")
        failures += 1
    total += points
    print(f"{name}: {points} failure points, {absorbed} absorbed, the rest exit 5")

shutil.rmtree(work, ignore_errors=True)
print(f"cli-nomem: {total} failure points, {failures} failures")
sys.exit(1 if failures else 0)
