# --flight-recorder: the job's data kept in a ring in memory, and written
# out as a PROF dir on a trigger, recording going on.  Each trigger with a
# job that makes the trouble on purpose (test-capture-app's steps print
# how many marks each step made): a slow step, a step that hangs in one of
# two ranks, a rank that kills itself (the job then ends badly), and
# `msprof --dump --pid` from another shell.  Each dump holds the steps
# before the trouble with every mark the job made in them.  Then the
# bounds: a flood far past a 16 MB ring keeps the ring within 16 MB and the
# process within its queues' cap plus a constant, and what the dump holds,
# what the ring overwrote (counted by kind) and what the agent dropped add
# up to what the job made; a 2 s span keeps only the last seconds.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/capture-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
APP=$HELPERS/test-capture-app
FLOOD=$HELPERS/test-mstx-workload
[ -x "$APP" ] || t_skip "test-capture-app not built (no mstx library)"
W=$T_WORK
# the ring where the test can see it
export MSPROF_RING_DIR=$W/rings
mkdir -p "$MSPROF_RING_DIR"

info_key() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["flight_recorder"][sys.argv[2]])' \
		"$1/host/info.json" "$2"
}
prof_dirs() { find "$1" -maxdepth 1 -name 'PROF_*' -type d | sort; }

# --- the options ------------------------------------------------------------------------
t_expect_rc 1 "a bad span is refused" t_msprof --flight-recorder=5x --output="$W" true
t_expect_rc 1 "a ring below 16 MB is refused" t_msprof --flight-recorder=8MB --output="$W" true
t_expect_rc 1 "--dump-on without --flight-recorder is refused" t_msprof --dump-on=exit --output="$W" true
t_expect_rc 1 "a bad --dump-on is refused" t_msprof --flight-recorder=60s --dump-on=slow-step:1 --output="$W" true
t_expect_rc 1 "--flight-recorder with --schedule is refused" \
	t_msprof --flight-recorder=60s --schedule=active=2 --output="$W" true
t_expect_rc 1 "--dump without --pid is refused" t_msprof --dump
t_expect_rc 1 "--dump for a process no recorder covers fails" t_msprof --dump --pid=$$

# --- a slow step ---------------------------------------------------------------------------
# 16 steps of 100 ms; step 10 takes 600 ms
mkdir -p "$W/slow"
t_msprof --msproftx=on --output="$W/slow" --flight-recorder=60s --dump-on=slow-step:3 \
	"$APP" steps 16 100 10 500 >"$W/slow.out" 2>&1
t_eq "slow step: one dump" "$(prof_dirs "$W/slow" | wc -l)" 1
P=$(prof_dirs "$W/slow" | head -1)
t_eq "slow step: info.json names the trigger" "$(info_key "$P" trigger)" slow-step
t_eq "slow step: ... at its top too" \
	"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trigger"])' "$P/host/info.json")" slow-step
t_grep "slow step: the detail names step 10" "step 10 took" "$P/host/info.json"
t_eq "slow step: the dump holds steps 0-10, every mark the job made" "$(cap_tx_marks "$P" 0 10)" \
	"$(cap_job_marks "$W/slow.out" 0 10)"
t_grep "slow step: msprof names the dump" "Flight recorder dump 1 (slow-step): $P" "$W/slow.out"
t_grep "slow step: report.html names the trigger" '"trigger":"slow-step"' "$P/mindstudio_profiler_output/report.html"
t_eq "slow step: the ring is gone" "$(find "$MSPROF_RING_DIR" -mindepth 1 | wc -l)" 0

# --- a step that hangs, in one of two ranks ---------------------------------------------------
# rank 1's step 6 waits 3 s after its marks; hang:1s sees it, once
mkdir -p "$W/hang"
t_msprof --msproftx=on --output="$W/hang" --flight-recorder=60s --dump-on=hang:1s sh -c "
	RANK=0 '$APP' steps 14 100 >'$W/hang0.out' & RANK=1 '$APP' steps 10 100 6 3000 >'$W/hang1.out' & wait" \
	>"$W/hang.out" 2>&1
