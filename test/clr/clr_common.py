"""What the clr and field suites' runners share: the environment for
`dotnet`, the build of a C# program (built once into the work directory
and reused by every runner; offline, or from the offline folder and
nuget.org for a program with package references), the sanitizer runtime
preload, how to run a process under a profiler and read the shim's report.

Exit codes (Meson): 0 pass, 1 fail, 77 skipped (no `dotnet` on PATH, or a
sanitizer build whose runtime cannot be found, see sanitizer_preload), 99
setup failure (the program does not build).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

SKIP, SETUP = 77, 99

PROGRAM = "IlmapShimTest"


def say(*parts):
    print(f"[{os.path.basename(sys.argv[0])}]", *parts, flush=True)


def remove_stale(*paths):
    """Removes what an earlier run left at each path (a report, a log),
    so that a run which writes nothing is not judged by old output."""
    for path in paths:
        if os.path.exists(path):
            os.remove(path)


def run(cmd, env, timeout, cwd=None):
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    return proc, time.monotonic() - start


def add_arguments(ap):
    """The arguments every runner takes (see test/clr/meson.build)."""
    ap.add_argument("--app", required=True, help="the C# program's source directory")
    ap.add_argument("--work", required=True, help="build and output directory")
    ap.add_argument("--sanitize", default="none", help="the build's b_sanitize")
    ap.add_argument("--cc", default="", help="the C compiler's id")
    ap.add_argument("--cc-path", default="", help="the C compiler")
    ap.add_argument("--rid", default="",
                    help="a .NET runtime identifier (linux-arm64, win-x64, win-x86): publish the "
                         "program self-contained for it and run it through --runner; "
                         "default: the host's dotnet")
    ap.add_argument("--runner", default="",
                    help="the command that runs a --rid program here, blank-separated "
                         "(qemu-aarch64 -L /usr/aarch64-linux-gnu; wine)")


class Target:
    """Where the C# program runs. The host's `dotnet` (no rid); or the
    program published self-contained for another runtime identifier, with
    that platform's real .NET runtime, run here through an emulator
    (qemu-user) or wine. Paths the program or the runtime read (the
    profiler, the report, the frames file, arguments) are written as that
    platform sees them; emulation is slower, so time limits scale."""

    # The runtime's W^X writes code through a second, writable mapping of
    # it; an emulator that translates code (qemu-user) or maps it itself
    # (wine) does not see those writes and runs stale code: under
    # qemu-aarch64 the field program failed 3 runs of 3 with W^X on
    # (a NullReferenceException inside reflection), 0 with it off; under
    # wine 0 of 5 runs of a parallel program passed. Under wine, with W^X
    # off alone, on-stack-replaced code crashed, so OSR is off there too
    # (doc/shim.md#targets, shim/FINDINGS.md).
    EMULATED_ENV = {"DOTNET_EnableWriteXorExecute": "0"}
    WINE_ENV = {"DOTNET_TC_OnStackReplacement": "0"}

    def __init__(self, rid="", runner=""):
        self.rid = rid
        self.runner = runner.split() if runner else []
        self.windows = rid.startswith("win-")
        self.emulated = bool(rid)

    def describe(self):
        return f"{self.rid} ({' '.join(self.runner) or 'natively'})" if self.rid else "host dotnet"

    def argv(self, program, *extra):
        """The command that runs `program` (the built .dll, or the
        published directory's apphost beside it) with extra arguments."""
        if not self.rid:
            return ["dotnet", program] + list(extra)
        base = os.path.splitext(program)[0] + (".exe" if self.windows else "")
        return self.runner + [base] + [self.path(x) if os.path.isabs(x) else x for x in extra]

    def path(self, host_path):
        """host_path as the program sees it (wine: Z:\\...)."""
        if self.windows and host_path and os.path.isabs(host_path):
            return "Z:" + host_path.replace("/", "\\")
        return host_path

    def timeout(self, seconds):
        """A native time limit scaled for emulation: qemu-user runs the
        runtime 3-10x slower."""
        return seconds * 10 if self.emulated else seconds

    def env(self, env):
        """env plus what the platform's runtime needs here."""
        out = dict(env)
        if self.emulated:
            out.update(self.EMULATED_ENV)
        if self.windows:
            # The Windows test job disables mscoree for its native tests;
            # with it disabled a .NET application cannot load
            # System.Runtime.dll.
            out.pop("WINEDLLOVERRIDES", None)
            out.setdefault("WINEDEBUG", "-all")
            out["DISPLAY"] = ""
            out.update(self.WINE_ENV)
        return out


# The settings that name a file: written as the target sees paths.
PATH_SETTINGS = ("ILMAP_SHIM_REPORT", "ILMAP_SHIM_FRAMES", "ILMAP_EXAMPLE_OUT")


def sanitizer_preload(args):
    """An instrumented .so can only live in a process whose first library is
    the sanitizer runtime. dotnet is not built with one, so the runtime is
    preloaded into the run under the profiler (never into `dotnet build`),
    with the options CoreCLR needs: it handles SIGSEGV itself and its own
    memory is not ours to leak-check. Returns the environment additions,
    {} for a build without sanitizers, or None (skip) when the runtime
    library cannot be found."""
    if args.sanitize in ("", "none"):
        return {}
    cc = args.cc_path or ("clang" if args.cc == "clang" else "gcc")
    names = ["libclang_rt.asan-x86_64.so"] if args.cc == "clang" else ["libasan.so", "libubsan.so"]
    wanted = [n for n in names
              if ("address" in args.sanitize or "asan" not in n) and
              ("undefined" in args.sanitize or "ubsan" not in n)]
    libs = []
    for name in wanted:
        try:
            path = subprocess.run([cc, "-print-file-name=" + name], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            path = ""
        if not path or not os.path.isabs(path) or not os.path.isfile(path):
            say(f"sanitizer build (b_sanitize={args.sanitize}) but {name} not found via {cc}: "
                "skipping the real-runtime run (shim-unit covers the shim under the sanitizers)")
            return None
        libs.append(path)
    if not libs:
        say(f"b_sanitize={args.sanitize}: no runtime to preload; skipping")
        return None
    say("sanitizer build: preloading", " ".join(libs))
    return {
        "LD_PRELOAD": " ".join(libs),
        "ASAN_OPTIONS": "detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:"
                        "use_sigaltstack=0:abort_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }


def dotnet_installs(env, what):
    """What `dotnet --list-<what>` names ("sdks" or "runtimes") and is on
    disk: (name, version, directory) triples, newest version last within a
    name (sdks have the name ""). Each line reads "[NAME ]VERSION [ROOT]"."""
    proc, _ = run(["dotnet", f"--list-{what}"], env, timeout=120)
    found = []
    for line in proc.stdout.splitlines():
        m = re.match(r"(?:(\S+) )?(\S+) \[(.+)\]$", line.strip())
        if not m:
            continue
        name, version, root = m.group(1) or "", m.group(2), m.group(3)
        directory = os.path.join(root, version)
        if os.path.isdir(directory):
            found.append((name, version, directory))
    found.sort(key=lambda t: (t[0], _version_key(t[1])))
    return found


def _version_key(text):
    """"10.0.12" sorts after "10.0.9"; a pre-release part compares as text."""
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"[.-]", text)]


def base_env():
    """The caller's environment without any profiler or shim setting, and
    with the SDK's first-run, telemetry and build-server behaviour off."""
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("CORECLR_", "ILMAP_SHIM_", "ILMAP_EXAMPLE_",
                            "DOTNET_TieredCompilation")):
            del env[name]
    env.update({
        "DOTNET_CLI_TELEMETRY_OPTOUT": "1",
        "DOTNET_NOLOGO": "1",
        "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
        "DOTNET_GENERATE_ASPNET_CERTIFICATE": "0",
        "MSBUILDDISABLENODEREUSE": "1",  # no build server left behind by the test
        "DOTNET_CLI_DO_NOT_USE_MSBUILD_SERVER": "1",
    })
    return env


