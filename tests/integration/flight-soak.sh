# --flight-recorder left on through many wraps of its ring: a job marking
# as fast as it can (past what the agent writes, so its queues stay at
# their cap) under a 16 MB ring for MSPROF_SOAK_S seconds (20 here; for
# hours, `MSPROF_SOAK_S=3600 meson test -C build flight-soak`).  Once a
# second: the ring's bytes, the job's and msprofd's resident memory and
# msprofd's CPU time.  The footprint must be steady: the ring within its
# 16 MiB at every look, the memories of the second half no more than 2 MiB
# over the first half's, msprofd's CPU per second in the second half at
# most twice the first half's (and 2% of a core); the ring wrapped many
# times (overwritten slices counted by msprofd, read back from the dump's
# info.json), and a dump at the end still holds the last marks.
. "$SRCDIR/tests/integration/lib.sh"
FLOOD=$HELPERS/test-mstx-workload
[ -x "$FLOOD" ] || t_skip "test-mstx-workload not built"
[ -n "$T_ASAN_LIB" ] && t_skip "resident memory of a sanitized build is its shadow's"
SOAK=${MSPROF_SOAK_S:-20}
W=$T_WORK
export MSPROF_RING_DIR=$W/rings
mkdir -p "$MSPROF_RING_DIR" "$W/out"

MSPROF_AGENT_BUFFER_MAX_MB=8 t_msprof --msproftx=on --output="$W/out" --flight-recorder=16MB \
	--host-sys=cpu,mem --host-sys-freq=100 sh -c "'$FLOOD' flood $SOAK 40 1; exit 3" >"$W/soak.out" 2>&1 &
L=$!
T_PIDS+=("$L")
t_wait "the job runs" pgrep -x test-mstx-workl
D=$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid")
tck=$(getconf CLK_TCK)
: >"$W/samples"
# t ring job_kb daemon_kb daemon_ticks
while kill -0 "$L" 2>/dev/null; do
	p=$(pgrep -x test-mstx-workl | head -1)
	[ -n "$p" ] || break
	ring=$(find "$MSPROF_RING_DIR" -path '*/host/data/*' -type f -printf '%s\n' 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }')
	jkb=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$p/status" 2>/dev/null)
	dkb=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$D/status" 2>/dev/null)
	dt=$(awk '{ print $14 + $15 }' "/proc/$D/stat" 2>/dev/null)
	[ -n "$jkb" ] && [ -n "$dkb" ] && [ -n "$dt" ] && echo "$(date +%s.%N) $ring $jkb $dkb $dt" >>"$W/samples"
	sleep 1
done
wait "$L"
n=$(wc -l <"$W/samples")
echo "# $n samples over $SOAK s"
t_check "sampled through the run" test "$n" -ge $((SOAK / 2))
# halves: the first sample (start-up) left out
read -r ring_max j1 j2 d1 d2 c1 c2 < <(awk -v tck="$tck" '
	NR == 1 { next }
	{ t[NR] = $1; r = ($2 > r ? $2 : r); jk[NR] = $3; dk[NR] = $4; dt[NR] = $5; last = NR }
	END {
		mid = int((last + 2) / 2)
		for (i = 2; i <= last; i++) {
			if (i < mid) { j1 = (jk[i] > j1 ? jk[i] : j1); d1 = (dk[i] > d1 ? dk[i] : d1) }
			else { j2 = (jk[i] > j2 ? jk[i] : j2); d2 = (dk[i] > d2 ? dk[i] : d2) }
		}
		# msprofd CPU, % of a core, over each half
		c1 = (t[mid] > t[2]) ? (dt[mid] - dt[2]) / tck / (t[mid] - t[2]) * 100 : 0
		c2 = (t[last] > t[mid]) ? (dt[last] - dt[mid]) / tck / (t[last] - t[mid]) * 100 : 0
		printf "%d %d %d %d %d %.2f %.2f\n", r, j1, j2, d1, d2, c1, c2
	}' "$W/samples")
echo "# ring at most $ring_max B; job $j1 -> $j2 kB; msprofd $d1 -> $d2 kB, CPU $c1% -> $c2% of a core"
# (one slice, a 64th of the ring, of listing race: find stats the files
# one by one while writers age and add slices)
t_check "the ring stays within 16 MiB at every look (+ one slice of listing race)" test "$ring_max" -le \
	$(((16 << 20) + (16 << 20) / 64))
t_check "the job's memory is steady (second half within 2 MiB of the first)" test "$j2" -le $((j1 + 2048))
t_check "msprofd's memory is steady (second half within 2 MiB of the first)" test "$d2" -le $((d1 + 2048))
t_check "msprofd's CPU is steady (second half at most twice the first, and 2% of a core)" \
	awk -v a="$c1" -v b="$c2" 'BEGIN { exit !(b <= 2 * a + 2) }'
P=$(find "$W/out" -maxdepth 1 -name 'PROF_*' -type d | head -1)
wraps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["flight_recorder"]["overwritten_slices"])' \
	"$P/host/info.json" 2>/dev/null)
echo "# the ring overwrote $wraps slices (about 64 a wrap)"
t_check "the ring wrapped many times (at least 10)" test "${wraps:-0}" -ge 640
last=$(t_sql "$(ls "$P"/msprof_*.db | head -1)" "SELECT count(*) FROM MSTX_EVENTS")
t_check "the dump at the end holds the last marks" test "${last:-0}" -gt 1000
t_done
