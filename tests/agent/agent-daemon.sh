# The agent with a real msprofd: a preloaded program registers (listed by
# the "agents" request with its name and rank), records into the PROF dir
# of each session that covers it (two windows, two files, stop replies
# carry its counts), and when the daemon dies mid-window it closes its file
# cleanly, says so once, and the program runs on.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"
[ -x "$MSPROFD" ] || t_skip "msprofd not built"
RUN=$MSPROF_RUNTIME_DIR
SPIN=$AGENT_BIN/spin-app
APP_PID=
trap 'rc=$?; t_main || exit $rc; [ -z "$APP_PID" ] || kill "$APP_PID" 2>/dev/null; (exit $rc); t_cleanup' EXIT

t_expect_rc 0 "msprofd starts" "$MSPROFD" --idle-timeout=0
DPID=$(cat "$RUN/msprofd.pid")

# the program, preloaded, no standalone output: it finds the daemon itself
RANK=2 LD_PRELOAD="$A_PRELOAD" "$SPIN" steady 30 >"$T_WORK/app.out" 2>"$T_WORK/app.err" &
APP_PID=$!

# the agents list shows it within a few seconds (it retries once a second)
L=
for _ in $(seq 1 50); do
	L=$("$PROBE" req:agents 2>/dev/null)
	grep -q "\"pid\":$APP_PID" <<<"$L" && break
	sleep 0.1
done
if grep -q "\"pid\":$APP_PID,\"ppid\":$$,\"name\":\"spin-app\",\"rank\":2,\"state\":\"idle\"" <<<"$L"; then
	t_ok "the agent registered: listed idle with its name and rank"
else
	t_fail "the agent is not listed as expected: $L"
fi

# one control connection for the sessions (a session belongs to it)
mkfifo "$T_WORK/c.in" "$T_WORK/c.out"
"$PROBE" --timeout=15000 -i <"$T_WORK/c.in" >"$T_WORK/c.out" 2>"$T_WORK/c.err" &
CPID=$!
exec {CIN}>"$T_WORK/c.in" {COUT}<"$T_WORK/c.out"
c_do() { echo "$1" >&"$CIN"; L=; read -r -t 20 L <&"$COUT" || L='{"probe":"no line"}'; }
field() { sed -E "s/.*\"$1\":([0-9]+).*/\\1/" <<<"$L"; }

window() { # NAME: start a session on the app, let it record, stop; check the file
	local name=$1 prof=$T_WORK/prof/$1
	mkdir -p "$prof/host/data"
	c_do "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$APP_PID],\"msproftx\":true}"
	if grep -q "\"agents\":\[$APP_PID\]" <<<"$L"; then t_ok "$name: session_start drove the agent"; else t_fail "$name: $L"; fi
	local sid
	sid=$(field session)
	L=$("$PROBE" req:agents)
	if grep -q "\"pid\":$APP_PID,[^}]*\"state\":\"recording\",\"session\":$sid" <<<"$L"; then t_ok "$name: listed as recording"; else t_fail "$name: $L"; fi
	sleep 0.5
	c_do "req:session_stop:{\"session\":$sid}"
	local ev
	ev=$(sed -E 's/.*"agents":\[\{"pid":[0-9]+,"events":([0-9]+).*/\1/' <<<"$L")
	local s
	s=$(a_summary "$prof/host/data" "$APP_PID")
	if [ "$(a_field "$s" events)" = "$ev" ] && [ "$ev" -gt 100 ] && [ "$(a_field "$s" last)" = 1 ] &&
		[ "$(a_field "$s" rank)" = 2 ] && [ "$(a_field "$s" problem)" = - ] && [ "$(a_field "$s" damage)" = 0 ]; then
		t_ok "$name: $ev events in the file, as the stop reply says, counters last"
	else
		t_fail "$name: reply $L / file $s"
	fi
}
window first
window second

# launch mode: a session covers this shell's tree before the program
# starts; with MSPROF_AGENT_WAIT_MS the agent registers while loading, so
# even a program that annotates at once and exits is recorded exactly
prof=$T_WORK/prof/launch
mkdir -p "$prof/host/data"
c_do "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$$],\"msproftx\":true}"
sid=$(field session)
MSTX=$AGENT_BIN/mstx-app
if MSPROF_AGENT_WAIT_MS=5000 LD_PRELOAD="$A_PRELOAD" "$MSTX" run >"$T_WORK/launch.out" 2>"$T_WORK/launch.err"; then
	read -r pid tmain tthread _ <"$T_WORK/launch.out"
	t_check "launch mode: the program's first annotations are recorded, exactly" \
		"$MSTX" check "$prof/host/data" "$pid" "$tmain" "$tthread" all
else
	t_fail "launch mode: the program failed"; cat "$T_WORK/launch.err" >&2
fi
c_do "req:session_stop:{\"session\":$sid}"

# the daemon dies mid-window: the agent closes its file, says it once, and
# the program carries on to its normal end
mkdir -p "$T_WORK/prof/third/host/data"
c_do "req:session_start:{\"prof_dir\":\"$T_WORK/prof/third\",\"pids\":[$APP_PID],\"msproftx\":true}"
sleep 0.3
kill -KILL "$DPID"
exec {CIN}>&-
wait "$CPID" 2>/dev/null
t_until 5 grep -q "lost msprofd" "$T_WORK/app.err" # the agent sees the connection close at once
s=$(a_summary "$T_WORK/prof/third/host/data" "$APP_PID")
sleep 0.2
if [ "$(a_summary "$T_WORK/prof/third/host/data" "$APP_PID")" = "$s" ]; then
	t_ok "daemon gone: the file no longer grows"
else
	t_fail "daemon gone: the agent still writes"
fi
if [ "$(a_field "$s" last)" = 1 ] && [ "$(a_field "$s" problem)" = - ]; then
	t_ok "daemon gone: the file was closed with its counters ($(a_field "$s" events) events)"
else
	t_fail "daemon gone: $s"
fi
if kill -0 "$APP_PID" 2>/dev/null; then t_ok "daemon gone: the program runs on"; else t_fail "daemon gone: the program died"; fi
kill -TERM "$APP_PID"
wait "$APP_PID" 2>/dev/null
APP_PID=
a_expect_stderr "$T_WORK/app.err" "msprof agent: lost msprofd (it closed the connection), recording stopped; the program continues"
t_done
