#!/usr/bin/env python3
"""Includes go down: no include climbs from a lower folder to a higher one,
and no two files include each other, directly or round a loop.

Reads the sources (not the build): every '#include "..."' of the C files
and headers of the programs and libraries (tests/ and sample/ are left
out).  A header and the .c of the same name are one file here, so that
x.c including y.h while y.c includes x.h is a loop.  The folders, lowest
first, are those of docs/ARCHITECTURE.md:

  common, include  <  ipc  <  collectors  <  collectors/agent, export
                   <  daemon, launcher  <  python/mstx

A folder may include its own headers and those of the folders below it.
Each climb and each loop is printed; the exit status is 1 when there is
one, 0 when there is none.

  include-graph.py SOURCE_ROOT
"""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_loops import loops  # noqa: E402

RANK = {
    'common': 0, 'include': 0,
    'ipc': 1,
    'collectors': 2,
    'collectors/agent': 3, 'export': 3,
    'daemon': 4, 'launcher': 4,
    'python/mstx': 5,
}
SKIP = ('tests/', 'sample/', 'build')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    for folder in RANK:
        d = os.path.join(root, folder)
        for dirpath, dirnames, files in os.walk(d):
            rel_dir = os.path.relpath(dirpath, root)
            if rel_dir != folder:   # a sub-folder with a rank of its own is walked as itself
                dirnames[:] = []
                continue
            for f in files:
                if f.endswith(('.c', '.h')):
                    yield os.path.join(rel_dir, f)


def resolve(root, src, name):
    """The repository path of an include, or None (config.h, a generated
    header, or a system one found by quotes)."""
    here = os.path.dirname(src)
    for cand in (os.path.join(here, name), name, os.path.join('include', name)):
        cand = os.path.normpath(cand)
        if os.path.isfile(os.path.join(root, cand)) and not cand.startswith(SKIP):
            return cand
    return None


def folder_of(path):
    d = os.path.dirname(path)
    while d and d not in RANK:
        d = os.path.dirname(d)
    return d


def module(path):
    return os.path.splitext(path)[0]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    edges = collections.defaultdict(set)
    why = collections.defaultdict(list)
    climbs = []
    n = 0
    for src in sorted(sources(root)):
        n += 1
        text = open(os.path.join(root, src), encoding='utf-8', errors='replace').read()
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        edges[module(src)]
        for name in INCLUDE.findall(text):
            dst = resolve(root, src, name)
            if dst is None:
                continue
            a, b = folder_of(src), folder_of(dst)
            if RANK[b] > RANK[a] or (RANK[b] == RANK[a] and a != b):
                climbs.append(f'{src} includes {dst}: {b}/ is not below {a}/')
            if module(dst) != module(src):
                edges[module(src)].add(module(dst))
                why[(module(src), module(dst))].append(f'{src} -> {dst}')
    for c in climbs:
        print('climbs:', c)
    found = loops(edges)
    for comp in found:
        print('files that include each other:', ', '.join(comp))
        members = set(comp)
        for a in comp:
            for b in sorted(edges[a] & members):
                print('  ' + '; '.join(why[(a, b)]))
    print(f'{len(climbs)} climbing include(s), {len(found)} loop(s) among {n} files')
    return 1 if climbs or found else 0


if __name__ == '__main__':
    sys.exit(main())
