# msprofd killed (SIGKILL) in dynamic mode, three times: the next start
# brings a new msprofd, and the job's agent, which saw the runtime dir's new
# socket, is registered with it in time to record from the start: the first
# annotation of each window after a kill is at most 100 ms after msprof's
# "start success" reply (the job marks every millisecond).  Each window's
# marks are a run without gaps.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
SPIN=$(dirname "$MSPROF")/../tests/agent/spin-app
[ -x "$SPIN" ] || t_skip "spin-app not built"
W=$T_WORK
OUT=$W/out
LOG=$W/log
ROUNDS=3
daemon_pid() { cat "$MSPROF_RUNTIME_DIR/msprofd.pid" 2>/dev/null; }

# msprof's output, each line stamped with the time it came (µs, realtime)
mkfifo "$W/stdout"
while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME/./}" "$line"; done <"$W/stdout" >"$LOG" &
STAMP=$!
dyn_open in
dyn_run_pipe "$W/stdout" --dynamic=on --msproftx=on --output="$OUT" "$SPIN" steady 300
dyn_wait 1 "(msprof) " "$LOG" "the prompt" || t_done
APP=
find_app() { APP=$(pgrep -P "$DYN_PID" -x spin-app | head -n1); [ -n "$APP" ]; }
dyn_until find_app || t_fail "no spin-app under msprof"
T_PIDS+=("$APP")

for ((r = 1; r <= ROUNDS; r++)); do
	dyn_send start
	dyn_wait "$r" "dynamic profiling start success......" "$LOG" "window $r started"
	has_agent_data() { ls "$(dyn_prof_dirs "$OUT" | tail -n1)"/host/data/agent_"$APP".data.slice_* >/dev/null 2>&1; }
	dyn_until has_agent_data || t_fail "window $r: no agent file"
	kill -KILL "$(daemon_pid)"
	dyn_wait "$r" "ended with msprofd; what was written is saved in PROF_" "$LOG" "window $r saved after the kill"
	# the kill lands anywhere in the agent's old once-a-second retry
	sleep "0.$((RANDOM % 9 + 1))"
done
dyn_send start
dyn_wait $((ROUNDS + 1)) "dynamic profiling start success......" "$LOG" "the window after the last kill started"
sleep 0.5
dyn_send stop
dyn_wait 1 "dynamic profiling stop success......" "$LOG" "stopped"
dyn_wait $((ROUNDS + 1)) "done." "$LOG" "every window exported"
dyn_send quit
dyn_wait 1 "[INFO] waiting for app process exit......" "$LOG" "quit waits for the app"
kill "$APP"
wait "$DYN_PID"
dyn_close
wait "$STAMP"

mapfile -t replies < <(grep -F "dynamic profiling start success......" "$LOG" | cut -d' ' -f1)
mapfile -t dirs < <(dyn_prof_dirs "$OUT")
t_check "$((ROUNDS + 1)) windows" test "${#dirs[@]}" -eq $((ROUNDS + 1))
for ((i = 1; i <= ROUNDS && i < ${#dirs[@]}; i++)); do
	db=$(dyn_db "${dirs[$i]}")
	first=$(t_sql "$db" "SELECT min(startNs) FROM MSTX_EVENTS" 2>/dev/null)
	reply_ns=$((${replies[$i]} * 1000))
	if [ -z "$first" ]; then
		t_fail "window $((i + 1)): no mark recorded"
		continue
	fi
	late_ms=$(((first - reply_ns) / 1000000))
	if [ "$first" -le $((reply_ns + 100000000)) ]; then
		t_ok "window $((i + 1)) after a kill: first mark ${late_ms} ms after the start reply"
	else
		t_fail "window $((i + 1)) after a kill: first mark ${late_ms} ms after the start reply, want <= 100"
	fi
	# steady marks are m<i>: a window holds a run of consecutive ones
	gaps=$(t_sql "$db" "SELECT max(n) - min(n) + 1 - count(*) FROM (SELECT CAST(substr(s.value, 2) AS INTEGER) AS n
		FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message)" 2>/dev/null)
	t_check "window $((i + 1)): no mark missing inside it" test "${gaps:-1}" = 0
done
t_done
