#!/usr/bin/env python3
"""The clr suite's end-to-end test: build the C# program offline, run it
without and with libilmap's profiler shim, and fail on any difference in
its output, any crash, any failed check in the shim's report, or too few
checks. With --elt the shim also runs enter/leave hooks with libilmap's
FunctionIDMapper (ILMAP_SHIM_ELT=1), and the hooks' counts are held
against the program's own.

Exit codes (Meson): 0 pass, 1 fail, 77 skipped (no `dotnet` on PATH, or a
sanitizer build whose runtime cannot be found, see sanitizer_preload), 99
setup failure (the program does not build).
"""
import argparse
import collections
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clr_common import (check_report, check_run, finish, profiler_env,  # noqa: E402
                        remove_stale, run, say, start)

CLSID = "{1A6B2C3D-0E4F-4A5B-9C8D-7E6F5A4B3C2D}"
NS = "IlmapShimTest"

# What the shim instruments in the program (see app/Program.cs).
METHODS = f"{NS}.Shapes::*;{NS}.Box`1::*;{NS}.Hot::Step;{NS}.Hot::Loop;{NS}.Plugin::*"
TWINS = f"{NS}.Twins::TwinA={NS}.Twins::TwinB;{NS}.Twins::TwinC={NS}.Twins::TwinD"
LATE = f"{NS}.Late::Compute"
# Never instrumented: only their native bodies go into the version store,
# so that check c_source has frames of original code (Plain.Count, .Pick).
OBSERVE = f"{NS}.Plain::*"
PROBE = f"{NS}.Probe::Hit"

# With --tiering (the dotnet-late-r2r-tiering test), on top: tiered
# compilation kept, so Hot.Step's ReJIT version gets more than one native
# body; a late namespace selector over the framework's precompiled
# (ReadyToRun) collection code, which selects thousands of methods and
# rejits only those that run, each after the runtime found its precompiled
# code (trigger "cached_search"); and one named framework method.
LATE_R2R = "System.Collections.Generic.*::*;System.Text.StringBuilder::ToString"
# Checks (c) need frames of the first body; with tiering a frame may be in
# a later tier, and the frame does not say which (StackFrame's native IP
# is 0 on CoreCLR, shim/FINDINGS.md), so the shim skips them in that run. Check (b) needs the twins' native
# code to be identical, which tiering does not promise (call counting and
# PGO make bodies differ by timing: a 1-byte difference was seen), so that
# run has no twins.
NOT_WITH_TIERING = ("c", "c_store", "b", "a_unmapped")

# The least the report must show for the run to count. Set well below what
# the program produces (see doc/shim.md#clr-suite) so that a JIT change moving a
# few boundaries does not fail the suite, while a shim that checks nothing
# does.
MINIMUM = {
    "a": 200,            # exported IL offsets that are old offsets of our map
    "a_unmapped": 20,    # the unmapped twin's offsets are new instruction starts
    "b": 20,             # twin entries rebuilt by ilmap_native_translate
    "c": 50,             # StackFrame native->IL answers vs ilmap_native_to_il
    "protocol_truncate": 10,
    "spec4_rejitid_ignored": 10,
    "rejit_compiled": 14,
    "store_add": 14,     # versions in libilmap's version store
    "c_store": 50,       # (c) asked of the store by address
    "store_lookup": 14,  # every stored body answers lookups inside it
}

# The unload scenario (app/Unloads.cs): cycles of a collectible copy of
# the program's assembly whose Plugin methods are selected, run and
# unloaded. The runtime does not rejit code of collectible assemblies
# (RequestReJIT succeeds and does nothing, shim/FINDINGS.md): the shim
# instruments them at JITCompilationStarted, and what the store holds of a
# copy is their original-version bodies (compiled under the map) and
# IL-level maps. Not in the hook runs: libilmap's FunctionIDMapper has no
# removal, so hooked FunctionIDs of an unloaded module would dangle in the
# hook checks (doc/shim.md#unloads).
UNLOAD_CYCLES = 5
PLUGIN_METHODS = 2  # Plugin.Work, Plugin.Describe


