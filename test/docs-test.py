#!/usr/bin/env python3
"""The repository's documents hold together.

Usage: docs-test.py SOURCE_ROOT

Fails (exit 1, one line per problem) when:

(a) a Markdown file of the repository (README.md, CHANGES.md, doc/*.md,
    shim/*.md, examples/**/README.md and every other tracked *.md) links
    to a relative path that does not exist, or to FILE.md#anchor or
    #anchor where the anchor is neither an explicit <a id="anchor"> (or
    name=, or any HTML id=) nor a GitHub heading slug of that file;
(b) a file under lib/, include/, shim/, tools/, test/, bench/ or
    examples/ (source, header, script, build file), the plain text of a
    Markdown file, or doc/CITATIONS.txt cites doc/NAME.md or
    doc/NAME.md#anchor (lowercase names, as comments cite them) and that
    file or anchor does not exist;
(c) a layout table of README.md or doc/guide.md (a table whose first
    column names folders or files under lib/, include/ or shim/) misses a
    first-level folder of lib/ or shim/, or a header include/*.h[pp].
    A folder counts as named when some cell of the table says lib/X/ (or
    shim/X/), or the row whose first column is lib/ (shim/) says X/; a
    header when some cell says its file name.

Only the standard library; runs on any system with python3.
"""

import os
import re
import subprocess
import sys
import unicodedata

ROOT = None
PROBLEMS = []


def problem(msg):
    PROBLEMS.append(msg)


def rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, '/')


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


# --- Markdown files -------------------------------------------------------

SKIP_DIRS = {'.git', 'subprojects', 'node_modules', '__pycache__'}


def is_build_dir(path):
    # Build trees made inside the source root (build*, builddir) carry
    # copies and generated files; they are not the repository's documents.
    name = os.path.basename(path)
    if name.startswith('build'):
        return True
    return os.path.exists(os.path.join(path, 'meson-private')) or \
        os.path.exists(os.path.join(path, 'CMakeCache.txt'))


def walk(top, want):
    out = []
    top = os.path.join(ROOT, top)
    if not os.path.isdir(top):
        return out
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith('.')
                         and not is_build_dir(os.path.join(d, x)))
        for f in sorted(files):
            if want(f):
                out.append(os.path.join(d, f))
    return out


def markdown_files():
    found = set()
    for name in ('README.md', 'CHANGES.md'):
        p = os.path.join(ROOT, name)
        if os.path.isfile(p):
            found.add(p)
    for d in ('doc', 'shim'):
        dd = os.path.join(ROOT, d)
        if os.path.isdir(dd):
            for f in os.listdir(dd):
                if f.endswith('.md'):
                    found.add(os.path.join(dd, f))
    for p in walk('examples', lambda f: f == 'README.md'):
        found.add(p)
    try:
        out = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z', '--', '*.md'],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=True).stdout.decode('utf-8')
        for f in out.split('\0'):
            if f and os.path.isfile(os.path.join(ROOT, f)):
                found.add(os.path.join(ROOT, f))
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (a source archive): every *.md outside build trees.
        for p in walk('.', lambda f: f.endswith('.md')):
            found.add(os.path.normpath(p))
    return sorted(os.path.normpath(p) for p in found)


FENCE = re.compile(r'^ *(`{3,}|~{3,})')


def split_code(text):
    """Lines of text with fenced code blocks blanked (kept as empty lines
    so that line numbers stay right)."""
    lines = text.split('\n')
    out = []
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append('')
                continue
            out.append(line)
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line.strip() == m.group(1):
                fence = None
            out.append('')
    return out


def strip_code_spans(line):
    """The line with inline code spans replaced by spaces (same length)."""
    out = []
    i = 0
    n = len(line)
    while i < n:
        if line[i] == '`':
            j = i
            while j < n and line[j] == '`':
                j += 1
            ticks = j - i
            k = j
            close = -1
            while k < n:
                if line[k] == '`':
                    m = k
                    while m < n and line[m] == '`':
                        m += 1
                    if m - k == ticks:
                        close = k
                        break
                    k = m
                else:
                    k += 1
            if close < 0:
                out.append(line[i:j])
                i = j
            else:
                out.append(' ' * (close + ticks - i))
                i = close + ticks
        else:
            out.append(line[i])
            i += 1
    return ''.join(out)


