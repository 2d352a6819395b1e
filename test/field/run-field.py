#!/usr/bin/env python3
"""The field suite: real third-party (Newtonsoft.Json) and framework code
(System.Text.Json, Regex, LINQ, generic collections, System.Xml) under
libilmap's profiler shim, whole namespaces at a time.

Builds app/ (restoring Newtonsoft.Json from the offline folder or
nuget.org), runs it plainly once, then once under the shim in every mode
(methods, late, tiering, hooks, frames, and the wrap modes; see
field_common.MODES), and fails unless
each run under the shim: prints exactly what the plain run printed, exits
with 0, has no failed check in its report, ends its report with a
summary, drops nothing silently (every selected method is accounted for:
instrumented, refused by the instrumenter, requested but never compiled,
or late and never compiled; no *_dropped / *_truncated count; no log line
saying a table was full or a method was not instrumented or dropped), and
instruments at least --min-instrumented methods. After each mode's run,
an exceptions run (exceptions_run) checks that the frames of exceptions
thrown through Newtonsoft.Json report the plain run's IL offsets under
the mode's rewrite.

Exit codes (Meson): 0 pass, 1 fail, 77 skipped (no `dotnet` on PATH, or a
sanitizer build: the clr suite covers the shim there), 99 setup failure.
"""
import argparse
import collections
import difflib
import json
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import field_common as fc  # noqa: E402
from clr_common import (SETUP, build, check_report, check_run, finish,  # noqa: E402
                        remove_stale, run, say, start)

# Where the selected methods that were not instrumented went (summary
# fields); with methods_instrumented they add up to methods_selected.
ACCOUNTED = ("methods_refused", "methods_requested_not_compiled", "methods_late_never_compiled",
             "methods_observed")
DROPPED = re.compile(r"(_dropped|_truncated)$|^dropped|^truncated")
LOG_DROPPED = re.compile(r"\bfull\b|not instrumented|dropped", re.IGNORECASE)


# Mode frames (app/Frames.cs): the least the checks of frames must show,
# well below what the program records (about 300 frames, 130 checked by c
# and c_store, 60 of the program's own by c_source), and every frame line
# names its module.
FRAMES_MINIMUM = {"c": 50, "c_store": 50, "c_source": 20}


def check_frames(events, counts, fail):
    """Checks c, c_store and c_source ran on the recorded frames, placed by
    their module where the token alone names methods of several modules."""
    done = [e for e in events if e.get("event") == "frames_done"]
    if not done:
        fail("no frames_done event: the frames were not read")
        return
    d = done[0]
    for kind, least in FRAMES_MINIMUM.items():
        if counts[kind] < least:
            fail(f"only {counts[kind]} '{kind}' checks of frames (want >= {least})")
    if d.get("module_named", 0) == 0 or d.get("module_needed", 0) == 0:
        fail(f"no frame named its module, or none needed it: {d}")
    say(f"  frames: {d.get('module_named')} name their module, {d.get('module_needed')} of them "
        f"with a token in several modules; checked c {counts['c']}, c_store "
        f"{counts['c_store']}, c_source {counts['c_source']}; skipped {d.get('skipped')} "
        f"(c), {d.get('source_skipped_no_line')} without a line (c_source)")


def check_wrap_log(path, fail):
    """The hooks' log of a wrap mode (test/clr/wrap-hooks): every Begin
    has its End on its thread, in order, with the same token and instance;
    as many of each per token; calls were made. Returns the log, or None
    when there is none."""
    try:
        with open(path) as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"no hooks log ({e})")
        return None
    begins, ends = log.get("begins", {}), log.get("ends", {})
    uneven = [t for t in set(begins) | set(ends) if begins.get(t) != ends.get(t)]
    for key in ("unpaired", "token_mismatch", "instance_mismatch"):
        if log.get(key) != 0:
            fail(f"hooks: {key} {log.get(key)}")
    if uneven:
        fail(f"hooks: Begins and Ends differ for {len(uneven)} tokens: {sorted(uneven)[:5]}")
    total = sum(begins.values())
    if total == 0:
        fail("hooks: no Begin: nothing wrapped ran")
    say(f"  hooks: {total} Begins and {sum(ends.values())} Ends over {len(begins)} tokens, "
        f"unpaired {log.get('unpaired')}, mismatched tokens {log.get('token_mismatch')}, "
        f"instances {log.get('instance_mismatch')}")
    return log