def check_unloads(checks, events, summary, plain_stdout, shim_stderr, failures):
    """Every cycle printed its lines and unloaded; the shim saw one
    ModuleUnloadStarted per cycle for a copy whose Plugin methods were
    instrumented and stored, removed exactly those from the store (one
    publication; counters dropped by as much; none of its code starts
    answered afterwards), and at shutdown nothing was left pending and the
    store held only the loaded modules' bodies."""
    lines = plain_stdout.splitlines()
    for cycle in range(UNLOAD_CYCLES):
        if f"unload cycle {cycle}: unloaded" not in lines:
            failures.append(f"unload cycle {cycle}: the context did not die (see the output)")
        for call in range(3):
            if not any(line.startswith(f"plugin {cycle}.{call} work ") for line in lines):
                failures.append(f"unload cycle {cycle}: no output of call {call}")
    hits = [int(line.split()[-1]) for line in shim_stderr.splitlines()
            if line.startswith("plugin probe hits ")]
    if len(hits) != UNLOAD_CYCLES or min(hits, default=0) <= 0:
        failures.append(f"the plug-in's instrumented code did not run in every cycle: {hits}")
    unloaded = [e for e in events if e.get("event") == "module_unloaded"
                and e.get("name", "").endswith(f"{NS}.dll")]
    if len(unloaded) != UNLOAD_CYCLES:
        failures.append(f"{len(unloaded)} ModuleUnloadStarted for the plug-in copies, "
                        f"want {UNLOAD_CYCLES}")
    for e in unloaded:
        if min(e.get(k, 0) for k in ("instrumented", "functions", "bodies", "il_maps")) \
                < PLUGIN_METHODS:
            failures.append(f"an unloaded copy had fewer than {PLUGIN_METHODS} instrumented "
                            f"methods, functions, bodies or IL maps: {json.dumps(e)}")
    kinds = collections.Counter(c["check"] for c in checks)
    for kind, least in (("unload_removed", UNLOAD_CYCLES), ("unload_stats", UNLOAD_CYCLES),
                        ("unload_lookup", UNLOAD_CYCLES * PLUGIN_METHODS), ("store_final", 1)):
        if kinds[kind] < least:
            failures.append(f"only {kinds[kind]} '{kind}' checks (want >= {least})")
    if summary is not None and (summary.get("modules_unloaded", 0) < UNLOAD_CYCLES
                                or summary.get("unload_store_failures")):
        failures.append(f"summary: {summary.get('modules_unloaded')} modules unloaded, "
                        f"{summary.get('unload_store_failures')} store removals failed")
    final = [c for c in checks if c["check"] == "store_final"]
    say(f"  unloads: {len(unloaded)} plug-in modules unloaded, removed (functions, ReJIT "
        f"versions, bodies, IL maps) "
        f"{[(e.get('functions'), e.get('versions'), e.get('bodies'), e.get('il_maps')) for e in unloaded]}, "
        f"probe hits in the copies {hits} (instrumented at JIT time), lookups after removal "
        f"{kinds['unload_lookup']}; store at shutdown: "
        f"{json.dumps(final[0]) if final else 'no check'}")


# With --elt-corelib: CoreLib methods selected, so every CoreLib function
# the program JIT-compiles is hooked (over 1,300 in this program).
CORELIB = ("System.Runtime.GCSettings::set_LatencyMode;"
           "System.Collections.Generic.Dictionary`2::FindValue")
MINIMUM_ELT_CORELIB = {
    "elt_setup": 1,
    "elt_mapper": 1,
    "elt_hooks": 1,
    "elt_client": 1000,
}

# With --elt, on top. The program's module has 26 hooked functions.
MINIMUM_ELT = {
    "elt_setup": 1,
    "elt_mapper": 1,
    "elt_hooks": 1,
    "elt_client": 15,    # one per client ID
}


def frames_agreement(plain_path, shim_path):
    """How many recorded frames report the same (method, IL offset) with
    and without the shim: informational, since probes change where the JIT
    puts its boundaries (see shim/FINDINGS.md)."""
    try:
        with open(plain_path) as f:
            plain = [line.split()[0:3:2] for line in f if line.strip()]
        with open(shim_path) as f:
            shim = [line.split()[0:3:2] for line in f if line.strip()]
    except OSError:
        return None
    same = sum(1 for a, b in zip(plain, shim) if a == b)
    return same, len(plain), len(shim)


# Check c_source (frames' document, line, column from the version store
# and the module's PDB): the least each kind must have checked, so that a
# shim that finds no PDB or no body fails. "caller": frames whose line is
# also the call site's [CallerLineNumber], an oracle independent of the
# runtime's stack traces (not every frame: the runtime places frames in
# exception handlers on an earlier line, shim/FINDINGS.md round 9).
SOURCE_MINIMUM = {
    "source_instrumented": 50,
    "source_not_instrumented": 5,
    "source_caller_instrumented": 40,
    "source_caller_not_instrumented": 4,
}