HEADING = re.compile(r'^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
HTML_ID = re.compile(r'<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*["\']([^"\']+)["\']')


def slug(text):
    """GitHub's heading anchor: the rendered text, lowercased, with
    everything but letters, marks, numbers, connector punctuation, spaces
    and hyphens removed, spaces turned into hyphens."""
    t = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)   # links -> their text
    t = re.sub(r'<[^>]+>', '', t)                          # HTML tags
    t = t.replace('`', '')
    t = re.sub(r'(\*+|(?<!\w)_+|_+(?!\w))', '', t)         # emphasis markers
    t = t.strip().lower()
    keep = []
    for ch in t:
        cat = unicodedata.category(ch)
        if ch in ' -' or cat[0] in 'LMN' or cat == 'Pc':
            keep.append(ch)
    return ''.join(keep).replace(' ', '-')


ANCHOR_CACHE = {}


def anchors_of(path):
    if path in ANCHOR_CACHE:
        return ANCHOR_CACHE[path]
    anchors = set()
    counts = {}
    try:
        lines = split_code(read(path))
    except (OSError, UnicodeDecodeError):
        ANCHOR_CACHE[path] = anchors
        return anchors
    prev = ''
    for line in lines:
        for m in HTML_ID.finditer(line):
            anchors.add(m.group(1))
        text = None
        m = HEADING.match(line)
        if m:
            text = m.group(2) or ''
        elif SETEXT.match(line) and prev.strip() and not prev.lstrip().startswith('|') \
                and not HEADING.match(prev):
            text = prev.strip()
        if text is not None:
            s = slug(text)
            if s in counts:
                counts[s] += 1
                anchors.add('%s-%d' % (s, counts[s]))
            else:
                counts[s] = 0
                anchors.add(s)
        prev = line
    ANCHOR_CACHE[path] = anchors
    return anchors


INLINE_LINK = re.compile(r'\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
REF_DEF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)')
HTML_HREF = re.compile(r'<(?:a|img)\s[^>]*?(?:href|src)\s*=\s*["\']([^"\']+)["\']')
SCHEME = re.compile(r'^[a-zA-Z][a-zA-Z0-9+.-]*:')


def check_target(md, lineno, target):
    where = '%s:%d' % (rel(md), lineno)
    if target.startswith('<') and target.endswith('>'):
        target = target[1:-1]
    if not target or SCHEME.match(target) or target.startswith('//'):
        return
    path, _, anchor = target.partition('#')
    path = re.sub(r'\?.*$', '', path)
    if path:
        if path.startswith('/'):
            dest = os.path.join(ROOT, path.lstrip('/'))
        else:
            dest = os.path.join(os.path.dirname(md), path)
        dest = os.path.normpath(dest)
        if not os.path.exists(dest):
            problem('%s: link to %s: no such file' % (where, target))
            return
    else:
        dest = md
    if anchor and dest.endswith('.md') and os.path.isfile(dest):
        if anchor not in anchors_of(dest):
            problem('%s: link to %s: no anchor "%s" in %s' % (where, target, anchor, rel(dest)))


def check_markdown(md):
    try:
        lines = split_code(read(md))
    except UnicodeDecodeError:
        problem('%s: not UTF-8' % rel(md))
        return
    for i, line in enumerate(lines, 1):
        plain = strip_code_spans(line)
        for m in INLINE_LINK.finditer(plain):
            check_target(md, i, m.group(1))
        m = REF_DEF.match(plain)
        if m:
            check_target(md, i, m.group(1))
        for m in HTML_HREF.finditer(plain):
            check_target(md, i, m.group(1))
        # Citations in the text (doc/NAME.md#anchor, from the root), link
        # destinations left out (checked above, relative to the file).
        text = INLINE_LINK.sub('](', line)
        for m in CITATION.finditer(text):
            check_citation(rel(md), i, m)


# --- Citations of doc/ pages ---------------------------------------------

CITATION = re.compile(r'(?<![\w/.-])doc/([a-z][a-z0-9-]*\.md)(?:#([a-z0-9][a-z0-9-]*))?')
SOURCE_DIRS = ('lib', 'include', 'shim', 'tools', 'test', 'bench', 'examples')
SOURCE_EXT = re.compile(r'(\.(c|h|hpp|cpp|cc|cs|fs|py|sh|S|s|asm|ini|txt|map|def|build|options|in|cmake|json|toml|csproj|props|targets)|^meson\.build|^meson_options\.txt|^CMakeLists\.txt)$')


def check_citation(where, lineno, m):
    name, anchor = m.group(1), m.group(2)
    dest = os.path.join(ROOT, 'doc', name)
    cited = 'doc/' + name + ('#' + anchor if anchor else '')
    if not os.path.isfile(dest):
        problem('%s:%d: cites %s: no such file' % (where, lineno, cited))
    elif anchor and anchor not in anchors_of(dest):
        problem('%s:%d: cites %s: no anchor "%s" in doc/%s' % (where, lineno, cited, anchor, name))


