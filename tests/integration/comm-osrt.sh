#!/bin/bash
# gloo/MPI-style communication on CPU: test-gloo-app marks torch_npu-style
# mstx ranges in the domain "communication" and, inside the first two,
# moves 1 MiB over a socketpair between two threads (the receiver polls,
# then in the second op blocks in recv, while the sender sleeps 30 ms
# first); the third range holds no OS call.  It times every call it makes
# inside a range.  Under msprof --msproftx=on --host-sys=osrt
# --osrt-threshold=0, COMMUNICATION_HOST_TASK must hold exactly its
# transfers and waits per operation (thread, name, duration within the
# program's own timing, P2P ranks of the op), and analyze's Transit, Wait,
# Synchronization and Idle times and ratios must be what the split rules
# give, computed here from the rows (exactly) and from the program's
# timing (within 3 ms); the third op keeps transit = its span.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
APP="$HELPERS/test-gloo-app"
[ -x "$APP" ] || t_skip "test-gloo-app not built (no mstx library)"
mkdir -p "$T_WORK/out"
t_msprof --output="$T_WORK/out" --msproftx=on --host-sys=osrt --osrt-threshold=0 "$APP" "$T_WORK/gt" \
	>"$T_WORK/run.log" 2>&1
t_eq "msprof exits 0" $? 0
P=$(t_prof_dir "$T_WORK/out") || exit 1
for type in text db; do
	t_msprof --analyze=on --type=$type --output="$P" >"$T_WORK/an-$type.log" 2>&1
	t_eq "msprof --analyze=on --type=$type exits 0" $? 0
done

if python3 - "$P" "$T_WORK/gt" <<'EOF_PY' >"$T_WORK/check.txt" 2>&1; then
import glob, json, os, sqlite3, sys
prof, gt = sys.argv[1], sys.argv[2]
bad = []
def check(what, cond):
    if not cond:
        bad.append(what)
TRANSFER = {"read", "write", "readv", "writev", "send", "recv", "sendto", "recvfrom"}
WAIT = {"poll", "ppoll", "select", "epoll_wait", "pthread_cond_wait", "pthread_cond_timedwait"}
def kind(name):
    return "transfer" if name in TRANSFER else "wait" if name in WAIT else None

ops, calls = {}, []
for line in open(gt):
    f = line.split()
    if f[0] == "op":
        ops[int(f[1])] = (int(f[2]), int(f[3]))
    elif f[0] == "call":
        calls.append((int(f[1]), int(f[2]), f[3], int(f[4]), int(f[5])))

def split(start, end, spans):
    """msprof's split, by brute force over the spans' ends: transit where
    a transfer is open, wait where only a wait is, sync the wait before
    the first transfer starts, idle the rest"""
    spans = [(max(s, start), min(e, end), k) for s, e, k in spans if min(e, end) > max(s, start) and k]
    pts = sorted({start, end} | {p for s, e, _ in spans for p in (s, e)})
    first = min([s for s, e, k in spans if k == "transfer"], default=end)
    tr = wa = sy = 0
    for a, b in zip(pts, pts[1:]):
        here = {k for s, e, k in spans if s <= a and e >= b}
        if "transfer" in here:
            tr += b - a
        elif "wait" in here:
            wa += b - a
            if b <= first:
                sy += b - a
    return end - start, tr, wa, sy, end - start - tr - wa

db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
oprows = q("SELECT o.opId, n.value, o.startNs, o.endNs FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName "
           "ORDER BY o.startNs")
check("three operations, got %d" % len(oprows), len(oprows) == 3)
rows = q("SELECT h.opId, n.value, k.value, h.globalTid & 4294967295, h.startNs, h.endNs, h.srcRank, h.dstRank "
         "FROM COMMUNICATION_HOST_TASK h JOIN STRING_IDS n ON n.id = h.name JOIN STRING_IDS k ON k.id = h.taskType "
         "ORDER BY h.opId, h.globalTid, h.startNs")
