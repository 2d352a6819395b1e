#!/usr/bin/env bash
# The amalgamation (scripts/amalgamate.py, doc/amalgamation.md) as a
# consumer without a build system takes it: generated into a scratch
# folder, ilmap.c compiled with nothing but a compiler command line and
# made a static library, which the C consumers link:
#  1. gcc and clang, -std=c11 -pedantic -Wall -Wextra -Werror, without and
#     with ILMAP_HAVE_ZLIB (then the consumer must inflate an embedded PDB);
#     the consumers (examples/instrumented-map.c, test/packaging/consumer.c)
#     run; the object defines no global name without the ilmap_ prefix;
#  2. MinGW-w64 (x86-64, and i686 when installed), with the C11 atomics and
#     with -DILMAP_ATOMIC_FORCE_INTRINSICS (the Interlocked path MSVC
#     takes); the consumers run under wine when wine runs programs here;
#  3. "MSVC by construction" (doc/amalgamation.md#msvc): clang for Windows
#     with -fms-extensions and the GNU-extension warnings as errors, and the
#     code MSVC would see (clang's preprocessor as MSVC: _MSC_VER, no
#     __GNUC__) searched for GNU-only constructs; C11 atomics only in
#     lib/platform/.
# A compiler that is absent is skipped with a message, unless
# ILMAP_AMALGAMATION_REQUIRE names it ("clang mingw wine": scripts/run.sh
# sets it, so that CI cannot skip any); gcc is always required.
set -euo pipefail