# C# every test program compiles in (ShimProgress.cs: waiting for the shim).
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shared")


def _sources(app):
    return [os.path.join(d, n) for d in (app, SHARED) for n in sorted(os.listdir(d))
            if n.endswith((".cs", ".csproj"))]


NUGET_ORG = "https://api.nuget.org/v3/index.json"
OFFLINE_FEED = "/opt/nuget/packages"


def write_nuget_config(path, online):
    """The package sources of a build: the offline package folder first (if
    there is one), then nuget.org when online. Nothing inherited from the
    user's or machine's configuration."""
    feeds = []
    if os.path.isdir(OFFLINE_FEED):
        feeds.append(f'<add key="offline" value="{OFFLINE_FEED}" />')
    if online:
        feeds.append(f'<add key="nuget.org" value="{NUGET_ORG}" protocolVersion="3" />')
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n'
                '  <packageSources>\n    <clear />\n' +
                "".join(f"    {x}\n" for x in feeds) +
                '  </packageSources>\n</configuration>\n')


def build(args, env, program=PROGRAM, online=False):
    """Copies the program into the work dir and builds it there; returns
    the program's .dll, or None when the build fails. A build newer than
    every source (made by an earlier runner of this suite run) is reused:
    `dotnet build` costs tens of seconds even when it has nothing to do.
    For a --rid target the program is published self-contained for it
    (its runtime pack restored from nuget.org: always online).

    Without online the only package source is the offline folder (the clr
    suite's program references no package, so an empty source list
    restores too). With online (a program with pinned package references)
    nuget.org is listed after the offline folder; if that restore fails
    (no network) and the offline folder exists, the build is retried with
    the offline folder alone."""
    rid = getattr(args, "rid", "")
    online = online or bool(rid)
    out = os.path.join(args.work, "out-" + rid if rid else "out")
    dll = os.path.join(out, program + ".dll")
    sources = _sources(args.app)
    newest = max((os.path.getmtime(p) for p in sources), default=0)
    if os.path.isfile(dll) and os.path.getmtime(dll) >= newest:
        say("reusing the C# program built at", dll)
        return dll

    src = os.path.join(args.work, "src")
    os.makedirs(src, exist_ok=True)
    for path in sources:
        shutil.copy2(path, os.path.join(src, os.path.basename(path)))
    attempts = [True, False] if online and os.path.isdir(OFFLINE_FEED) else [online]
    for n, with_org in enumerate(attempts):
        write_nuget_config(os.path.join(src, "nuget.config"), with_org)
        cmd = ["dotnet", "build", os.path.join(src, program + ".csproj"), "-c", "Release",
               "-o", out, "--nologo", "-v", "quiet", "-p:UseSharedCompilation=false"]
        if rid:
            cmd[1] = "publish"
            cmd += ["-r", rid, "--self-contained", "-p:InvariantGlobalization=true"]
        say("building the C# program:", " ".join(cmd),
            "(sources: offline folder" + (" + nuget.org)" if with_org else ")"))
        proc, secs = run(cmd, env, timeout=600)
        if proc.returncode == 0 and os.path.isfile(dll):
            break
        say(f"dotnet build failed (rc {proc.returncode}, {secs:.0f} s)")
        sys.stdout.write(proc.stdout[-4000:])
        sys.stderr.write(proc.stderr[-4000:])
        if n + 1 == len(attempts):
            return None
        say("retrying with the offline package folder only")
    # MSBuild keeps an unchanged output's old timestamp; the reuse test
    # above compares against the sources, so mark the build as current.
    os.utime(dll)
    say(f"built in {secs:.0f} s")
    return dll