def check_sources():
    files = []
    for d in SOURCE_DIRS:
        for p in walk(d, lambda f: SOURCE_EXT.search(f) is not None):
            # Fuzz corpora and golden data are inputs, not text that cites.
            r = rel(p)
            if '/corpus' in r or r.startswith('test/data/'):
                continue
            files.append(p)
    cit = os.path.join(ROOT, 'doc', 'CITATIONS.txt')
    if os.path.isfile(cit):
        files.append(cit)
    for p in files:
        try:
            text = read(p)
        except (UnicodeDecodeError, OSError):
            continue
        if 'doc/' not in text:
            continue
        for i, line in enumerate(text.split('\n'), 1):
            for m in CITATION.finditer(line):
                check_citation(rel(p), i, m)


# --- Layout tables --------------------------------------------------------

TOP = ('lib', 'include', 'shim')
FIRST_CELL_PATH = re.compile(r'^`?(?:%s)/' % '|'.join(TOP))


def tables(lines):
    """(first line number, rows) of each pipe table; rows are lists of cells."""
    out = []
    cur = None
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if s.startswith('|'):
            cells = [c.strip() for c in s.strip('|').split('|')]
            if all(re.fullmatch(r':?-{1,}:?', c) for c in cells if c):
                continue  # the delimiter row
            if cur is None:
                cur = (i, [])
                out.append(cur)
            cur[1].append(cells)
        else:
            cur = None
    return out


def expected_items():
    items = []
    for top in ('lib', 'shim'):
        d = os.path.join(ROOT, top)
        if not os.path.isdir(d):
            continue
        for x in sorted(os.listdir(d)):
            p = os.path.join(d, x)
            if os.path.isdir(p) and not x.startswith('.') and x not in SKIP_DIRS \
                    and not is_build_dir(p):
                items.append((top, x + '/'))
    d = os.path.join(ROOT, 'include')
    if os.path.isdir(d):
        for x in sorted(os.listdir(d)):
            if re.search(r'\.(h|hpp)$', x) and os.path.isfile(os.path.join(d, x)):
                items.append(('include', x))
    return items


def tokens_of(cell):
    """Backticked words and bare path-like words of a cell."""
    toks = set(re.findall(r'`([^`]+)`', cell))
    toks |= set(re.findall(r'[A-Za-z0-9_.+/-]+', cell))
    return toks


def check_layout(md):
    path = os.path.join(ROOT, md)
    if not os.path.isfile(path):
        problem('%s: missing (its layout table is checked)' % md)
        return
    lines = split_code(read(path))
    layout = []
    for lineno, rows in tables(lines):
        firsts = [r[0] for r in rows if r]
        if sum(1 for c in firsts if FIRST_CELL_PATH.match(c)) >= 2:
            layout.append((lineno, rows))
    if not layout:
        problem('%s: no layout table (a table whose first column names lib/, include/, shim/ paths)' % md)
        return
    for lineno, rows in layout:
        all_toks = set()
        row_toks = {}
        for r in rows:
            t = set()
            for c in r:
                t |= tokens_of(c)
            all_toks |= t
            first = r[0].strip('`').rstrip('/') if r else ''
            row_toks.setdefault(first, set()).update(t)
        for top, item in expected_items():
            full = '%s/%s' % (top, item)
            if full in all_toks:
                continue
            if top == 'include':
                if item in all_toks:
                    continue
                problem('%s:%d: layout table does not name the header %s' % (md, lineno, full))
                continue
            if item in row_toks.get(top, set()):
                continue
            problem('%s:%d: layout table does not name the folder %s' % (md, lineno, full))


def main():
    global ROOT
    if len(sys.argv) != 2:
        print('usage: docs-test.py SOURCE_ROOT', file=sys.stderr)
        return 2
    ROOT = os.path.abspath(sys.argv[1])
    mds = markdown_files()
    for md in mds:
        check_markdown(md)
    check_sources()
    for md in ('README.md', 'doc/guide.md'):
        check_layout(md)
    for p in PROBLEMS:
        print(p)
    if PROBLEMS:
        print('docs-test: %d problem(s) in %d Markdown files and the sources' %
              (len(PROBLEMS), len(mds)))
        return 1
    print('docs-test: %d Markdown files, links, anchors, citations and layout tables hold' % len(mds))
    return 0


if __name__ == '__main__':
    sys.exit(main())
