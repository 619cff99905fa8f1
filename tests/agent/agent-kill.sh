#!/bin/bash
# Fault injection: kill -9 of the job, then of the launcher, at random
# points, 20 runs each (KILL_RUNS sets the number), 8 at a time (KILL_JOBS).
# The job marks once a millisecond (spin-app steady) under `msprof`.
#  - job killed: msprof exports what the agent had flushed; every mark in
#    the job's raw files is in the export's MSTX_EVENTS, and the export says
#    that the process ended without its final record (what it marked after
#    its last flush is lost with it).
#  - launcher killed: the job runs on; `msprof --export=on --output=DIR`
#    exports the PROF dir; every mark in the raw files is in the export, and
#    the export says that the collection did not stop cleanly.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to count the exported events"
SPIN=$AGENT_BIN/spin-app
# sanitized: 5 runs (the plain run makes the 20)
RUNS=${KILL_RUNS:-$([ -n "${ASAN_LIB:-}" ] && echo 5 || echo 20)}

# $1 PROF dir, $2 pid: marks in its raw files (what was flushed)
raw_marks() { a_field "$("$DUMP" "$1/host/data" "$2")" marks; }
# $1 PROF dir: MSTX_EVENTS rows of its database
db_marks() { sqlite3 "$(ls "$1"/msprof_*.db | head -n 1)" "SELECT COUNT(*) FROM MSTX_EVENTS"; }
# a random delay from 0.1 to 1.5 s
pause() { sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"; [ $((RANDOM % 3)) -eq 0 ] && sleep 0.6; return 0; }

# exported WHAT PROF RAW LOG PATTERN SAYS: the RAW marks flushed are all
# in PROF's database, and the export's LOG says SAYS (holds PATTERN)
exported() {
	local what=$1 prof=$2 raw=$3 log=$4 pattern=$5 says=$6 db
	db=$(db_marks "$prof")
	if [ "$raw" != "$db" ]; then
		t_fail "$what: $raw marks flushed, $db exported"
	fi
	if ! grep -q "$pattern" "$log"; then
		t_fail "$what: the export does not say that $says"
		cat "$log" >&2
	fi
}

# the job's pid: msprof's child running spin-app
job_of() {
	local p
	for _ in $(seq 100); do
		p=$(pgrep -P "$1" -x spin-app | head -n 1)
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.05
	done
	return 1
}

# job_run RUN: the job killed; $out.res gets "KEPT LOST" (marks exported, marks lost with the job)
job_run() {
	local run=$1 out=$T_WORK/job$1 launcher job issued prof raw
	mkdir -p "$out"
	env "${PRE[@]}" "$MSPROF" --output="$out" --msproftx=on "$SPIN" steady 5 >"$out.log" 2>&1 &
	launcher=$!
	job=$(job_of "$launcher") || { t_fail "job run $run: the job did not start"; kill "$launcher"; return; }
	pause
	issued=$(($(tail -n 1 "$out.log" 2>/dev/null | awk '/^[0-9]+ / { print $1 }') + 0))
	kill -KILL "$job"
	wait "$launcher" 2>/dev/null
	prof=$(ls -d "$out"/PROF_* 2>/dev/null | head -n 1)
	if [ -z "$prof" ] || ! ls "$prof"/msprof_*.db >/dev/null 2>&1; then
		t_fail "job run $run: no export after the job was killed"; cat "$out.log" >&2; return
	fi
	raw=$(raw_marks "$prof" "$job")
	exported "job run $run" "$prof" "$raw" "$out.log" "process $job ended without its final record" \
		"process $job ended without its final record"
	echo "$raw $([ "$issued" -gt "$raw" ] && echo $((issued - raw)) || echo 0)" >"$out.res"
}

# launcher_run RUN: msprof killed; $out.res gets the marks exported
launcher_run() {
	local run=$1 out=$T_WORK/launcher$1 launcher job prof raw
	mkdir -p "$out"
	env "${PRE[@]}" "$MSPROF" --output="$out" --msproftx=on "$SPIN" steady 2 >"$out.log" 2>&1 &
	launcher=$!
	job=$(job_of "$launcher") || { t_fail "launcher run $run: the job did not start"; kill "$launcher"; return; }
	pause
	kill -KILL "$launcher"
	wait "$launcher" 2>/dev/null
	# the job runs on by itself: wait for it to end
	for _ in $(seq 200); do kill -0 "$job" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$job" 2>/dev/null && { kill -KILL "$job"; t_fail "launcher run $run: the job did not end"; }
	prof=$(ls -d "$out"/PROF_* 2>/dev/null | head -n 1)
	[ -n "$prof" ] || { t_fail "launcher run $run: no PROF dir"; return; }
	if ! env "${PRE[@]}" "$MSPROF" --export=on --output="$prof" >"$out.export" 2>&1; then
		t_fail "launcher run $run: msprof --export=on failed: $(tail -n 3 "$out.export")"; return
	fi
	raw=$(raw_marks "$prof" "$job")
	exported "launcher run $run" "$prof" "$raw" "$out.export" \
		"end_info' is missing: the collection did not stop cleanly" "the collection did not stop cleanly"
	echo "$raw" >"$out.res"
}

# The runs are independent (each its own msprof, job and output dir; the
# test's msprofd serves them all) and mostly wait (the random pause, the
# job's own 2 s after its launcher is killed): JOBS of them at a time.
JOBS=${KILL_JOBS:-8}
echo "# $RUNS runs of each kind, $JOBS at a time"
fails=$T_FAILS
t_each "$JOBS" job_run $(seq "$RUNS")
read -r job_kept job_lost < <(cat "$T_WORK"/job*.res 2>/dev/null | awk '{ k += $1; l += $2 } END { print k + 0, l + 0 }')
[ "$T_FAILS" -eq "$fails" ] && t_ok "job killed $RUNS times: every flushed mark exported ($job_kept), the loss named each time ($job_lost or more marked after the last flush)"

fails=$T_FAILS
t_each "$JOBS" launcher_run $(seq "$RUNS")
launcher_kept=$(cat "$T_WORK"/launcher*.res 2>/dev/null | awk '{ k += $1 } END { print k + 0 }')
[ "$T_FAILS" -eq "$fails" ] && t_ok "launcher killed $RUNS times: every flushed mark exported ($launcher_kept), the unclean stop named each time"
exit $((T_FAILS > 0))
