#!/usr/bin/env python3
"""Search preprocessed C (clang -E as MSVC would preprocess the amalgamation:
test/amalgamation-test.sh) for constructs MSVC's C compiler has no word for.

    python3 test/msvc-lint.py FILE.i

Only lines that came from libilmap (lib/..., the ilmap*.h headers) are
searched; the line markers say where each came from, and a finding is
reported at its source file and line. Exits 1 when something is found.

Searched for (doc/amalgamation.md#msvc): any __name__ keyword left after
preprocessing (__attribute__, __typeof__, __extension__, __asm__,
__builtin_* spelled __x__, ...; __func__ is C99), __builtin_*, typeof,
__auto_type, __int128, __label__, asm, statement expressions "({", case
ranges "case a ... b", zero-length arrays "name[0];" and #pragma GCC.
"""
import re
import sys

MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"([^"]*)"')
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
CHECKS = [
    (re.compile(r'\b__(?!func__)\w+__\b'), 'a GNU __keyword__'),
    (re.compile(r'\b__builtin_\w+'), 'a GCC builtin'),
    (re.compile(r'\b(?:typeof|__typeof|__auto_type|__int128|__label__|asm|__asm)\b'),
     'a GNU keyword'),
    (re.compile(r'\(\s*\{'), 'a statement expression'),
    (re.compile(r'\bcase\b[^:]*\.\.\.'), 'a case range'),
    (re.compile(r'(?:^|[;{])\s*(?!return\b)[A-Za-z_][\w\s*]*[\s*]\w+\s*\[\s*0\s*\]\s*;'),
     'a zero-length array'),
    (re.compile(r'^\s*#\s*pragma\s+GCC\b'), 'a GCC pragma'),
]


def ours(path):
    name = path.replace('\\', '/')
    return '/lib/' in name or name.startswith('lib/') or \
        re.search(r'(^|/)ilmap[\w.-]*\.(h|c|hpp)$', name) is not None


# --self-test: each construct must be found, in our lines only, and the
# clean lines (MSVC-compatible uses that look alike) must not be.
SELF_TEST = [
    ('struct s { int n; unsigned char data[0]; };', True),
    ('int g(void) { return ({ 1; }); }', True),
    ('switch (x) { case 1 ... 3: return 1; }', True),
    ('static __attribute__((unused)) int k;', True),
    ('int q = __builtin_ctz(4);', True),
    ('typeof(q) r;', True),
    ('#pragma GCC diagnostic push', True),
    ('__declspec(dllexport) int f(void) { return d->data[0] + a[0]; }', False),
    ('static __forceinline unsigned f(void) { const char *s = "__attribute__ ({"; return 0; }', False),
    ('int n = sizeof(a) / sizeof(a[0]); const char *w = __func__;', False),
]


def self_test():
    lines = []
    for code, _ in SELF_TEST:
        lines += ['# 1 "lib/sample.c"', code]
    lines += ['# 1 "C:/sdk/stdlib.h"', '__attribute__((x)) int in_a_system_header;']
    wrong = 0
    for n, (code, bad) in enumerate(SELF_TEST):
        hits = scan(['# 1 "lib/sample.c"\n', code + '\n'])
        if bool(hits) != bad:
            sys.stdout.write('self-test: %s: %s\n' % ('missed' if bad else 'false finding', code))
            wrong += 1
    if scan([l + '\n' for l in lines[-2:]]):
        sys.stdout.write('self-test: a system header\'s line was searched\n')
        wrong += 1
    sys.stdout.write('msvc-lint self-test: %d of %d cases right\n' % (len(SELF_TEST) + 1 - wrong,
                                                                   len(SELF_TEST) + 1))
    return 1 if wrong else 0


def scan(lines):
    """The findings in preprocessed lines, as (file, line, what, text)."""
    where, line_no, hits = '', 0, []
    for raw in lines:
        m = MARKER.match(raw)
        if m:
            line_no, where = int(m.group(1)), m.group(2)
            continue
        here = line_no
        line_no += 1
        if not ours(where):
            continue
        code = STRING.sub('""', raw)
        for pattern, what in CHECKS:
            if pattern.search(code):
                hits.append((where, here, what, raw.strip()[:120]))
    return hits


def main(argv):
    if len(argv) == 2 and argv[1] == '--self-test':
        return self_test()
    if len(argv) != 2:
        sys.stderr.write('usage: msvc-lint.py FILE.i | --self-test\n')
        return 2
    with open(argv[1], encoding='utf-8', errors='replace') as f:
        lines = f.readlines()
    searched = sum(1 for _ in lines)
    hits = scan(lines)
    for where, here, what, text in hits:
        sys.stdout.write('%s:%d: %s: %s\n' % (where, here, what, text))
    if not any(ours(m.group(2)) for m in map(MARKER.match, lines) if m):
        sys.stdout.write('msvc-lint: no line of libilmap in %s\n' % argv[1])
        return 1
    return 1 if hits or not searched else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
