# --delay and --duration in launch mode (msprof's delayed collection): the
# application runs at once, the collection starts after the delay and stops
# after the duration (counted from the end of the delay), then msprof waits
# for the application and exports.  An application that exits before the
# delay: msprof's warning, no data, no PROF dir, its exit status.  Ranges
# and conflicts with msprof's messages.  --msproftx=on injects the agent.
#
# Times are only compared as lower bounds (the window cannot start before
# the delay is over), never as durations that must be short enough.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
now_us() { echo $(($(date +%s%N) / 1000)); }
start_us() { sed -n 's/.*"collectionTimeBegin":"\{0,1\}\([0-9]*\).*/\1/p' "$1/host/start_info"; }
end_us() { sed -n 's/.*"collectionTimeEnd":"\{0,1\}\([0-9]*\).*/\1/p' "$1/host/end_info"; }

# The application: writes when it started, waits until told to end, writes
# when it ends.
APP=$W/app.sh
cat >"$APP" <<'EOF2'
#!/bin/sh
echo $(($(date +%s%N) / 1000)) >"$1.t0"
while [ ! -e "$1.end" ]; do sleep 0.05; done
echo $(($(date +%s%N) / 1000)) >"$1.t1"
exit "${2:-0}"
EOF2
chmod +x "$APP"

# --- --delay alone: the window starts after the delay, ends with the app --------
# (the delay runs from some time after now: now + delay is a lower bound)
b1=$(now_us)
"$MSPROF" --output="$W/d1" --delay=1 "$APP" "$W/a1" 6 >"$W/log1" 2>&1 &
M=$!
dyn_wait 1 "[INFO] Collection started after the delay of 1 s." "$W/log1" "delay: the start is told"
dyn_until dyn_has_samples "$W/d1" 1000 || t_fail "delay: no samples"
touch "$W/a1.end"
wait "$M"; rc=$?
t_check "delay: exit with the app's status" test "$rc" -eq 6
P=$(t_prof_dir "$W/d1") && {
	dyn_check_window "$P" "delay"
	s=$(start_us "$P")
	if [ "$s" -ge $((b1 + 1000000)) ]; then t_ok "delay: the window starts at least 1 s after msprof"; else t_fail "delay: window at $s, msprof at $b1"; fi
	t_grep "delay: sample.json records it" '"delay":1' "$P/host/sample.json"
}

# --- --delay and --duration: the window ends while the app runs on ------------------
b2=$(now_us)
"$MSPROF" --output="$W/d2" --delay=1 --duration=1 "$APP" "$W/a2" >"$W/log2" 2>&1 &
M=$!
dyn_wait 1 "[INFO] Collection stopped after the duration of 1 s." "$W/log2" "duration: the stop is told"
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log2" "duration: then msprof waits for the app"
t_check "duration: the app still runs" test ! -e "$W/a2.t1"
touch "$W/a2.end"
wait "$M"; rc=$?
t_check "duration: exit 0" test "$rc" -eq 0
P=$(t_prof_dir "$W/d2") && {
	dyn_check_window "$P" "duration"
	t1=$(cat "$W/a2.t1"); s=$(start_us "$P"); e=$(end_us "$P")
	if [ "$s" -ge $((b2 + 1000000)) ]; then t_ok "duration: starts after the delay"; else t_fail "duration: start $s, msprof at $b2"; fi
	if [ "$e" -ge $((s + 1000000)) ]; then t_ok "duration: lasts at least 1 s"; else t_fail "duration: $s..$e is shorter than 1 s"; fi
	if [ "$e" -lt "$t1" ]; then t_ok "duration: ends before the app"; else t_fail "duration: ends at $e, app at $t1"; fi
}

# --- --duration alone: held app, the window starts with it ----------------------------
"$MSPROF" --output="$W/d3" --duration=1 "$APP" "$W/a3" >"$W/log3" 2>&1 &
M=$!
dyn_wait 1 "[INFO] Collection stopped after the duration of 1 s." "$W/log3" "duration alone: the stop is told"
touch "$W/a3.end"
wait "$M"; rc=$?
t_check "duration alone: exit 0" test "$rc" -eq 0
P=$(t_prof_dir "$W/d3") && {
	dyn_check_window "$P" "duration alone"
	t0=$(cat "$W/a3.t0"); s=$(start_us "$P")
	if [ "$s" -le "$t0" ]; then t_ok "duration alone: the window starts before the app runs"; else t_fail "duration alone: window at $s after the app at $t0"; fi
}

# --- the app exits before the delay ----------------------------------------------------
"$MSPROF" --output="$W/d4" --delay=60 sh -c 'exit 5' >"$W/log4" 2>&1; rc=$?
t_check "early exit: the app's status" test "$rc" -eq 5
t_grep "early exit: msprof's warning" "[WARNING] Before delay time, the app process has exited." "$W/log4"
t_check "early exit: no PROF dir" test "$(dyn_prof_dirs "$W/d4" | wc -l)" -eq 0

# --- ranges and conflicts --------------------------------------------------------------
bad() { # what message args...
	local what=$1 msg=$2; shift 2
	"$MSPROF" "$@" </dev/null >"$W/log-bad" 2>&1; local rc=$?
	if [ "$rc" -eq 1 ] && grep -qF -- "$msg" "$W/log-bad"; then t_ok "$what"; else t_fail "$what: exit $rc"; cat "$W/log-bad" >&2; fi
}
bad "delay 0" "[ERROR] Argument --delay: invalid int value: 0.Please input data is in 1 to 4294967295." \
	--delay=0 /bin/true