src=${1:?usage: amalgamation-test.sh SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
require=" ${ILMAP_AMALGAMATION_REQUIRE:-} "
failed=0
say() { printf 'amalgamation: %s\n' "$*"; }
bad() { say "FAIL: $*"; failed=1; }
absent() { # absent WHAT: a skip, or a failure when required
    if [[ "$require" == *" $1 "* ]]; then bad "$1 is required (ILMAP_AMALGAMATION_REQUIRE) but absent"
    else say "skipped: $1 absent"; fi
}

amal=$work/amalgamation
python3 "$src/scripts/amalgamate.py" "$amal"
for f in ilmap.c ilmap.h ilmap-il.h ilmap-algebra.h ilmap-serial.h ilmap-versions.h \
         ilmap-sig.h ilmap-pdb.h ilmap.hpp; do
    [ -s "$amal/$f" ] || bad "the amalgamation has no $f"
done
# Every public header in include/ is in the folder, unchanged but for
# ilmap.h's static default.
for h in "$src"/include/ilmap*.h*; do
    name=${h##*/}
    [ "$name" = ilmap.h ] && continue
    cmp -s "$h" "$amal/$name" || bad "$name differs from include/$name"
done
say "generated: $(wc -l <"$amal/ilmap.c") lines of ilmap.c from $(grep -c '^/\* ======== lib/' "$amal/ilmap.c") sources"

strict=(-std=c11 -pedantic -Wall -Wextra -Werror)
data=$src/test/fuzz/corpus-pdb

# build TAG CC AR EXE_SUFFIX RUNNER [cflags...] -- [libs...]: ilmap.c into
# a static library, the consumers linked against it and run (RUNNER "-":
# compile and link only).
build() {
    local tag=$1 cc=$2 ar=$3 exe=$4 runner=$5 dir=$work/$1
    shift 5
    local cflags=() libs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do cflags+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    libs=("$@")
    mkdir -p "$dir"
    if ! "$cc" "${strict[@]}" -O2 "${cflags[@]}" -c "$amal/ilmap.c" -o "$dir/ilmap.o" 2>"$dir/cc.log"; then
        sed -n 1,30p "$dir/cc.log"; bad "$tag: ilmap.c does not compile"; return
    fi
    "$ar" rcs "$dir/libilmap.a" "$dir/ilmap.o"
    # A static build adds no global name but ilmap_* to the program.
    if [ -z "$exe" ]; then
        local foreign
        foreign=$(nm -g --defined-only "$dir/ilmap.o" | awk '{print $3}' | grep -v '^ilmap_' || true)
        [ -z "$foreign" ] || bad "$tag: global names without the ilmap_ prefix: $(echo $foreign)"
    fi
    local c
    for c in "$src/examples/instrumented-map.c" "$src/test/packaging/consumer.c"; do
        local name=${c##*/}; name=${name%.c}
        if ! "$cc" "${strict[@]}" "${cflags[@]}" -I"$amal" "$c" "$dir/libilmap.a" "${libs[@]}" \
                -o "$dir/$name$exe" 2>"$dir/$name.log"; then
            sed -n 1,30p "$dir/$name.log"; bad "$tag: $name does not link"; continue
        fi
        [ "$runner" = - ] && continue
        if ! ILMAP_CONSUMER_DATA=$data $runner "$dir/$name$exe" >"$dir/$name.out" 2>&1; then
            sed -n 1,30p "$dir/$name.out"; bad "$tag: $name failed"; continue
        fi
    done
    say "$tag: compiled, linked$([ "$runner" = - ] || echo ", consumers ran")"
}

# 1. gcc and clang.
have_zlib=0
printf '#include <zlib.h>\nint main(void){return zlibVersion()==0;}\n' >"$work/z.c"
gcc "$work/z.c" -lz -o "$work/z" 2>/dev/null && have_zlib=1
for cc in gcc clang; do
    if ! command -v "$cc" >/dev/null 2>&1; then absent "$cc"; continue; fi
    build "$cc" "$cc" ar "" "" -- -pthread
    if [ $have_zlib = 1 ]; then
        ILMAP_CONSUMER_ZLIB=1 build "$cc-zlib" "$cc" ar "" "" -DILMAP_HAVE_ZLIB -- -pthread -lz
    else
        absent zlib
    fi
done

# 2. MinGW-w64, the consumers under wine where it runs Windows programs.
wine_runs() { # wine_runs EXE: wine is here and gives back the exit status
    command -v wine >/dev/null 2>&1 || return 1
    printf 'int main(void){return 3;}\n' >"$work/probe.c"
    "$1" "$work/probe.c" -o "$work/probe.exe" 2>/dev/null || return 1
    local rc=0
    WINEDEBUG=-all DISPLAY='' timeout 120 wine "$work/probe.exe" >/dev/null 2>&1 || rc=$?
    [ $rc = 3 ]
}
export WINEPREFIX=$work/wineprefix WINEDEBUG=-all DISPLAY='' WINEDLLOVERRIDES='mscoree,mshtml='
for triple in x86_64-w64-mingw32 i686-w64-mingw32; do
    cc=$triple-gcc
    if ! command -v "$cc" >/dev/null 2>&1; then
        [ $triple = x86_64-w64-mingw32 ] && absent mingw || say "skipped: $cc absent"
        continue
    fi
    runner=-
    if wine_runs "$cc"; then runner=wine
    elif [ $triple = x86_64-w64-mingw32 ]; then absent wine
    else say "$triple: wine does not run 32-bit programs here: compile and link only"; fi
    build "$triple" "$cc" "$triple-ar" .exe "$runner" -- -static
    build "$triple-intrinsics" "$cc" "$triple-ar" .exe "$runner" \
        -DILMAP_ATOMIC_FORCE_INTRINSICS -- -static
done
command -v wineserver >/dev/null 2>&1 && wineserver -k 2>/dev/null || true

# 3. MSVC by construction (doc/amalgamation.md#msvc).
if command -v clang >/dev/null 2>&1 && command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    # a. The Microsoft dialect (-fms-extensions) on the Windows headers,
    #    with every GNU extension and VLA warned as an error.
    if clang --target=x86_64-w64-mingw32 -fms-extensions "${strict[@]}" -Wgnu -Wvla \
            -Werror=gnu -fsyntax-only "$amal/ilmap.c" 2>"$work/ms.log"; then
        say "clang -fms-extensions -Wgnu -Wvla, Windows x86-64: clean"
    else
        sed -n 1,30p "$work/ms.log"; bad "clang -fms-extensions -Wgnu -Wvla rejects the amalgamation"
    fi
else
    absent clang
fi
if command -v clang >/dev/null 2>&1; then
    # b. What MSVC sees: the preprocessor as MSVC (clang's -fms-compatibility
    #    on the MSVC triple: _MSC_VER defined, __GNUC__ not) over our code
    #    alone (every system header an empty stand-in), then searched for
    #    constructs MSVC has no word for.
    python3 "$src/test/msvc-lint.py" --self-test || bad "the MSVC lint misses what it must find"
    stubs=$work/stubs
    mkdir -p "$stubs/sys" "$stubs/linux" "$stubs/sanitizer"
    grep -ho '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]*>' "$amal"/*.h "$amal/ilmap.c" |
        sed 's/.*<\(.*\)>/\1/' | sort -u | while read -r h; do
            mkdir -p "$stubs/$(dirname "$h")"; : >"$stubs/$h"; done
    for target in x86_64-pc-windows-msvc i686-pc-windows-msvc aarch64-pc-windows-msvc; do
        for zlib in "" -DILMAP_HAVE_ZLIB; do
            out=$work/msvc-$target$zlib.i
            if ! clang --target=$target -fms-compatibility -fms-extensions \
                    -fms-compatibility-version=19.30 -U__clang__ -nostdinc -isystem "$stubs" $zlib \
                    -E "$amal/ilmap.c" -o "$out" 2>"$work/msvc.log"; then
                sed -n 1,20p "$work/msvc.log"; bad "$target: the preprocessor as MSVC fails"; continue
            fi
            # Our lines only (the stand-ins are empty), marked by file.
            if ! python3 "$src/test/msvc-lint.py" "$out"; then
                bad "$target $zlib: GNU-only constructs in the code MSVC would compile"
            fi
        done
    done
    [ $failed = 0 ] && say "the code MSVC would see (x64, x86, arm64; with and without zlib): no GNU-only constructs"
fi
# c. C11 atomics (which MSVC's C compiler takes only behind
#    /experimental:c11atomics) only in the platform layer, whose atomic.h
#    has the Interlocked branch.
if grep -rnE '_Atomic|stdatomic\.h|(^|[^A-Za-z0-9_])atomic_[a-z_]+[[:space:]]*\(' "$src/lib" \
        --include='*.c' --include='*.h' | grep -v "^$src/lib/platform/"; then
    bad "C11 atomics outside lib/platform/"
else
    say "C11 atomics: only in lib/platform/"
fi

exit $failed
