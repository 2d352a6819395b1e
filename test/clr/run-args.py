#!/usr/bin/env python3
"""The clr suite's argument-report test: runs the program of args-app under
the shim with ILMAP_SHIM_ARGS naming its methods, and compares every value
of every {"type":"args"} report line with what the program says it passed
and got back (its own JSON-lines file), exactly: integers as numbers or
decimal strings by width, floats by their bits, strings by their UTF-16
code units, objects by their class. Also: call numbers 1..N per method,
no more than ILMAP_SHIM_ARGS_MAX lines per method (one method is called
2,000 times on four threads), and the program's output unchanged.

Exit codes as clr_common says (77 without dotnet)."""
import argparse
import collections
import json
import math
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clr_common import (check_report, check_run, finish, profiler_env,  # noqa: E402
                        remove_stale, run, say, start)

CLSID = "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"
PROGRAM = "IlmapArgsTest"
SELECTORS = ("ArgsTest.Prims::*;ArgsTest.Box::Add;ArgsTest.Point::Sum;"
             "ArgsTest.Many::Counted;ArgsTest.Counter::Next;ArgsTest.More::*;"
             "ArgsTest.Generic::*;ArgsTest.Holder`1::Swap;ArgsTest.Slot`1::Hit")
MANY = "ArgsTest.Many::Counted"
MANY_CALLS = 2000


def utf16(units):
    return struct.pack(f"<{len(units)}H", *units).decode("utf-16-le", "surrogatepass")


def same(tagged, got):
    """Does the reported value `got` match the program's tagged value?"""
    kind, text = tagged
    if kind == "int":
        return type(got) is int and got == int(text)
    if kind == "wide":
        return type(got) is str and got == text
    if kind == "bool":
        return got is (text == "true")
    if kind == "str":
        return type(got) is str and got == utf16(text)
    if kind == "null":
        return got is None
    if kind == "class":
        return got == {"class": text}
    if kind == "obj":
        cls, fields = text
        return (type(got) is dict and set(got) == {"class", "fields"} and got["class"] == cls
                and type(got["fields"]) is dict and set(got["fields"]) == set(fields)
                and all(same(w, got["fields"][k]) for k, w in fields.items()))
    if kind == "hex":
        return got == text
    if kind == "md":  # {"rank":R,"lengths":[...],"elements":[...]} row-major
        lengths, elems = text
        return (type(got) is dict and set(got) == {"rank", "lengths", "elements"}
                and got["rank"] == len(lengths) and got["lengths"] == lengths
                and type(got["elements"]) is list and len(got["elements"]) == len(elems)
                and all(same(w, g) for w, g in zip(elems, got["elements"])))
    if kind == "tref":  # {"class":"Ns.Type","ref":V}
        cls, value = text
        return (type(got) is dict and set(got) == {"class", "ref"} and got["class"] == cls
                and same(value, got["ref"]))
    if kind == "blob":  # a value type without fields but with a size
        cls, data = text
        return got == {"class": cls, "bytes": data}
    if kind == "ref":
        return type(got) is dict and list(got) == ["ref"] and same(text, got["ref"])
    if kind == "arr":
        return (type(got) is list and len(got) == len(text)
                and all(same(w, g) for w, g in zip(text, got)))
    if kind in ("r4", "r8"):
        fmt, ifmt = ("<f", "<i") if kind == "r4" else ("<d", "<q")
        want = struct.unpack(fmt, struct.pack(ifmt, int(text)))[0]
        if math.isnan(want):
            return got == "NaN"
        if math.isinf(want):
            return got == ("Infinity" if want > 0 else "-Infinity")
        if type(got) not in (int, float) or isinstance(got, bool):
            return False
        return struct.pack(fmt, float(got)) == struct.pack(fmt, want)
    return False


def key(line):
    return json.dumps([line.get("this"), line["args"], line.get("ret")], sort_keys=True)


