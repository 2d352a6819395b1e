#!/usr/bin/env bash
# One entry point for the two jobs README.md documents:
#   bash scripts/run.sh bench   build optimized, run the bench suite on its built-in data,
#                               then (with `dotnet` on PATH) the profiler overhead bench
#   bash scripts/run.sh test    build and run every test suite, plain and under
#                               AddressSanitizer + UndefinedBehaviorSanitizer, the
#                               concurrent code under ThreadSanitizer, then the
#                               libFuzzer targets for a bounded time in a clang build, then
#                               a Windows x86-64 (MinGW-w64) cross build tested under wine
#   bash scripts/run.sh fuzz [--minutes N]   a long libFuzzer campaign, N minutes per
#                               target, new coverage merged into test/fuzz/corpus-*
# Installs what is missing (meson, ninja, a C compiler, pkg-config, zlib's headers for
# embedded Portable PDBs (zlib1g-dev); for the tests also
# cmake, g++, clang with its libFuzzer runtime, gcc-mingw-w64-x86-64, wine and wine64)
# with apt-get first,
# saying so. Extra arguments after the job go to the bench program.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

say() { printf '[run.sh] %s\n' "$*"; }

apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            say "need root (or sudo) to install: $*"; exit 1
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        say "apt-get not found: please install $* yourself"; exit 1
    fi
    say "installing with apt-get: $*"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

ensure_tools() {
    local missing=()
    command -v meson >/dev/null 2>&1 || missing+=(meson)
    command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
    command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
    # zlib is optional to the build (embedded Portable PDBs are deflate
    # data); the test and bench jobs install it so the PDB tests run whole.
    if [ "${job:-}" = test ] || [ "${job:-}" = bench ]; then
        [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
    fi
    if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1 &&
       ! command -v clang >/dev/null 2>&1; then
        missing+=(gcc libc6-dev)
    fi
    # The test job's packaging suite also builds a CMake consumer
    # (find_package(ilmap)) and C++ consumers of include/ilmap.hpp.
    # The amalgamation suite compiles it for Windows too (MinGW-w64) and
    # runs its consumers under wine; the Windows job uses both again.
    if [ "${job:-}" = test ]; then
        command -v cmake >/dev/null 2>&1 || missing+=(cmake)
        command -v g++ >/dev/null 2>&1 || missing+=(g++)
        # The minimal profiler's copy-out build (dotnet-example) uses make.
        command -v make >/dev/null 2>&1 || missing+=(make)
        command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
        command -v wine >/dev/null 2>&1 || missing+=(wine)
        [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1 || missing+=(wine64)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        apt_install "${missing[@]}"
    else
        say "meson $(meson --version), ninja $(ninja --version), $(cc --version | head -n 1)"
    fi
}

# configure DIR [meson options...]: set up once, reconfigure if the options changed.
configure() {
    local dir=$1; shift
    local log
    log=$(mktemp)
    # Quiet when it works; meson's own words when it does not.
    if [ -f "$dir/build.ninja" ]; then
        meson configure "$dir" "$@" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; return 1; }
    else
        meson setup "$dir" "$@" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; return 1; }
    fi
    rm -f "$log"
    say "configured $dir: $*"
}

job_bench() {
    # -O2: what distributions build packages with (see README, Performance)
    configure build-release --buildtype=release -Doptimization=2 -Dtests=false -Dexamples=false
    ninja -C build-release
    for b in build-release/bench/bench-*; do
        [ -x "$b" ] && [ -f "$b" ] || continue
        say "running $b $*"
        "$b" "$@"
    done
    # The profiler shim's overhead on real code (bench/overhead.py): the
    # shim builds in build-release whatever -Dtests says.
    if command -v dotnet >/dev/null 2>&1 && [ -f build-release/shim/libilmap_clr.so ]; then
        say "running bench/overhead.py (profiler overhead, plain vs the shim's modes)"
        python3 bench/overhead.py --shim build-release/shim/libilmap_clr.so \
            --work build-release/bench/overhead
    else
        say "no dotnet on PATH (or no shim built): skipping the profiler overhead bench"
    fi
}

# libFuzzer needs clang and its runtime library (Debian: libclang-rt-dev).
ensure_fuzzer() {
    local probe
    probe=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' > "$probe/f.c"
    if ! command -v clang >/dev/null 2>&1 ||
       ! clang -fsanitize=fuzzer "$probe/f.c" -o "$probe/f" >/dev/null 2>&1; then
        apt_install clang libclang-rt-dev
    fi
    rm -rf "$probe"
}