def frame_lines(lines):
    """How many frames an exception-frames file's lines hold."""
    return sum(1 for x in lines if x.startswith("    "))


def read_frames(path):
    """The lines of an exception-frames file (Exceptions.cs), or None."""
    try:
        with open(path) as f:
            return f.read().splitlines()
    except OSError:
        return None


# The exceptions runs compile without optimizing (JITMinOpts, a release
# setting of the runtime): optimized code reports a caller's frame at the
# IL offset of the last boundary the JIT kept before the call, and which
# boundaries it keeps depends on the code around (a wrap's try blocks, a
# probe's calls), so optimized frames of a rewritten method may land on
# another original instruction than the plain run's without any map being
# wrong. Unoptimized code keeps a boundary at every call site.
MINOPTS = {"DOTNET_JITMinOpts": "1"}


def exceptions_run(t, dll, mode, env, want_stdout, want_frames, work, fail):
    """A mode's exceptions run: the program's exceptions through
    Newtonsoft.Json (--exceptions-only) under the shim in the mode's
    settings, unoptimized; its output and every frame of Newtonsoft.Json
    and the program (method and IL offset, line where the PDB has one) must
    be the reference run's. In the late modes it runs them twice, the
    second time after the ReJITs the first time queued."""
    path = os.path.join(work, f"exception-frames-{mode}.txt")
    remove_stale(path)
    e = dict(env, ILMAP_FIELD_EXCEPTION_FRAMES=t.path(path), **MINOPTS)
    for key in ("ILMAP_SHIM_REPORT", "ILMAP_SHIM_FRAMES"):  # the main run's
        e.pop(key, None)
    hooks_log = None
    if mode in fc.WRAP_MODES:
        # The hooks in full mode: End records with the values they saw.
        hooks_log = os.path.join(work, f"hooks-{mode}-exceptions.json")
        remove_stale(hooks_log)
        e["ILMAP_WRAP_LOG"] = t.path(hooks_log)
        e.pop("ILMAP_WRAP_LIGHT", None)
    late = mode in fc.LATE_MODES
    argv = t.argv(dll, "--exceptions-only", "--iterations", "2" if late else "1",
                  *(["--wait-rejits"] if late else []))
    try:
        proc, secs = run(argv, e, timeout=t.timeout(300))
    except Exception as ex:  # a hang: TimeoutExpired
        fail(f"exceptions run: {ex}")
        return
    check_run("exceptions run", proc, want_stdout, fail, tail=15)
    if hooks_log:
        log = check_wrap_log(hooks_log, lambda msg: fail(f"exceptions run: {msg}"))
        if log:
            check_exception_ends(log, proc.stdout, fail)
    have = read_frames(path)
    if have is None:
        fail(f"exceptions run: no frames written ({path})")
        return
    if have == want_frames:
        say(f"  exceptions run: {secs:.1f} s, {frame_lines(have)} frames as in the reference run")
        return
    diff = list(difflib.unified_diff(want_frames, have, "reference", "shim", n=1, lineterm=""))
    fail(f"exceptions run: frames differ from the reference run ({len(diff)} diff lines)")
    for line in diff[:40]:
        say("  frames|", line)


# The exceptions run's output: "<case>: <type>: <message>" for an
# exception (inner ones after "inner: "), "<case>: returned <type>:<value>".
CASE_LINE = re.compile(r"^([^:]+): (?:returned (.*)|(?!inner: )([\w.`+]+): (.*))$")


def check_exception_ends(log, stdout, fail):
    """The hooks' log (full mode) of a wrap mode's exceptions run: each
    exception the program caught (type and message) seen by some End as
    the exception that propagated, each value the program got back seen by
    some End as a return value."""
    rets, excs = set(), set()
    for records in log.get("records", {}).values():
        for r in records:
            if r.get("exc") is not None:
                excs.add(r["exc"].replace("\r", "").replace("\n", " | "))
            elif r.get("ret") is not None:
                rets.add(r["ret"])
    want_excs, want_rets, missing = 0, 0, []
    for line in stdout.splitlines():
        m = CASE_LINE.match(line)
        if not m or line.startswith("=="):
            continue
        case, ret, exc_type, exc_msg = m.groups()
        if ret is not None:
            want_rets += 1
            if ret not in rets:
                missing.append(f"{case}: no End returned {ret!r}")
        elif exc_type is not None:
            want_excs += 1
            if f"{exc_type}:{exc_msg}" not in excs:
                missing.append(f"{case}: no End saw {exc_type}: {exc_msg[:80]!r}")
    if want_excs == 0 or want_rets == 0:
        fail(f"exceptions run: {want_excs} exceptions and {want_rets} returns in the output")
    for m in missing:
        fail(f"exceptions run: {m}")
    if not missing:
        say(f"  exceptions run: Ends saw the {want_excs} exceptions and {want_rets} return "
            f"values the program got (records dropped {log.get('records_dropped')})")