bad "delay above the range" "[ERROR] Argument --delay: invalid int value: 4294967296.Please input data is in 1 to 4294967295." \
	--delay=4294967296 /bin/true
bad "duration not a number" "[ERROR] Argument --duration: invalid value: 1m.Please input an integer value in 1-4294967295." \
	--duration=1m /bin/true
bad "delay with dynamic" "[ERROR] Argument --dynamic and --delay cannot be configured at the same time." \
	--dynamic=on --delay=1 /bin/true
bad "duration with dynamic" "[ERROR] Argument --dynamic and --duration cannot be configured at the same time." \
	--dynamic=on --duration=1 /bin/true
bad "mstx domains without msproftx" \
	"[ERROR] Argument --mstx-domain-include/--mstx-domain-exclude must be used with --msproftx=on." \
	--mstx-domain-include=a /bin/true
bad "both mstx domain lists" \
	"[ERROR] Argument --mstx-domain-include and --mstx-domain-exclude cannot be used at the same time." \
	--msproftx=on --mstx-domain-include=a --mstx-domain-exclude=b /bin/true
"$MSPROF" --output="$W/d5" --host-sys-usage=cpu --delay=1 --sys-period=1 >"$W/log5" 2>&1
t_grep "delay without an app is useless" "The argument --delay is useless when --host-sys-usage is not empty" "$W/log5"

# --- --msproftx=on: the agent is injected --------------------------------------------------
ENVAPP=$W/env.sh
printf '#!/bin/sh\necho "P=$LD_PRELOAD M=$MSTX_INJECTION_PATH N=$NVTX_INJECTION64_PATH MODE=$PROFILING_MODE ONLY=$MSPROF_AGENT_UNRECORDED_ONLY" >"$1"\n' >"$ENVAPP"
chmod +x "$ENVAPP"
# a stand-in the loader refuses (with a message): only the environment is checked
FAKE=$W/fake/libmsprof_agent.so
mkdir -p "$W/fake" && echo "not an ELF file" >"$FAKE"
MSPROF_AGENT_PATH=$FAKE LD_PRELOAD= "$MSPROF" --output="$W/d6" --msproftx=on "$ENVAPP" "$W/env1" >"$W/log6" 2>&1
t_grep "msproftx: LD_PRELOAD and the injection variables" "P=$FAKE M=$FAKE N=$FAKE MODE=" "$W/env1"
MSPROF_AGENT_PATH=$FAKE LD_PRELOAD= "$MSPROF" --output="$W/d7" "$ENVAPP" "$W/env2" >"$W/log7" 2>&1
# off: the agent only counts what would have been recorded (agent-unrecorded.sh);
# a sanitized build preloads none for that
if [ -z "$T_ASAN_LIB" ]; then
	t_grep "msproftx off: the agent, to count the annotations alone" "P=$FAKE M=$FAKE N=$FAKE MODE= ONLY=1" "$W/env2"
else
	t_grep "msproftx off, sanitized build: no agent" "P= M= N= MODE= ONLY=" "$W/env2"
fi
MSPROF_AGENT_PATH=$FAKE LD_PRELOAD= "$MSPROF" --output="$W/d8" --delay=1 --msproftx=on sh -c "'$ENVAPP' '$W/env3'; sleep 2" >"$W/log8" 2>&1
t_grep "delay: PROFILING_MODE=delay_or_duration" "MODE=delay_or_duration" "$W/env3"
MSPROF_AGENT_PATH=$W/none.so "$MSPROF" --output="$W/d9" --msproftx=on "$HELPERS/test-burn" 50 >"$W/log9" 2>&1; rc=$?
t_check "agent missing: the run works" test "$rc" -eq 0
t_grep "agent missing: one clear warning" \
	"[WARNING] MSPROF_AGENT_PATH '$W/none.so' is not a readable file: mstx data will not be collected, host data will" "$W/log9"
t_check "agent missing: host data still collected" test "$(dyn_prof_dirs "$W/d9" | wc -l)" -eq 1

# the real agent: a program that annotates at once and exits is recorded
# from its very first annotation (held until the session runs, the agent
# registers while loading)
AGENT=$(dirname "$MSPROF")/../collectors/agent/libmsprof_agent.so
MSTX=$HELPERS/../agent/mstx-app
if [ -f "$AGENT" ] && [ -x "$MSTX" ]; then
	dyn_msprof --output="$W/d10" --msproftx=on "$MSTX" run >"$W/log10" 2>&1; rc=$?
	t_check "msproftx: the annotated program runs" test "$rc" -eq 0
	P=$(t_prof_dir "$W/d10") && {
		read -r pid tmain tthread _ < <(grep -E '^[0-9]+ [0-9]+ [0-9]+' "$W/log10")
		t_check "msproftx: every annotation from the first one is recorded" \
			"$MSTX" check "$P/host/data" "$pid" "$tmain" "$tthread" all
		n=$(t_sql "$(dyn_db "$P")" "SELECT count(*) FROM MSTX_EVENTS" 2>/dev/null || echo 0)
		if [ "${n:-0}" -gt 0 ]; then t_ok "msproftx: $n mstx events exported"; else t_fail "msproftx: no MSTX_EVENTS"; fi
	}
else
	t_ok "msproftx with the real agent: not checked ($AGENT or $MSTX not built)"
fi

t_done
