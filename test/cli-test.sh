#!/usr/bin/env bash
# The ilmap tool: each command's output and every documented exit code
# (0 ok, 1 invalid map or PDB, 2 usage, 3 I/O, 4 inexact composition, 5 an
# embedded PDB without zlib).
# usage: cli-test.sh PATH/TO/ilmap
# In a cross build meson's test runner sets MESON_EXE_WRAPPER (the cross
# file's exe_wrapper, e.g. qemu-aarch64 -L /usr/aarch64-linux-gnu): the
# cross-built tool runs through it. Its output is compared without CRs
# (a Windows build writes CRLF), see expect.
set -u
tool_path=$1
wrapper=()
if [ -n "${MESON_EXE_WRAPPER:-}" ]; then
    eval "wrapper=($MESON_EXE_WRAPPER)"
fi
tool() { "${wrapper[@]}" "$tool_path" "$@"; }
tool=tool
# tool_in FILE ARGS...: the tool with FILE as its standard input.
tool_in() { local in=$1; shift; tool "$@" < "$in"; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0

# expect CODE DESCRIPTION -- COMMAND...: runs it, keeps stdout+stderr in $out
expect() {
    local want=$1 what=$2
    shift 3
    out=$("$@" 2>&1)
    local got=$?
    out=${out//$'\r'/} # a Windows build's tool writes CRLF line ends (text mode)
    if [ "$got" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf 'FAIL: %s: exit %s, want %s\n%s\n' "$what" "$got" "$want" "$out"
    fi
}

# contains TEXT DESCRIPTION: checks the last command's output
contains() {
    if printf '%s' "$out" | grep -qF -- "$1"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        printf 'FAIL: %s: output lacks "%s":\n%s\n' "$2" "$1" "$out"
    fi
}

cat > "$dir/seed.txt" <<'MAP'
# the documentation's example
0 0
5 10
9 20   # trailing comment
MAP
printf '0 0\n4 4\n10 10\n12 15\n20 23\n' > "$dir/pass2.txt"
printf '0 0\n6 36\n4 50\n' > "$dir/unsorted.txt"
printf '0 0\n5 ten\n' > "$dir/bad.txt"
printf '2 10\n6 36\n' > "$dir/late.txt"
printf '0 0\n100 PROLOG\n' > "$dir/special.txt"

expect 0 "help" -- "$tool" --help
contains "exit status" "help lists exit codes"
expect 0 "version" -- "$tool" --version
expect 2 "no arguments" -- "$tool"
expect 2 "unknown command" -- "$tool" frobnicate x
expect 2 "translate without a direction" -- "$tool" translate "$dir/seed.txt"
expect 2 "compose without -o" -- "$tool" compose "$dir/seed.txt" "$dir/pass2.txt"
expect 2 "unknown option" -- "$tool" show "$dir/seed.txt" --bogus
expect 2 "bad offset" -- "$tool" translate "$dir/seed.txt" --old -3

expect 0 "show text" -- "$tool" show "$dir/seed.txt"
contains "3 entries, strict, text" "show header"
contains "9 20 1" "show entry"
expect 0 "validate text" -- "$tool" validate "$dir/seed.txt"
contains "valid strict COR_IL_MAP, 3 entries" "validate message"
expect 1 "validate unsorted" -- "$tool" validate "$dir/unsorted.txt"
contains "entry 2 (4 -> 50)" "names the entry"
expect 0 "validate --lenient" -- "$tool" validate "$dir/unsorted.txt" --lenient
contains "valid lenient" "lenient accepted"
expect 1 "malformed line" -- "$tool" show "$dir/bad.txt"
contains "bad.txt:2:" "names the line"
expect 3 "missing file" -- "$tool" show "$dir/nope.txt"

# translate: the documented answers and the DAC difference (doc/il-maps.md#dac).
expect 0 "old 7" -- "$tool" translate "$dir/seed.txt" --old 7
[ "$out" = 10 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: old 7 -> $out"; }
expect 0 "new 19" -- "$tool" translate "$dir/seed.txt" --new 19
[ "$out" = 5 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: new 19 -> $out"; }
expect 0 "new 5 in-process" -- "$tool" translate "$dir/late.txt" --new 5
[ "$out" = PROLOG ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: new 5 -> $out"; }
expect 0 "new 5 DAC" -- "$tool" translate "$dir/late.txt" --new-dac 5
[ "$out" = 2 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: dac 5 -> $out"; }
expect 0 "special names" -- "$tool" translate "$dir/seed.txt" --old EPILOG
[ "$out" = EPILOG ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: EPILOG -> $out"; }

# compose: serialized and text output, both readable again.
expect 0 "compose" -- "$tool" compose "$dir/seed.txt" "$dir/pass2.txt" -o "$dir/c.ilmap" --require-exact
contains "3 entries, strict; exact: old->new new->old new->old(DAC)" "compose summary"
expect 0 "show serialized" -- "$tool" show "$dir/c.ilmap"
contains "3 entries, strict, serialized" "serialized header"
contains "9 23 1" "composed entry"
expect 0 "validate serialized" -- "$tool" validate "$dir/c.ilmap"
expect 0 "translate serialized" -- "$tool" translate "$dir/c.ilmap" --old 9
[ "$out" = 23 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: composed 9 -> $out"; }
expect 0 "compose --text" -- "$tool" compose "$dir/c.ilmap" "$dir/seed.txt" -o "$dir/c2.txt" --text
expect 0 "text output loads" -- "$tool" show "$dir/c2.txt"
contains "5 20 1" "twice composed"
contains "2 entries" "equal answers merged"
expect 4 "inexact with --require-exact" -- "$tool" compose "$dir/seed.txt" "$dir/late.txt" -o "$dir/x.ilmap" --require-exact
contains "not exact" "inexact message"
expect 1 "compose of an unsorted map" -- "$tool" compose "$dir/unsorted.txt" "$dir/seed.txt" -o "$dir/x.ilmap"
expect 3 "unwritable output" -- "$tool" compose "$dir/seed.txt" "$dir/pass2.txt" -o "$dir/no/such/dir/c.ilmap"
expect 0 "specials as values" -- "$tool" show "$dir/special.txt"
contains "100 PROLOG 1" "special printed by name"

# The text format's numbers: decimal (a leading zero is not octal), 0x hex,
# a negative ACCURATE; lines of any length; a NUL byte is malformed.
printf '0 0\n010 0x10 -1 # ten, sixteen\n' > "$dir/numbers.txt"
expect 0 "decimal with a leading zero, hex, negative accurate" -- "$tool" show "$dir/numbers.txt"
contains "10 16 -1" "010 is ten"
{ printf '0 0\n# '; head -c 5000 /dev/zero | tr '\0' x; printf '\n7 9\n'; } > "$dir/long.txt"
expect 0 "a long comment line" -- "$tool" show "$dir/long.txt"
contains "7 9 1" "after a long line"
printf '0 0\n5 1\0000\n' > "$dir/has-zero-byte.txt"
expect 1 "a NUL byte" -- "$tool" show "$dir/has-zero-byte.txt"
contains "has-zero-byte.txt:2:" "names the line"
expect 2 "octal-looking offset argument is decimal" -- "$tool" translate "$dir/seed.txt" --old 0x
expect 0 "translate 010" -- "$tool" translate "$dir/seed.txt" --old 010
[ "$out" = 20 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: old 010 -> $out"; }

# Damaged serialized files: a flipped byte, a cut, a foreign byte order.
cp "$dir/c.ilmap" "$dir/flip.ilmap"
printf '\x07' | dd of="$dir/flip.ilmap" bs=1 seek=40 conv=notrunc 2>/dev/null
expect 1 "flipped byte" -- "$tool" validate "$dir/flip.ilmap"
contains "CRC-32C mismatch" "checksum named"
head -c 50 "$dir/c.ilmap" > "$dir/cut.ilmap"
expect 1 "truncated" -- "$tool" show "$dir/cut.ilmap"
contains "ends before" "truncation named"
cp "$dir/c.ilmap" "$dir/swapped.ilmap"
printf '\x4D\x4C\x49\x89' | dd of="$dir/swapped.ilmap" bs=1 seek=0 conv=notrunc 2>/dev/null
expect 1 "byte-swapped magic" -- "$tool" validate "$dir/swapped.ilmap"
contains "other byte order" "byte order named"

# source: token + IL offset -> document, line, column from a small real
# PDB (test/fuzz/corpus-pdb: Tiny.cs, built with the path mapped to /src)
# and the same program's DLL with its PDB embedded.
pdbs=$(cd "$(dirname "$0")/fuzz/corpus-pdb" && pwd)
printf '0x06000001 0\n0x06000001 3\n0X6000002 1000\n0x02000001 0\n0x06000099 0\n' > "$dir/q.txt"
expect 0 "source from a .pdb" -- tool_in "$dir/q.txt" source "$pdbs/tiny.pdb"
want=$'0x06000001 0 /src/Tiny.cs 7 13\n0x06000001 3 /src/Tiny.cs 8 31\n0x06000002 1000 /src/Tiny.cs 22 13\n0x02000001 0 -\n0x06000099 0 -'
[ "$out" = "$want" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); printf 'FAIL: source lines:\n%s\nwant:\n%s\n' "$out" "$want"; }
out=$(tool_in "$dir/q.txt" source "$pdbs/tiny-embedded.dll" 2>&1)
rc=$?
out=${out//$'\r'/}
if [ $rc -eq 0 ] && [ "$out" = "$want" ]; then
    pass=$((pass + 1))
elif [ $rc -eq 5 ] && printf '%s' "$out" | grep -qF "no zlib"; then
    pass=$((pass + 1)) # a build without zlib says so
else
    fail=$((fail + 1)); printf 'FAIL: source from an embedded PDB: exit %s\n%s\n' "$rc" "$out"
fi
# A DLL and its PDB beside it (found by the CodeView entry's file name),
# then the same DLL with one byte of the CodeView GUID changed: the PDB's
# id no longer matches.
mkdir -p "$dir/beside"
cp "$pdbs/tiny.dll" "$dir/beside/Tiny.dll"
cp "$pdbs/tiny.pdb" "$dir/beside/Tiny.pdb"
expect 0 "source: PDB beside the DLL" -- tool_in "$dir/q.txt" source "$dir/beside/Tiny.dll"
[ "$out" = "$want" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); printf 'FAIL: source beside:\n%s\n' "$out"; }
rsds=$(grep -obUaP "RSDS" "$dir/beside/Tiny.dll" | head -n 1 | cut -d: -f1)
printf '\x5A' | dd of="$dir/beside/Tiny.dll" bs=1 seek=$((rsds + 4)) conv=notrunc 2>/dev/null
expect 1 "source: PDB with another id" -- tool_in "$dir/q.txt" source "$dir/beside/Tiny.dll"
contains "its id differs" "the mismatch is named"
head -c 300 "$pdbs/tiny.pdb" > "$dir/beside/Tiny.pdb"
expect 1 "source: a malformed PDB beside the DLL" -- "$tool" source "$dir/beside/Tiny.dll"
contains "byte offset" "the PDB's defect is named, not 'no PDB'"
rm "$dir/beside/Tiny.pdb"
expect 1 "source: DLL without a PDB" -- "$tool" source "$dir/beside/Tiny.dll"
contains "no embedded PDB and no PDB beside it" "the missing PDB is named"
# validate --pdb: the map-check rule (doc/source-lines.md#map-check), every visible sequence point of the
# method needs an entry of its own in the map.
printf '0 100\n2 102\n8 110\n12 120\n20 130\n' > "$dir/steps.txt"
expect 1 "validate --pdb: a sequence point without an entry" -- "$tool" validate "$dir/steps.txt" --pdb "$pdbs/tiny.pdb" --token 0x06000001
contains "sequence point at IL 26 (/src/Tiny.cs 10 13) has no entry of its own" "the point is named"
printf '26 140\n' >> "$dir/steps.txt"
expect 0 "validate --pdb: every point has its entry" -- "$tool" validate "$dir/steps.txt" --pdb "$pdbs/tiny.pdb" --token 0x06000001
contains "every visible sequence point of 0x06000001 has its entry (8 points)" "counted"
expect 2 "validate --pdb without --token" -- "$tool" validate "$dir/steps.txt" --pdb "$pdbs/tiny.pdb"
expect 2 "validate --token not a MethodDef" -- "$tool" validate "$dir/steps.txt" --pdb "$pdbs/tiny.pdb" --token 0x02000001
expect 2 "show --pdb" -- "$tool" show "$dir/steps.txt" --pdb "$pdbs/tiny.pdb" --token 0x06000001
printf '0x06000001 x\n' > "$dir/badq.txt"
expect 2 "source: malformed query" -- tool_in "$dir/badq.txt" source "$pdbs/tiny.pdb"
contains "error line 1: not" "names the query line"
printf '6000001 0\n' > "$dir/badq.txt"
expect 2 "source: token without 0x" -- tool_in "$dir/badq.txt" source "$pdbs/tiny.pdb"
# IL offsets in 0x hex too (as IL_0003 is written); a bad line is answered
# with an error line, the rest still answered, the exit status 2 at the end.
printf '0x06000001 0x3\n0x06000001 zz\n\n0x06000002 1000\n0x06000001 0x\n0x06000001 3\n' > "$dir/mixq.txt"
expect 2 "source: every line answered" -- tool_in "$dir/mixq.txt" source "$pdbs/tiny.pdb"
want=$'0x06000001 3 /src/Tiny.cs 8 31\nerror line 2: not "TOKEN IL" (TOKEN 0x hex, IL 0x hex or decimal)\n0x06000002 1000 /src/Tiny.cs 22 13\nerror line 5: not "TOKEN IL" (TOKEN 0x hex, IL 0x hex or decimal)\n0x06000001 3 /src/Tiny.cs 8 31'
got=$(tool_in "$dir/mixq.txt" source "$pdbs/tiny.pdb" 2>/dev/null)
got=${got//$'\r'/}
[ "$got" = "$want" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); printf 'FAIL: source, mixed lines:\n%s\nwant:\n%s\n' "$got" "$want"; }
contains "2 of 5 queries not answered" "the failures are counted"
expect 3 "source: missing file" -- "$tool" source "$dir/nonexistent.pdb"
expect 1 "source: not a PDB" -- "$tool" source "$dir/seed.txt"
contains "metadata" "the defect is named"
head -c 300 "$pdbs/tiny.pdb" > "$dir/cut.pdb"
expect 1 "source: truncated PDB" -- "$tool" source "$dir/cut.pdb"
contains "byte offset" "the offset is named"
expect 2 "source without PATH" -- "$tool" source

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