def prepare(args, program=PROGRAM, online=False):
    """Everything before the first run: skip without dotnet (77), the
    sanitizer preload (None: skip, 77), the build (None: setup failure,
    99). Returns (code, env, preload, dll); code is None when the runner
    goes on."""
    if shutil.which("dotnet") is None:
        say("dotnet is not on PATH: skipping")
        return SKIP, None, None, None
    preload = sanitizer_preload(args)
    if preload is None:
        return SKIP, None, None, None
    os.makedirs(args.work, exist_ok=True)
    env = getattr(args, "target", Target()).env(base_env())
    dll = build(args, env, program, online)
    if dll is None:
        return SETUP, None, None, None
    return None, env, preload, dll


def start(ap, program=PROGRAM, online=False, sanitized=None):
    """A runner's start: the common arguments (add_arguments) joined to
    ap's, which must define the profiler's .so as dest "profiler"; then
    prepare(), and the .so must exist (else 99). With `sanitized` (a
    reason), a sanitizer build skips (77). Returns (code, args, env,
    preload, dll); code is None when the runner goes on."""
    add_arguments(ap)
    args = ap.parse_args()
    args.target = Target(args.rid, args.runner)
    if args.rid:
        say("target:", args.target.describe())
    if sanitized and args.sanitize not in ("", "none"):
        say(f"b_sanitize={args.sanitize}: skipping ({sanitized})")
        return SKIP, args, None, None, None
    code, env, preload, dll = prepare(args, program, online)
    if code is None and not os.path.isfile(args.profiler):
        say("no profiler at", args.profiler)
        code = SETUP
    return code, args, env, preload, dll