# Windows x86-64: a MinGW-w64 cross build (cross/x86_64-w64-mingw32.ini)
# of the library, the ilmap tool, the tests, the benches and the shim,
# warnings as errors, every test run under wine: the clr and field suites
# inside the real win-x64 .NET runtime (the programs published for it; the
# runner gives them the wine settings the runtime needs, doc/shim.md#targets).
# The wine prefix lives in the build directory and is created without a
# display (no Mono/Gecko installers: mscoree and mshtml are disabled for
# the native tests; the .NET runs get mscoree back).
job_windows() {
    local missing=()
    command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
    command -v wine >/dev/null 2>&1 || missing+=(wine)
    [ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1 || missing+=(wine64)
    if [ ${#missing[@]} -gt 0 ]; then
        apt_install "${missing[@]}"
    fi
    # configure_win DIR [options]: the cross file only at setup (meson
    # configure does not take one).
    configure_win() {
        local dir=$1; shift
        if [ -f "$dir/build.ninja" ]; then configure "$dir" "$@"
        else configure "$dir" --cross-file cross/x86_64-w64-mingw32.ini "$@"; fi
    }
    configure_win build-win64 -Dbench=true -Dtests=true
    ninja -C build-win64

    export WINEDEBUG=-all WINEPREFIX="$here/build-win64/wine-prefix"
    export WINEDLLOVERRIDES='mscoree,mshtml='
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
        say "creating the wine prefix $WINEPREFIX (first start of wine)"
        # Without a display; a failure here shows again in the tests.
        DISPLAY='' wineboot -i >/dev/null 2>&1 || say "wineboot -i failed (continuing)"
    fi
    # One wine server for every test, kept until the end of this job: each
    # test then starts a Windows process only. First the server that
    # wineboot (or an earlier run) started must be gone: it exits a few
    # seconds after its last client, and a test that connects while it
    # exits fails at once ("wine client error: recvmsg: Connection reset
    # by peer", seen on the first test of a CI run).
    DISPLAY='' wineserver -w || true
    DISPLAY='' wineserver -p || true
    trap "DISPLAY='' wineserver -k 2>/dev/null || true" EXIT
    # The prefix's own processes (services, devices, explorer) start with
    # the first Windows program: a trivial one first, so that no test's
    # time limit pays for them (a first test was seen to finish its checks
    # and then wait out its 30 s at exit).
    DISPLAY='' timeout 300 wine cmd /c exit >/dev/null 2>&1 || say "wine's warm-up failed (continuing)"
    # wine that cannot start a program still exits 0 (seen with 32-bit
    # programs and no wine32: the loader fails, the status is 0), which
    # would pass every test unrun: a program's own exit status must come
    # back first.
    local probe=0
    DISPLAY='' timeout 300 wine cmd /c exit 3 >/dev/null 2>&1 || probe=$?
    if [ "$probe" != 3 ]; then
        say "wine does not run Windows x86-64 programs here (exit 3 came back as $probe): failing this job"
        DISPLAY='' wineserver -k || true
        return 1
    fi
    say "test suites, Windows x86-64 (MinGW-w64) under wine"
    local rc=0
    DISPLAY='' meson test -C build-win64 --print-errorlogs || rc=$?

    # lib/platform/atomic.h's Interlocked path (MSVC's, which CI cannot
    # build) forced on with MinGW-w64: the library and the versions suite.
    configure_win build-win64-intrin -Dbench=false -Dexamples=false \
        -Dc_args=-DILMAP_ATOMIC_FORCE_INTRINSICS
    # Everything (not a list of the suite's executables: a list misses
    # the tests added to the suite later).
    ninja -C build-win64-intrin
    say "suite versions, Windows x86-64, atomics through the Interlocked intrinsics"
    DISPLAY='' meson test -C build-win64-intrin --print-errorlogs --no-rebuild --suite versions ||
        rc=$?
    DISPLAY='' wineserver -k || true
    return $rc
}

job_test() {
    configure build -Dbench=true -Dexamples=true
    ninja -C build
    # Every suite, the field suite (test/field: Newtonsoft.Json and
    # framework code under the shim in every mode) included.
    say "test suites, plain build"
    # The amalgamation suite may not skip a compiler here (clang comes
    # from ensure_fuzzer, MinGW-w64 and wine from ensure_tools).
    ILMAP_AMALGAMATION_REQUIRE="clang mingw wine zlib" meson test -C build --print-errorlogs

    # The library as README.md's install command builds it (release: -O3,
    # where GCC warns of more than at -O2; warnings are errors).
    say "the library alone, buildtype release (README's install command)"
    configure build-install --buildtype=release -Dtests=false -Dbench=false -Dexamples=false \
        -Dshim=false
    ninja -C build-install

    # The same library built from its amalgamation (one generated ilmap.c,
    # doc/amalgamation.md): the suites of the maps, the store and the PDB
    # reader against it.
    configure build-amalg -Damalgamation=true -Dbench=false -Dexamples=false -Dshim=false
    ninja -C build-amalg
    say "suites core, native, versions, pdb against the amalgamation"
    meson test -C build-amalg --print-errorlogs --suite core --suite native --suite versions \
        --suite pdb

    # Sanitizer findings must fail the test, not just print.
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
    configure build-asan -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fno-sanitize-recover=all -Dbench=false
    ninja -C build-asan
    say "test suites, -Db_sanitize=address,undefined"
    meson test -C build-asan --print-errorlogs --timeout-multiplier 3

    # The concurrent code (version store, FunctionIDMapper) under
    # ThreadSanitizer: a data race report fails the test.
    unset ASAN_OPTIONS
    configure build-tsan -Db_sanitize=thread -Db_lundef=false -Dbench=false -Dexamples=false
    ninja -C build-tsan
    say "suite versions, -Db_sanitize=thread"
    meson test -C build-tsan --print-errorlogs --suite versions --timeout-multiplier 3

    # The fuzz targets exist only in a clang build; the rest of that build
    # doubles as the clang -Werror check.
    CC=clang configure build-fuzz -Dbench=false -Dexamples=false
    ninja -C build-fuzz
    say "libFuzzer targets (bounded time), clang build"
    meson test -C build-fuzz --print-errorlogs --suite fuzz

    job_windows
}

# Linux cross targets (cross/*.ini), every test run under qemu-user:
# i686 (32-bit), aarch64 (the NEON kernels), s390x (big-endian). On
# aarch64 the clr and field suites run inside the real linux-arm64 .NET
# runtime under qemu (doc/shim.md#targets); .NET ships no runtime for
# i686 or s390x Linux, so there only the shim's own tests run. The
# packaging test skips (77).
# Randomized tests run fewer iterations (test/meson.build).
job_cross() {
    local missing=() arch triple
    for triple in i686-linux-gnu aarch64-linux-gnu s390x-linux-gnu; do
        command -v "$triple-gcc" >/dev/null 2>&1 || missing+=("gcc-$triple")
    done
    command -v qemu-i386 >/dev/null 2>&1 && command -v qemu-aarch64 >/dev/null 2>&1 &&
        command -v qemu-s390x >/dev/null 2>&1 || missing+=(qemu-user)
    [ -f /usr/i686-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-dev-i386-cross)
    [ -f /usr/aarch64-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-dev-arm64-cross)
    [ -f /usr/s390x-linux-gnu/lib/libc.so.6 ] || missing+=(libc6-dev-s390x-cross)
    [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
    for triple in i686-linux-gnu aarch64-linux-gnu s390x-linux-gnu; do
        arch=${triple%%-*}
        if [ ! -f "build-cross-$arch/build.ninja" ]; then
            meson setup "build-cross-$arch" --cross-file "cross/$triple.ini" \
                -Dbench=false -Dexamples=false >/dev/null
        fi
        say "configured build-cross-$arch: --cross-file cross/$triple.ini"
        ninja -C "build-cross-$arch"
        say "test suites, $arch under qemu-user"
        meson test -C "build-cross-$arch" --print-errorlogs --timeout-multiplier 3
    done
}

job=${1:-}
shift || true
# A long fuzzing campaign: every libFuzzer target for N minutes (default
# 10) from its corpus in the tree (test/fuzz/corpus-NAME), on a working
# copy of it; then the inputs that add coverage are merged back into the
# tree's corpus (review and commit them). A crash stops the job with the
# input saved as build-fuzz/test/fuzz/crash-NAME-*. Prints each target's
# executions and coverage.
job_fuzz() {
    local minutes=10 name exe work log
    if [ "${1:-}" = --minutes ]; then
        minutes=${2:?--minutes N}
        case "$minutes" in ""|0|*[!0-9]*) say "--minutes wants a whole number >= 1"; exit 2 ;; esac
    elif [ -n "${1:-}" ]; then
        say "usage: bash scripts/run.sh fuzz [--minutes N]"; exit 2
    fi
    CC=clang configure build-fuzz -Dbench=false -Dexamples=false
    ninja -C build-fuzz
    for exe in build-fuzz/test/fuzz/fuzz-*; do
        [ -x "$exe" ] && [ -f "$exe" ] || continue
        name=${exe##*/fuzz-}
        work=build-fuzz/corpus-work/$name
        log=build-fuzz/fuzz-$name.log
        mkdir -p "$work" "test/fuzz/corpus-$name"
        say "fuzz-$name: $minutes min from test/fuzz/corpus-$name"
        "$exe" -max_total_time=$((minutes * 60)) -max_len=4096 -print_final_stats=1 \
            -artifact_prefix="build-fuzz/test/fuzz/crash-$name-" \
            "$work" "test/fuzz/corpus-$name" >"$log" 2>&1 || {
            tail -n 40 "$log"; say "fuzz-$name found a crash (see $log)"; exit 1; }
        local execs cov
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
        "$exe" -merge=1 "test/fuzz/corpus-$name" "$work" >"$log.merge" 2>&1
        say "fuzz-$name: $execs executions, $cov, no crash; corpus now $(ls "test/fuzz/corpus-$name" | wc -l) inputs"
    done
}

case "$job" in
    bench) ensure_tools; job_bench "$@" ;;
    test) ensure_tools; ensure_fuzzer; job_test; job_cross ;;
    fuzz) ensure_tools; ensure_fuzzer; job_fuzz "$@" ;;
    *) echo "usage: bash scripts/run.sh bench [bench options] | test | fuzz [--minutes N]" >&2; exit 2 ;;
esac
