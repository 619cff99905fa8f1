#!/bin/bash
# msprofd's life: started on demand by racing clients (exactly one daemon),
# readiness without sleeping, stale sockets, idle exit, SIGTERM finishing an
# open session, sessions ending on their own when the target exits or the
# client goes away.
. "$SRCDIR/tests/integration/lib.sh"
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"
RUN=$MSPROF_RUNTIME_DIR
LOG=$RUN/msprofd.log

# wait_until "what" cmd...: t_wait, and an ok line when it came.
wait_until() { t_wait "$@" && t_ok "$1"; }
quiet() { "$@" >/dev/null; }

# ask COPROC LINE: LINE to an interactive probe (ipc-probe -i, run as the
# coproc of that name), its answer (bounded, 30 s) in line.
ask() {
	local -n co=$1
	echo "$2" >&"${co[1]}"
	read -r -t 30 line <&"${co[0]}"
}

# sleeper: a process for a session to follow, ended with the test; its pid
# in target.
sleeper() {
	sleep 1000 </dev/null >/dev/null 2>&1 &
	target=$!
	T_PIDS+=("$target")
}

# Processes running this build's msprofd for this runtime dir.
daemons() {
	local exe p n=0
	exe=$(readlink -f "$MSPROFD")
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] || continue
		tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "MSPROF_RUNTIME_DIR=$RUN" && n=$((n + 1))
	done
	echo "$n"
}

# ends_with_end FILE REASON: the file's last record is RAW_SESSION_END with
# that reason: frame {sync "MRFX", type 11, flags 0, len 12, crc} + {u64 ts,
# u32 reason}, all little-endian (collectors/raw.h).
ends_with_end() {
	local hex want
	hex=$(tail -c 28 "$1" | od -An -tx1 | tr -d ' \n')
	want=$(printf '%02x000000' "$2")
	[[ $hex =~ ^4d5246580b0000000c000000[0-9a-f]{8}[0-9a-f]{16}([0-9a-f]{8})$ ]] &&
		[ "${BASH_REMATCH[1]}" = "$want" ]
}
# check_ends DIR REASON STEM...: the newest slice of each source ends so.
check_ends() {
	local dir=$1 reason=$2 stem last
	shift 2
	for stem in "$@"; do
		last=$(ls -v "$dir/$stem".data.slice_* 2>/dev/null | tail -n 1)
		if [ -n "$last" ] && ends_with_end "$last" "$reason"; then
			t_ok "$stem ends with RAW_SESSION_END, reason $reason"
		else
			t_fail "$stem: newest slice '${last:-none}' does not end with RAW_SESSION_END reason $reason"
		fi
	done
}

# --- on demand, racing -----------------------------------------------------
for i in 1 2 3 4; do
	"$PROBE" --spawn peer req:status >"$T_WORK/race.$i" 2>&1 &
done
fails=0
for job in $(jobs -p); do wait "$job" || fails=$((fails + 1)); done
[ "$fails" -eq 0 ] && t_ok "four racing clients all connected" || t_fail "$fails racing clients failed: $(cat "$T_WORK"/race.*)"
pids=$(sed -n 's/.*"peer_pid":\([0-9]*\).*/\1/p' "$T_WORK"/race.* | sort -u)
[ "$(wc -w <<<"$pids")" -eq 1 ] && t_ok "all talked to the same daemon ($pids)" || t_fail "daemon pids seen: $pids"
pid=$(cat "$RUN/msprofd.pid")
[ "$pid" = "$pids" ] && t_ok "pid file names that daemon" || t_fail "pid file $pid, peers $pids"
n=$(daemons)
[ "$n" -eq 1 ] && t_ok "exactly one msprofd runs" || t_fail "$n msprofd processes"
# Readiness was a message: right after connect returned, all is in place.
t_check "socket is there, srwx------" test "$(stat -c %A "$RUN/msprofd.sock")" = srwx------
t_check "pid file is 0600" test "$(stat -c %a "$RUN/msprofd.pid")" = 600
t_check "runtime dir is 0700" test "$(stat -c %a "$RUN")" = 700
t_check "log is 0600" test "$(stat -c %a "$LOG")" = 600
t_check "daemon is not the client's child (own session)" \
	test "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid"

out=$("$MSPROFD" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"already running"* ]] && t_ok "a second msprofd refuses to start" ||
	t_fail "second msprofd: exit $rc: $out"
