#!/bin/bash
# msprofd and agents, with ipc-probe playing the agent byte for byte: the
# agent hello (its pid checked against SO_PEERCRED), the agents list,
# agent_start / agent_stop driven by session_start / session_stop, an agent
# that says hello while a session runs, one that hangs (SIGSTOP: the stop
# reply comes after IPC_AGENT_STOP_TIMEOUT_MS with an error entry), one that
# refuses, one that goes away mid-session, agents that try to drive
# sessions, and claims (busy for a second interactive client).
. "$SRCDIR/tests/integration/lib.sh"
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"
RUN=$MSPROF_RUNTIME_DIR
LOG=$RUN/msprofd.log

# --- probes on FIFOs: p_open NAME [OPTION]...; p_send NAME STEP; p_recv NAME
# (one line into $L); p_do NAME STEP (both).  Each probe is a child of this
# shell, so it is in the tree of a session rooted at $$.
declare -A P_IN P_OUT P_PID
# Children must not hold the other probes' FIFO ends (bash's {fd} are
# inherited), or closing a probe's input would never reach it.
close_fds() { local fd; for fd in "${P_IN[@]}" "${P_OUT[@]}"; do eval "exec $fd>&-"; done; }
p_open() {
	local name=$1 in out fd
	shift
	in=$T_WORK/$name.in
	out=$T_WORK/$name.out
	mkfifo "$in" "$out"
	(close_fds; exec "$PROBE" --timeout=15000 "$@" -i <"$in" >"$out" 2>"$T_WORK/$name.err") &
	P_PID[$name]=$!
	T_PIDS+=($!)
	exec {fd}>"$in"
	P_IN[$name]=$fd
	exec {fd}<"$out"
	P_OUT[$name]=$fd
}
p_send() { echo "$2" >&"${P_IN[$1]}"; }
p_recv() { L=; read -r -t 20 L <&"${P_OUT[$1]}" || L='{"probe":"no line"}'; }
p_do() { p_send "$1" "$2"; p_recv "$1"; }
p_close() {
	local in=${P_IN[$1]} out=${P_OUT[$1]}
	exec {in}>&-
	wait "${P_PID[$1]}" 2>/dev/null
	exec {out}<&-
}
has() { grep -qF -- "$2" <<<"$L" && t_ok "$1" || t_fail "$1: '$2' not in: $L"; }
id_of() { sed -E 's/.*"id":([0-9]+).*/\1/' <<<"$L"; }
agent_hello() { # NAME PID [NAME-FIELD]
	p_do "$1" "json:{\"v\":1,\"type\":\"hello\",\"id\":1,\"client\":\"agent\",\"pid\":$2,\"ppid\":$$,\"name\":\"${3:-fake}\",\"rank\":-1,\"features\":\"mstx\"}"
}
# answer NAME TYPE [FIELDS]: reply to the agent request just read into $L
answer() {
	local id
	id=$(id_of)
	p_send "$1" "send-json:{\"v\":1,\"type\":\"$2\",\"id\":$id,\"session\":$(sed -E 's/.*"session":([0-9]+).*/\1/' <<<"$L")${3:+,$3}}"
	p_recv "$1"
}

t_expect_rc 0 "msprofd starts" "$MSPROFD" --idle-timeout=0
DPID=$(cat "$RUN/msprofd.pid")
mkdir -p "$T_WORK/prof/PROF_1/host/data" "$T_WORK/prof/PROF_2/host/data" "$T_WORK/prof/PROF_3/host/data" \
	"$T_WORK/prof/PROF_4/host/data"
P1=$T_WORK/prof/PROF_1

# --- hello ---------------------------------------------------------------------
p_open A --no-hello
agent_hello A "${P_PID[A]}"
has "an agent's hello is answered" '"type":"hello","id":1,"ok":true'
p_open LIAR --no-hello
agent_hello LIAR $$
has "an agent that names another pid is refused" '"code":"denied","message":"hello says pid '"$$"' but the connection comes from pid '"${P_PID[LIAR]}"'"'
p_do LIAR eof
has "... and closed" '{"probe":"eof"}'
p_close LIAR
t_grep "the lie is logged" "hello says pid $$ but the connection comes from pid" "$LOG"
p_open BAD --no-hello
p_do BAD "json:{\"v\":1,\"type\":\"hello\",\"id\":1,\"client\":\"agent\",\"pid\":${P_PID[BAD]},\"name\":\"a\\u0007b\"}"
has "a name with a control character is refused" '"code":"bad_request"'
p_close BAD

