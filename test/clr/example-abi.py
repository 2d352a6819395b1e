#!/usr/bin/env python3
"""The minimal profiler's profiling API declarations agree with the shim's.

Usage: example-abi.py SOURCE_ROOT

examples/minimal-profiler/clr-profiling.{h,c} carry, so that the example
builds on its own, the subset of shim/com/ the example needs. Both are
written from doc/profiling-abi.md; this test fails (exit 1, one line per
problem) when the two copies say different things:

- a vtable declared in both (IUnknown, IClassFactory, ICorProfilerCallback4,
  ICorProfilerInfo9, IMetaDataImport) has other slot names or another
  order (the example's IMetaDataImport may stop early: it is a prefix), or
  a slot typed in both has another return type or parameter types;
- a typedef, a struct or a #define of both has another definition;
- an interface identifier of both has another value;
- the example's do-nothing table (clr_callback4_stubs) does not set every
  slot of ICorProfilerCallback4, in order (a missing one would be NULL).

Only the standard library.
"""

import glob
import os
import re
import sys

PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def read(paths):
    return "\n".join(strip_comments(open(p, encoding="utf-8").read()) for p in paths)


def macros(text):
    """#define NAME body (object-like and function-like), body normalized."""
    out = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+(?:\([^)]*\))?)((?:[^\n]*\\\n)*[^\n]*)",
                         text, re.M):
        name = m.group(1).split("(")[0]
        out[name] = " ".join(m.group(0).replace("\\\n", " ").split()[2:])
    return out


def expand_self(text, defs):
    """Replaces the self-parameter macros (CB, PI, MI) by their text."""
    for name in ("CB", "PI", "MI"):
        if name in defs:
            text = re.sub(r"\b%s\b" % name, defs[name], text)
    return text


def split_top(text, sep=","):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


KEYWORDS = {"const", "struct", "unsigned", "signed", "volatile", "void", "int", "char",
            "long", "short"}


def param_type(param):
    """A parameter's type with its name dropped: "const IID *riid" ->
    "const IID *", "ObjectID roots[]" -> "ObjectID *"."""
    p = param.replace("[]", " *").replace("*", " * ")
    tokens = p.split()
    if len(tokens) > 1 and re.fullmatch(r"[A-Za-z_]\w*", tokens[-1]) \
            and tokens[-1] not in KEYWORDS and tokens[-2] != "struct":
        tokens = tokens[:-1]
    return " ".join(tokens)


def vtables(text):
    """{Vtbl name: [(slot name, signature or None)]} for every
    `typedef struct X { ... } X;` whose name ends in Vtbl."""
    out = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+Vtbl)\s*\{(.*?)\}\s*\1\s*;", text, re.S):
        slots = []
        for member in split_top(m.group(2), ";"):
            member = " ".join(member.split())
            if not member:
                continue
            if member.startswith("clr_slot "):
                slots += [(n.strip(), None) for n in member[len("clr_slot "):].split(",")]
                continue
            fm = re.fullmatch(r"(.+?)\(\s*(?:CLR_STDCALL\s*)?\*\s*(\w+)\s*\)\s*\((.*)\)", member)
            if not fm:
                problem(f"{m.group(1)}: cannot read the member {member!r}")
                continue
            ret = " ".join(fm.group(1).replace("*", " * ").split())
            params = [param_type(p) for p in split_top(fm.group(3))][1:]  # self dropped
            slots.append((fm.group(2), (ret, tuple(params))))
        out[m.group(1)] = slots
    return out


def structs(text):
    """{name: normalized member list} of the plain structs (not vtables)."""
    out = {}
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*\1\s*;", text, re.S):
        if not m.group(1).endswith("Vtbl"):
            out[m.group(1)] = " ".join(m.group(2).split())
    return out


def typedefs(text):
    """{name: target} of the one-line typedefs (no struct, no function)."""
    out = {}
    for m in re.finditer(r"^\s*typedef\s+([^;{}()]+?)\s*\b(\w+)\s*;", text, re.M):
        if not m.group(1).startswith("struct"):
            out[m.group(2)] = " ".join(m.group(1).replace("*", " * ").split())
    return out


