# A job that daemonizes a worker (fork, setsid, the middle process exits at
# once, as daemon(3) and a shell's "( cmd & )" do): the worker is re-parented
# to msprof (a subreaper) instead of init, and msprofd keeps sampling it
# however short its parent's life was.  Ground truth: the worker's own
# getrusage, against the CPU time integrated from its samples in the export.
. "$SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null || t_skip "python3 is needed to read the export"
command -v setsid >/dev/null || t_skip "setsid(1) is needed to daemonize the worker"
W=$T_WORK

cat >"$W/job.sh" <<JOB
#!/bin/sh
( setsid "$HELPERS/test-burn" 800 >"$W/worker.out" 2>&1 & echo \$! >"$W/worker.pid" )
# the job outlives its worker, which it cannot wait for (not its child)
i=0
while ! grep -q cpu_ns "$W/worker.out" 2>/dev/null && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
sleep 0.2
JOB
chmod +x "$W/job.sh"

"$MSPROF" --output="$W/out" --host-sys=cpu --host-sys-freq=100 "$W/job.sh" >"$W/run.log" 2>&1 ||
	{ t_fail "msprof run"; cat "$W/run.log" >&2; }
wpid=$(cat "$W/worker.pid" 2>/dev/null)
truth_ns=$(sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' "$W/worker.out" | head -n1)
[ -n "$wpid" ] && [ -n "$truth_ns" ] || { t_fail "the worker did not run"; cat "$W/run.log" "$W/worker.out" >&2; t_done; }
db=$(ls "$W"/out/PROF_*/msprof_*.db 2>/dev/null | head -n1)
[ -n "$db" ] || { t_fail "no database"; cat "$W/run.log" >&2; t_done; }

# CPU seconds of the worker: each row's % of one CPU over the interval to
# the next row of its thread
read -r rows cpu_s <<EOF_PY
$(python3 - "$db" "$wpid" <<'PY'
import sqlite3, sys
db, pid = sys.argv[1], int(sys.argv[2])
rows = sqlite3.connect(db).execute(
    "SELECT tid, timestampNs, usage FROM TARGET_THREAD_CPU_USAGE WHERE pid = ? ORDER BY tid, timestampNs",
    (pid,)).fetchall()
total, prev = 0.0, {}
for tid, ts, usage in rows:
    if tid in prev:
        total += prev[tid][1] / 100.0 * (ts - prev[tid][0]) / 1e9
    prev[tid] = (ts, usage)
# the last row of a thread covers the interval after it: one more period
total += sum(u / 100.0 * 0.01 for _, u in prev.values())
print(len(rows), total)
PY
)
EOF_PY
if [ "${rows:-0}" -gt 0 ]; then
	t_ok "the daemonized worker (pid $wpid) is in the export: $rows CPU samples"
else
	t_fail "the daemonized worker (pid $wpid) has no CPU samples in the export"
fi
t_within "the worker's CPU time from its samples vs its getrusage" "${cpu_s:-0}" \
	"$(awk -v n="$truth_ns" 'BEGIN{print n/1e9}')" 0.15
t_done
