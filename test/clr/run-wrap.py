#!/usr/bin/env python3
"""The clr suite's wrap test: runs the program of wrap-app plainly and
under the shim with ILMAP_SHIM_WRAP selecting its methods, each wrapped
the way APM tracers do it in calls of the hooks of wrap-hooks
(ILMAP_SHIM_WRAP_HOOKS): Begin(instance, token) first, the body inside
try/catch/finally, End(instance, token, return value, exception) on every
exit, the exception rethrown. Both runs load the hooks with a startup hook
(DOTNET_STARTUP_HOOKS; the program does not reference them) and run
without tiering (which the shim turns off): the plain run differs from
the wrapped one only by the profiler. The hooks write
what they saw to a JSON file at exit (ILMAP_WRAP_LOG, wrap-hooks/Hooks.cs).

Checks: both runs exit 0 with the same stdout (stack trace with file:line
included); the plain run's hooks saw no call; the report passes
(check_report) and has one "wrap" check per selected method, wrapped
except the instance constructors (refused, with a reason; a static
constructor may be either), and a CoreLib method refused as CoreLib's;
in the wrapped run's
log every Begin has its End on the same thread in LIFO order with the
same instance (none unpaired or mismatched), Begins equal Ends per token,
every wrapped method was entered and no refused one, `instance` is null
for static methods and methods of value types and `this` otherwise; every
call the program prints ("call Ns.Type::Method(...) -> result" or
"threw Type: message") has an End record with that return value or
exception. The hooks throw from Begin and End for one type's instances
(ILMAP_WRAP_THROW_TYPE), which the wrap must swallow.

Modes (--mode, the program's argument): methods (ILMAP_SHIM_WRAP, the
ReJITs requested when the module loads; the calls run once, all wrapped);
late (ILMAP_SHIM_WRAP_LATE, each ReJIT requested once the method is first
compiled; the calls run twice, and those of the second pass must all be
matched, the first pass's calls being wrapped or not); tiering
(ILMAP_SHIM_WRAP with ILMAP_SHIM_KEEP_TIERING=1 and tiering on in both
runs; the calls run twice, the second pass after two wrapped methods got
their optimized tier, all matched). In late and tiering a static
constructor, which runs once, need not have entered the hooks.

Exit codes as clr_common says (77 without dotnet)."""
import argparse
import collections
import json
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clr_common import (SETUP, build, check_report, check_run, finish,  # noqa: E402
                        profiler_env, remove_stale, run, say, start)

CLSID = "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"
PROGRAM = "IlmapWrapTest"
HOOKS = "IlmapWrapHooks"
HOOKS_CLASS = "[IlmapWrapHooks]IlmapWrapHooks.Hooks"
THROW_TYPE = "WrapTest.HookThrows"
SELECTORS = ("WrapTest.Shapes::*;WrapTest.Person::*;WrapTest.Point::*;WrapTest.Gen`1::*;"
             "WrapTest.Animal::*;WrapTest.Dog::*;WrapTest.Square::*;WrapTest.Config::*;"
             "WrapTest.HookThrows::Value")

# The methods the program calls in two collectible copies of its assembly
# (Program.Collectible, once per pass): each has a wrap line in its own
# module and one per copy, wrapped when compiled (late selectors too).
COLLECTIBLE = ("WrapTest.Shapes::Fib", "WrapTest.Shapes::Classify")
COPIES = 2

# A CoreLib method besides: never wrapped (its code runs before the hooks'
# assembly can load), refused with that reason.
CORELIB = "System.Collections.Generic.List`1::Add"

CALL = re.compile(r"^call (\S+?::[^(]+)\(.*?\) (?:-> (.*)|threw ([^:\s]+): (.*))$")


def load_json(path, fail, what):
    if not os.path.isfile(path):
        fail(f"no {what} written ({path})")
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"the {what} is not JSON: {e}")
        return None


def save(work, what, proc):
    """Keeps a run's output in the work directory (to compare by hand)."""
    for name, text in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        with open(os.path.join(work, f"{what}-{name}.txt"), "w") as f:
            f.write(text)