def guids(text):
    out = {}
    text = re.sub(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", " ", text, flags=re.M)  # not the macro
    for m in re.finditer(r"DEFINE_IID\(\s*(\w+)\s*,([^)]*)\)", text):
        out[m.group(1)] = tuple(int(x.strip().rstrip("uU"), 16) for x in m.group(2).split(","))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2])
        return 2
    root = sys.argv[1]
    example = os.path.join(root, "examples", "minimal-profiler")
    ex_h = read([os.path.join(example, "clr-profiling.h")])
    ex_c = read([os.path.join(example, "clr-profiling.c")])
    shim_headers = sorted(glob.glob(os.path.join(root, "shim", "com", "*.h")))
    shim_h = read(shim_headers)
    shim_c = read([os.path.join(root, "shim", "com", "guids.c")])

    ex_defs, shim_defs = macros(ex_h), macros(shim_h)
    ex_v = vtables(expand_self(ex_h, ex_defs))
    shim_v = vtables(expand_self(shim_h, shim_defs))
    for name, slots in sorted(ex_v.items()):
        if name not in shim_v:
            problem(f"{name}: not declared in shim/com/")
            continue
        theirs = shim_v[name]
        prefix = name == "IMetaDataImportVtbl"
        if len(slots) != len(theirs) and not (prefix and len(slots) < len(theirs)):
            problem(f"{name}: {len(slots)} slots, shim/com/ has {len(theirs)}")
        for i, ((a, sa), (b, sb)) in enumerate(zip(slots, theirs)):
            if a != b:
                problem(f"{name} slot {i}: {a} here, {b} in shim/com/")
            elif sa and sb and sa != sb:
                problem(f"{name}.{a} (slot {i}): {sa} here, {sb} in shim/com/")
        print(f"{name}: {len(slots)} slots, "
              f"{sum(1 for (_, s), (_, t) in zip(slots, theirs) if s and t)} typed in both")
    for want in ("IUnknownVtbl", "IClassFactoryVtbl", "ICorProfilerCallback4Vtbl",
                 "ICorProfilerInfo9Vtbl", "IMetaDataImportVtbl"):
        if want not in ex_v:
            problem(f"{want}: not found in clr-profiling.h")

    for what, ours, theirs in (("typedef", typedefs(ex_h), typedefs(shim_h)),
                               ("struct", structs(ex_h), structs(shim_h)),
                               ("#define", ex_defs, shim_defs),
                               ("IID", guids(ex_c), guids(shim_c))):
        common = sorted(set(ours) & set(theirs))
        for name in common:
            if ours[name] != theirs[name]:
                problem(f"{what} {name}: {ours[name]!r} here, {theirs[name]!r} in shim/com/")
        print(f"{what}s in both: {len(common)} of {len(ours)} here")
    if set(guids(ex_c)) - set(guids(shim_c)):
        problem(f"identifiers not in shim/com/guids.c: {sorted(set(guids(ex_c)) - set(guids(shim_c)))}")

    # The do-nothing table names every callback slot, in vtable order.
    table = re.search(r"clr_callback4_stubs\s*=\s*\{(.*?)\};", ex_c, re.S)
    set_slots = re.findall(r"\.(\w+)\s*=", table.group(1)) if table else []
    want = [n for n, _ in ex_v.get("ICorProfilerCallback4Vtbl", [])]
    if set_slots != want:
        missing = [n for n in want if n not in set_slots]
        problem(f"clr_callback4_stubs sets {len(set_slots)} slots of {len(want)}"
                f"{', missing ' + ', '.join(missing) if missing else ', not in vtable order'}")

    for p in PROBLEMS:
        print("FAIL:", p)
    print("PASS" if not PROBLEMS else f"FAIL: {len(PROBLEMS)} problems")
    return 1 if PROBLEMS else 0


if __name__ == "__main__":
    sys.exit(main())
