#!/bin/bash
# --flight-recorder with --storage-limit: every dump is as big as the ring,
# and the run's dumps are kept within the limit on disk.  A job floods a
# 96 MB ring with marks and is dumped three times, by three triggers, each
# once the ring is full (the prompt's status says how full it is): the
# prompt's dump, msprof --dump --pid from another shell, the job's exit 3
# (the flood ended by SIGTERM, which it takes as the end of its time).
# Each dump holds all of the ring: a dump links the ring's files before it
# copies them, so that the flood, which turns the ring over in about 0.1 s,
# cannot age the oldest third away meanwhile.  3 dumps of about 96 MB are
# over --storage-limit=200MB, so the first dump is deleted whole when the
# third is written, and said; the last two are kept, exported, and hold
# less than the limit.
. "$SRCDIR/tests/integration/lib.sh"
FLOOD=$HELPERS/test-mstx-workload
[ -x "$FLOOD" ] || t_skip "test-mstx-workload not built (no mstx library)"
W=$T_WORK
mkdir -p "$W/out"
# the flood's pid, for msprof --dump --pid
flood_pid() { pgrep -n -f "test-mstx-workload flood 120 " ; }
# 'status' at the prompt until it says the ring holds 88 MiB (at most 60 s:
# how fast it fills depends on the machine's load)
wait_ring_full() {
	local b
	for _ in $(seq 120); do
		echo status
		sleep 0.5
		b=$(grep -o 'its ring .* holding [0-9]* bytes' "$W/run.out" | tail -n 1 | sed 's/.*holding \([0-9]*\) bytes/\1/')
		[ "${b:-0}" -ge $((88 << 20)) ] && return
	done
}
(sleep 1; wait_ring_full; echo dump; sleep 1; wait_ring_full
 "$MSPROF" --dump --pid="$(flood_pid)" >"$W/cmd.out" 2>&1; echo "rc $?" >>"$W/cmd.out"
 sleep 1; wait_ring_full; kill "$(flood_pid)"
 sleep 10; echo quit) |
	MSPROF_AGENT_BUFFER_MAX_MB=8 t_msprof --dynamic=on --msproftx=on --output="$W/out" --flight-recorder=96MB \
		--storage-limit=200MB sh -c "'$FLOOD' flood 120 40 1 >/dev/null; exit 3" >"$W/run.out" 2>&1
grep -o 'dump ([a-z]*.* MB written in [0-9]* ms' "$W/run.out" | sed 's/^/# /'
t_grep "msprof --dump --pid asked for the second dump" "rc 0" "$W/cmd.out"
for k in "prompt)" "command)" "exit: the job"; do
	t_grep "the dump of the trigger $k written" "Flight recorder: dump ($k" "$W/run.out"
done
t_grep "the first dump deleted to keep within the limit, said" \
	"flight recorder: dump 1 (prompt, " "$W/run.out"
t_grep "the limit named" "deleted to keep the dumps within --storage-limit (200 MB)" "$W/run.out"
dirs=$(find "$W/out" -maxdepth 1 -name 'PROF_*' -type d | sort)
t_eq "two dumps left" "$(echo "$dirs" | grep -c PROF_)" 2
triggers=$(for d in $dirs; do python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trigger"])' \
	"$d/host/info.json"; done | sort | tr '\n' ' ')
t_eq "the two left are the newest: the command's and the exit's" "$triggers" "command exit "
# each holds the ring as it was (at least 88 MiB when asked), though the
# flood ages a third of it in the time a dump takes to copy it
for d in $dirs; do
	b=$(find "$d/host/data" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	t_check "$(basename "$d") holds the whole ring ($b bytes, at least 80 MiB)" test "$b" -ge $((80 << 20))
done
raw=$(for d in $dirs; do find "$d/host/data" -type f -printf '%s\n'; done | awk '{ s += $1 } END { print s + 0 }')
echo "# the dumps left hold $raw bytes of raw data"
t_check "their raw data is within the limit (200 MiB)" test "$raw" -gt $((100 << 20)) -a "$raw" -le $((200 << 20))
for d in $dirs; do
	t_check "$(basename "$d") exported" sh -c "ls '$d'/msprof_*.db >/dev/null"
done
t_done
