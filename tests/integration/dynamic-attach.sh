# Attach mode: msprof --dynamic=on --pid=P[,P...] on processes started
# outside msprof.  Windows over an idle and a bursting process; a second
# interactive msprof on the same process is refused with msprof's message;
# quit detaches (the process runs on, and can be attached to again); several
# pids give one PROF dir per process per window, and one exiting while
# attached is reported while the others carry on; bad pids get msprof's
# messages.  With the agent built: --list shows the processes that have
# one, and their mstx marks land in the window's PROF dir.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
AGENT=$(dirname "$MSPROF")/../collectors/agent/libmsprof_agent.so
SPIN=$HELPERS/../agent/spin-app

# --- one process, started by the test -------------------------------------------
dyn_outside p1 P1

dyn_open in
dyn_run_pipe "$W/log" --dynamic=on --output="$W/out" --pid="$P1"
dyn_wait 1 "[INFO] Attached to process $P1 (work.sh)" "$W/log" "attached, the process named" || t_done
dyn_wait 1 "(msprof) " "$W/log" "the prompt"
dyn_idle_window "$W/log" "$W/out"
dyn_burst_window p1 "$W/log"

# a second interactive msprof is refused (msprof: one user per process)
"$MSPROF" --dynamic=on --pid="$P1" </dev/null >"$W/log-second" 2>&1; rc=$?
t_check "second client: exit 1" test "$rc" -eq 1
t_grep "second client: msprof's message" \
	"[ERROR] recv params timeout, server for pid $P1 has been connected to another client." "$W/log-second"
t_grep "second client: nothing left" "[ERROR] no process left to profile, stop profiling." "$W/log-second"

dyn_send stop
dyn_wait 2 "dynamic profiling stop success......" "$W/log" "stop again"
dyn_send quit
wait "$DYN_PID"; rc=$?
dyn_close
t_check "quit: exit 0" test "$rc" -eq 0
t_grep "quit: msprof's reply" "dynamic profiling quit success......" "$W/log"
t_check "quit detaches: the process runs on" kill -0 "$P1"
mapfile -t dirs < <(dyn_prof_dirs "$W/out")
if [ "${#dirs[@]}" -eq 2 ]; then t_ok "two windows, two PROF dirs"; else t_fail "${#dirs[@]} PROF dirs, want 2"; fi
if [ "${#dirs[@]}" -ge 2 ]; then
	dyn_check_window "${dirs[0]}" "idle window"
	dyn_check_window "${dirs[1]}" "burst window"
	idle=$(dyn_max_cpu "${dirs[0]}"); busy=$(dyn_max_cpu "${dirs[1]}")
	if [ "$idle" -lt 20 ]; then t_ok "idle window: busiest thread at $idle%"; else t_fail "idle window shows $idle% CPU"; fi
	if [ "$busy" -gt 40 ]; then t_ok "burst window: busiest thread at $busy%"; else t_fail "burst window shows only $busy% CPU"; fi
	t_check "burst window holds the burst's child process" test "$(dyn_procs "${dirs[1]}" test-burn)" -ge 1
	t_check "info.json names the attached process" test "$(dyn_info_pid "${dirs[0]}")" = "$P1"
fi

# the claim ended with the first msprof: attaching again works
printf 'start\nstop\nquit\n' | "$MSPROF" --dynamic=on --output="$W/again" --pid="$P1" >"$W/log-again" 2>&1; rc=$?
t_check "attach again after quit: exit 0" test "$rc" -eq 0
t_check "attach again: one PROF dir" test "$(dyn_prof_dirs "$W/again" | wc -l)" -eq 1

# --- several processes; one exits while attached -----------------------------------
dyn_outside p2 P2
dyn_open in2
dyn_run_pipe "$W/log2" --dynamic=on --output="$W/multi" --pid="$P1,$P2,$P1,2147483647"
dyn_wait 1 "[WARNING] process 2147483647 does not exist" "$W/log2" "a bad pid among good ones: why"
dyn_wait 1 "[WARNING] Argument --pid: invalid pid value: 2147483647, will not collect profiling data for these process." \
	"$W/log2" "... and msprof's warning"
