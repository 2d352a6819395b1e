#!/usr/bin/env python3
"""Generate libilmap's amalgamation: one ilmap.c plus the public headers.

    python3 scripts/amalgamate.py OUTDIR

OUTDIR receives ilmap.c (every source of lib/, in lib/sources.txt's order,
with lib/'s private headers inlined where first included) and copies of
include/'s public headers. Any C11 compiler builds it with no build system:

    cc -std=c11 -O2 -c ilmap.c            (add -DILMAP_HAVE_ZLIB and -lz for
                                           PDBs embedded in DLLs)

The copied ilmap.h defaults to a static build: no dllimport/dllexport on
Windows unless ILMAP_DLL is defined (then when compiling ilmap.c and its
users alike). doc/amalgamation.md says what it is and how CI checks it.

How the sources become one translation unit:
  * lib/'s private headers are inlined once, where the first source
    includes them (they all have include guards); public headers stay
    #include "ilmap*.h", beside ilmap.c.
  * Feature-test macros (_GNU_SOURCE, ...) a source defines before its
    first include move to the top, before any system header.
  * Macros a source (.c) defines are #undef'd after it, so that two
    sources may use the same private macro name. A .c may not define a
    macro that a header defines (refused here).
  * The platform layer's thread file is chosen with #ifdef _WIN32.
  * #line directives keep the compiler's messages pointing at lib/.
  * The names lib/'s private headers declare with external linkage are
    renamed ilmap_internal_NAME by macros at the top (not with
    ILMAP_AMALGAMATION_KEEP_NAMES defined).
A file-scope static name used by two sources would collide: the compile
in test/amalgamation-test.sh catches that.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, 'lib')
INCLUDE = os.path.join(ROOT, 'include')

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
DEFINE_RE = re.compile(r'^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)')
FEATURE_RE = re.compile(r'^\s*#\s*define\s+(_[A-Z][A-Z0-9_]*)\b(.*)$')
ANY_INCLUDE_RE = re.compile(r'^\s*#\s*include\b')
# File-scope declarations of lib/'s private headers with external linkage:
# a function prototype or an extern object, starting in column 0.
PROTO_RE = re.compile(r'^(?!static\b|typedef\b|return\b|extern\s+"C")(?:extern\s+)?'
                      r'(?:(?:const|unsigned|signed|struct|enum|union)\s+)*'
                      r'[A-Za-z_]\w*[\s*]+\**\s*([a-z_]\w*)\s*\(', re.M)
EXTERN_RE = re.compile(r'^extern\s+[^;(]*?\b([a-z_]\w*)\s*(?:\[[^\]]*\]\s*)*;', re.M)
EXTERN_FN_RE = re.compile(r'^extern\s+[^;(]*\(\s*\*\s*([a-z_]\w*)\s*\)\s*\(', re.M)
C_WORDS = {'int', 'char', 'void', 'short', 'long', 'float', 'double', 'signed', 'unsigned',
           'const', 'volatile', 'struct', 'union', 'enum', 'sizeof', 'return', 'if', 'while',
           'for', 'switch'}
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
PREFIX = 'ilmap_internal_'

STATIC_DEFAULT = '''\
/* The amalgamation's default: built into a program or a static library,
 * so no __declspec on Windows. Define ILMAP_DLL, for ilmap.c and its users
 * alike, to build and use a DLL from it instead. */
#if !defined(ILMAP_DLL) && !defined(ILMAP_STATIC)
#  define ILMAP_STATIC
#endif
'''
STATIC_ANCHOR = '#if defined(_WIN32) && !defined(ILMAP_STATIC)'


def fail(msg):
    sys.stderr.write('amalgamate.py: %s\n' % msg)
    sys.exit(1)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read().split('\n')


def sources():
    names = []
    for line in read(os.path.join(LIB, 'sources.txt')):
        line = line.strip()
        if line and not line.startswith('#'):
            names.append(line)
    return names


def public_headers():
    return sorted(n for n in os.listdir(INCLUDE) if n.startswith('ilmap') and n.endswith(('.h', '.hpp')))


def version():
    text = open(os.path.join(ROOT, 'meson.build'), encoding='utf-8').read()
    m = re.search(r"version:\s*'([^']+)'", text)
    return m.group(1) if m else 'unknown'


def revision():
    try:
        out = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short=12', 'HEAD'],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


class Amalgamation:
    def __init__(self):
        self.out = []
        self.features = []        # (name, rest) in first-seen order
        self.feature_names = set()
        self.inlined = set()      # private headers already emitted
        self.header_macros = {}   # macro -> header that defines it
        self.publics = set(public_headers())
        self.internal = []        # lib/'s external names, in first-seen order

    def resolve(self, name, including):
        """A quoted include: 'public', or the private header's path."""
        if name in self.publics:
            return 'public', name
        for base in (LIB, os.path.dirname(including)):
            path = os.path.normpath(os.path.join(base, name))
            if os.path.isfile(path):
                return 'private', path
        fail('%s: cannot find "%s"' % (os.path.relpath(including, ROOT), name))

    def emit_file(self, path, is_source, defined):
        rel = os.path.relpath(path, ROOT).replace(os.sep, '/')
        lines = read(path)
        if not is_source:
            self.collect_internal('\n'.join(lines))
        if lines and lines[-1] == '':
            lines.pop()
        seen_include = False
        self.out.append('#line 1 "%s"' % rel)
        for number, line in enumerate(lines, 1):
            if not seen_include and is_source:
                m = FEATURE_RE.match(line)
                if m:
                    if m.group(1) not in self.feature_names:
                        self.feature_names.add(m.group(1))
                        self.features.append((m.group(1), m.group(2).split('/*')[0].strip()))
                    self.out.append('/* %s: moved to the top */' % m.group(1))
                    continue
            if ANY_INCLUDE_RE.match(line):
                seen_include = True
            m = INCLUDE_RE.match(line)
            if m:
                kind, target = self.resolve(m.group(1), path)
                if kind == 'public':
                    self.out.append('#include "%s"' % target)
                elif target in self.inlined:
                    self.out.append('/* %s: already above */' % m.group(1))
                else:
                    self.inlined.add(target)
                    self.emit_file(target, False, defined)
                    self.out.append('#line %d "%s"' % (number + 1, rel))
                continue
            d = DEFINE_RE.match(line)
            if d and d.group(1) not in self.feature_names:
                if is_source:
                    defined.add(d.group(1))
                else:
                    self.header_macros.setdefault(d.group(1), rel)
            self.out.append(line)

    def collect_internal(self, header_text):
        """The names a private header gives external linkage."""
        code = COMMENT_RE.sub('', header_text)
        found = [m.group(1) for regex in (PROTO_RE, EXTERN_RE, EXTERN_FN_RE)
                 for m in regex.finditer(code)]
        for name in found:
            if name in C_WORDS or name.startswith('ilmap_'):
                continue
            if name not in self.internal:
                self.internal.append(name)

    def emit_source(self, name):
        path = os.path.join(LIB, name)
        if not os.path.isfile(path):
            fail('lib/sources.txt names %s, which does not exist' % name)
        defined = set()
        self.out.append('')
        self.out.append('/* ======== lib/%s ======== */' % name)
        self.emit_file(path, True, defined)
        clash = sorted(m for m in defined if m in self.header_macros)
        if clash:
            fail('lib/%s defines %s, which %s defines too' %
                 (name, clash[0], self.header_macros[clash[0]]))
        for macro in sorted(defined):
            self.out.append('#undef %s' % macro)

    def build(self):
        for name in sources():
            self.emit_source(name)
        self.out.append('')
        self.out.append('#ifdef _WIN32')
        self.emit_source('platform/thread_win32.c')
        self.out.append('#else')
        self.emit_source('platform/thread_posix.c')
        self.out.append('#endif')
        head = [
            '/* libilmap %s (%s): the amalgamation, generated by scripts/amalgamate.py'
            % (version(), revision()),
            ' * from lib/ and include/. Do not edit: change lib/ and generate again.',
            ' * Build: cc -std=c11 -O2 -c ilmap.c (with -DILMAP_HAVE_ZLIB and -lz to',
            ' * inflate PDBs embedded in DLLs). See doc/amalgamation.md. */',
            '',
            '/* Feature-test macros of the sources, before any system header. */',
        ]
        for name, rest in self.features:
            head += ['#ifndef %s' % name, '#  define %s %s' % (name, rest or '1'), '#endif']
        head += ['', '#ifndef ILMAP_BUILDING', '#  define ILMAP_BUILDING 1', '#endif', '',
                 '/* lib/\'s internal functions and tables have external linkage; here they',
                 ' * carry the library\'s prefix (%s...), so that a static build' % PREFIX,
                 ' * adds no name but ilmap_* to a program. ILMAP_AMALGAMATION_KEEP_NAMES',
                 ' * keeps lib/\'s names (the Meson build with -Damalgamation=true, whose',
                 ' * white-box tests call them). */',
                 '#ifndef ILMAP_AMALGAMATION_KEEP_NAMES']
        head += ['#define %s %s%s' % (n, PREFIX, n) for n in self.internal]
        head += ['#endif']
        return '\n'.join(head + self.out) + '\n'


def copy_header(name, outdir):
    text = open(os.path.join(INCLUDE, name), encoding='utf-8').read()
    if name == 'ilmap.h':
        if text.count(STATIC_ANCHOR) != 1:
            fail('include/ilmap.h: the export block ("%s") moved' % STATIC_ANCHOR)
        text = text.replace(STATIC_ANCHOR, STATIC_DEFAULT + STATIC_ANCHOR)
    write(os.path.join(outdir, name), text)


def write(path, text):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8', newline='\n') as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 2 or argv[1].startswith('-'):
        sys.stderr.write('usage: python3 scripts/amalgamate.py OUTDIR\n')
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    text = Amalgamation().build()
    for name in public_headers():
        copy_header(name, outdir)
    write(os.path.join(outdir, 'ilmap.c'), text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