def finish(failures):
    """Says every failure and the verdict; returns the exit code."""
    for f in failures:
        say("FAIL:", f)
    say("PASS" if not failures else "FAIL")
    return 0 if not failures else 1


def profiler_env(env, clsid, path, preload, target=None, **settings):
    """env plus what CoreCLR needs to load the profiler at path, the
    sanitizer preload, and the profiler's own settings (the ones naming a
    file written as the target sees paths)."""
    target = target or Target()
    out = dict(env, CORECLR_ENABLE_PROFILING="1", CORECLR_PROFILER=clsid,
               CORECLR_PROFILER_PATH=target.path(path))
    out.update(preload)
    out.update({k: target.path(v) if k in PATH_SETTINGS else v for k, v in settings.items()})
    return out


def load_report(path):
    """The shim's JSON-lines report: (checks, events, summary or None, lines
    that are not JSON)."""
    checks, events, summary, bad = [], [], None, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                bad.append(f"line {n}: {e}")
                continue
            kind = obj.get("type")
            if kind == "check":
                checks.append(obj)
            elif kind == "event":
                events.append(obj)
            elif kind == "summary":
                summary = obj
    return checks, events, summary, bad


def check_run(what, proc, plain_stdout, fail, tail=20):
    """The run under a profiler exits 0 and prints what the plain run
    printed; on failure the end of its stderr is shown. fail(message)
    records a failure."""
    if proc.returncode != 0:
        fail(f"the program fails under the {what} (rc {proc.returncode})")
        for line in proc.stderr.splitlines()[-tail:]:
            say("  stderr|", line)
    diff = first_difference(plain_stdout, proc.stdout)
    if diff:
        fail(f"the program's output differs under the {what} (line {diff[0]})")
        say(f"first difference, line {diff[0]}: {diff[1][:160]!r} vs {diff[2][:160]!r}")


def check_report(path, fail, indent="  "):
    """Loads the shim's report and checks what holds for every run: every
    line is JSON, no check failed, the summary line exists, agrees with
    the check lines and counts no ReJIT error. Prints the checks by kind.
    Returns (checks, events, summary, counts, failed) (Counters by kind),
    or None when there is no report."""
    if not os.path.isfile(path):
        fail("no report written")
        return None
    checks, events, summary, bad = load_report(path)
    if bad:
        fail(f"{len(bad)} report lines are not JSON: {bad[:3]}")
    counts, failed = collections.Counter(), collections.Counter()
    for c in checks:
        counts[c["check"]] += 1
        if c.get("ok") is not True:
            failed[c["check"]] += 1
    say(f"{indent}report: {len(checks)} checks, {sum(failed.values())} failed, "
        f"{len(events)} events")
    for kind in sorted(counts):
        extra = f"  FAILED {failed[kind]}" if failed[kind] else ""
        say(f"{indent}  {kind:30} {counts[kind]:7}{extra}")
    for c in [c for c in checks if c.get("ok") is not True][:20]:
        say(f"{indent}FAILED CHECK:", json.dumps(c)[:400])
    if failed:
        fail(f"{sum(failed.values())} failed checks: {dict(failed)}")
    if summary is None:
        fail("the report has no summary line (did Shutdown run?)")
    else:
        if summary.get("checks") != len(checks) or summary.get("failed") != sum(failed.values()):
            fail("the summary does not match the check lines")
        if summary.get("rejit_errors"):
            fail(f"{summary['rejit_errors']} ReJIT errors")
    return checks, events, summary, counts, failed


def first_difference(a, b):
    """(line number, a's line, b's line) of the first difference of two
    outputs, or None when they are equal."""
    if a == b:
        return None
    la, lb = a.splitlines(), b.splitlines()
    for n in range(max(len(la), len(lb))):
        x = la[n] if n < len(la) else "<end>"
        y = lb[n] if n < len(lb) else "<end>"
        if x != y:
            return n + 1, x, y
    return len(la) + 1, "<end>", "<end>"  # differ only in a final newline
