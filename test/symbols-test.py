#!/usr/bin/env python3
"""The exported symbols, the version script and the header agree.

Every function declared with ILMAP_EXPORT in the public headers
(include/ilmap*.h; the first argument is that directory, or one header) must
be listed in lib/ilmap.map and exported by the shared library, and the library
must export nothing else (a leak would be an internal helper made public by
accident).
"""
import glob
import os
import re
import subprocess
import sys

header, mapfile, library = sys.argv[1:4]
headers = sorted(glob.glob(os.path.join(header, 'ilmap*.h'))) if os.path.isdir(header) else [header]
if not headers:
    sys.exit(f'no public headers found in {header}')

declared = set()
for h in headers:
    declared |= set(re.findall(r'ILMAP_EXPORT[^;{]*?\b(ilmap_\w+)\s*\(', open(h).read(), re.S))
listed = set(re.findall(r'^\s*(ilmap_\w+);', open(mapfile).read(), re.M))
nm = subprocess.run(['nm', '-D', '--defined-only', library], capture_output=True, text=True,
                    check=True).stdout
exported = {line.split()[-1].split('@')[0] for line in nm.splitlines()
            if len(line.split()) >= 3 and line.split()[1] in 'TtDdBbRrWwVvi'}

problems = []
for name in sorted(declared - listed):
    problems.append(f'{name}: declared in the header, missing from the version script')
for name in sorted(listed - declared):
    problems.append(f'{name}: in the version script, not declared in the header')
for name in sorted(declared - exported):
    problems.append(f'{name}: declared, not exported by {library}')
for name in sorted(exported - declared):
    problems.append(f'{name}: exported by {library}, not declared in the header (leak)')

for p in problems:
    print(p)
print(f'{len(declared)} declared, {len(listed)} listed, {len(exported)} exported')
sys.exit(1 if problems else 0)