p_open C
p_do C 'req:agents'
has "the agents list holds the agent, idle" "{\"pid\":${P_PID[A]},\"ppid\":$$,\"name\":\"fake\",\"rank\":-1,\"state\":\"idle\",\"session\":0,\"features\":\"mstx\"}"
p_do C 'req:status'
has "status counts agents apart from clients" '"clients":1,"agents":1'

# An agent never drives sessions.
p_do A "json:{\"v\":1,\"type\":\"session_start\",\"id\":7,\"prof_dir\":\"$P1\",\"pids\":[$$]}"
has "an agent cannot start a session" '"id":7,"code":"denied","message":"an agent connection cannot send '"'"'session_start'"'"'"'
p_do A 'json:{"v":1,"type":"claim","id":8,"pids":[1]}'
has "... nor claim" '"id":8,"code":"denied"'
p_do A 'json:{"v":1,"type":"status","id":9}'
has "... but may ask for status" '"type":"status","id":9'

# --- session_start drives the tree's agents -------------------------------------------
# session_started waits for agent_started: who hears it knows the agents record.
p_send C "req:session_start:{\"prof_dir\":\"$P1\",\"pids\":[$$],\"msproftx\":true,\"mstx_domain_include\":\"default,net\",\"osrt\":true,\"osrt_threshold_ns\":5000}"
p_do A read
has "the agent gets agent_start with the session's settings" "\"type\":\"agent_start\",\"id\":1,\"session\":1,\"prof_dir\":\"$P1\",\"msproftx\":true,\"mstx_domain_include\":\"default,net\",\"mstx_domain_exclude\":\"\""
has "... osrt and its threshold too" "\"mstx_domain_exclude\":\"\",\"osrt\":true,\"osrt_threshold_ns\":5000}"
answer A agent_started
has "agent_started is taken silently" '"probe":"sent"'
p_recv C
has "session_started comes after agent_started, naming its agents" "\"type\":\"session_started\",\"id\":4,\"session\":1,\"agents\":[${P_PID[A]}]"
p_do C 'req:agents'
has "the list shows it recording for session 1" "\"state\":\"recording\",\"session\":1"
p_send C 'req:session_stop:{"session":1}'
p_do A read
has "session_stop sends agent_stop" '"type":"agent_stop","id":2,"session":1'
answer A agent_stopped '"events":5,"dropped":1,"bytes":100'
p_recv C
has "session_stopped waits for and carries the agent's counts" "\"type\":\"session_stopped\",\"id\":6,\"session\":1,\"ticks\""
has "... per agent" "\"agents\":[{\"pid\":${P_PID[A]},\"events\":5,\"dropped\":1,\"bytes\":100}]"
t_grep "the switch-on time is logged" "agent of pid ${P_PID[A]} started" "$LOG"
t_grep "drops are logged" "agent of pid ${P_PID[A]} dropped 1 events" "$LOG"

# Bad requests: both filters, a filter without msproftx, a bad domain name.
p_do C "req:session_start:{\"prof_dir\":\"$P1\",\"pids\":[$$],\"msproftx\":true,\"mstx_domain_include\":\"a\",\"mstx_domain_exclude\":\"b\"}"
has "include and exclude together are refused" 'cannot be used at the same time'
p_do C "req:session_start:{\"prof_dir\":\"$P1\",\"pids\":[$$],\"mstx_domain_exclude\":\"b\"}"
has "a filter without msproftx is refused" "need 'msproftx': true"
p_do C "req:session_start:{\"prof_dir\":\"$P1\",\"pids\":[$$],\"msproftx\":true,\"mstx_domain_include\":\"a,,b\"}"
has "an empty domain name is refused" '"code":"bad_request","message":"'"'"'mstx_domain_include'"'"' and'

# --- a hung agent: session_started and session_stopped come after the timeout --------------
p_send C "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_2\",\"pids\":[$$],\"msproftx\":true}"
kill -STOP "${P_PID[A]}"
p_recv C
has "session_started comes without the hung agent's answer" "\"type\":\"session_started\",\"id\":10,\"session\":2,\"agents\":[${P_PID[A]}]"
t_grep "the start timeout is logged" "agent of pid ${P_PID[A]} did not answer agent_start within 2000 ms" "$LOG"
p_do C 'req:session_stop:{"session":2}'
has "session_stopped comes without the hung agent" '"type":"session_stopped"'
has "... naming it with an error" "{\"pid\":${P_PID[A]},\"error\":\"no agent_stopped within 2000 ms"
t_grep "the stop timeout is logged" "agent of pid ${P_PID[A]} did not answer agent_stop within 2000 ms" "$LOG"
kill -CONT "${P_PID[A]}"
p_do A read
has "the agent reads its agent_start late" '"type":"agent_start","id":3,"session":2'
answer A agent_started
p_do A read
has "... and its agent_stop" '"type":"agent_stop","id":4,"session":2'
answer A agent_stopped '"events":1,"dropped":0,"bytes":1'
p_do C 'req:agents'
has "late answers leave the agent idle" "\"pid\":${P_PID[A]},\"ppid\":$$,\"name\":\"fake\",\"rank\":-1,\"state\":\"idle\",\"session\":0"

