# Fault injection: msprofd killed (SIGKILL) at a random point of a launch-mode
# run, 20 times (8 at a time, each run with a daemon of its own).  The job
# runs on and msprof exits with its status, saying that host collection and
# the annotation recording of the job's processes stopped; the agent closes its window when it loses msprofd, so every mark
# made before that is in the export (a run of consecutive marks from the
# first, none missing), and the export's report names the process and the
# time its recording stopped, no earlier than its last recorded mark.  The
# host samples written before the kill are exported, none after it.
. "$SRCDIR/tests/integration/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
SPIN=$(dirname "$MSPROF")/../tests/agent/spin-app
[ -x "$SPIN" ] || t_skip "spin-app not built"
# sanitized: 5 runs (the plain run makes the 20)
RUNS=${RUNS:-$([ -n "$T_ASAN_LIB" ] && echo 5 || echo 20)}
daemon_pid() { cat "$MSPROF_RUNTIME_DIR/msprofd.pid" 2>/dev/null; }
STOPPED="host data collection and the annotation recording of its processes stopped, the application keeps running"

# one_run RUN: with a daemon of its own (its own runtime dir), started by
# this run's msprof and killed by this run alone
one_run() {
	export MSPROF_RUNTIME_DIR=$T_WORK/run$1
	kill_run "$1"
	t_stop_daemon
}
kill_run() {
	local run=$1 out=$T_WORK/o$1 log=$T_WORK/log$1 start_ns mp dp kill_ns rc what prof db made n lo hi last note at after
	start_ns=$(date +%s%N)
	t_msprof --msproftx=on --output="$out" "$SPIN" steady 1.2 >"$log" 2>&1 &
	mp=$!
	# somewhere in the job's 1.2 s, once it records (its first marks are
	# printed: the agent held the job until its window opened)
	t_until 10 grep -qE '^[0-9]+ [0-9]+$' "$log"
	sleep "0.$((RANDOM % 9))"
	dp=$(daemon_pid)
	kill -KILL "$dp"
	# the time of the kill taken after it: taken before, a loaded machine
	# can put the shell aside between the two (140 ms in a CI run), and the
	# samples msprofd wrote meanwhile look later than the kill
	kill_ns=$(date +%s%N)
	wait "$mp"; rc=$?
	what="run $run (msprofd killed $(((kill_ns - start_ns) / 1000000)) ms into it)"
	if [ "$rc" -ne 0 ]; then t_fail "$what: msprof exited $rc"; cat "$log" >&2; return; fi
	prof=$(t_prof_dir "$out") || { cat "$log" >&2; return; }
	db=$(ls "$prof"/msprof_*.db 2>/dev/null | head -n1)
	[ -n "$db" ] || { t_fail "$what: not exported"; cat "$log" >&2; return; }
	# the marks the job made: every 10th printed with its index (the ground truth of how many)
	made=$(($(grep -E '^[0-9]+ [0-9]+$' "$log" | tail -n1 | cut -d' ' -f1) + 1))
	read -r n lo hi last < <(t_sql "$db" "SELECT count(*), min(n), max(n), max(startNs) FROM (SELECT
		CAST(substr(s.value, 2) AS INTEGER) AS n, e.startNs FROM MSTX_EVENTS e JOIN STRING_IDS s
		ON s.id = e.message)" | tr '|' ' ')
	if [ "${n:-0}" -gt 0 ] && [ "$lo" = 0 ] && [ $((hi - lo + 1)) = "$n" ]; then :; else
		t_fail "$what: marks not a run from m0: $n marks, m$lo..m$hi"; return
	fi
	if grep -qF "[WARNING] lost the connection to msprofd" "$log"; then
		grep -qF "$STOPPED" "$log" || t_fail "$what: msprof does not say that annotation recording stopped"
		note=$(grep -F "annotation recording stopped early in 1 process(es) when msprofd was lost" "$log")
		at=$(sed -nE 's/.*pid [0-9]+ at ([0-9]+)\.([0-9]{3}) s.*/\1\2/p' <<<"$note")
		if [ -z "$at" ]; then
			t_fail "$what: the export does not name the process whose recording stopped"; cat "$log" >&2
		elif [ $((at * 1000000 + 999999)) -lt "$last" ] || [ $((at * 1000000)) -gt $((kill_ns + 1000000000)) ]; then
			t_fail "$what: recording said to stop at $at ms, last mark at $last ns, kill at $kill_ns ns"
		elif [ "$n" -ge "$made" ] && [ "$made" -gt 100 ] && [ "$last" -gt $((kill_ns + 100000000)) ]; then
			# every mark, the last one well after the kill: the agent went
			# on recording (a job that made its last mark before the kill
			# and was still ending when it came has every mark rightly)
			t_fail "$what: all $made marks recorded, the last $(((last - kill_ns) / 1000000)) ms after the kill, yet recording stopped at the kill"
		fi
	else
		# msprofd died as the job ended: a whole run
		t_check "$what: the job ended first, all its marks recorded" test "$n" -ge "$made"
	fi
	# host samples: some, none after the kill
	after=$(t_sql "$db" "SELECT count(*) FROM CPU_USAGE WHERE timestampNs > $kill_ns + 100000000" 2>/dev/null)
	t_check "$what: no host sample after the kill" test "${after:-0}" = 0
	t_ok "$what: $n of $made marks, from m0 without a gap"
}

# The runs are independent (each its own daemon) and mostly wait (the job's
# 1.2 s): 8 at a time.
echo "# $RUNS runs, 8 at a time"
t_each 8 one_run $(seq "$RUNS")
t_done
