#!/usr/bin/env python3
"""Checks a PROF dir's overlap analysis (export/domain-overlap.c) against
the intervals it was computed from, recomputed here independently.

  overlap-check.py PROF device K        fake CUPTI with FAKE_CUPTI_NCCL=1 and
                                        FAKE_CUPTI_KERNELS=K
  overlap-check.py PROF host APP_OUT    tests/agent/overlap-app.c's run,
                                        APP_OUT what it printed

Ground truth: device, the kernels of the database (TASK, COMPUTE_TASK_INFO)
split by their NCCL names, and the fake's own pattern (each NCCL kernel
starts 250 ns into a 500 ns kernel and lasts 1000 ns); host, the ranges of
MSTX_EVENTS split by domain, and the intervals the program measured itself.
Checked: the Overlap Analysis process (name, label, thread names), each
thread's events disjoint and their total equal to the intervals' algebra
inside the window (the steps, else the collection), STEP_TRACE_TIME per step,
the same sums the readers make (each event's dur to the step its start is
in), overlap_analysis_{ts}.csv, and no step_trace_time_* file. Prints
"FAIL: ..." lines and exits 1 on any failure."""
import csv
import glob
import json
import os
import re
import sqlite3
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def eq(what, got, want, tol=0):
    if abs(got - want) > tol:
        fail(f"{what}: got {got}, want {want} (tolerance {tol})")


# --- interval algebra, written apart from the C one -------------------------------
def union(iv):
    out = []
    for s, e in sorted(x for x in iv if x[1] > x[0]):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [tuple(x) for x in out]


def measure(iv):
    return sum(e - s for s, e in iv)


def clip(iv, s, e):
    return [(max(a, s), min(b, e)) for a, b in iv if min(b, e) > max(a, s)]


def minus(a, b):
    """a minus b, both unions"""
    out = []
    for s, e in a:
        at = s
        for bs, be in b:
            if be <= at or bs >= e:
                continue
            if bs > at:
                out.append((at, bs))
            at = max(at, be)
        if at < e:
            out.append((at, e))
    return out


def inside(iv, windows):
    return sum(measure(clip(iv, s, e)) for s, e in windows)


def is_receive(name):
    """msprof's hcom_receive__ ops, and names that say recv or receive"""
    return name.startswith("hcom_receive") or "recv" in name.lower() or "receive" in name.lower()


NCCL = re.compile(r"^(_Z\d+)?(ncclDevKernel_|ncclKernel_)")