def check_mode(name, proc, secs, plain, report, min_instrumented, failures):
    """Everything about one run under the shim; appends to failures."""
    fail = lambda msg: failures.append(f"{name}: {msg}")  # noqa: E731
    say(f"--- mode {name}: rc {proc.returncode}, {secs:.1f} s")
    check_run("shim", proc, plain, fail, tail=15)
    shim_lines = [line for line in proc.stderr.splitlines() if "[ilmap-shim]" in line]
    if not shim_lines:
        fail("the shim left no trace on stderr: was it loaded?")
    noisy = [line for line in proc.stderr.splitlines() if LOG_DROPPED.search(line)]
    if noisy:
        fail(f"{len(noisy)} log lines say something was dropped or not instrumented")
        for line in noisy[:5]:
            say("  stderr|", line)
    for line in proc.stderr.splitlines():
        if line.startswith(("throughput:", "first iteration:")):
            say("  program|", line)

    loaded = check_report(report, fail)
    if not loaded:
        return
    _, events, summary, counts, _ = loaded
    if name in fc.FRAMES_MODES:
        check_frames(events, counts, fail)
    ambiguous = [e for e in events if e.get("event") == "c_source_skipped"
                 and e.get("reason") == "ambiguous"]
    if ambiguous:
        fail(f"{len(ambiguous)} frames skipped as ambiguous, e.g. {ambiguous[0]}")
    ev = collections.Counter(e.get("event") for e in events)
    if ev:
        say("  events:", ", ".join(f"{k} {v}" for k, v in sorted(ev.items(), key=str)))
    triggers = collections.Counter(e.get("trigger") for e in events
                                   if e.get("event") == "rejit_requested_late")
    if triggers:
        say("  late ReJIT triggers:", dict(triggers))

    if summary is None:
        return
    say("  summary:", ", ".join(f"{k}={v}" for k, v in summary.items()
                                if k not in ("type", "by_check")))
    for k, v in summary.items():
        if DROPPED.search(k) and isinstance(v, (int, float)) and v > 0:
            fail(f"summary {k} = {v}")
    # Every method the shim registered ends in exactly one place; methods
    # without IL (methods_skipped_no_body) are never registered.
    selected = summary.get("methods_selected", 0)
    instrumented = summary.get("methods_instrumented", 0)
    buckets = {k: summary.get(k) for k in ACCOUNTED}
    say(f"  methods: selected {selected}, instrumented {instrumented}, rejitted "
        f"{summary.get('methods_rejitted')}, "
        + ", ".join(f"{k} {v}" for k, v in buckets.items())
        + f", no IL body (not selected) {summary.get('methods_skipped_no_body')}")
    missing = [k for k, v in buckets.items() if not isinstance(v, int)]
    if missing:
        fail(f"the summary lacks {missing}: it cannot account for every selected method")
    elif instrumented + sum(buckets.values()) != selected:
        fail(f"methods_selected {selected} != instrumented {instrumented} + "
             f"{' + '.join(f'{k} {v}' for k, v in buckets.items())}: "
             "some selected methods are unaccounted for")
    if instrumented < min_instrumented:
        fail(f"only {instrumented} methods instrumented (want >= {min_instrumented})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", dest="profiler", required=True, help="libilmap_clr.so")
    ap.add_argument("--modes", default=",".join(fc.MODES), help="comma-separated")
    ap.add_argument("--min-instrumented", type=int, default=2000,
                    help="methods instrumented in one process, in every mode")
    ap.add_argument("--iterations", type=int, default=3,
                    help="workload iterations per run (the output does not depend on it)")
    ap.add_argument("--late-iterations", type=int, default=3,
                    help="workload iterations in mode late, whose methods are instrumented "
                         "only when called again after their ReJIT: between iterations the "
                         "program waits until the shim has made every ReJIT request it "
                         "queued (--wait-rejits), so the count does not depend on speed")
    code, args, env, preload, dll = start(ap, program=fc.PROGRAM, online=True,
                                          sanitized="the clr suite covers the shim there")
    if code is not None:
        return code
    started = time.monotonic()
    t = args.target
    program = t.argv(dll, "--iterations", str(args.iterations))

    plain, secs = run(program, env, timeout=t.timeout(300))
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s, {len(plain.stdout)} bytes of output")
    for line in plain.stderr.splitlines():
        if line.startswith(("throughput:", "first iteration:")):
            say("  program|", line)
    if plain.returncode != 0 or not plain.stdout:
        say("the program fails without the shim")
        sys.stdout.write(plain.stderr[-4000:])
        return SETUP

    # The exceptions' frames without the profiler (Exceptions.cs): the
    # reference for each mode's exceptions run (exceptions_run).
    exc_base = os.path.join(args.work, "exception-frames-plain.txt")
    remove_stale(exc_base)
    base, secs = run(t.argv(dll, "--exceptions-only", "--iterations", "1"),
                     dict(env, ILMAP_FIELD_EXCEPTION_FRAMES=t.path(exc_base), **MINOPTS),
                     timeout=t.timeout(300))
    exc_frames = read_frames(exc_base) if base.returncode == 0 else None
    if not exc_frames:
        say(f"the exceptions' reference run fails (rc {base.returncode})")
        sys.stdout.write(base.stderr[-4000:])
        return SETUP
    say(f"exceptions' reference: {frame_lines(exc_frames)} frames of "
        f"Newtonsoft.Json and the program in {sum(1 for x in exc_frames if x.startswith('case '))} "
        f"cases, {secs:.1f} s")

    selection = fc.NAMESPACE_SELECTION
    say("selection:", selection)
    modes = [m for m in args.modes.split(",") if m]
    hooks_dll = None
    if any(m in fc.WRAP_MODES for m in modes):
        # The wrap modes' hooks: IL only, built once for any platform.
        hooks_args = argparse.Namespace(app=fc.HOOKS_APP, work=os.path.join(args.work, "hooks"),
                                        rid="")
        os.makedirs(hooks_args.work, exist_ok=True)
        hooks_dll = build(hooks_args, env, fc.HOOKS_PROGRAM)
        if hooks_dll is None:
            return SETUP

    failures, table = [], []
    for mode in modes:
        if mode not in fc.MODES:
            say("unknown mode", mode)
            return SETUP
        report = os.path.join(args.work, f"report-{mode}.jsonl")
        remove_stale(report)
        e = fc.mode_env(env, args.profiler, mode, selection, report, target=t)
        if mode in fc.FRAMES_MODES:
            e["ILMAP_SHIM_FRAMES"] = t.path(os.path.join(args.work, f"{mode}.txt"))
        wrap_log = os.path.join(args.work, f"hooks-{mode}.json")
        if mode in fc.WRAP_MODES:
            remove_stale(wrap_log)
            e["DOTNET_STARTUP_HOOKS"] = t.path(os.path.abspath(hooks_dll))
            e["ILMAP_WRAP_LOG"] = t.path(os.path.abspath(wrap_log))
        try:
            late = mode in fc.LATE_MODES
            iterations = args.late_iterations if late else args.iterations
            extra = ["--wait-rejits"] if late else []
            proc, secs = run(program[:-1] + [str(iterations)] + extra, e, timeout=t.timeout(600))
        except Exception as ex:  # a hang: TimeoutExpired
            failures.append(f"{mode}: {ex}")
            table.append((mode, "timeout"))
            continue
        before = len(failures)
        check_mode(mode, proc, secs, plain.stdout, report,
                   args.min_instrumented, failures)
        if mode in fc.WRAP_MODES:
            check_wrap_log(wrap_log, lambda msg, m=mode: failures.append(f"{m}: {msg}"))
        exceptions_run(t, dll, mode, e, base.stdout, exc_frames, args.work,
                       lambda msg, m=mode: failures.append(f"{m}: {msg}"))
        table.append((mode, f"{secs:.1f} s", "PASS" if len(failures) == before else "FAIL"))

    say(f"--- {len(table)} modes in {time.monotonic() - started:.0f} s")
    for row in table:
        say("  ", "  ".join(row))
    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
