#!/usr/bin/env python3
"""ilmap.hpp compiled as C++11 must fail with the header's own #error
("needs C++17") and nothing else: one error, not a cascade.
Usage: hpp-cxx11-test.py SOURCE INCLUDE_DIR COMPILER [ARGS...]"""
import subprocess
import sys

source, include_dir, compiler = sys.argv[1], sys.argv[2], sys.argv[3:]
cmd = compiler + ['-std=c++11', '-Wall', '-Wextra', '-pedantic', '-Werror',
                  '-I' + include_dir, '-fsyntax-only', source]
proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                      universal_newlines=True)
out = proc.stdout
print(' '.join(cmd))
print(out)
errors = [line for line in out.splitlines() if 'error:' in line]
if proc.returncode == 0:
    sys.exit('FAIL: ilmap.hpp compiled as C++11')
if len(errors) != 1 or 'needs C++17' not in errors[0]:
    sys.exit('FAIL: expected exactly one error, the #error "needs C++17"; got %d' % len(errors))
print('ok: one clear #error')