def calls(stdout, mode):
    """The program's calls that must have an End record: (method, ret or
    None, exc or None) in the hooks' formats, in order. In mode late only
    the second pass's (the first pass ran them before their ReJIT)."""
    out = []
    lines = stdout.splitlines()
    if mode == "late":
        lines = lines[lines.index("second pass") + 1:] if "second pass" in lines else []
    for line in lines:
        if not line.startswith("call "):
            continue
        m = CALL.match(line)
        if not m:
            continue
        method, ret, exc_type, exc_msg = m.groups()
        if exc_type is not None:
            out.append((method, None, f"{exc_type}:{exc_msg}"))
        else:
            out.append((method, None if ret in ("void", "null") else ret, None))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", dest="profiler", required=True, help="libilmap_clr.so")
    ap.add_argument("--hooks-app", required=True, help="the hooks library's source directory")
    ap.add_argument("--mode", choices=("methods", "late", "tiering"), default="methods",
                    help="how the methods are wrapped (see the module's doc)")
    code, args, env, preload, dll = start(ap, PROGRAM)
    if code is not None:
        return code
    # The hooks: IL only, built for any platform (no --rid) in their own
    # work directory.
    hooks_args = argparse.Namespace(app=args.hooks_app, work=os.path.join(args.work, "hooks"),
                                    rid="")
    os.makedirs(hooks_args.work, exist_ok=True)
    hooks_dll = build(hooks_args, env, HOOKS)
    if hooks_dll is None:
        return SETUP
    failures = []
    fail = failures.append
    t = args.target

    # What the selectors name, from the program's metadata.
    listing, _ = run(t.argv(dll, "methods", SELECTORS), env, timeout=t.timeout(120))
    if listing.returncode != 0:
        say(listing.stderr[-2000:])
        fail(f"the program cannot list the selected methods (rc {listing.returncode})")
        return finish(failures)
    selected = [json.loads(line) for line in listing.stdout.splitlines() if line.strip()]
    by_token = {m["token"]: m for m in selected}
    names = collections.Counter(m["method"] for m in selected if not m["ctor"])
    dup = sorted(n for n, k in names.items() if k > 1)
    if dup:
        fail(f"overloaded selected methods (the test names methods by name): {dup}")
    say(f"{len(selected)} selected methods, {sum(m['ctor'] for m in selected)} constructors, "
        f"{sum(m['cctor'] for m in selected)} static constructors")

    # Both runs load the hooks and compile without tiering, as the shim
    # has the runtime do (optimized code places a caller's frame at
    # another line than tier 0 does): they differ only by the profiler.
    # In mode tiering both keep it.
    mode = args.mode
    passes = 1 if mode == "methods" else 2  # the program's passes over its calls
    hooks_env = dict(env, DOTNET_STARTUP_HOOKS=t.path(hooks_dll))
    if mode != "tiering":
        hooks_env["DOTNET_TieredCompilation"] = "0"
    plain_log = os.path.join(args.work, f"hooks-plain-{mode}.json")
    wrapped_log = os.path.join(args.work, f"hooks-wrapped-{mode}.json")
    report = os.path.join(args.work, f"report-wrap-{mode}.jsonl")
    remove_stale(plain_log, wrapped_log, report)

    plain, secs = run(t.argv(dll, mode), dict(hooks_env, ILMAP_WRAP_LOG=t.path(plain_log)),
                      timeout=t.timeout(120))
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    save(args.work, f"plain-{mode}", plain)
    if plain.returncode != 0:
        fail(f"the program fails without the shim (rc {plain.returncode})")
        say(plain.stderr[-2000:])
        return finish(failures)
    log = load_json(plain_log, fail, "plain run's hooks log (did the startup hook run?)")
    if log is not None and (log.get("begins") or log.get("ends")):
        fail(f"the hooks were called without the shim: {json.dumps(log)[:300]}")
    program_calls = calls(plain.stdout, mode)
    say(f"the program printed {len(program_calls)} calls of wrapped methods")

    settings = {"ILMAP_SHIM_WRAP_LATE" if mode == "late" else "ILMAP_SHIM_WRAP":
                SELECTORS + ";" + CORELIB,
                "ILMAP_SHIM_WRAP_HOOKS": HOOKS_CLASS, "ILMAP_SHIM_REPORT": report}
    if mode == "tiering":
        settings["ILMAP_SHIM_KEEP_TIERING"] = "1"
    shim_env = profiler_env(hooks_env, CLSID, args.profiler, preload, t, **settings)
    shim_env.update(ILMAP_WRAP_LOG=t.path(wrapped_log), ILMAP_WRAP_THROW_TYPE=THROW_TYPE)
    shim, secs = run(t.argv(dll, mode), shim_env, timeout=t.timeout(300))
    say(f"wrapped run: rc {shim.returncode}, {secs:.1f} s")
    save(args.work, f"wrapped-{mode}", shim)
    for line in [x for x in shim.stderr.splitlines() if "[ilmap-shim]" in x][-10:]:
        say("  stderr|", line)
    check_run("shim", shim, plain.stdout, fail)
    for cycle in range(COPIES):  # each pass prints these lines
        if f"collectible copy {cycle}: unloaded" not in shim.stdout.splitlines():
            fail(f"collectible copy {cycle} was not unloaded")
    result = check_report(report, fail)

    # One wrap line per selected method: wrapped, or (constructors)
    # refused with a reason.
    wrap_lines = [c for c in result[0] if c.get("check") == "wrap"] if result else []
    corelib = [c for c in wrap_lines if c.get("method") == CORELIB]
    if len(corelib) != 1 or corelib[0].get("wrapped") is not False or \
            "CoreLib" not in corelib[0].get("reason", ""):
        fail(f"{CORELIB} is not refused once as CoreLib's: {corelib}")
    wrap_lines = [c for c in wrap_lines if c.get("method") != CORELIB]
    seen = collections.Counter(c.get("token") for c in wrap_lines)
    wrapped, refused = set(), set()
    for c in wrap_lines:
        tok = c.get("token")
        m = by_token.get(tok)
        if m is None:
            fail(f"a wrap line for a method not selected: {json.dumps(c)}")
            continue
        if c.get("method") != m["method"]:
            fail(f"wrap line of {tok} names {c.get('method')!r}, the metadata {m['method']!r}")
        want_lines = 1 + COPIES * passes if m["method"] in COLLECTIBLE else 1
        if seen[tok] != want_lines:
            fail(f"{seen[tok]} wrap lines for {m['method']} ({tok}), want {want_lines}")
            seen[tok] = want_lines  # said once
        if c.get("wrapped") is False and (m["ctor"] or m["cctor"]):
            if not c.get("reason"):
                fail(f"constructor {m['method']} ({tok}) refused without a reason: {json.dumps(c)}")
            refused.add(tok)
        elif m["ctor"]:
            fail(f"constructor {m['method']} ({tok}) not refused: {json.dumps(c)}")
        elif c.get("wrapped") is not True:
            fail(f"{m['method']} ({tok}) not wrapped: {json.dumps(c)}")
        else:
            wrapped.add(tok)
    missing = [f"{m['method']} ({m['token']})" for m in selected if m["token"] not in seen]
    if missing:
        fail(f"{len(missing)} of {len(selected)} selected methods have no wrap line: "
             f"{', '.join(missing[:12])}{' ...' if len(missing) > 12 else ''}")
    say(f"wrap lines: {len(wrapped)} wrapped, {len(refused)} refused, {len(missing)} missing")

    log = load_json(wrapped_log, fail, "wrapped run's hooks log")
    if log is None:
        return finish(failures)
    for key in ("unpaired", "instance_mismatch", "token_mismatch", "records_dropped"):
        if log.get(key) != 0:
            fail(f"hooks log: {key} = {log.get(key)}")
    begins, ends = log.get("begins", {}), log.get("ends", {})
    for tok in sorted(set(begins) | set(ends)):
        name = by_token.get(tok, {}).get("method", "not selected")
        if begins.get(tok, 0) != ends.get(tok, 0):
            fail(f"{name} ({tok}): {begins.get(tok, 0)} Begins, {ends.get(tok, 0)} Ends")
        if tok not in wrapped:
            fail(f"{name} ({tok}) entered the hooks but is not reported wrapped")
    for tok in sorted(wrapped):
        if mode != "methods" and by_token[tok]["cctor"]:
            continue
        if begins.get(tok, 0) < 1:
            fail(f"{by_token[tok]['method']} ({tok}) wrapped but never entered")
    # The hooks threw from Begin and End of every call on THROW_TYPE.
    throw_calls = sum(begins.get(m["token"], 0) for m in selected
                      if m["method"].startswith(THROW_TYPE + "::"))
    if throw_calls < 1 or log.get("thrown") != 2 * throw_calls:
        fail(f"the hooks threw {log.get('thrown')} times, want 2 for each of the "
             f"{throw_calls} calls on {THROW_TYPE}")
    for tok, types in sorted(log.get("instances", {}).items()):
        m = by_token.get(tok)
        if m is None:
            continue
        if m["static"] or m["value_type"]:
            if types != [None]:
                fail(f"{m['method']} ({tok}): instances {types}, want only null")
        elif None in types or not set(types) <= set(m["this"]):
            fail(f"{m['method']} ({tok}): instances {types}, want some of {m['this']}")

    # Every call the program printed: an End record with its result.
    token_of = {c["method"]: c["token"] for c in wrap_lines if c.get("wrapped") is True}
    records = log.get("records", {})
    want = collections.Counter()
    for method, ret, exc in program_calls:
        tok = token_of.get(method)
        if tok is None:
            if method in names:  # its missing wrap line is a failure above
                continue
            fail(f"the program calls {method}, which is not selected")
            continue
        want[(tok, ret, exc)] += 1
    matched = 0
    for (tok, ret, exc), n in sorted(want.items(), key=lambda x: str(x[0])):
        # A call that threw: its End has the exception (and a return value
        # of no meaning: null, or the shim's boxed default).
        have = sum(r.get("count", 0) for r in records.get(tok, [])
                   if r.get("exc") == exc and (exc is not None or r.get("ret") == ret))
        if have < n:
            got = [(r.get("ret"), r.get("exc"), r.get("count")) for r in records.get(tok, [])][:6]
            fail(f"{by_token[tok]['method']} ({tok}): {n} calls returned ret={ret!r} "
                 f"exc={exc!r}, the hooks saw {have} such Ends (records {got})")
        else:
            matched += n
    total_begins = sum(begins.values())
    say(f"hooks: {total_begins} Begins over {len(begins)} methods; "
        f"{matched} of {sum(want.values())} program calls matched by End records")
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
