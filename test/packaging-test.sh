#!/usr/bin/env bash
# Consumers can use libilmap the two documented ways:
#  1. installed, found with pkg-config;
#  2. as a Meson subproject, through dependency('ilmap') (override_dependency).
# Each builds and runs a small program that translates an offset.
set -euo pipefail

src=$1     # the project's source root
build=$2   # this build's directory (for the install step)
sanitize=${3:-none}  # the build's b_sanitize: the consumer must match an instrumented library
san_flags=()
[ "$sanitize" = none ] || san_flags=(-fsanitize="$sanitize")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/consumer.c" <<'C'
#include <ilmap.h>
#include <stdio.h>
int main(void)
{
    ilmap_entry e[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    ilmap *map = NULL;
    if (ilmap_create(e, 3, 0, &map) != ILMAP_OK)
        return 1;
    unsigned got = ilmap_old_to_new(map, 7);
    ilmap_free(map);
    printf("old 7 -> new %u\n", got);
    return got == 10 ? 0 : 1;
}
C

echo "== installed, via pkg-config"
meson install -C "$build" --destdir "$work/root" --no-rebuild >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
         python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(dirname "$(find "$work/root$prefix" -name ilmap.pc | head -n 1)")
export PKG_CONFIG_PATH="$libdir" PKG_CONFIG_SYSROOT_DIR="$work/root"
cc "${san_flags[@]}" $(pkg-config --cflags ilmap) "$work/consumer.c" -o "$work/consumer" \
    $(pkg-config --libs ilmap)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$work/consumer"

echo "== as a Meson subproject"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
mkdir -p "$work/proj/subprojects"
ln -s "$src" "$work/proj/subprojects/ilmap"
cp "$work/consumer.c" "$work/proj/"
cat > "$work/proj/meson.build" <<M
project('consumer', 'c', default_options: ['b_sanitize=$sanitize', 'b_lundef=false'])
ilmap = dependency('ilmap', fallback: 'ilmap',
  default_options: ['tests=false', 'bench=false', 'examples=false'])
executable('consumer', 'consumer.c', dependencies: ilmap)
M
meson setup "$work/proj/build" "$work/proj" > "$work/setup.log"
grep -q "Executing subproject ilmap" "$work/setup.log" || { cat "$work/setup.log"; exit 1; }
ninja -C "$work/proj/build" >/dev/null
"$work/proj/build/consumer"
