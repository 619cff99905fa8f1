#!/bin/bash
# --flight-recorder with --storage-limit: every dump is as big as the ring,
# and the run's dumps are kept within the limit on disk.  A job floods a
# 100 MB ring with marks for 9 s and is dumped three times, by three
# triggers (the prompt's dump, msprof --dump --pid from another shell, the
# job's exit 3): 3 dumps of about 80 MB are over --storage-limit=200MB, so the first dump
# is deleted whole when the third is written, and said; the last two are
# kept, exported, and hold less than the limit.
. "$SRCDIR/tests/integration/lib.sh"
FLOOD=$HELPERS/test-mstx-workload
[ -x "$FLOOD" ] || t_skip "test-mstx-workload not built (no mstx library)"
W=$T_WORK
mkdir -p "$W/out"
# the flood's pid, for msprof --dump --pid
flood_pid() { pgrep -n -f "test-mstx-workload flood 12 " ; }
(sleep 5; echo dump; sleep 4
 "$MSPROF" --dump --pid="$(flood_pid)" >"$W/cmd.out" 2>&1; echo "rc $?" >>"$W/cmd.out"
 sleep 10; echo quit) |
	MSPROF_AGENT_BUFFER_MAX_MB=8 t_msprof --dynamic=on --msproftx=on --output="$W/out" --flight-recorder=96MB \
		--storage-limit=200MB sh -c "'$FLOOD' flood 12 40 1 >/dev/null; exit 3" >"$W/run.out" 2>&1
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
raw=$(for d in $dirs; do find "$d/host/data" -type f -printf '%s\n'; done | awk '{ s += $1 } END { print s + 0 }')
echo "# the dumps left hold $raw bytes of raw data"
t_check "their raw data is within the limit (200 MiB)" test "$raw" -gt $((100 << 20)) -a "$raw" -le $((200 << 20))
for d in $dirs; do
	t_check "$(basename "$d") exported" sh -c "ls '$d'/msprof_*.db >/dev/null"
done
t_done
