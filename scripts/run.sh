#!/usr/bin/env bash
# One entry point for the two jobs README.md documents:
#   bash scripts/run.sh bench   build optimized, run the bench suite on its built-in data,
#                               then (with `dotnet` on PATH) the profiler overhead bench
#   bash scripts/run.sh test    build and run every test suite, plain and under
#                               AddressSanitizer + UndefinedBehaviorSanitizer, the
#                               concurrent code under ThreadSanitizer, then the
#                               libFuzzer targets for a bounded time in a clang build
# Installs what is missing (meson, ninja, a C compiler, pkg-config; for the tests also
# cmake, g++, and clang with its libFuzzer runtime) with apt-get first,
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
    if ! command -v cc >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1 &&
       ! command -v clang >/dev/null 2>&1; then
        missing+=(gcc libc6-dev)
    fi
    # The test job's packaging suite also builds a CMake consumer
    # (find_package(ilmap)) and C++ consumers of include/ilmap.hpp.
    if [ "${job:-}" = test ]; then
        command -v cmake >/dev/null 2>&1 || missing+=(cmake)
        command -v g++ >/dev/null 2>&1 || missing+=(g++)
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
    if [ -f "$dir/build.ninja" ]; then
        meson configure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
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

job_test() {
    configure build -Dbench=true -Dexamples=true
    ninja -C build
    # Every suite, the field suite (test/field: Newtonsoft.Json and
    # framework code under the shim in every mode) included.
    say "test suites, plain build"
    meson test -C build --print-errorlogs

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
}

job=${1:-}
shift || true
case "$job" in
    bench) ensure_tools; job_bench "$@" ;;
    test) ensure_tools; ensure_fuzzer; job_test ;;
    *) echo "usage: bash scripts/run.sh bench [bench options] | test" >&2; exit 2 ;;
esac
