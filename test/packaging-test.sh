#!/usr/bin/env bash
# Consumers can use libilmap the documented ways:
#  1. installed, found with pkg-config: the C consumer, and the C++
#     consumers (include/ilmap.hpp) with every C++ compiler at hand:
#     consumer.cpp (the throwing forms) with exceptions, consumer-nothrow.cpp
#     (the result<T> forms) with exceptions, with -fno-exceptions, and with
#     exceptions but -DILMAP_CPP_NO_EXCEPTIONS;
#  2. installed, found with CMake: find_package(ilmap 0.2 REQUIRED) from a
#     moved copy of the installed tree (the package is relocatable), the C
#     and C++ consumers on ilmap::ilmap (consumer-nothrow.cpp with
#     -fno-exceptions), the C one on ilmap::ilmap_static;
#     the installed `ilmap` tool runs from the moved tree;
#  3. as a Meson subproject, through dependency('ilmap')
#     (override_dependency), the library alone (-Dilmap:shim=false): the C
#     and the C++ consumers (consumer-nothrow.cpp with cpp_eh=none).
# The consumers (test/packaging/) check real answers and exit non-zero
# otherwise. Skips (77) in a cross build, and when cmake or a C++ compiler
# is absent after running what does not need them; `scripts/run.sh test` installs both.
set -euo pipefail

src=$1     # the project's source root
build=$2   # this build's directory (for the install step)
sanitize=${3:-none}  # the build's b_sanitize: the consumer must match an instrumented library
cc_id=${4:-gcc}      # the build's C compiler (meson's id): consumers use the same family
cross=${5:-native}   # "cross" in a cross build (meson.is_cross_build())
if [ "$cross" = cross ]; then
    # The consumers are built with the build machine's gcc/g++/cmake and
    # run directly; a cross-built library can be neither linked by them
    # nor run without the exe wrapper. The native builds cover packaging.
    echo "SKIP: cross build: the packaging consumers need the host's own compilers and cmake"
    exit 77
fi
san_flags=()
[ "$sanitize" = none ] || san_flags=(-fsanitize="$sanitize")
consumers=$src/test/packaging
# The C++ consumer reads the PDB test data from here.
export ILMAP_CONSUMER_DATA=$src/test/fuzz/corpus-pdb
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
missing=()

# The compilers: the library's family first. An instrumented library needs
# the consumer built by the same family (one sanitizer runtime); otherwise
# the C++ consumer is built by every C++ compiler found (the header must
# pass -Werror with g++ and clang++ alike).
if [ "$cc_id" = clang ]; then
    cc=clang; cxx_all=(clang++ g++)
else
    cc=gcc; cxx_all=(g++ clang++)
fi
command -v "$cc" >/dev/null 2>&1 || cc=cc
cxxs=()
for c in "${cxx_all[@]}"; do
    command -v "$c" >/dev/null 2>&1 && cxxs+=("$c")
