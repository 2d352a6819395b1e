#!/usr/bin/env bash
# libilmap taken in as source by a CMake project (the top-level
# CMakeLists.txt): the consumer project test/cmake-subproject takes it with
# add_subdirectory() and with FetchContent, static (the default) and shared
# (BUILD_SHARED_LIBS), builds the packaging test's C and C++ consumers on
# ilmap::ilmap (the library itself with -Werror) and runs them; the C one
# must inflate the embedded PDB when zlib is installed. Skips (77) without
# cmake or a C++ compiler (scripts/run.sh test installs both).
set -euo pipefail

src=${1:?usage: cmake-subproject-test.sh SOURCE_ROOT}
for tool in cmake c++; do
    command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool absent"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ILMAP_CONSUMER_DATA=$src/test/fuzz/corpus-pdb
zlib=0
[ -f /usr/include/zlib.h ] && zlib=1
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

for how in add_subdirectory fetchcontent; do
    for shared in OFF ON; do
        dir=$work/$how-$shared
        if ! cmake -S "$src/test/cmake-subproject" -B "$dir" "${generator[@]}" \
                -DILMAP_SOURCE_DIR="$src" -DHOW=$how -DBUILD_SHARED_LIBS=$shared \
                >"$dir.log" 2>&1; then
            cat "$dir.log"; echo "FAIL: $how (shared $shared): cmake configure"; exit 1
        fi
        want="ilmap 0.2.0: $([ $shared = ON ] && echo SHARED || echo STATIC)_LIBRARY, zlib: $([ $zlib = 1 ] && echo TRUE || echo FALSE)"
        grep -q -- "-- $want" "$dir.log" ||
            { cat "$dir.log"; echo "FAIL: $how (shared $shared): no '$want'"; exit 1; }
        if ! cmake --build "$dir" >"$dir.build.log" 2>&1; then
            tail -n 40 "$dir.build.log"; echo "FAIL: $how (shared $shared): build"; exit 1
        fi
        ILMAP_CONSUMER_ZLIB=$zlib "$dir/consumer_c" >"$dir.c.out" 2>&1 ||
            { cat "$dir.c.out"; echo "FAIL: $how (shared $shared): C consumer"; exit 1; }
        "$dir/consumer_cpp" >"$dir.cpp.out" 2>&1 ||
            { cat "$dir.cpp.out"; echo "FAIL: $how (shared $shared): C++ consumer"; exit 1; }
        # ldd's output first: with pipefail, grep -q closing the pipe early
        # could fail ldd and the pipeline.
        linked=static deps=$(ldd "$dir/consumer_c")
        [[ "$deps" == *libilmap.so* ]] && linked=shared
        [ $linked = "$([ $shared = ON ] && echo shared || echo static)" ] ||
            { echo "FAIL: $how (shared $shared): the consumer links libilmap $linked"; exit 1; }
        echo "$how, $linked: consumers built and ran ($want)"
    done
done
