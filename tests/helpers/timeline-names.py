#!/usr/bin/env python3
"""Process names of the timeline files under the given dirs (any depth).

    timeline-names.py DIR...

A timeline file is msprof_{ts}.json, msprof_tx_{ts}.json or a slice of
either (msprof_slice_{n}_{ts}.json, ...).  In each, every process_name
must name one process only, and a process must have one name:
MindSpore's parser raises "ValueError: Process name 'X' already exists."
on a second process of one name, whatever its pid (../shared/readers/
NOTES.md §5), and the other readers key processes by name too.  Prints
one line per problem and exits 1 when there is any; prints the number of
files checked otherwise.  A file that is not a JSON array of objects is a
problem too (the format tests say why in detail).
"""
import json
import os
import re
import sys

TIMELINE = re.compile(r"^msprof(_tx)?(_slice_\d+)?_\d{14}\.json$")


def check(path):
    try:
        with open(path) as f:
            events = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{path}: cannot read: {e}"]
    if not isinstance(events, list):
        return [f"{path}: not a JSON array"]
    problems = []
    by_name = {}
    by_pid = {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "M" or e.get("name") != "process_name":
            continue
        name, pid = (e.get("args") or {}).get("name"), e.get("pid")
        by_name.setdefault(name, set()).add(pid)
        by_pid.setdefault(pid, []).append(name)
    for name, pids in sorted(by_name.items(), key=lambda kv: str(kv[0])):
        if len(pids) > 1:
            problems.append(f"{path}: process name {name!r} on {len(pids)} processes {sorted(pids)}")
    for pid, names in sorted(by_pid.items(), key=lambda kv: str(kv[0])):
        if len(names) > 1:
            problems.append(f"{path}: process {pid} named {len(names)} times {names}")
    return problems


def main():
    if len(sys.argv) < 2:
        print("usage: timeline-names.py DIR...", file=sys.stderr)
        return 2
    files = []
    for top in sys.argv[1:]:
        for root, _, names in os.walk(top):
            files += [os.path.join(root, n) for n in names if TIMELINE.match(n)]
    problems = [p for f in sorted(files) for p in check(f)]
    for p in problems:
        print(p)
    if not problems:
        print(f"{len(files)} timeline file(s), every process name unique")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
