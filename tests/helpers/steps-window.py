#!/usr/bin/env python3
"""steps-window.py PROF_DIR FIRST LAST: every timeline event (X, C) and
every timed CSV row of PROF_DIR's text outputs, and every row of every
database table with a startNs or timestampNs, lies within steps FIRST to
LAST, from the first one's start to the last one's end as the database's
STEP table has them (1 us of rounding either side); the STEP table holds
those steps alone; and there is at least one.  Prints the counts and the
first rows outside; exit 1 on any."""
import csv
import glob
import json
import os
import sqlite3
import sys

prof, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = glob.glob(os.path.join(prof, "msprof_*.db"))[0]
steps = sqlite3.connect(db).execute("SELECT startNs, endNs FROM STEP WHERE stepId BETWEEN ? AND ?",
                                    (first, last)).fetchall()
if not steps:
    print("no steps %d to %d in %s" % (first, last, db))
    sys.exit(1)
lo, hi = min(s for s, _ in steps) / 1e3, max(e for _, e in steps) / 1e3
out = os.path.join(prof, "mindstudio_profiler_output")
bad, n = [], 0
for path in glob.glob(os.path.join(out, "msprof_*.json")):
    for ev in json.load(open(path)):
        if ev.get("ph") in ("X", "C"):
            n += 1
            ts = float(ev["ts"])
            if not lo - 1 <= ts <= hi + 1:
                bad.append((os.path.basename(path), ev.get("name"), ts))
for path in glob.glob(os.path.join(out, "*.csv")):
    rows = list(csv.reader(open(path)))
    for k, h in enumerate(rows[0] if rows else []):
        if h.strip() in ("Timestamp(us)", "Start Time(us)", "Start(us)", "Start_time(us)"):
            for r in rows[1:]:
                n += 1
                if not lo - 1 <= float(r[k].strip()) <= hi + 1:
                    bad.append((os.path.basename(path), h, r[k]))
con = sqlite3.connect(db)
ids = [r[0] for r in con.execute("SELECT DISTINCT stepId FROM STEP ORDER BY 1")]
if any(i < first or i > last for i in ids):
    bad.append(("STEP", "stepId", ids))
nd = 0
for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
    cols = [c[1] for c in con.execute("PRAGMA table_info(%s)" % t)]
    col = "startNs" if "startNs" in cols else "timestampNs" if "timestampNs" in cols else None
    if not col or t == "AGENT_PROCESS":   # a process's life, whenever any of its events is kept
        continue
    for (v,) in con.execute("SELECT %s FROM %s" % (col, t)):
        nd += 1
        if v is not None and not lo - 1 <= v / 1e3 <= hi + 1:
            bad.append((t, col, v))
for a, b in con.execute("SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO"):
    if a / 1e3 < lo - 1 or b / 1e3 > hi + 1:
        bad.append(("SESSION_TIME_INFO", a, b))
print("%d events and rows, %d database rows, steps %d-%d from %.0f to %.0f us; outside: %s" %
      (n, nd, first, last, lo, hi, bad[:4]))
sys.exit(1 if bad or n == 0 else 0)