def check_sources(events, failures):
    """The frames_done event's c_source counts against SOURCE_MINIMUM."""
    done = [e for e in events if e.get("event") == "frames_done"]
    if not done:
        failures.append("no frames_done event: the frames were not checked")
        return
    e = done[-1]
    say("  c_source: checked {} frames of instrumented methods ({} with a line from the "
        "runtime, {} on the call site's line), {} of methods not instrumented ({} on the "
        "call site's line), {} of the unmapped twin; skipped: {} without a body, {} in a "
        "method with several tiers, {} other".format(
            e.get("source_instrumented"), e.get("source_runtime_lines_instrumented"),
            e.get("source_caller_instrumented"), e.get("source_not_instrumented"),
            e.get("source_caller_not_instrumented"), e.get("source_unmapped_twin"),
            e.get("source_skipped_no_body"), e.get("source_skipped_tiers"),
            e.get("source_skipped_other")))
    for key, least in SOURCE_MINIMUM.items():
        if e.get(key, 0) < least:
            failures.append(f"c_source: only {e.get(key, 0)} '{key}' (want >= {least})")


def check_elt(checks, probe_hits, failures):
    """The hooks' counts against what the program says it did, and the
    mapper's answers against what the runtime is known to do."""
    clients = {}
    for c in checks:
        if c["check"] == "elt_client":
            clients.setdefault(c.get("method"), []).append(c)
    mapper = [c for c in checks if c["check"] == "elt_mapper"]

    def one(name):
        got = clients.get(name, [])
        if len(got) != 1:
            failures.append(f"want one hooked {name}, the report has {len(got)}")
            return None
        return got[0]

    hit = one("Hit")
    if hit and probe_hits is not None and hit["enters"] != probe_hits:
        failures.append(f"the enter hook counted {hit['enters']} calls of Probe.Hit, "
                        f"the program {probe_hits}")
    main = one("Main")
    if main and (main["enters"] != 1 or main["leaves"] + main["tailcalls"] != 1):
        failures.append(f"Main entered {main['enters']} times, left {main['leaves']}")
    late = one("Compute")
    # Late.Compute is JIT-compiled, then rejitted: the runtime asks the
    # mapper again, and libilmap must answer the same client ID.
    if late and late["mapper_calls"] < 2:
        failures.append(f"the mapper was asked {late['mapper_calls']} times for Late.Compute, "
                        "want >= 2 (JIT, then ReJIT)")
    if mapper:
        m = mapper[0]
        say(f"  elt: mapper calls {m['mapper_calls']}, mapped {m['mapped']}, hooked "
            f"{m['hooked']}, repeated {m['repeated_calls']}; Probe.Hit entered "
            f"{hit['enters'] if hit else '?'} times, program says {probe_hits}")