done
if [ "$sanitize" != none ] && [ ${#cxxs[@]} -gt 0 ] && [ "${cxxs[0]}" != "${cxx_all[0]}" ]; then
    cxxs=()  # only the other family's compiler: its sanitizer runtime would not match
fi
[ "$sanitize" = none ] || [ ${#cxxs[@]} -eq 0 ] || cxxs=("${cxxs[0]}")
[ ${#cxxs[@]} -gt 0 ] || missing+=("a C++ compiler (${cxx_all[0]})")
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
cxx_warnings=(-std=c++17 -Wall -Wextra -Wpedantic -Werror -Wconversion -Wsign-conversion
              -Wshadow -Wold-style-cast)

echo "== installed, via pkg-config"
# Not --no-rebuild: `meson test --suite packaging` builds only what tests
# depend on, and install needs every target.
meson install -C "$build" --destdir "$work/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
         python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
pcdir=$(dirname "$(find "$work/root$prefix" -name ilmap.pc | head -n 1)")
libdir=$(dirname "$pcdir")
[ -f "$work/root$prefix/include/ilmap.hpp" ] || { echo "ilmap.hpp not installed"; exit 1; }
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$work/root"
"$cc" "${san_flags[@]}" $(pkg-config --cflags ilmap) "$consumers/consumer.c" -o "$work/consumer" \
    $(pkg-config --libs ilmap)
LD_LIBRARY_PATH="$libdir" "$work/consumer"
# The exception-free consumer in three ways: EXPECT_EXCEPTIONS is what
# ilmap.hpp must detect (ILMAP_CPP_EXCEPTIONS), checked at compile time.
nothrow_modes=("-DEXPECT_EXCEPTIONS=1"
               "-fno-exceptions -DEXPECT_EXCEPTIONS=0"
               "-DILMAP_CPP_NO_EXCEPTIONS -DEXPECT_EXCEPTIONS=0")
for cxx in ${cxxs[@]+"${cxxs[@]}"}; do
    echo "-- C++ consumer, $cxx"
    "$cxx" "${cxx_warnings[@]}" "${san_flags[@]}" $(pkg-config --cflags ilmap) \
        "$consumers/consumer.cpp" -o "$work/consumer-cpp" $(pkg-config --libs ilmap)
    LD_LIBRARY_PATH="$libdir" "$work/consumer-cpp"
    for mode in "${nothrow_modes[@]}"; do
        echo "-- C++ consumer of the result forms, $cxx $mode"
        # shellcheck disable=SC2086 # mode is a list of flags
        "$cxx" "${cxx_warnings[@]}" $mode "${san_flags[@]}" $(pkg-config --cflags ilmap) \
            "$consumers/consumer-nothrow.cpp" -o "$work/consumer-nothrow" \
            $(pkg-config --libs ilmap)
        LD_LIBRARY_PATH="$libdir" "$work/consumer-nothrow"
    done
done
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

if command -v cmake >/dev/null 2>&1 && [ ${#cxxs[@]} -gt 0 ]; then
    echo "== installed, via CMake (find_package(ilmap 0.2), relocated prefix)"
    # The installed tree, moved: nothing may point at the configured prefix.
    mv "$work/root$prefix" "$work/moved"
    # The installed tool finds the installed library from the moved tree
    # (its rpath is relative to itself), not from this build.
    echo "-- the installed tool, from the moved prefix"
    env -u LD_LIBRARY_PATH "$work/moved/bin/ilmap" --version
    # ldd's output first (grep -q ending a pipeline early can fail it under pipefail).
    deps=$(env -u LD_LIBRARY_PATH ldd "$work/moved/bin/ilmap")
    grep -q "$work/moved/.*libilmap" <<<"$deps" ||
        { echo "$deps"; echo "the tool does not load the moved libilmap"; exit 1; }
    config=$(find "$work/moved" -name ilmapConfig.cmake | head -n 1)
    [ -n "$config" ] && [ -f "$(dirname "$config")/ilmapConfigVersion.cmake" ] ||
        { echo "ilmapConfig.cmake / ilmapConfigVersion.cmake not installed"; exit 1; }
    default_library=$(meson introspect "$build" --buildoptions |
        python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="default_library"][0])')
    expect_static=OFF
    [ "$default_library" = shared ] || expect_static=ON
    generator=()
    command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
    CC=$cc CXX=${cxxs[0]} cmake -S "$consumers" -B "$work/cmake" "${generator[@]}" \
        -DCMAKE_PREFIX_PATH="$work/moved" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF -DEXPECT_STATIC=$expect_static \
        -DCMAKE_C_FLAGS="${san_flags[*]}" -DCMAKE_CXX_FLAGS="${san_flags[*]}" \
        > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
    grep -q "ilmap 0.2.0 from $work/moved/" "$work/cmake.log" || { cat "$work/cmake.log"; exit 1; }
    grep "ilmap::ilmap includes: $work/moved/include" "$work/cmake.log" ||
        { cat "$work/cmake.log"; exit 1; }
    cmake --build "$work/cmake" > "$work/cmake-build.log" 2>&1 ||
        { cat "$work/cmake-build.log"; exit 1; }
    # No LD_LIBRARY_PATH: CMake's build rpath finds the imported library.
    "$work/cmake/consumer_c"
    "$work/cmake/consumer_cpp"
    "$work/cmake/consumer_nothrow"
    if [ "$expect_static" = ON ]; then
        echo "-- ilmap::ilmap_static"
        "$work/cmake/consumer_static"
        deps=$(ldd "$work/cmake/consumer_static")
        ! grep -q libilmap <<<"$deps" ||
            { echo "consumer_static loads libilmap.so"; exit 1; }
    fi
fi

echo "== as a Meson subproject"
mkdir -p "$work/proj/subprojects"
ln -s "$src" "$work/proj/subprojects/ilmap"
cp "$consumers/consumer.c" "$consumers/consumer.cpp" "$consumers/consumer-nothrow.cpp" \
    "$consumers/meson.build" "$work/proj/"
langs=(c cpp)
if [ ${#cxxs[@]} -eq 0 ]; then
    # No C++ compiler: the C consumer alone.
    sed -i -e "s/'c', 'cpp',/'c',/" -e '/consumer-cpp/d' -e '/consumer-nothrow/,/)$/d' \
        "$work/proj/meson.build"
    langs=(c)
fi
# As a consumer would: the library alone (-Dilmap:shim=false builds no shim).
CC=$cc CXX=${cxxs[0]:-c++} meson setup "$work/proj/build" "$work/proj" -Db_sanitize="$sanitize" \
    -Dilmap:shim=false -Dilmap:tests=false -Dilmap:bench=false -Dilmap:examples=false \
    > "$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
grep -q "Executing subproject ilmap" "$work/setup.log" || { cat "$work/setup.log"; exit 1; }
ninja -C "$work/proj/build" >/dev/null
! find "$work/proj/build" -name 'libilmap_clr*' | grep -q . ||
    { echo "-Dilmap:shim=false built the shim"; exit 1; }
"$work/proj/build/consumer"
[ "${langs[*]}" = c ] || { "$work/proj/build/consumer-cpp" && "$work/proj/build/consumer-nothrow"; }

if [ ${#missing[@]} -gt 0 ]; then
    echo "SKIP: not found: ${missing[*]} (scripts/run.sh test installs them);" \
         "the C consumers above passed, the CMake and C++ ones did not run"
    exit 77
fi