t_check "... and the first is unharmed" quiet "$PROBE" req:status

# --- SIGTERM finishes an open session ---------------------------------------
prof="$T_WORK/p1/PROF_000001_a"
mkdir -p "$prof/host/data"
sleeper
coproc S1 { "$PROBE" -i; }
# bash unsets S1 and S1_PID when the coproc exits: keep what we need.
s1_in=${S1[1]} s1_pid=$S1_PID
ask S1 "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$target],\"host_sys\":\"cpu,mem,disk,network\",\"host_sys_freq\":50}"
t_check "session started" grep -q '"type":"session_started"' <<<"$line"
has_data() { [ -s "$prof/host/data/host_cpu.data.slice_0" ] && [ "$(stat -c %s "$prof/host/data/host_cpu.data.slice_0")" -gt 200 ]; }
wait_until "samples are being written" has_data
kill -TERM "$pid"
ask S1 event
t_check "owner told: session_ended daemon_shutdown" grep -q '"type":"session_ended","id":0,"session":1,.*"reason":"daemon_shutdown"' <<<"$line"
wait_until "daemon exits after SIGTERM" t_gone "$pid"
check_ends "$prof/host/data" 3 host_cpu host_mem host_disk host_network
t_check "socket removed" test ! -e "$RUN/msprofd.sock"
t_check "pid file removed" test ! -e "$RUN/msprofd.pid"
t_grep "SIGTERM logged" "received SIGTERM: finishing 1 session(s)" "$LOG"
t_grep "clean exit logged" "exited" "$LOG"
{ exec {s1_in}>&-; } 2>/dev/null
wait "$s1_pid" 2>/dev/null

# --- a stale socket (daemon killed) is replaced -------------------------------
"$PROBE" --spawn req:status >/dev/null || t_fail "restart on demand"
pid=$(cat "$RUN/msprofd.pid")
kill -KILL "$pid"
wait_until "killed daemon is gone" t_gone "$pid"
t_check "it left its socket behind" test -S "$RUN/msprofd.sock"
out=$("$PROBE" --spawn peer)
t_check "a client replaces the stale socket with a new daemon" grep -q '"peer_pid"' <<<"$out"
pid2=$(cat "$RUN/msprofd.pid")
[ "$pid2" != "$pid" ] && t_ok "new daemon $pid2" || t_fail "same pid after kill"
pid=$pid2

# --- the target exits: the session ends on its own ----------------------------
prof="$T_WORK/p2/PROF_000002_b"
mkdir -p "$prof/host/data"
coproc S2 { "$PROBE" -i; }
# bash unsets S2 and S2_PID when the coproc exits: keep what we need.
s2_in=${S2[1]} s2_pid=$S2_PID
ask S2 "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$target],\"host_sys\":\"cpu,mem\",\"host_sys_freq\":100,\"host_sys_usage\":\"cpu\",\"host_sys_usage_freq\":10}"
t_check "session on a short-lived target started" grep -q '"type":"session_started"' <<<"$line"
kill "$target"
wait "$target" 2>/dev/null
ask S2 event
t_check "session_ended target_exited arrives" grep -q '"type":"session_ended".*"reason":"target_exited"' <<<"$line"
check_ends "$prof/host/data" 1 host_cpu host_mem host_usage_cpu
ask S2 req:status
t_check "no session left, connection still served" grep -q '"sessions":0' <<<"$line"

# Nothing to sample: the session still follows the tree and ends with it.
sleeper
ask S2 "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$target],\"host_sys\":\"\",\"host_sys_usage\":\"\"}"
t_check "a session that samples nothing starts" grep -q '"type":"session_started"' <<<"$line"
kill "$target"
wait "$target" 2>/dev/null
ask S2 event
t_check "... and ends when its target exits, with no data" \
	grep -q '"type":"session_ended".*"records":0,"bytes":0,"reason":"target_exited"' <<<"$line"