t_eq "hang: one dump, split by rank" "$(grep -c '^\[INFO\] Flight recorder dump' "$W/hang.out")" 1
R1=$(sed -n 's/^\[INFO\] Rank 1 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/hang.out" | head -1)
R0=$(sed -n 's/^\[INFO\] Rank 0 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/hang.out" | head -1)
if [ -n "$R1" ] && [ -n "$R0" ]; then
	t_eq "hang: rank 1's dir names the trigger" "$(info_key "$W/hang/$R1" trigger)" hang
	t_grep "hang: the detail names step 6" "step 6 has gone on for" "$W/hang/$R1/host/info.json"
	t_eq "hang: rank 1's steps 0-6, every mark" "$(cap_tx_marks "$W/hang/$R1" 0 6)" "$(cap_job_marks "$W/hang1.out" 0 6)"
	t_eq "hang: rank 0's steps 0-6, every mark" "$(cap_tx_marks "$W/hang/$R0" 0 6)" "$(cap_job_marks "$W/hang0.out" 0 6)"
else
	t_fail "hang: the dump was not split into ranks 0 and 1"
	cat "$W/hang.out" >&2
fi

# --- a collective that hangs between two ranks (no steps at all) ----------------------------
# rank 1 comes 4 s late to round 50: rank 0's allreduce (an mstx range of
# the domain "communication", as torch_npu's and mstx.torch's) stays open
SYNC=$HELPERS/test-sync-ranks
mkdir -p "$W/coll"
t_msprof --output="$W/coll" --flight-recorder=60s --dump-on=hang:1s sh -c "
	RANK=0 '$SYNC' '$W/coll.sock' 0 100 & RANK=1 '$SYNC' '$W/coll.sock' 1 100 50 4000 & wait" >"$W/coll.out" 2>&1
t_grep "collective: its hang dumps" "dump (hang: the collective '{\"opName\": \"HcclAllreduce\"" "$W/coll.out"
t_eq "collective: one dump" "$(grep -c '^\[INFO\] Flight recorder dump' "$W/coll.out")" 1
R0=$(sed -n 's/^\[INFO\] Rank 0 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/coll.out" | head -1)
if [ -n "$R0" ]; then
	n=$(t_sql "$(ls "$W/coll/$R0"/msprof_*.db)" "SELECT count(*) FROM MSTX_EVENTS e JOIN STRING_IDS d ON d.id = e.domainId WHERE d.value = 'communication'")
	t_check "collective: rank 0's dump holds its 50 collectives before the hang and the open one ($n)" \
		test "$n" -ge 51
else
	t_fail "collective: no dir of rank 0"
	cat "$W/coll.out" >&2
fi

# --- a rank that kills itself; the job ends badly ------------------------------------------------
# rank 1 kills itself after step 5; the job's script then ends rank 0 and
# exits with rank 1's status
mkdir -p "$W/exit"
t_expect_rc 137 "exit: msprof exits with the job's status" t_msprof --msproftx=on --output="$W/exit" \
	--flight-recorder=60s sh -c "
	RANK=0 '$APP' steps 60 100 >'$W/exit0.out' & r0=\$!
	RANK=1 '$APP' steps 20 100 5 200 kill >'$W/exit1.out' & r1=\$!
	wait \$r1; s=\$?; kill \$r0; exit \$s" >"$W/exit.out" 2>&1
# (dumped as the script reaps the dead rank, or, when the job's end comes
# first (the script ends at once), as the job ends: one failure, one dump)
t_check "exit: dumped as the rank died or as the job ended" grep -qE \
	'was killed by signal 9|dump \(exit: the job \(pid [0-9]+\) exited with status 137' "$W/exit.out"
t_eq "exit: one dump" "$(grep -c '^\[INFO\] Flight recorder dump' "$W/exit.out")" 1
R1=$(sed -n 's/^\[INFO\] Rank 1 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/exit.out" | head -1)
if [ -n "$R1" ]; then
	t_eq "exit: the dead rank's steps 0-5 are in the dump, every mark" "$(cap_tx_marks "$W/exit/$R1" 0 5)" \
		"$(cap_job_marks "$W/exit1.out" 0 5)"
	t_grep "exit: the dead rank's dump names the trigger" '"trigger":"exit"' "$W/exit/$R1/host/info.json"
else
	t_fail "exit: no dir of rank 1"
	cat "$W/exit.out" >&2
fi

# --- a rank killed by a signal while the job goes on: its parent sees it ---------------
mkdir -p "$W/killed"
t_expect_rc 0 "killed: the job ends well" t_msprof --output="$W/killed" --flight-recorder=60s sh -c "
	RANK=0 '$APP' steps 30 100 >'$W/killed0.out' & RANK=1 '$APP' steps 20 100 5 200 kill >'$W/killed1.out' & wait" \
	>"$W/killed.out" 2>&1
t_grep "killed: its parent's agent dumps as it reaps it" "a child of" "$W/killed.out"
t_grep "killed: naming the signal" "was killed by signal 9" "$W/killed.out"
R1=$(sed -n 's/^\[INFO\] Rank 1 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/killed.out" | head -1)
R0=$(sed -n 's/^\[INFO\] Rank 0 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/killed.out" | head -1)
if [ -n "$R1" ] && [ -n "$R0" ]; then
	t_eq "killed: the dead rank's steps 0-5, every mark" "$(cap_tx_marks "$W/killed/$R1" 0 5)" \
		"$(cap_job_marks "$W/killed1.out" 0 5)"
	n=$(cap_tx_marks "$W/killed/$R0" 0 29 | tr ' ' '\n' | grep -vc ':0$')
	t_check "killed: the living rank's steps until then, not its end (it ran on: $n steps in the dump)" \
		test "$n" -ge 5 -a "$n" -lt 29
else
	t_fail "killed: the dump was not split into ranks 0 and 1"
	cat "$W/killed.out" >&2
fi

# --- a rank that fails while the job goes on -------------------------------------------------
# rank 1 exits with status 3 after step 5; rank 0 goes on, and the job ends
# well: the dump is rank 1's agent's, asked for as it ended
mkdir -p "$W/fail"
t_expect_rc 0 "fail: the job ends well" t_msprof --msproftx=on --output="$W/fail" --flight-recorder=60s sh -c "
	RANK=0 '$APP' steps 20 100 >'$W/fail0.out' & RANK=1 '$APP' steps 20 100 5 100 fail >'$W/fail1.out'; wait" \
	>"$W/fail.out" 2>&1
t_eq "fail: one dump" "$(grep -c '^\[INFO\] Flight recorder dump' "$W/fail.out")" 1
t_grep "fail: the dump names the failed process" "exits with status 3" "$W/fail.out"
R1=$(sed -n 's/^\[INFO\] Rank 1 (pid \([0-9]*\)): \(PROF_.*\)$/\2/p' "$W/fail.out" | head -1)
if [ -n "$R1" ]; then
	t_eq "fail: the failed rank's steps 0-5, every mark to its end" "$(cap_tx_marks "$W/fail/$R1" 0 5)" \
		"$(cap_job_marks "$W/fail1.out" 0 5)"
else
	t_fail "fail: no dir of rank 1"
	cat "$W/fail.out" >&2
fi

# --- msprof --dump --pid from another shell -----------------------------------------------------
mkdir -p "$W/cmd"
t_msprof --msproftx=on --output="$W/cmd" --flight-recorder=60s "$APP" steps 20 100 >"$W/cmd.out" 2>&1 &
L=$!
T_PIDS+=("$L")
t_wait "cmd: the job reaches step 5" grep -q '^marks s5 ' "$W/cmd.out"
J=$(pgrep -nx test-capture-ap)
t_expect_rc 0 "cmd: msprof --dump --pid asks the job's recorder" t_msprof --dump --pid="$J"
wait "$L"
t_eq "cmd: one dump" "$(prof_dirs "$W/cmd" | wc -l)" 1
P=$(prof_dirs "$W/cmd" | head -1)
t_eq "cmd: info.json names the trigger" "$(info_key "$P" trigger)" command
t_eq "cmd: the dump holds steps 0-5, every mark" "$(cap_tx_marks "$P" 0 5)" "$(cap_job_marks "$W/cmd.out" 0 5)"

# --- the prompt's dump, in launch and attach -----------------------------------------------
mkdir -p "$W/prompt"
(sleep 2; echo start; echo dump; sleep 1; echo quit) | t_msprof --dynamic=on --output="$W/prompt" \
	--flight-recorder=60s sh -c "exec '$APP' steps 30 100 >'$W/prompt.job'" >"$W/prompt.out" 2>&1
t_grep "prompt: start says the recorder runs all the time" "the flight recorder records all the time" \
	"$W/prompt.out"
t_eq "prompt: one dump" "$(prof_dirs "$W/prompt" | wc -l)" 1
P=$(prof_dirs "$W/prompt" | head -1)
t_eq "prompt: info.json names the trigger" "$(info_key "$P" trigger)" prompt
t_eq "prompt: the dump holds steps 0-10, every mark" "$(cap_tx_marks "$P" 0 10)" "$(cap_job_marks "$W/prompt.job" 0 10)"
# attach: a job started with the agent preloaded
mkdir -p "$W/attach"
AGENT_SO=$(dirname "$MSPROF")/../collectors/agent/libmsprof_agent.so
LD_PRELOAD=${T_ASAN_LIB:+$T_ASAN_LIB:}$AGENT_SO "$APP" steps 40 100 >"$W/attach.job" 2>&1 &
J=$!
T_PIDS+=("$J")
t_wait "attach: the job runs" grep -q '^marks s2 ' "$W/attach.job"
(sleep 2; echo dump; sleep 1; echo quit) | t_msprof --dynamic=on --pid="$J" --output="$W/attach" \
	--flight-recorder=60s >"$W/attach.out" 2>&1
t_eq "attach: one dump" "$(prof_dirs "$W/attach" | wc -l)" 1
P=$(prof_dirs "$W/attach" | head -1)
t_eq "attach: info.json names the trigger" "$(info_key "$P" trigger)" prompt
n=$(cap_tx_marks "$P" 0 39 | tr ' ' '\n' | grep -vc ':0$')
t_check "attach: the dump holds the job's marks of about 2 s" test "$n" -ge 15
kill "$J" 2>/dev/null
wait "$J" 2>/dev/null

# --- msprofd killed under a running recorder: a new one records on ---------------------
mkdir -p "$W/restart"
t_msprof --output="$W/restart" --flight-recorder=60s sh -c "exec '$APP' steps 150 100 >'$W/restart.job'" \
	>"$W/restart.out" 2>&1 &
L=$!
T_PIDS+=("$L")
t_wait "restart: the job reaches step 5" grep -q '^marks s5 ' "$W/restart.job"
kill "$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid")"
t_wait "restart: msprof records into the ring again" grep -q 'recording into the ring goes on' "$W/restart.out"
t_check "restart: no error said while a new msprofd comes" sh -c "! grep '\[ERROR\]' '$W/restart.out'"
t_eq "restart: msprofd's going said once" "$(grep -c 'The flight recorder lost msprofd; it records again' "$W/restart.out")" 1
k=$(sed -n 's/^marks s\([0-9]*\) .*/\1/p' "$W/restart.job" | tail -1)
t_wait "restart: the job goes 5 steps further" grep -q "^marks s$((k + 5)) " "$W/restart.job"
J=$(pgrep -P "$(pgrep -P "$L" | head -1)" -x test-capture-ap | head -1)
t_expect_rc 0 "restart: msprof --dump --pid reaches the new msprofd" t_msprof --dump --pid="$J"
wait "$L"
P=$(prof_dirs "$W/restart" | head -1)
t_eq "restart: the dump holds steps 0-4, from before the kill, every mark" "$(cap_tx_marks "$P" 0 4)" \
	"$(cap_job_marks "$W/restart.job" 0 4)"
t_eq "restart: and steps $((k + 2))-$((k + 4)), after it, every mark" "$(cap_tx_marks "$P" $((k + 2)) $((k + 4)))" \
	"$(cap_job_marks "$W/restart.job" $((k + 2)) $((k + 4)))"

# trouble_prompt NAME FAULT: msprof at the prompt attached to job $J with a
# recorder, FAULT (shell words) run 1.5 s in; NAME.k gets the job's step once
# msprof says recording goes on, and a dump is asked 1.5 s after that
trouble_prompt() {
	local name=$1 fault=$2
	(sleep 1.5; eval "$fault"
	 for _ in $(seq 200); do grep -q 'recording into the ring goes on' "$W/$name.out" && break; sleep 0.1; done
	 sed -n 's/^marks s\([0-9]*\) .*/\1/p' "$W/$name.job" | tail -1 >"$W/$name.k"
	 sleep 1.5; echo dump; sleep 1; echo quit) |
		t_msprof --dynamic=on --pid="$J" --output="$W/$name" --flight-recorder=60s >"$W/$name.out" 2>&1
}
# trouble_dump NAME WHAT: trouble_prompt's one dump holds every mark of steps
# k+2 to k+4, after WHAT
trouble_dump() {
	local name=$1 k P
	k=$(cat "$W/$name.k")
	P=$(prof_dirs "$W/$name" | head -1)
	t_eq "$name: one dump" "$(prof_dirs "$W/$name" | wc -l)" 1
	t_eq "$name: the dump holds steps $((k + 2))-$((k + 4)), $2, every mark" \
		"$(cap_tx_marks "$P" $((k + 2)) $((k + 4)))" "$(cap_job_marks "$W/$name.job" $((k + 2)) $((k + 4)))"
}

# --- the same at the prompt, attached: the recorder finds a new msprofd ---------------
mkdir -p "$W/dynrestart"
LD_PRELOAD=${T_ASAN_LIB:+$T_ASAN_LIB:}$AGENT_SO "$APP" steps 250 100 >"$W/dynrestart.job" 2>&1 &
J=$!
T_PIDS+=("$J")
t_wait "dynamic restart: the job runs" grep -q '^marks s2 ' "$W/dynrestart.job"
trouble_prompt dynrestart 'kill "$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid")"'
t_grep "dynamic restart: msprofd's going is said" "The flight recorder of process $J lost msprofd; it records again" \
	"$W/dynrestart.out"
t_grep "dynamic restart: msprof records into the ring again" "Flight recorder of process $J: recording into the ring goes on" \
	"$W/dynrestart.out"
t_check "dynamic restart: the going said once, and no error while a new msprofd comes" \
	test "$(grep -c 'lost msprofd' "$W/dynrestart.out")" = 1 -a "$(grep -c '\[ERROR\]' "$W/dynrestart.out")" = 0
trouble_dump dynrestart "after the restart"
kill "$J" 2>/dev/null
wait "$J" 2>/dev/null

# --- msprofd cannot write the ring (a full file system, by a shim): said once with why,
# tried again less and less often, and recording goes on once it can write again
mkdir -p "$W/full"
t_stop_daemon
LD_PRELOAD=${T_ASAN_LIB:+$T_ASAN_LIB:}$HELPERS/enospc.so MSPROF_TEST_FULL="$W/full.flag" "$MSPROFD" --idle-timeout=0
LD_PRELOAD=${T_ASAN_LIB:+$T_ASAN_LIB:}$AGENT_SO "$APP" steps 300 100 >"$W/full.job" 2>&1 &
J=$!
T_PIDS+=("$J")
t_wait "full: the job runs" grep -q '^marks s2 ' "$W/full.job"
# the disk full for 6 s
trouble_prompt full 'touch "$W/full.flag"; sleep 6; rm "$W/full.flag"'
t_grep "full: the trouble is said with msprofd's reason" \
	"msprofd ended the flight recorder's session of process $J (write_error): cannot write raw data" "$W/full.out"
# the tries: each second (the first 10 s of a trouble), each new session
# failing at once while the disk is full: one trouble, said once, its end
# once (the slower tries past 10 s are not waited for here)
t_check "full: said once, its end once, no msprofd said lost, no error for each try" \
	test "$(grep -c 'ended the flight recorder' "$W/full.out")" = 1 -a \
	"$(grep -c 'recording into the ring goes on' "$W/full.out")" = 1 -a "$(grep -c 'lost msprofd' "$W/full.out")" = 0 -a \
	"$(grep -c '\[ERROR\]' "$W/full.out")" = 0
trouble_dump full "after the disk came back"
kill "$J" 2>/dev/null
wait "$J" 2>/dev/null
t_stop_daemon

# --- two recorders writing into one --output (the hosts of a job on a shared
# file system): a dump of one has the other dump too
mkdir -p "$W/peers"
t_msprof --output="$W/peers" --flight-recorder=60s --dump-on=none sh -c "exec '$APP' steps 300 100 >'$W/peer2.job'" \
	>"$W/peer2.out" 2>&1 &
L2=$!
T_PIDS+=("$L2")
t_wait "peers: the second job runs" grep -q '^marks s2 ' "$W/peer2.job"
t_msprof --output="$W/peers" --flight-recorder=60s --dump-on=slow-step:3 sh -c "exec '$APP' steps 16 100 10 500 >'$W/peer1.job'" \
	>"$W/peer1.out" 2>&1
# the second job, 30 s long, is ended once it has dumped
t_wait "peers: the second dumps" grep -q 'Flight recorder: dump' "$W/peer2.out"
# (its msprof is the child of the test's subshell, the job msprof's child)
for m in $(pgrep -P "$L2"); do pkill -P "$m" -x test-capture-ap; done
wait "$L2"
t_grep "peers: the first dumps on its slow step" "dump (slow-step: step 10 took" "$W/peer1.out"
t_grep "peers: the second dumps as asked, naming who asked" "dump (slow-step: asked by the recorder" "$W/peer2.out"
t_eq "peers: two dumps in the shared output" "$(prof_dirs "$W/peers" | wc -l)" 2
t_eq "peers: their requests are gone at the end" "$(find "$W/peers" -maxdepth 1 -name '.msprof-flight.*' | wc -l)" 0

# --- the bounds: a flood past a 16 MB ring --------------------------------------------------------
mkdir -p "$W/flood"
MSPROF_AGENT_BUFFER_MAX_MB=8 t_msprof --msproftx=on --output="$W/flood" --flight-recorder=16MB \
	sh -c "'$FLOOD' flood 3 40 1; exit 3" >"$W/flood.out" 2>&1 &
L=$!
T_PIDS+=("$L")
ring_max=0 rss_max=0
while kill -0 "$L" 2>/dev/null; do
	# the ring's data, what its bound holds (every file of it, the quota's own page too)
	r=$(find "$MSPROF_RING_DIR" -path '*/host/data/*' -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	[ -n "$r" ] && [ "$r" -gt "$ring_max" ] && ring_max=$r
	p=$(pgrep -x test-mstx-workl | head -1)
	k=$([ -n "$p" ] && sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$p/status" 2>/dev/null)
	[ -n "$k" ] && [ "$k" -gt "$rss_max" ] && rss_max=$k
	sleep 0.2
done
wait "$L"
echo "# flood: the ring took at most $ring_max bytes, the process at most $rss_max kB resident"
# the ring's own bound; the process's: its queues' cap (8 MiB) and 24 MiB
# for the program, the agent's thread and libraries
# (find lists and stats the files one by one while writers age and add
# slices: one slice, a 64th of the ring, of that race is allowed)
t_check "flood: the ring stays within 16 MiB (+ one slice of listing race)" test "$ring_max" -gt 0 -a \
	"$ring_max" -le $(((16 << 20) + (16 << 20) / 64))
# (a sanitized build's shadow memory is no part of it)
if [ -z "$T_ASAN_LIB" ]; then
	t_check "flood: the process stays within its queues' 8 MiB and 24 MiB" test "$rss_max" -gt 0 -a \
		"$rss_max" -le $(((8 + 24) << 10))
fi
P=$(prof_dirs "$W/flood" | head -1)
issued=$(sed -n 's/^issued \([0-9]*\)$/\1/p' "$W/flood.out")
db=$(ls "$P"/msprof_*.db 2>/dev/null | head -1)
dumped=$(t_sql "$db" "SELECT count(*) FROM MSTX_EVENTS")
written=$(t_sql "$db" "SELECT total(events) FROM AGENT_COUNTERS" | cut -d. -f1)
dropped=$(t_sql "$db" "SELECT total(dropped) FROM AGENT_COUNTERS" | cut -d. -f1)
over=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["flight_recorder"]["overwritten"].get("110", 0))' \
	"$P/host/info.json")
echo "# flood: issued $issued, in the dump $dumped, overwritten $over, dropped $dropped"
t_check "flood: the ring overwrote marks" test "${over:-0}" -gt 0
t_eq "flood: the dump's marks and those overwritten are those the agent wrote" "$((dumped + over))" "$written"
t_eq "flood: written and dropped are what the job made" "$((written + dropped))" "$issued"
t_grep "flood: the export names what was overwritten" "mark(s) overwritten in the flight recorder's ring" \
	"$P/mindstudio_profiler_output/report.html"

# --- the span: only the last 2 s ------------------------------------------------------------------
mkdir -p "$W/span"
t_msprof --msproftx=on --output="$W/span" --flight-recorder=2s --host-sys=cpu,mem --host-sys-freq=50 \
	sh -c "'$APP' steps 50 100 >'$W/span.job'; exit 1" >"$W/span.out" 2>&1
P=$(prof_dirs "$W/span" | head -1)
# 50 steps of about 100 ms: the last 2 s (and at most a slice's eighth of it
# and the dump's wait more) hold about the last 20-25 steps
first=$(cap_tx_marks "$P" 0 49 | tr ' ' '\n' | grep -vn ':0$' | head -1 | cut -d: -f2 | tr -d s)
echo "# span: the dump's first step is $first"
t_check "span: the first steps are gone" test "${first:-0}" -ge 20
t_eq "span: the steps after the first kept one are whole" "$(cap_tx_marks "$P" $((first + 1)) 49)" \
	"$(cap_job_marks "$W/span.job" $((first + 1)) 49)"
t_check "span: host samples were overwritten too" python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["flight_recorder"]["overwritten"]
# thread CPU samples (3) and process memory samples (4), marks (110)
sys.exit(0 if o.get("3", 0) > 0 and o.get("4", 0) > 0 and o.get("110", 0) > 0 else 1)' "$P/host/info.json"
t_done
