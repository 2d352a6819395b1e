#!/usr/bin/env python3
"""The clr suite's static-field report test: runs args-app's program in its
"statics" mode under the shim, with ILMAP_SHIM_ARGS naming its probe method
and ILMAP_SHIM_STATICS listing its classes with every kind of static field
(plain statics of every shape, thread statics set differently per thread,
context statics, a class whose static constructor has not run yet, and the
RVA fields of <PrivateImplementationDetails>), and compares every field of
every {"type":"statics"} line with what the program says the field held on
the calling thread before that call (doc/shim.md#statics): the same field
names (constants have no storage and must not appear), the same kind, the
same value (as run-args.same compares args values), "status":"incomplete"
exactly where the program had not initialized the class yet. Also: the
lines come right after their args line, one per listed class in the
listed order, and the program's output is unchanged.

Exit codes as clr_common says (77 without dotnet)."""
import argparse
import importlib.util
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from clr_common import (check_report, check_run, finish, profiler_env,  # noqa: E402
                        remove_stale, run, say, start)

_spec = importlib.util.spec_from_file_location("run_args", os.path.join(HERE, "run-args.py"))
run_args = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_args)

PROBE = "ArgsTest.StaticsProbe::At"
CLASSES = ["ArgsTest.Statics", "ArgsTest.PerThread", "ArgsTest.PerContext", "ArgsTest.Late",
           "<PrivateImplementationDetails>", "ArgsTest.Gen`1", "ArgsTest.LateGen`1"]
# Generic type definitions: one line per instantiation, in load order, each
# with its "type_args"; the program's expected values are a list per class.
GENERIC = {"ArgsTest.Gen`1", "ArgsTest.LateGen`1"}
LITERALS = {"Answer", "Greeting", "Const"}
# <PrivateImplementationDetails> exists in many modules: the program's only.
QUALIFIED = [("[IlmapArgsTest]" if c.startswith("<") else "") + c for c in CLASSES]


# Thread statics of a thread that never touched them: their default value,
# or "incomplete" where the runtime has no storage for them on that thread
# yet (doc/shim.md#statics).
untouched_incomplete = [0]


# Fields of generic instantiations that the program had set but the runtime
# said were not available yet: on .NET 10 every one of them
# (shim/FINDINGS.md, eighth round), or none on a runtime that answers.
withheld = [0]
generic_values = [0]