# --- late hello, a refusal, and an agent that goes away mid-session ------------------------
p_send C "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_3\",\"pids\":[$$]}"
p_do A read
# (its message tries to start a line of its own in msprofd's log)
answer A error '"code":"io","message":"cannot open the PROF dir\nFAKE: injected"'
p_recv C
has "session 3 starts once agent A refused" "\"session\":3,\"agents\":[${P_PID[A]}]"
p_open B --no-hello
agent_hello B "${P_PID[B]}" late
p_do B read
has "an agent of the tree that says hello later gets agent_start" '"type":"agent_start","id":6,"session":3'
answer B agent_started
t_grep "its joining is logged" "session 3: agent of pid ${P_PID[B]} joined the tree" "$LOG"
BPID=${P_PID[B]}
kill "$BPID"
wait "$BPID" 2>/dev/null
p_do C 'req:status'
has "msprofd survives an agent vanishing mid-session" '"sessions":1,"clients":1,"agents":1'
p_do C 'req:session_stop:{"session":3}'
has "session 3 stops without waiting for the gone or refusing agents" '"type":"session_stopped"'
has "... the refusal is reported" "{\"pid\":${P_PID[A]},\"error\":\"the agent refused to start: cannot open the PROF dir\\nFAKE: injected\"}"
t_grep "... and logged with its control character escaped" 'cannot open the PROF dir\x0aFAKE: injected' "$LOG"
if grep -q '^FAKE' "$LOG"; then t_fail "a peer's string started a line of its own in the log"; else
	t_ok "no peer's string starts a line of the log"; fi
has "... and the exit" "{\"pid\":$BPID,\"error\":\"the process exited before the stop (its data ends there)\"}"

# "agent": false leaves the agents alone.
p_do C "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_4\",\"pids\":[$$],\"agent\":false}"
has "agent:false drives no agent" '"session":4,"agents":[]'
p_do C 'req:session_stop:{"session":4}'
has "... and stops at once" '"type":"session_stopped","id":17,"session":4'
p_do C 'req:agents'
has "... the agent stayed idle" '"state":"idle","session":0'

# --- claims: one interactive client per process --------------------------------------------
(close_fds; exec sleep 1000 </dev/null >/dev/null 2>&1) &
S=$!
T_PIDS+=($S)
p_open D
p_do C "req:claim:{\"pids\":[$S,$S]}"
has "a claim is granted (twice the same pid is fine)" "\"type\":\"claimed\",\"id\":19,\"pids\":[$S,$S],\"refused\":[]"
p_do D "req:claim:{\"pids\":[$S,999999]}"
has "a second client is refused with msprof's words" "\"pids\":[],\"refused\":[{\"pid\":$S,\"code\":\"busy\",\"message\":\"recv parmas timeout, server has been connected to another client.\"}"
has "... a pid that does not exist is not_found" '{"pid":999999,"code":"not_found"'
p_do D "req:session_start:{\"prof_dir\":\"$P1\",\"pids\":[$S]}"
has "session_start on a claimed pid is busy" '"code":"busy"'
p_close C
p_do D "req:claim:{\"pids\":[$S]}"
has "claims end with the connection" "\"pids\":[$S],\"refused\":[]"
p_close D

# --- the owner goes away while its session waits for the agent ---------------------------------
mkdir -p "$T_WORK/prof/PROF_5/host/data"
p_open E
p_send E "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_5\",\"pids\":[$$]}"
p_do A read
has "agent_start for the session of client E" '"type":"agent_start"'
kill "${P_PID[E]}"
p_close E
p_do A read
has "E gone before session_started: the agent is told to stop" '"type":"agent_stop"'
answer A agent_stopped '"events":0,"dropped":0,"bytes":0'
"$PROBE" req:status >"$T_WORK/status" 2>&1
t_grep "no session left behind" '"sessions":0' "$T_WORK/status"

# --- the end -------------------------------------------------------------------------------
p_close A
t_check "msprofd is alive" kill -0 "$DPID"
out=$(close_fds; "$PROBE" req:status)
t_check "no agents, sessions or clients left" grep -q '"sessions":0,"clients":1,"agents":0' <<<"$out"
t_check "nothing went wrong in the log (sanitizers included)" bash -c "! grep -E 'still open|cannot encode|runtime error|Sanitizer' '$LOG'"
kill "$S"
t_done