dyn_wait 1 "[INFO] Attached to process $P2" "$W/log2" "both processes attached"
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$W/log2" "start on two processes"
dyn_until dyn_all_have_samples "$W/multi" 1000 || t_fail "no samples in the two windows"
dyn_send stop
dyn_wait 1 "dynamic profiling stop success......" "$W/log2" "stop on two processes"
dyn_tell p2 "exit 0"
dyn_wait 1 "[WARNING] process $P2 (work.sh) has exited, the other processes carry on" "$W/log2" \
	"an exit while attached is told"
dyn_send start
dyn_wait 2 "dynamic profiling start success......" "$W/log2" "start on the one left"
dyn_until dyn_has_samples "$W/multi" 1000 || t_fail "no samples on the process left"
dyn_tell p1 "exit 0"
wait "$DYN_PID"; rc=$?
dyn_close
t_check "all processes gone: exit 0" test "$rc" -eq 0
t_grep "the last exit is told" "All attached processes have exited, dynamic profiling ends." "$W/log2"
t_grep "the window open at the exit is saved" "The collection of process $P1 is saved in PROF_" "$W/log2"
mapfile -t dirs < <(dyn_prof_dirs "$W/multi")
if [ "${#dirs[@]}" -eq 3 ]; then t_ok "one PROF dir per process per window"; else t_fail "${#dirs[@]} PROF dirs, want 3"; fi
pids=$(for d in "${dirs[@]}"; do echo "$(dyn_info_pid "$d")"; done | sort -n | tr '\n' ' ')
want=$(printf '%s\n' "$P1" "$P1" "$P2" | sort -n | tr '\n' ' ')
if [ "$pids" = "$want" ]; then t_ok "the PROF dirs name $P1 twice and $P2 once"; else t_fail "PROF dirs name '$pids', want '$want'"; fi
for d in "${dirs[@]}"; do dyn_check_window "$d" "$(basename "$d")"; done

# --- bad pids: msprof's messages, nothing runs ------------------------------------------
"$MSPROF" --dynamic=on --pid=12,abc </dev/null >"$W/log-bad1" 2>&1; rc=$?
t_check "non-numeric pid: exit 1" test "$rc" -eq 1
t_grep "non-numeric pid: msprof's message" "[ERROR] Argument --pid: invalid non-numeric pid value: abc, stop profiling." "$W/log-bad1"
"$MSPROF" --dynamic=on --pid="$P1" </dev/null >"$W/log-bad2" 2>&1; rc=$?
t_check "an exited pid: exit 1" test "$rc" -eq 1
t_grep "an exited pid: why" "process $P1 does not exist" "$W/log-bad2"
t_grep "an exited pid: msprof's message" "[ERROR] Argument --pid: no valid pid values, stop profiling." "$W/log-bad2"
"$MSPROF" --pid=1 </dev/null >"$W/log-bad3" 2>&1; rc=$?
t_check "--pid without --dynamic=on: exit 1" test "$rc" -eq 1
t_grep "--pid without --dynamic=on: msprof's message" "[ERROR] Argument --dynamic=off, but --pid is set." "$W/log-bad3"
"$MSPROF" --dynamic=on </dev/null >"$W/log-bad4" 2>&1; rc=$?
t_grep "neither app nor pid: msprof's message" "[ERROR] Argument --dynamic=on, but --application/--pid is all empty." "$W/log-bad4"
"$MSPROF" --dynamic=on --pid=1 /bin/true </dev/null >"$W/log-bad5" 2>&1
t_grep "both app and pid: msprof's message" "[ERROR] Argument --dynamic=on, can not set --application/--pid at the same time." "$W/log-bad5"

# a process of another user (as root: run msprof as nobody against our own)
sleep 300 7>&- &
SP=$!
T_PIDS+=("$SP")
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$MSPROF" 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MSPROF" --dynamic=on --pid="$SP" </dev/null >"$W/log-bad6" 2>&1
	rc=$?
	t_check "another user's process: exit 1" test "$rc" -eq 1
	t_grep "another user's process: why" "[WARNING] process $SP belongs to uid 0, not to uid 65534" "$W/log-bad6"
	t_grep "another user's process: msprof's message" "[ERROR] Argument --pid: no valid pid values, stop profiling." "$W/log-bad6"
else
	t_ok "another user's process: not checked (needs root, setpriv and a build nobody can run)"
fi