# --- a storage limit ages the oldest slices ------------------------------------
# storage_limit_mb=2: msprof's rule gives max(2/2 - 20, 1) = 1 MB, slices of
# 64 KiB; the data written must grow well past that while the directory
# stays near it (ageing runs once a second, so allow a second's growth).
prof="$T_WORK/p4/PROF_000004_d"
mkdir -p "$prof/host/data"
sleeper
ask S2 "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$target],\"host_sys\":\"cpu,mem,disk,network\",\"host_sys_freq\":1000,\"host_sys_usage\":\"cpu,mem\",\"storage_limit_mb\":2}"
sid=$(sed -n 's/.*"session":\([0-9]*\).*/\1/p' <<<"$line")
t_check "session with a storage limit started" test -n "$sid"
# (the all-process usage sources write the most: the machine's network and
# disks are read at about 50 Hz whatever the frequency)
aged() { [ ! -e "$prof/host/data/host_usage_cpu.data.slice_0" ] && [ -e "$prof/host/data/host_usage_cpu.data.slice_30" ]; }
wait_until "oldest slices are deleted as new ones come" aged
ask S2 "req:session_stop:{\"session\":$sid}"
written=$(sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' <<<"$line")
kept=$(du -sb "$prof/host/data" | cut -f1)
[ "${written:-0}" -gt 3000000 ] && [ "$kept" -lt 2500000 ] && [ $((kept * 2)) -lt "$written" ] &&
	t_ok "storage limit: $written bytes written, $kept kept" ||
	t_fail "storage limit: $written bytes written, $kept kept (limit 1 MB)"
t_grep "ageing logged" "storage limit of 1048576 bytes reached" "$LOG"
check_ends "$prof/host/data" 0 host_cpu host_network host_usage_mem
kill "$target"

# --- the owner goes away: its session is stopped --------------------------------
prof="$T_WORK/p3/PROF_000003_c"
mkdir -p "$prof/host/data"
sleeper
ask S2 "req:session_start:{\"prof_dir\":\"$prof\",\"pids\":[$target],\"host_sys\":\"cpu\",\"host_sys_freq\":20}"
t_check "second session started" grep -q '"type":"session_started"' <<<"$line"
{ exec {s2_in}>&-; } 2>/dev/null
wait "$s2_pid" 2>/dev/null
ended() { ls "$prof/host/data"/host_cpu.data.slice_* >/dev/null 2>&1 && ends_with_end "$(ls -v "$prof/host/data"/host_cpu.data.slice_* | tail -n 1)" 2; }
wait_until "client gone: files end with reason 2" ended
t_grep "client gone logged" "the client disconnected" "$LOG"
kill "$target"

# --- idle exit ----------------------------------------------------------------
"$PROBE" req:shutdown >/dev/null
wait_until "daemon exits on shutdown" t_gone "$pid"
# Started on demand through a wrapper that adds --idle-timeout=2, so the
# holding client is connected from the start.
printf '#!/bin/sh\nexec "%s" --idle-timeout=2 "$@"\n' "$MSPROFD" >"$T_WORK/msprofd-idle"
chmod +x "$T_WORK/msprofd-idle"
coproc HOLD { MSPROFD_PATH="$T_WORK/msprofd-idle" "$PROBE" --spawn -i; }
hold_in=${HOLD[1]} hold_pid=$HOLD_PID
ask HOLD req:status
t_check "daemon with --idle-timeout=2 started on demand" grep -q '"type":"status"' <<<"$line"
pid=$(cat "$RUN/msprofd.pid")
# Not a timing assertion: slowness only makes this easier to pass.
sleep 3
t_check "a connected client keeps it alive past the idle timeout" kill -0 "$pid"
{ exec {hold_in}>&-; } 2>/dev/null
wait "$hold_pid" 2>/dev/null
wait_until "idle daemon exits once the client is gone" t_gone "$pid"
t_grep "idle exit logged" "idle for 2 s" "$LOG"
t_check "idle exit removed the socket" test ! -e "$RUN/msprofd.sock"

# --- foreground with --ready-fd -------------------------------------------------
mkfifo "$T_WORK/ready"
"$MSPROFD" --foreground --idle-timeout=0 --ready-fd=3 3>"$T_WORK/ready" 2>"$T_WORK/fg.log" &
fg=$!
read -r -t 30 line <"$T_WORK/ready"
[ "$line" = "ready $fg" ] && t_ok "foreground daemon writes 'ready <pid>'" || t_fail "ready line '$line', pid $fg"
t_check "foreground daemon answers" quiet "$PROBE" req:status
kill -INT "$fg"
wait "$fg"
rc=$?
[ "$rc" -eq 0 ] && t_ok "SIGINT: clean exit 0" || t_fail "foreground exit $rc"
t_grep "foreground logs to stderr" "msprofd: received SIGINT" "$T_WORK/fg.log"

t_done