def compare_fields(step, cls, want, got, fail, generic=False):
    if set(got) != set(want):
        fail(f"step {step} {cls}: fields {sorted(got)} != {sorted(want)}")
    for name in sorted(set(got) & LITERALS):
        fail(f"step {step} {cls}: the constant {name} is reported")
    checked = 0
    for name, w in want.items():
        g = got.get(name)
        if g is None:
            continue
        if g.get("kind") != w["kind"]:
            fail(f"step {step} {cls}.{name}: kind {g.get('kind')!r}, want {w['kind']!r}")
        if w.get("untouched") and g.get("status") == "incomplete" and "value" not in g:
            untouched_incomplete[0] += 1
            checked += 1
        elif generic and "value" in w and g.get("status") == "incomplete" and "value" not in g:
            withheld[0] += 1
            generic_values[0] += 1
        elif "status" in w:
            if g.get("status") != w["status"] or "value" in g:
                fail(f"step {step} {cls}.{name}: {json.dumps(g)}, want status {w['status']}")
        elif "value" not in g or not run_args.same(w["value"], g["value"]):
            fail(f"step {step} {cls}.{name}: reported {json.dumps(g)[:300]}, "
                 f"want {json.dumps(w['value'])[:300]}")
        else:
            checked += 1
            generic_values[0] += generic
    return checked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", dest="profiler", required=True, help="libilmap_clr.so")
    code, args, env, preload, dll = start(ap, run_args.PROGRAM)
    if code is not None:
        return code
    failures = []
    plain_out = os.path.join(args.work, "expected-statics-plain.jsonl")
    t = args.target
    plain, secs = run(t.argv(dll, "statics", plain_out), env, timeout=t.timeout(120))
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the shim (rc {plain.returncode})")
        say(plain.stderr[-2000:])
        return finish(failures)

    report = os.path.join(args.work, "report-statics.jsonl")
    expected_path = os.path.join(args.work, "expected-statics.jsonl")
    remove_stale(report, expected_path)
    shim_env = profiler_env(env, run_args.CLSID, args.profiler, preload, t,
                            ILMAP_SHIM_REPORT=report, ILMAP_SHIM_ARGS=PROBE,
                            ILMAP_SHIM_STATICS=" ; ".join(QUALIFIED))
    shim, secs = run(t.argv(dll, "statics", expected_path), shim_env, timeout=t.timeout(300))
    say(f"run under the shim: rc {shim.returncode}, {secs:.1f} s")
    for line in [x for x in shim.stderr.splitlines() if "[ilmap-shim]" in x][-12:]:
        say("  stderr|", line)
    check_run("shim", shim, plain.stdout, failures.append)
    result = check_report(report, failures.append)
    if result is None or not os.path.isfile(expected_path):
        if not os.path.isfile(expected_path):
            failures.append("the program wrote no expected values")
        return finish(failures)
    _, events, _, _, _ = result
    lines = []
    with open(report) as f:
        for line in f:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if obj.get("type") in ("args", "statics"):
                lines.append(obj)
    with open(expected_path) as f:
        expected = {e["step"]: e["classes"] for e in map(json.loads, f)}

    # Each args line of the probe, then one statics line per listed class.
    steps, statics = {}, {}
    i = 0
    while i < len(lines):
        a = lines[i]
        i += 1
        if a["type"] != "args" or a["method"] != PROBE:
            failures.append(f"unexpected line {json.dumps(a)[:200]}")
            continue
        step = a["args"][0] if len(a["args"]) == 1 else None
        if type(step) is not int or a.get("ret") != step:
            failures.append(f"bad probe line {json.dumps(a)[:200]}")
            continue
        steps[a["call"]] = step
        got = []
        while i < len(lines) and lines[i]["type"] == "statics":
            got.append(lines[i])
            i += 1
        names = [(g.get("class"), g.get("type_args")) for g in got]
        want_names = []
        for cls in CLASSES:
            if cls in GENERIC:
                want_names += [(cls, i["type_args"]) for i in expected.get(step, {}).get(cls, [])]
            else:
                want_names.append((cls, None))
        if names != want_names:
            failures.append(f"step {step}: statics lines for {names}, want {want_names}")
        for g in got:
            if g.get("method") != PROBE or g.get("call") != a["call"]:
                failures.append(f"step {step}: statics line of {g.get('method')} call "
                                f"{g.get('call')}, after the args line of call {a['call']}")
            key = (step, g.get("class"), json.dumps(g.get("type_args")))
            if key in statics:
                failures.append(f"step {step}: two lines for {key[1:]}")
            statics[key] = g.get("fields", {})

    if sorted(steps.values()) != sorted(expected):
        failures.append(f"probe steps reported {sorted(steps.values())}, called {sorted(expected)}")
    checked = incomplete = 0
    generic_lines = 0
    for step, classes in sorted(expected.items()):
        for cls in CLASSES:
            if cls in GENERIC:
                wants = [(json.dumps(i["type_args"]), i["fields"]) for i in classes.get(cls, [])]
                generic_lines += len(wants)
            else:
                wants = [("null", classes.get(cls, {}))]
            for type_args, want in wants:
                got = statics.get((step, cls, type_args))
                if got is None:
                    continue  # reported above
                checked += compare_fields(f"{step}", f"{cls}{type_args}", want, got,
                                          failures.append, cls in GENERIC)
                incomplete += sum(1 for w in want.values() if "status" in w)
    rva = expected[min(expected)].get("<PrivateImplementationDetails>", {})
    if not any(w["value"][0] == "blob" for w in rva.values()):
        failures.append("the program has no RVA blob field: the rva kind is not tested")

    done = [e for e in events if e.get("event") == "args_done"]
    say("args_done:", json.dumps(done[0]) if done else "none")
    if not done:
        failures.append("no args_done event")
    else:
        d = done[0]
        if d.get("statics_classes") != len(CLASSES) or d.get("statics_failed"):
            failures.append(f"args_done: {d}")
        if d.get("statics_incomplete") != incomplete + untouched_incomplete[0] + withheld[0]:
            failures.append(f"args_done counts {d.get('statics_incomplete')} incomplete fields, "
                            f"the program {incomplete}")
    # What the runtime answers for a generic class's statics: every field of
    # every instantiation withheld (CORPROF_E_DATAINCOMPLETE), or none.
    if withheld[0] not in (0, generic_values[0]):
        failures.append(f"{withheld[0]} of {generic_values[0]} set fields of generic "
                        f"instantiations reported incomplete: some, not all")
    say(f"{generic_lines} lines of generic instantiations; of their {generic_values[0]} set "
        f"fields {withheld[0]} withheld by the runtime (CORPROF_E_DATAINCOMPLETE)")
    # The ClassIDs that get no line: the type definition's own (asked for
    # with no type arguments) and the canonical one of shared code.
    by_class = {e.get("class"): e for e in events if e.get("event") == "statics_generic"}
    last = expected[max(expected)]
    for cls in sorted(GENERIC):
        e = by_class.get(cls)
        say("statics_generic:", json.dumps(e) if e else "none")
        if e is None:
            failures.append(f"no statics_generic event for {cls}")
            continue
        if e.get("instantiations") != len(last.get(cls, [])):
            failures.append(f"{cls}: {e.get('instantiations')} instantiations with lines, the "
                            f"program loaded {len(last.get(cls, []))}")
        hidden = e.get("hidden", [])
        if not any(h.get("type_args") == ["System.__Canon"] for h in hidden):
            failures.append(f"{cls}: no canonical instantiation (System.__Canon) announced")
        for h in hidden:
            bad = {k: v for k, v in h.get("hr", {}).items() if v != "0x80131351"}
            if bad:
                failures.append(f"{cls}{h.get('type_args')}: answers {bad}, not "
                                f"CORPROF_E_DATAINCOMPLETE")
        if e.get("open_hr") != "0x80131522" and not any("?" in h.get("type_args", [])
                                                        for h in hidden):
            failures.append(f"{cls}: the type definition's own ClassID: "
                            f"GetClassFromTokenAndTypeArgs {e.get('open_hr')} and no hidden entry")
    say(f"{len(steps)} probe calls, {len(statics)} statics lines; {checked} field values "
        f"matched, {incomplete} incomplete as expected, "
        f"{untouched_incomplete[0]} thread statics without storage on their thread yet")
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
