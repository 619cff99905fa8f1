#!/bin/bash
# Idle connections cannot lock msprof out: 200 connections that never say
# hello and 100 clients that said hello and sit idle, all held open, and
# msprof still profiles.  Those without a hello do not count against the
# client limit; a client past the limit gets in by closing the client idle
# longest that holds no session and no claim (a client with a session is
# kept); only when every client holds one is a new one refused, with a
# message naming the setting that raises the limit.
. "$SRCDIR/tests/integration/lib.sh"
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"
LOG=$MSPROF_RUNTIME_DIR/msprofd.log

t_expect_rc 0 "msprofd starts" "$MSPROFD" --idle-timeout=0
pid=$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid")
sleep 600 &
target=$!
T_PIDS+=("$target")
mkdir -p "$T_WORK/prof/PROF_1/host/data"

# A client with a session, opened first: the longest idle of all, but
# holding a session it is never the one closed.
{ coproc HOLD { "$PROBE" -i; }; } 2>/dev/null  # bash warns of a second coproc
hold_in=${HOLD[1]} hold_out=${HOLD[0]} probes=("$HOLD_PID")
hold() {
	local line=""
	echo "$1" >&"$hold_in"
	read -r -t 30 line <&"$hold_out"
	echo "$line"
}
t_check "a client starts a session" grep -q '"type":"session_started"' \
	<<<"$(hold "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_1\",\"pids\":[$target],\"host_sys\":\"cpu\",\"host_sys_freq\":1}")"

# 200 connections that say nothing, then 100 clients that say hello and
# nothing more, each set held open by a probe that waits on its stdin.
{ coproc IDLE { "$PROBE" --idle-conns=200 -i; }; } 2>/dev/null  # bash warns of a second coproc
idle_in=${IDLE[1]} idle_out=${IDLE[0]} probes+=("$IDLE_PID")
echo req:status >&"$idle_in"
read -r -t 30 line <&"$idle_out"
n=$(sed -nE 's/.*"pending":([0-9]+).*/\1/p' <<<"$line")
[ "${n:-0}" -ge 200 ] && t_ok "200 connections without a hello are held ($line)" ||
	t_fail "connections without a hello: $line"
{ coproc HELLO { "$PROBE" --extra-conns=100 -i; }; } 2>/dev/null  # bash warns of a second coproc
hello_in=${HELLO[1]} hello_out=${HELLO[0]} probes+=("$HELLO_PID")
echo req:status >&"$hello_in"
read -r -t 30 line <&"$hello_out"
t_check "the 101st idle client is served" grep -q '"type":"status"' <<<"$line"
n=$(sed -nE 's/.*"clients":([0-9]+).*/\1/p' <<<"$line")
[ "${n:-99}" -le 64 ] && t_ok "clients stay within the limit: $n" || t_fail "clients: $line"
t_grep "the longest idle client is closed to make room" "idle to make room for another client" "$LOG"

out=$(t_msprof --output="$T_WORK/out" --host-sys=cpu sleep 0.3 2>&1)
rc=$?
t_eq "msprof profiles among 300 idle connections (exit)" "$rc" 0 || echo "$out" >&2
dir=$(t_prof_dir "$T_WORK/out") && t_check "... and exports" test -d "$dir/mindstudio_profiler_output"
t_check "no 'too many clients'" bash -c "! grep -q 'too many' <<<\"\$1\"" _ "$out"
t_check "the client with a session kept it" grep -q '"type":"status","id":[0-9]*,"sessions":1' <<<"$(hold req:status)"

# Connections that never say hello are closed after the timeout (5 s).
t_wait "connections without a hello are closed" bash -c \
	"$PROBE req:status | grep -q '\"pending\":0'" && t_ok "connections without a hello are closed"
exec {idle_in}>&- {hello_in}>&- {hold_in}>&-
wait "${probes[@]}" 2>/dev/null

# Every client holds a session: then, and only then, a new one is refused.
t_stop_daemon
t_expect_rc 0 "msprofd with --max-clients=1 starts" "$MSPROFD" --idle-timeout=0 --max-clients=1
{ coproc HOLD2 { "$PROBE" -i; }; } 2>/dev/null  # bash warns of a second coproc
hold_in=${HOLD2[1]} hold_out=${HOLD2[0]} probes=("$HOLD2_PID")
t_check "its one client starts a session" grep -q '"type":"session_started"' \
	<<<"$(hold "req:session_start:{\"prof_dir\":\"$T_WORK/prof/PROF_1\",\"pids\":[$target],\"host_sys\":\"cpu\",\"host_sys_freq\":1}")"
out=$("$PROBE" req:status)
t_check "a second client is refused, naming the setting" grep -qF \
	'"code":"limit","message":"too many clients (1), each with a session or claim; MSPROFD_MAX_CLIENTS raises the limit"' <<<"$out"
exec {hold_in}>&-
wait "${probes[@]}" 2>/dev/null
t_done