def main():
    prof, mode = sys.argv[1], sys.argv[2]
    out = os.path.join(prof, "mindstudio_profiler_output")
    dbs = glob.glob(os.path.join(prof, "msprof_*.db"))
    if len(dbs) != 1:
        fail(f"one msprof_*.db in {prof}, found {dbs}")
        return
    db = sqlite3.connect(dbs[0])
    q = lambda sql: db.execute(sql).fetchall()
    tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}

    comp, comm, recv = [], [], []
    if mode == "device":
        k = int(sys.argv[3])
        # kernels: compute ones in COMPUTE_TASK_INFO, NCCL's in COMMUNICATION_TASK_INFO
        # (the communication domain moves them), told apart here by name again
        infos = [t for t in ("COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO") if t in tables]
        sql = " UNION ALL ".join("SELECT t.startNs, t.endNs, s.value FROM TASK t JOIN %s c "
                                 "ON c.globalTaskId = t.globalTaskId JOIN STRING_IDS s ON s.id = c.name" % t
                                 for t in infos)
        for s, e, name in q(sql):
            (comm if NCCL.match(name) else comp).append((s, e))
        eq("device: NCCL kernels", len(comm), k)
        eq("device: compute kernels", len(comp), k)
        # the fake's pattern, by its own definition
        eq("device: computing (fake's pattern)", measure(union(comp)), 500 * k)
        eq("device: communication (fake's pattern)", measure(union(comm)), 1000 * k)
        eq("device: not overlapped (fake's pattern)", measure(minus(union(comm), union(comp))), 750 * k)
        label = "NPU 0"
    else:
        for s, e, msg, dom in q("SELECT m.startNs, m.endNs, s.value, d.value FROM MSTX_EVENTS m "
                                "JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId "
                                "WHERE m.eventType IN (1, 2)"):
            if dom == "communication":
                comm.append((s, e))
                if is_receive(msg):
                    recv.append((s, e))
            elif dom != "msprof.step" and not re.match(r"(?i)^(step \d+|ProfilerStep#\d+)$", msg):
                comp.append((s, e))
        # the program's own measurements: each range it printed is one of
        # the recorded ones, up to the time between its clock reading and
        # the agent's (one clock, a few us; 2 ms allows for a loaded machine)
        app = [l.split() for l in open(sys.argv[3])]
        app_comp = [(int(a[1]), int(a[2])) for a in app if a[0] == "compute"]
        app_comm = [(int(a[1]), int(a[2])) for a in app if a[0] == "comm"]
        app_recv = [(int(a[1]), int(a[2])) for a in app if a[0] == "comm" and is_receive(a[3])]
        for what, mine, rec in (("computing", app_comp, comp), ("communication", app_comm, comm),
                                ("receive", app_recv, recv)):
            eq(f"host: {what} ranges the program printed vs recorded", len(mine), len(rec))
            for (a, b), (c, d) in zip(sorted(mine), sorted(rec)):
                if not (a - 2000000 <= c <= d <= b + 2000000):
                    fail(f"host: recorded {what} range {c}..{d} is not the printed {a}..{b}")
            eq(f"host: {what} time, printed vs recorded (ns)", measure(union(mine)), measure(union(rec)),
               4000000 * len(mine))
        # the program's design: communication overlaps computing in every step
        if measure(union(app_comp)) and not measure(union(app_comm)) > measure(minus(union(app_comm),
                                                                                  union(app_comp))):
            fail("host: the program's communication never overlapped its computing")
        label = "NPU"

    comp, comm, recv = union(comp), union(comm), union(recv)
    busy = union(comp + comm)
    pure = minus(comm, comp)
    pure_send = minus(pure, recv)

    steps = q("SELECT stepId, pid, startNs, endNs FROM STEP ORDER BY startNs, pid, stepId") if "STEP" in tables else []
    if steps:
        windows = []
        cuts = sorted({x for _, _, s, e in steps for x in (s, e)})
        for s, e in union([(s, e) for _, _, s, e in steps]):
            pts = [s] + [c for c in cuts if s < c < e] + [e]
            windows += list(zip(pts, pts[1:]))
    else:
        s, e = q("SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO")[0]
        if busy:
            s, e = min(s, busy[0][0]), max(e, busy[-1][1])
        windows = [(s, e)]

    # --- the timeline --------------------------------------------------------------
    tl = glob.glob(os.path.join(out, "msprof_[0-9]*.json"))
    if len(tl) != 1:
        fail(f"one msprof_{{ts}}.json, found {tl}")
        return
    events = json.load(open(tl[0]))
    names = [e["args"]["name"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"]
    if len(names) != len(set(names)):
        fail(f"process names repeat: {sorted(names)}")
    pids = [e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"
            and e["args"]["name"] == "Overlap Analysis"]
    if len(pids) != 1:
        fail(f"one process named exactly 'Overlap Analysis', found {len(pids)}")
        return
    pid = pids[0]
    meta = {(e["name"], e["tid"]): e["args"] for e in events if e.get("ph") == "M" and e["pid"] == pid}
    eq("process_sort_index 31", meta.get(("process_sort_index", 0), {}).get("sort_index", -1), 31)
    if meta.get(("process_labels", 0), {}).get("labels") != label:
        fail(f"process_labels: got {meta.get(('process_labels', 0))}, want {label}")
    threads = ["Computing", "Communication", "Communication(Not Overlapped)", "Free"]
    got = {}
    for tid, name in enumerate(threads):
        if meta.get(("thread_name", tid), {}).get("name") != name:
            fail(f"thread {tid}: got {meta.get(('thread_name', tid))}, want {name}")
    for e in events:
        if e["pid"] != pid or e.get("ph") != "X":
            continue
        if e["name"] != threads[e["tid"]]:
            fail(f"event {e} is not named after its thread")
        s = int(e["ts"].replace(".", ""))
        got.setdefault(e["name"], []).append((s, s + round(e["dur"] * 1000)))
    for name, iv in got.items():
        iv.sort()
        for a, b in zip(iv, iv[1:]):
            if b[0] < a[1]:
                fail(f"{name}: events {a} and {b} overlap")
    want = {"Computing": inside(comp, windows), "Communication": inside(comm, windows),
            "Communication(Not Overlapped)": inside(pure, windows),
            "Free": sum(e - s for s, e in windows) - inside(busy, windows)}
    for name in threads:
        eq(f"timeline {name} total (ns)", measure(got.get(name, [])), want[name])
    if mode == "host" and not (want["Computing"] and want["Communication"] and want["Free"]
                               and want["Communication(Not Overlapped)"] < want["Communication"]):
        fail(f"host: every thread has time and communication overlaps: {want}")

    # --- STEP_TRACE_TIME, the readers' sums and the CSV ------------------------------
    rows = q("SELECT deviceId, step, startNs, endNs, computing, communicationNotOverlapped, overlapped, "
             "communication, free, stage, bubble, communicationNotOverlappedExcludeReceive, preparing "
             "FROM STEP_TRACE_TIME ORDER BY deviceId, startNs, pid, step")
    spans = [(st[0], st[2], st[3]) for st in steps] or [(None, windows[0][0], windows[0][1])]
    eq("STEP_TRACE_TIME rows", len(rows), len(spans))
    for row, (step, s, e) in zip(rows, spans):
        c, m, p = measure(clip(comp, s, e)), measure(clip(comm, s, e)), measure(clip(pure, s, e))
        b = measure(clip(busy, s, e))
        bub = measure(clip(recv, s, e))
        first = clip(busy, s, e)
        expect = [0 if mode == "device" else None, step, s, e, c, p, m - p, m, (e - s) - b, (e - s) - bub, bub,
                  measure(clip(pure_send, s, e)), first[0][0] - s if first else 0]
        if list(row) != expect:
            fail(f"STEP_TRACE_TIME step {step}: got {list(row)}, want {expect}")
        # torch_npu / MindSpore: each event's dur goes to the step its start is in
        for name, col in (("Computing", 4), ("Communication", 7), ("Communication(Not Overlapped)", 5),
                          ("Free", 8)):
            eq(f"step {step}: {name} summed as the readers do", sum(b - a for a, b in got.get(name, [])
                                                                  if s <= a < e), row[col])
        if mode == "host":
            if not (row[4] and row[7] and row[10] and row[12] > 0):
                fail(f"host step {step}: computing, communication, bubble and preparing all expected: {row}")
    files = glob.glob(os.path.join(out, "overlap_analysis_*.csv"))
    if len(files) != 1:
        fail(f"one overlap_analysis_{{ts}}.csv, found {files}")
    else:
        with open(files[0], newline="") as f:
            r = list(csv.reader(f))
        head = ["Device_id", "Step", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication",
                "Free", "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"]
        if r[0] != head:
            fail(f"overlap_analysis header: {r[0]}")
        eq("overlap_analysis rows", len(r) - 1, len(rows))
        for line, row in zip(r[1:], rows):
            want_dev = "host" if row[0] is None else str(row[0])
            want_step = "" if row[1] is None else str(row[1])
            if line[:2] != [want_dev, want_step]:
                fail(f"overlap_analysis row {line[:2]}, want {[want_dev, want_step]}")
            for v, ns in zip(line[2:], row[4:]):
                eq(f"overlap_analysis step {want_step} value", round(float(v) * 1000), ns)
    if glob.glob(os.path.join(out, "step_trace_time*")):
        fail("a step_trace_time file, which readers would take for msprof's step_trace")


main()
if FAILS:
    sys.exit(1)
print("ok: overlap analysis matches the intervals it comes from")
