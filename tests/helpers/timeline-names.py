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
import sqlite3
import sys

TIMELINE = re.compile(r"^msprof(_tx)?(_slice_\d+)?_\d{14}\.json$")
# control characters but the newline: what SQLite's JSON parser may let
# through inside a string and Python's not
CONTROL = bytes(range(0x20)).replace(b"\n", b"")


def candidates(text):
    """The events of a timeline that can be process names, cheaply: None
    when that takes the full parse.

    json.load of the timelines of a few million events takes the best part
    of a minute on a loaded 2-core machine, and all but a few of their
    events are of no interest here.  msprof writes one event a line: when
    SQLite (in C) finds the text a valid JSON array, and no escape or
    control character, every event named process_name is on a line with
    that word, and such a line alone is the event (else the full parse
    decides).  The lines so parsed can only add to what the full parse
    would find, and problems are confirmed by it (check), so the verdict is
    the full parse's."""
    # an escape (\u) could spell the word other than literally
    if "\\u" in text:
        return None
    raw = text.encode(errors="surrogatepass")
    if len(raw.translate(None, CONTROL)) != len(raw):
        return None
    try:
        db = sqlite3.connect(":memory:")
        kind = db.execute("SELECT CASE WHEN json_valid(?1) THEN json_type(?1) END", (text,)).fetchone()[0]
        db.close()
    except (sqlite3.Error, UnicodeError):  # no JSON functions in this SQLite
        return None
    if kind != "array":
        return None
    events = []
    for m in re.finditer("process_name", text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start:end if end >= 0 else len(text)].rstrip()
        if events and events[-1][0] == start:
            continue  # the word twice on one line
        try:
            e = json.loads(line[:-1] if line.endswith(",") else line)
        except ValueError:
            return None
        if not isinstance(e, dict):
            return None
        events.append((start, e))
    return [e for _, e in events]


def check(path, fast=True):
    events = None
    try:
        with open(path) as f:
            text = f.read()
        if fast:
            events = candidates(text)
        if events is None:
            events = json.loads(text)
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
    if problems and fast:
        return check(path, fast=False)  # the full parse's word
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
