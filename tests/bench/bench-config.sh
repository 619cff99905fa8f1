# MSPROF_CONFIG's reaction time: how long after a config file says start
# (or stop) the window holds the job's marks (or no longer does).  A
# self-enabled job (the agent preloaded, MSPROF_OPTIONS) marks every 2 ms
# ("m<i>"); the script switches its config file on and off ROUNDS times
# (default 8), each by rename as an editor saves, and reads each window's
# first and last mark back from its database:
#   start  first mark in the window - the moment the file said start
#   stop   the moment the file said stop - last mark in the window, as
#          a negative number: marks made after it (positive: the window
#          closed before the file said so, which cannot be)
# The agent sees a change within its 50 ms poll; msprof then opens the
# window through msprofd.  Prints the median and the worst of each; never
# fails on time.
#
#   meson test -C build --benchmark config-reaction -v      (BENCH_ROUNDS=N)
set -u
: "${MSPROF:?run under meson test}" "${AGENT_SO:?}" "${SELF_APP:?}"
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: sqlite3 is needed to read the windows back"; exit 77; }
ROUNDS=${BENCH_ROUNDS:-8}
case $ROUNDS in '' | *[!0-9]* | 0) echo "FAIL: BENCH_ROUNDS '$ROUNDS' is not a positive number"; exit 1 ;; esac
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-config.XXXXXX")
trap 'kill "$JOB" 2>/dev/null; rm -rf "$W"' EXIT
export MSPROF_RUNTIME_DIR=$W/run
mkdir -p "$W/out"
CFG=$W/profile.json
set_cfg() { printf '%s\n' "$1" >"$CFG.tmp" && mv "$CFG.tmp" "$CFG"; }
now() { date +%s%N; }

set_cfg '{"start": false}'
# the marks outlast the rounds: 1.7 s a round, 2 ms a mark
N=$(( (ROUNDS * 1700 + 3000) / 2 ))
LD_PRELOAD=$AGENT_SO MSPROF_OPTIONS="--output=$W/out --msproftx=on" MSPROF_CONFIG="$CFG" \
	"$SELF_APP" marks "$N" 2 >/dev/null 2>"$W/err" &
JOB=$!
sleep 1
: >"$W/times"
for ((i = 0; i < ROUNDS; i++)); do
	set_cfg '{"start": true}'; on=$(now)
	sleep 0.8
	set_cfg '{"start": false}'; off=$(now)
	sleep 0.9
	echo "$on $off" >>"$W/times"
done
kill "$JOB" 2>/dev/null
wait "$JOB" 2>/dev/null
mapfile -t DIRS < <(find "$W/out" -maxdepth 1 -type d -name 'PROF_*' | sort)
if [ "${#DIRS[@]}" -ne "$ROUNDS" ]; then
	echo "FAIL: $ROUNDS switches gave ${#DIRS[@]} windows"; cat "$W/out"/msprof_self_*.log; exit 1
fi
i=0
while read -r on off; do
	db=$(ls "${DIRS[$i]}"/msprof_*.db 2>/dev/null)
	[ -n "$db" ] || { echo "FAIL: window $i has no database"; exit 1; }
	IFS='|' read -r first last <<<"$(sqlite3 "$db" "SELECT min(startNs), max(startNs) FROM MSTX_EVENTS")"
	echo "$(( (first - on) / 1000 )) $(( (off - last) / 1000 ))"
	i=$((i + 1))
done <"$W/times" >"$W/lat"
awk -v n="$ROUNDS" '
	{ s[NR] = $1; t[NR] = $2 }
	function med(a,   i, j, x, k) {
		for (i = 1; i <= n; i++) b[i] = a[i]
		for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j > 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
		k = int((n + 1) / 2); return b[k]
	}
	function worst(a,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] > m) m = a[i]; return m }
	function least(a,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }
	END {
		printf "%-6s %8s %12s %12s\n", "what", "rounds", "median_ms", "worst_ms"
		printf "%-6s %8d %12.1f %12.1f\n", "start", n, med(s) / 1000, worst(s) / 1000
		printf "%-6s %8d %12.1f %12.1f\n", "stop", n, -med(t) / 1000, -least(t) / 1000
		print "start: from the file saying start to the first mark in the window (marks every 2 ms)"
		print "stop: marks kept after the file said stop (negative: the window held marks made after it)"
	}' "$W/lat"