comm = json.load(open(os.path.join(prof, "analyze", "communication.json")))
adb = sqlite3.connect(os.path.join(prof, "analyze", "communication_analyzer.db"))
tot = [0, 0, 0, 0, 0]
for i, (op_id, name, start, end) in enumerate(oprows):
    mine = [c for c in calls if c[0] == i and kind(c[2])]
    got = [r for r in rows if r[0] == op_id]
    want = sorted((c[1], c[3], c[2]) for c in mine)
    check(f"{name}: the rows are the program's transfers and waits {[(c[2], c[1]) for c in sorted(mine, key=lambda c: (c[1], c[3]))]}, "
          f"got {[(r[1], r[3]) for r in got]}",
          [(c[2], c[1], kind(c[2])) for c in sorted(mine, key=lambda c: (c[1], c[3]))] == [(r[1], r[3], r[2]) for r in got])
    for c, r in zip(sorted(mine, key=lambda c: (c[1], c[3])), got):
        d_gt, d = c[4] - c[3], r[5] - r[4]
        if not (0 <= d <= d_gt + 1000 and d_gt - d < 3000000):
            bad.append(f"{name}: {c[2]} of thread {c[1]} lasted {d} ns, the program timed {d_gt}")
    ranks = {(r[6], r[7]) for r in got}
    check(f"{name}: the op's ranks on its rows {ranks}", not got or ranks == ({(0, 1)} if i == 1 else {(None, None)}))
    # exact, from the rows
    x = split(start, end, [(r[4], r[5], r[2]) for r in got]) if got else (end - start, end - start, 0, 0, 0)
    tot = [a + b for a, b in zip(tot, x)]
    info = comm[f"{name}@gloo_group"]["Communication Time Info"]
    keys = ["Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)"]
    for k, v in zip(keys, x):
        check(f"{name}: {k} {info[k]}, want {v / 1e6:.4f} (rows)", abs(info[k] - v / 1e6) <= 0.00011)
    rt = lambda a, b: round(a / (a + b), 4) if a + b else 0
    check(f"{name}: Wait Time Ratio {info['Wait Time Ratio']}, want {rt(x[2], x[1])}",
          abs(info["Wait Time Ratio"] - rt(x[2], x[1])) <= 0.0001)
    check(f"{name}: Synchronization Time Ratio {info['Synchronization Time Ratio']}, want {rt(x[3], x[1])}",
          abs(info["Synchronization Time Ratio"] - rt(x[3], x[1])) <= 0.0001)
    a = adb.execute("SELECT elapse_time, transit_time, wait_time, synchronization_time, idle_time, "
                    "wait_time_ratio, synchronization_time_ratio FROM CommAnalyzerTime WHERE hccl_op_name = ?",
                    (name,)).fetchall()
    check(f"{name}: CommAnalyzerTime {a} as communication.json",
          len(a) == 1 and all(abs(p - info[k]) <= 0.00011 for p, k in zip(a[0], keys + ["Wait Time Ratio",
                                                                                          "Synchronization Time Ratio"])))
    # loose, from the program's own timing (its calls all lie inside the range)
    s0, e0 = ops[i]
    g = split(s0, e0, [(c[3], c[4], kind(c[2])) for c in mine])
    if i < 2:
        for k, v, w in zip(keys[1:4], x[1:4], g[1:4]):
            check(f"{name}: {k} {v / 1e6:.4f} ms, the program's calls give {w / 1e6:.4f}", abs(v - w) <= 3e6)
    if i == 0:
        check(f"{name}: the receiver's poll waits the sender's 30 ms sleep: wait {x[2]}, sync {x[3]}",
              x[2] >= 25e6 and x[3] >= 25e6 and x[1] > 0)
    if i == 1:  # a blocking receive's wait is in the call: transit
        check(f"{name}: the blocking recv's wait is transit: transit {x[1]}, wait {x[2]}", x[1] >= 25e6 and x[2] == 0)
    if i == 2:
        check(f"{name}: no OS call, no rows ({len(got)})", not got)
total = comm["Total Op Info"]["Communication Time Info"]
for k, v in zip(["Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)", "Idle Time(ms)"], tot):
    check(f"Total Op Info: {k} {total[k]}, want {v / 1e6:.4f}", abs(total[k] - v / 1e6) <= 0.0003)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF_PY
	t_ok "COMMUNICATION_HOST_TASK holds the program's transfers and waits; analyze splits each op as they give"
else
	cat "$T_WORK/check.txt" >&2
	t_fail "communication from osrt calls differs from the program's (see above)"
fi
t_done