def compare(expected, reported, fail):
    """Per method, the multiset of calls: each expected call matched by one
    reported line whose every value is the same."""
    by_method = collections.defaultdict(list)
    for r in reported:
        by_method[r["method"]].append(r)
    checked = 0
    for method, calls in sorted(group(expected).items()):
        got = by_method.get(method, [])
        if method == MANY:
            continue
        if len(got) != len(calls):
            fail(f"{method}: {len(got)} args lines for {len(calls)} calls")
        numbers = sorted(r["call"] for r in got)
        if numbers != list(range(1, len(got) + 1)):
            fail(f"{method}: call numbers {numbers[:10]}... are not 1..{len(got)}")
        left = list(got)
        for want in calls:
            match = None
            for r in left:
                if (("this" in r) == ("this" in want) and ("ret" in r) == ("ret" in want)
                        and len(r["args"]) == len(want["args"])
                        and ("this" not in want or same(want["this"], r["this"]))
                        and ("ret" not in want or same(want["ret"], r["ret"]))
                        and all(same(w, g) for w, g in zip(want["args"], r["args"]))):
                    match = r
                    break
            if match is None:
                fail(f"{method}: no report line matches the call {json.dumps(want)[:300]}")
                near = [json.dumps(r)[:300] for r in left[:2]]
                say("  unmatched lines left:", *near)
                continue
            left.remove(match)
            checked += 1
    return checked


def group(lines):
    out = collections.defaultdict(list)
    for line in lines:
        out[line["method"]].append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", dest="profiler", required=True, help="libilmap_clr.so")
    code, args, env, preload, dll = start(ap, PROGRAM)
    if code is not None:
        return code
    failures = []
    plain_out = os.path.join(args.work, "expected-plain.jsonl")
    t = args.target
    plain, secs = run(t.argv(dll, plain_out), env, timeout=t.timeout(120))
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the shim (rc {plain.returncode})")
        say(plain.stderr[-2000:])
        return finish(failures)

    report = os.path.join(args.work, "report-args.jsonl")
    expected_path = os.path.join(args.work, "expected.jsonl")
    remove_stale(report, expected_path)
    shim_env = profiler_env(env, CLSID, args.profiler, preload, t, ILMAP_SHIM_REPORT=report,
                            ILMAP_SHIM_ARGS=SELECTORS)
    shim, secs = run(t.argv(dll, expected_path), shim_env, timeout=t.timeout(300))
    say(f"run under the shim: rc {shim.returncode}, {secs:.1f} s")
    for line in [x for x in shim.stderr.splitlines() if "[ilmap-shim]" in x][-10:]:
        say("  stderr|", line)
    check_run("shim", shim, plain.stdout, failures.append)
    result = check_report(report, failures.append)
    if result is None or not os.path.isfile(expected_path):
        if not os.path.isfile(expected_path):
            failures.append("the program wrote no expected values")
        return finish(failures)
    _, events, _, _, _ = result
    reported = []
    with open(report) as f:
        for line in f:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if obj.get("type") == "args":
                reported.append(obj)
    with open(expected_path) as f:
        expected = [json.loads(line) for line in f]
    setup = [e for e in events if e.get("event") == "args_setup"]
    say("args_setup:", json.dumps(setup[0]) if setup else "none")
    if not setup or setup[0].get("ok") is not True:
        failures.append("args_setup missing or not ok")
    done = [e for e in events if e.get("event") == "args_done"]
    say("args_done:", json.dumps(done[0]) if done else "none")
    if not done:
        failures.append("no args_done event")
    elif done[0].get("skipped") or done[0].get("refused"):
        failures.append(f"calls skipped or methods refused: {done[0]}")

    checked = compare(expected, reported, failures.append)
    names = set(group(expected)) | {MANY}
    stray = sorted({r["method"] for r in reported} - names)
    if stray:
        failures.append(f"args lines for methods not called by the program: {stray}")

    many = [r for r in reported if r["method"] == MANY]
    numbers = sorted(r["call"] for r in many)
    if numbers != list(range(1, 65)):
        failures.append(f"{MANY}: call numbers {numbers[:8]}..{numbers[-3:]} "
                        f"({len(numbers)} lines), want exactly 1..64 of {MANY_CALLS} calls")
    for r in many:
        a = r["args"]
        if len(a) != 1 or type(a[0]) is not int or not 0 <= a[0] < 500 or r.get("ret") != 3 * a[0]:
            failures.append(f"{MANY}: wrong line {json.dumps(r)}")
            break
    say(f"{len(reported)} args lines; {checked} calls matched value for value, "
        f"{len(many)} lines of {MANY}")
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
