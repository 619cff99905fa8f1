#!/bin/bash
# Device tasks in attach mode (--dynamic=on --pid), through the fake CUPTI.
# A job started with CUDA_INJECTION64_PATH naming the agent brings CUPTI up
# at its cuInit (test-cuda-app does what the driver does), long before
# anyone attaches; a window opened later by attaching, with no --msproftx,
# holds exactly what the fake delivers at the window's stop, inside the
# window.  A process started without the variable gets one line saying how
# to start it, and nothing of the kind with --task-time=off.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"
. "$SRCDIR/tests/integration/cupti-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
AGENT=$(dirname "$MSPROF")/../collectors/agent/libmsprof_agent.so
[ -f "$AGENT" ] || t_skip "no agent in this build"
W=$T_WORK
# as where an NVIDIA driver is
export MSPROF_NVIDIA_CTL=/dev/null

# msprofd first, so that the job's agent registers as it starts
"$MSPROF" --dynamic=on --list >/dev/null 2>&1
(
	[ -n "$DYN_ASAN_LIB" ] && export LD_PRELOAD=$DYN_ASAN_LIB ASAN_OPTIONS=detect_leaks=0
	export CUDA_INJECTION64_PATH=$AGENT MSPROF_CUPTI_LIBRARY=$FAKE FAKE_CUPTI_KERNELS=3
	exec "$APP" "$W/app.pid" 60000
) >"$W/app.log" 2>&1 7>&- &
JOB=$!
T_PIDS+=("$JOB")
listed() { "$MSPROF" --dynamic=on --list 2>&1 | grep -Eq "^$JOB "; }
if dyn_until listed; then t_ok "the job's agent registered"; else t_fail "the job's agent never registered"; t_done; fi
t_check "the job's CUPTI came up at its cuInit" test -s "$W/app.pid"

dyn_open in
dyn_run_pipe "$W/log" --dynamic=on --output="$W/out" --pid="$JOB"
dyn_wait 1 "[INFO] Attached to process $JOB" "$W/log" "attached to the job"
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$W/log" "start"
dyn_send stop
dyn_wait 1 "dynamic profiling stop success......" "$W/log" "stop"
dyn_wait 1 "done." "$W/log" "the window is exported"
dyn_send quit
wait "$DYN_PID"
rc=$?
dyn_close
t_check "quit: exit 0" test "$rc" -eq 0
t_check "no advice for a job started with the agent" test "$(dyn_count "$W/log" "CUDA_INJECTION64_PATH")" -eq 0
d=$(dyn_prof_dirs "$W/out" | tail -n1)
if [ -n "$d" ] && python3 - "$(dyn_db "$d")" "$JOB" <<'EOF'; then
import sqlite3, sys
db, pid = sqlite3.connect(sys.argv[1]), int(sys.argv[2])
q = lambda sql: db.execute(sql).fetchall()
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}
check("tables", sorted(t for t in ("TASK", "COMPUTE_TASK_INFO", "CANN_API", "GPU_SYNC") if t in tables),
      ["COMPUTE_TASK_INFO", "GPU_SYNC", "TASK"])
if "TASK" in tables:
    rows = q("SELECT s.value, streamId, taskId, globalPid, endNs - startNs FROM TASK t JOIN STRING_IDS s "
             "ON s.id = t.taskType ORDER BY t.startNs")
    check("TASK", rows, [("KERNEL", 7, i + 1, pid, 500) for i in range(3)] + [("MEMCPY", 9, 4, pid, 200)])
    check("tasks outside the window",
          q("SELECT count(*) FROM TASK, SESSION_TIME_INFO WHERE startNs < startTimeNs OR endNs > endTimeNs"), [(0,)])
if "GPU_SYNC" in tables:
    check("GPU_SYNC", q("SELECT type, streamId, endNs - startNs FROM GPU_SYNC ORDER BY startNs"),
          [(3, 7, 1300), (4, None, 800)])
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
	t_ok "the window holds the job's device tasks, and only inside it"
else
	t_fail "the attached window's device tasks differ from the fake CUPTI's (see above)"
fi

# a process started without the agent as CUDA_INJECTION64_PATH
sleep 60 7>&- &
PLAIN=$!
T_PIDS+=("$PLAIN")
for tt in on off; do
	dyn_open "in-$tt"
	dyn_run_pipe "$W/log-$tt" --dynamic=on --output="$W/out-$tt" --task-time="$tt" --pid="$PLAIN"
	dyn_wait 1 "[INFO] Attached to process $PLAIN" "$W/log-$tt" "--task-time=$tt: attached to a plain process"
	dyn_send quit
	wait "$DYN_PID"
	dyn_close
done
t_grep "one line says how to start it" \
	"[WARNING] process $PLAIN (sleep) was not started with CUDA_INJECTION64_PATH=" "$W/log-on"
t_check "said once" test "$(dyn_count "$W/log-on" "CUDA_INJECTION64_PATH=")" -eq 1
t_check "nothing said with --task-time=off" test "$(dyn_count "$W/log-off" "CUDA_INJECTION64_PATH")" -eq 0
t_check "no sanitizer report" bash -c "! grep -E 'runtime error|Sanitizer' '$W/app.log' '$W/log'"
t_done
