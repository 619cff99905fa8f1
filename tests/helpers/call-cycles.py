#!/usr/bin/env python3
"""Calls go down: no two source files of the programs and libraries call
each other, directly or round a loop.

Reads the object files of a build directory with nm(1): a file calls
another when it uses a function the other defines (shared variables are
not calls and are not counted).  Calls into libc that
collectors/agent/osrt.c and exitflush.c interpose are not calls into those
files.  Test programs and the sample are left out.  Each loop found is
printed with the symbols behind each of its calls; the exit status is 1
when there is one, 0 when there is none, 77 when nm is missing.

  call-cycles.py BUILD_DIR
"""
import collections
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graph_loops  # noqa: E402


def nm(path, *args):
    return subprocess.run(['nm', *args, path], capture_output=True, text=True).stdout.splitlines()


def libc_symbols():
    out = subprocess.run(['cc', '-print-file-name=libc.so.6'], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(out):
        return set()
    return {line.split()[-1].split('@')[0] for line in nm(out, '-D', '--defined-only') if line.strip()}


def source_of(obj, build):
    """The source path of an object: meson puts foo.c's object of a target
    in DIR/TARGET.p/foo.c.o, and one of ../x/foo.c in .._x_foo.c.o."""
    target_dir = os.path.relpath(os.path.dirname(os.path.dirname(obj)), build)
    name = os.path.basename(obj)[:-2]
    while name.startswith('.._'):
        target_dir = os.path.dirname(target_dir)
        name = name[3:]
    return os.path.normpath(os.path.join(target_dir, name.replace('_', '/') if '/' in name else name))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    if not shutil.which('nm'):
        print('SKIP: nm (binutils) is needed to read the object files')
        return 77
    build = sys.argv[1]
    libc = libc_symbols()
    defined = collections.defaultdict(set)   # symbol -> files
    used = collections.defaultdict(set)      # file -> symbols
    for obj in glob.glob(os.path.join(build, '**', '*.o'), recursive=True):
        rel = os.path.relpath(obj, build)
        if rel.startswith(('tests', 'sample')):
            continue
        src = source_of(obj, build)
        for line in nm(obj):
            f = line.split()
            if len(f) == 3 and f[1] == 'T':
                defined[f[2]].add(src)
            elif len(f) == 2 and f[0] == 'U' and f[1] not in libc:
                used[src].add(f[1])
    calls = collections.defaultdict(lambda: collections.defaultdict(set))
    for src, syms in used.items():
        for s in syms:
            for d in defined.get(s, ()):
                if d != src:
                    calls[src][d].add(s)
    loops = graph_loops.loops({a: set(b) for a, b in calls.items()})
    for comp in loops:
        print('files that call each other: ' + ', '.join(comp))
        for a in comp:
            for b in comp:
                if b in calls[a]:
                    print(f'  {a} -> {b}: {", ".join(sorted(calls[a][b]))}')
    print(f'{len(loops)} loop(s) among {len(used)} files')
    return 1 if loops else 0


if __name__ == '__main__':
    sys.exit(main())
