#!/bin/bash
# Device tasks end to end without a GPU: msprof injects its agent and sets
# CUDA_INJECTION64_PATH; test-cuda-app does what the CUDA driver does with
# it (InitializeInjection); the agent loads the fake CUPTI
# (tests/helpers/fake-cupti.c) through its real dlopen path and records
# what the fake delivers at the window's end.  The database, CSVs and
# timeline must hold exactly those kernels, the copy, the API calls and
# the synchronisations, linked by HostToDevice flows, and only what the
# switches ask for (device-cupti-check.py): --runtime-api=on, the defaults
# (--task-time on, --runtime-api off), --task-time=off --runtime-api=on.
# Then a second CUPTI user: one message, the run goes on.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/cupti-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"

# $1 name, $2 check mode (device-cupti-check.py), then msprof's options
run_case() {
	local name=$1 mode=$2 rc p
	shift 2
	mkdir -p "$T_WORK/$name"
	MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 t_msprof --output="$T_WORK/$name" "$@" \
		"$APP" "$T_WORK/$name.pid" 300 >"$T_WORK/$name.log" 2>&1
	rc=$?
	t_check "$name: msprof exits 0" test $rc -eq 0
	p=$(t_prof_dir "$T_WORK/$name") || return 1
	if python3 "$SRCDIR/tests/integration/device-cupti-check.py" "$mode" "$p" "$(cat "$T_WORK/$name.pid")"; then
		t_ok "$name: tables, CSVs and timeline hold the fake CUPTI's records, as the switches ask"
	else
		t_fail "$name: outputs differ from the fake CUPTI's records (see above)"
	fi
}
run_case all all --runtime-api=on --msproftx=on
# the defaults and --task-time=off --runtime-api=on, with the agent
# injected as where an NVIDIA driver is: the window opens for device
# records alone (no --msproftx)
MSPROF_NVIDIA_CTL=/dev/null run_case defaults tasks
MSPROF_NVIDIA_CTL=/dev/null run_case api-only api --task-time=off --runtime-api=on

# kernels still running when the window's stop flushed CUPTI come without
# an end time: left out and counted as such, not as dropped annotations,
# and the finished ones are all there
mkdir -p "$T_WORK/untimed"
MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 FAKE_CUPTI_UNTIMED=2 t_msprof --output="$T_WORK/untimed" \
	--msproftx=on "$APP" "$T_WORK/untimed.pid" 100 >"$T_WORK/untimed.log" 2>&1
rc=$?
t_check "untimed records: msprof exits 0" test $rc -eq 0
t_grep "untimed records: the export says what they are" \
	"device: 2 task(s), call(s) or wait(s) had no end time when CUPTI handed them over (still running at the stop) and are left out" \
	"$T_WORK/untimed.log"
t_check "untimed records: not called dropped annotations" \
	bash -c "! grep -q 'dropped in' '$T_WORK/untimed.log'"
PU=$(t_prof_dir "$T_WORK/untimed") || exit 1
t_eq "untimed records: the 3 finished kernels kept, none of the running ones; AGENT_COUNTERS says 2 untimed" \
	"$(sqlite3 "$PU"/msprof_*.db "SELECT (SELECT count(*) FROM GPU_TASK WHERE kind = 1) || ',' ||
	   (SELECT count(*) FROM GPU_TASK WHERE name LIKE '%running%') || ',' ||
	   (SELECT SUM(gpuLost) || '/' || SUM(gpuUntimed) || '/' || SUM(gpuBad) FROM AGENT_COUNTERS)")" "3,0,0/2/0"

# another CUPTI user in the process: one message, the application and the
# rest of the collection go on
cupti_trouble other "another CUPTI user" \
	"msprof agent: another CUPTI user (nsys, Kineto, ncu...) is active in this process: device tasks are not recorded, everything else is" \
	"another CUPTI user" MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_SUBSCRIBE_ERROR=39 || exit 1
t_check "another CUPTI user: no TASK rows (the table is always there, empty)" \
	test "$(sqlite3 "$P"/msprof_*.db "SELECT count(*) FROM TASK")" = 0
# The flush at exit, before CUPTI tears down (the fake aborts on a flush
# after its teardown): exit(0) from a second thread while CUPTI's own
# thread is completing a buffer; the exit waits for that buffer and then
# flushes the rest once, so both sets of records are there
mkdir -p "$T_WORK/exit"
MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 FAKE_CUPTI_THREAD_MS=100 FAKE_CUPTI_BUSY_MS=300 \
	FAKE_CUPTI_BUSY_FILE="$T_WORK/busy" t_msprof --output="$T_WORK/exit" --msproftx=on \
	"$APP" "$T_WORK/exit.pid" 30000 exit-thread "$T_WORK/busy" >"$T_WORK/exit.log" 2>&1
rc=$?
t_check "exit from a thread during a buffer: msprof exits 0" test $rc -eq 0
t_check "exit from a thread during a buffer: it came while the buffer was held" test -e "$T_WORK/busy"
t_check "exit from a thread during a buffer: no flush after CUPTI's teardown" \
	bash -c "! grep -q 'flush after teardown' '$T_WORK/exit.log'"
P3=$(t_prof_dir "$T_WORK/exit") || exit 1
t_check "exit from a thread during a buffer: both buffers' tasks (6 kernels, 2 copies), 4 waits" test \
	"$(sqlite3 "$P3"/msprof_*.db "SELECT (SELECT count(*) FROM GPU_TASK WHERE kind = 1) || ',' ||
	   (SELECT count(*) FROM GPU_TASK WHERE kind = 2) || ',' || (SELECT count(*) FROM GPU_SYNC)")" = "6,2,4"

# a CUPTI that never answers the flush: the exit goes on after 2 s, says
# once what was lost, and the rest of the run is exported
cupti_trouble hang "wedged CUPTI" \
	"msprof agent: CUPTI did not hand over its buffers within 2000 ms: the last device records are lost" \
	"did not hand over" MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_FLUSH_HANG=1 || exit 1
t_check "wedged CUPTI: no device task" \
	test -z "$(sqlite3 "$P"/msprof_*.db "SELECT name FROM sqlite_master WHERE name = 'GPU_TASK'")"
t_check "no sanitizer report from the agent" bash -c "! grep -E 'runtime error|Sanitizer' '$T_WORK'/*.log"
exit $((T_FAILS > 0))