# --- the agent: --list, and mstx data in the window ---------------------------------------
if [ -f "$AGENT" ] && [ -x "$SPIN" ]; then
	# msprof injects it in dynamic launch mode; --msproftx=on records mstx
	dyn_open in3
	dyn_run_pipe "$W/log3" --dynamic=on --msproftx=on --output="$W/agent" "$SPIN" steady 120
	dyn_wait 1 "(msprof) " "$W/log3" "agent: the prompt"
	APP=""
	find_app() { APP=$(pgrep -P "$DYN_PID" -x spin-app | head -n1); [ -n "$APP" ]; }
	dyn_until find_app || t_fail "agent: no spin-app under msprof"
	T_PIDS+=("$APP")
	listed() { "$MSPROF" --dynamic=on --list >"$W/list" 2>&1 && grep -Eq "^$APP +.* spin-app\$" "$W/list"; }
	if dyn_until listed; then t_ok "--list shows the launched process with its agent"; else t_fail "--list: $APP not listed"; cat "$W/list" >&2; fi
	t_grep "--list has a header" "PID      PPID     RANK  STATE      NAME" "$W/list"
	# a process the user started with the agent by hand, while msprofd runs
	LD_PRELOAD=${DYN_ASAN_LIB:+$DYN_ASAN_LIB:}$AGENT MSTX_INJECTION_PATH=$AGENT "$SPIN" steady 120 >/dev/null 7>&- &
	HAND=$!
	T_PIDS+=("$HAND")
	listed_hand() { "$MSPROF" --dynamic=on --list 2>&1 | grep -Eq "^$HAND "; }
	if dyn_until listed_hand; then t_ok "--list shows a process started with the agent by hand"; else t_fail "--list: $HAND not listed"; fi

	dyn_send start
	dyn_wait 1 "dynamic profiling start success......" "$W/log3" "agent: start"
	has_agent_data() { ls "$W"/agent/PROF_*/host/data/agent_"$APP".data.slice_* >/dev/null 2>&1; }
	dyn_until has_agent_data || t_fail "agent: no agent file in the window"
	dyn_send stop
	dyn_wait 1 "done." "$W/log3" "agent: window exported"
	d=$(dyn_prof_dirs "$W/agent" | tail -n1)
	if [ -n "$d" ]; then
		db=$(dyn_db "$d")
		n=$(t_sql "$db" "SELECT count(*) FROM MSTX_EVENTS" 2>/dev/null || echo 0)
		if [ "${n:-0}" -gt 0 ]; then t_ok "agent: $n mstx marks in the window"; else t_fail "agent: no MSTX_EVENTS"; fi
		out=$(t_sql "$db" "SELECT count(*) FROM MSTX_EVENTS, SESSION_TIME_INFO WHERE startNs < startTimeNs OR startNs > endTimeNs" 2>/dev/null)
		t_check "agent: every mark inside the window" test "${out:-1}" = 0
	fi
	dyn_send quit
	dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log3" "agent: quit waits for the app"
	kill "$APP"
	wait "$DYN_PID"; rc=$?
	dyn_close
	t_check "agent: msprof exits with the app's 128+SIGTERM" test "$rc" -eq 143

	# attach to the process started by hand: its agent gives mstx data too
	dyn_open in4
	dyn_run_pipe "$W/log4" --dynamic=on --msproftx=on --output="$W/hand" --pid="$HAND"
	dyn_wait 1 "[INFO] Attached to process $HAND (spin-app), with its msprof agent: host and agent data." \
		"$W/log4" "attach: the agent is seen"
	dyn_send start
	dyn_wait 1 "dynamic profiling start success......" "$W/log4" "attach with agent: start"
	has_hand_data() { ls "$W"/hand/PROF_*/host/data/agent_"$HAND".data.slice_* >/dev/null 2>&1; }
	dyn_until has_hand_data || t_fail "attach with agent: no agent file"
	dyn_send quit
	wait "$DYN_PID"
	dyn_close
	d=$(dyn_prof_dirs "$W/hand" | tail -n1)
	n=$(t_sql "$(dyn_db "$d")" "SELECT count(*) FROM MSTX_EVENTS" 2>/dev/null || echo 0)
	if [ "${n:-0}" -gt 0 ]; then t_ok "attach with agent: $n mstx marks"; else t_fail "attach with agent: no MSTX_EVENTS"; fi
else
	t_ok "agent parts not checked: $AGENT or $SPIN not built"
fi

t_done