def check_tiering(checks, events, summary, failures, osr=True):
    """The run with tiering kept and late framework selectors: no cap below
    thousands of selected methods, the ReadyToRun trigger fired, and
    Hot.Step's ReJIT version had more than one native body checked."""
    late = [e for e in events if e.get("event") == "rejit_requested_late"]
    triggers = collections.Counter(e.get("trigger") for e in late)
    if triggers["cached_search"] < 1:
        failures.append("no late ReJIT triggered by a cached (ReadyToRun) function search: "
                        f"{dict(triggers)}")
    bodies = collections.defaultdict(set)
    for c in checks:
        if c["check"] == "protocol_size_query" and "code_start" in c:
            bodies[(c["method"], c.get("rejit"))].add(c["code_start"])
    hot = [len(v) for k, v in bodies.items() if k[0] == f"{NS}.Hot::Step"]
    most = max(hot, default=0)
    if most < 2:
        failures.append(f"Hot.Step: {most} native bodies checked for one ReJIT version, "
                        "want >= 2 with tiering kept")
    multi = sum(1 for v in bodies.values() if len(v) > 1)
    # Every body of every tier is in the version store and answers for
    # itself (check store_lookup), the later tiers of ReJIT versions and
    # Hot.Loop's on-stack-replacement body included (called once: its
    # second body can only be the OSR one, shim/FINDINGS.md).
    looked = collections.defaultdict(set)
    for c in checks:
        if c["check"] == "store_lookup":
            looked[(c["method"], c.get("rejit"))].add(c["code_start"])
    loop = max((len(v) for k, v in looked.items() if k[0] == f"{NS}.Hot::Loop"), default=0)
    step = max((len(v) for k, v in looked.items() if k[0] == f"{NS}.Hot::Step"), default=0)
    # (Where on-stack replacement is off, under wine: doc/shim.md#targets,
    # Hot.Loop has its tier-0 body alone.)
    want_loop = 2 if osr else 1
    if loop != want_loop or step < 2:
        failures.append(f"stored bodies answering lookups: Hot.Loop {loop} (want {want_loop}: "
                        f"tier 0{' and OSR' if osr else ', OSR off'}), Hot.Step {step} "
                        "(want >= 2 tiers)")
    tiers = [e for e in events if e.get("event") == "bodies_by_tier"]
    if not tiers or sum(tiers[0].get("rejit", [0])[1:]) < 2:
        failures.append(f"fewer than 2 later-tier bodies of ReJIT versions stored: {tiers}")
    say(f"  bodies stored and looked up by tier: {json.dumps(tiers[0]) if tiers else 'none'}; "
        f"Hot.Loop {loop}, Hot.Step {step}")
    if summary is None:
        return
    if summary.get("methods_selected", 0) <= 1024:
        failures.append(f"only {summary.get('methods_selected')} methods selected, "
                        "want > 1024 (no fixed cap)")
    for field in ("methods_skipped_no_body", "methods_refused", "methods_dropped",
                  "late_trigger_jit", "late_trigger_cached_search", "bodies_checked",
                  "bodies_extra"):
        if field not in summary:
            failures.append(f"the summary has no {field}")
    if summary.get("methods_dropped"):
        failures.append(f"{summary['methods_dropped']} selected methods dropped")
    if (summary.get("late_trigger_cached_search") != triggers["cached_search"]
            or summary.get("late_trigger_jit") != triggers["jit"]):
        failures.append("the summary's late trigger counts do not match the events")
    say(f"  tiering: selected {summary.get('methods_selected')}, no body "
        f"{summary.get('methods_skipped_no_body')}, refused {summary.get('methods_refused')}, "
        f"rejitted {summary.get('methods_rejitted')}, late triggers {dict(triggers)}, "
        f"bodies {summary.get('bodies_checked')} (extra {summary.get('bodies_extra')}), "
        f"versions with > 1 body {multi}, Hot.Step bodies {most}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", dest="profiler", required=True, help="libilmap_clr.so")
    ap.add_argument("--elt", action="store_true",
                    help="run the shim with enter/leave hooks and libilmap's ID mapper")
    ap.add_argument("--tiering", action="store_true",
                    help="keep tiering, add late ReadyToRun namespace selectors")
    ap.add_argument("--elt-corelib", action="store_true",
                    help="hooks on every function of System.Private.CoreLib (vector "
                         "arguments and returns pass through the hooks); no ReJIT checks")
    ap.add_argument("--floor", action="store_true",
                    help="with --elt-corelib: floor mode (ILMAP_SHIM_ELT_FLOOR=1), hooks "
                         "that only return; output unchanged, nothing counted")
    code, args, env, preload, dll = start(ap)
    if code is not None:
        return code

    failures = []
    if args.elt_corelib:
        args.elt = True
    if args.floor and not args.elt_corelib:
        say("--floor goes with --elt-corelib")
        return 2
    suffix = "-elt-corelib" if args.elt_corelib else "-elt" if args.elt else ""
    if args.floor:
        suffix = "-elt-floor"
    if args.tiering:
        suffix = "-tiering"
    frames_plain = os.path.join(args.work, f"frames-plain{suffix}.txt")
    frames_shim = os.path.join(args.work, f"frames-shim{suffix}.txt")
    report = os.path.join(args.work, f"report{suffix}.jsonl")
    remove_stale(frames_plain, frames_shim, report)

    unloads = not args.elt
    if unloads:
        env = dict(env, ILMAP_TEST_UNLOADS=str(UNLOAD_CYCLES))
    t = args.target
    plain_env = dict(env, ILMAP_SHIM_FRAMES=t.path(frames_plain))
    plain, secs = run(t.argv(dll), plain_env, timeout=t.timeout(120))
    say(f"plain run: rc {plain.returncode}, {secs:.1f} s")
    if plain.returncode != 0:
        failures.append(f"the program fails without the shim (rc {plain.returncode})")

    shim_env = profiler_env(env, CLSID, args.profiler, preload, t,
                            ILMAP_SHIM_METHODS=METHODS,
                            ILMAP_SHIM_TWINS=TWINS,
                            ILMAP_SHIM_LATE=LATE,
                            ILMAP_SHIM_OBSERVE=OBSERVE,
                            ILMAP_SHIM_PROBE=PROBE,
                            ILMAP_SHIM_REPORT=report,
                            ILMAP_SHIM_FRAMES=frames_shim)
    if args.elt:
        shim_env["ILMAP_SHIM_ELT"] = "1"
    if args.tiering:
        shim_env["ILMAP_SHIM_KEEP_TIERING"] = "1"
        shim_env["ILMAP_SHIM_LATE"] = LATE + ";" + LATE_R2R
        del shim_env["ILMAP_SHIM_TWINS"]
        # Call counting at once instead of after 100 ms without new tier-0
        # code: Hot.Step's tier-up then does not depend on how busy the
        # machine is (the program's output does not depend on tiering).
        shim_env["DOTNET_TC_CallCountingDelayMs"] = "0"
    if args.elt_corelib:
        # Selecting CoreLib methods makes the mapper hook every function of
        # CoreLib, Vector128 helpers included (issue: the runtime's slow-path
        # helper zeroed their upper halves). Nothing else is instrumented.
        for name in ("ILMAP_SHIM_TWINS", "ILMAP_SHIM_LATE", "ILMAP_SHIM_PROBE",
                     "ILMAP_SHIM_OBSERVE"):
            del shim_env[name]
        shim_env["ILMAP_SHIM_METHODS"] = CORELIB
    if args.floor:
        shim_env["ILMAP_SHIM_ELT_FLOOR"] = "1"
    shim, secs = run(t.argv(dll), shim_env, timeout=t.timeout(180))
    say(f"run under the shim: rc {shim.returncode}, {secs:.1f} s")
    if shim.stderr and shim.returncode == 0:
        sys.stdout.write("".join("  stderr| " + line + "\n"
                                 for line in shim.stderr.splitlines()[-20:]))
    check_run("shim", shim, plain.stdout, failures.append)
    hits = [line for line in shim.stderr.splitlines() if line.startswith("probe hits: ")]
    probe_hits = int(hits[-1].split()[-1]) if hits else None
    if not probe_hits and not args.elt_corelib:
        failures.append("the probes never ran (no instrumented code executed)")
    if "[ilmap-shim]" not in shim.stderr:
        failures.append("the shim left no trace on stderr: was it loaded?")
    # The program waits for the shim's ReJIT requests and tier-ups through
    # its exported queries (shared/ShimProgress.cs); they must be found.
    if "shim progress queries: found" not in shim.stderr:
        failures.append("the program did not find the shim's progress queries "
                        "(ilmap_shim_wait_rejits): its waits did nothing")

    loaded = check_report(report, failures.append, indent="")
    if loaded:
        checks, events, summary, counts, failed = loaded
        minimum = dict(MINIMUM, **MINIMUM_ELT) if args.elt else MINIMUM
        if args.elt_corelib:
            minimum = MINIMUM_ELT_CORELIB
        if args.tiering:
            minimum = {k: v for k, v in minimum.items() if k not in NOT_WITH_TIERING}
            check_tiering(checks, events, summary, failures,
                          osr=shim_env.get("DOTNET_TC_OnStackReplacement") != "0")
        for kind, least in minimum.items():
            if counts[kind] < least:
                failures.append(f"only {counts[kind]} '{kind}' checks (want >= {least})")
        if args.elt_corelib:
            hooks = [c for c in checks if c["check"] == "elt_hooks"]
            if args.floor != any(c.get("floor") for c in hooks):
                failures.append(f"elt_hooks says floor {[c.get('floor') for c in hooks]}, "
                                f"want {args.floor}")
            say(f"  elt (CoreLib hooked{', floor' if args.floor else ''}): "
                f"{counts['elt_client']} hooked functions checked")
        elif args.elt:
            check_elt(checks, probe_hits, failures)
        else:
            # Without ILMAP_SHIM_ELT the shim must not touch enter/leave.
            elt = [k for k in counts if k.startswith("elt_")]
            if elt:
                failures.append(f"ELT checks in a run without ILMAP_SHIM_ELT: {elt}")
        if unloads:
            check_unloads(checks, events, summary, plain.stdout, shim.stderr, failures)
        if not args.elt_corelib:
            check_sources(events, failures)
        for e in events:
            if e.get("event") in ("runtime", "initialized", "frames_done"):
                say("  event", json.dumps(e))

    agreement = None if args.tiering else frames_agreement(frames_plain, frames_shim)
    if agreement:
        same, n_plain, n_shim = agreement
        say(f"frames: {same} of {n_plain} report the same IL offset with and without probes "
            f"({n_shim} under the shim; informational)")
        if n_plain != n_shim:
            failures.append(f"the program recorded {n_plain} frames plainly, "
                            f"{n_shim} under the shim")

    return finish(failures)


if __name__ == "__main__":
    sys.exit(main())
