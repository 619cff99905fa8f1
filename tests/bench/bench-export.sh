# Export throughput and memory on synthetic agent data (tests/helpers/gen-raw:
# real raw files, mstx marks inside "step N" ranges, plus device tasks each
# launched by a CUDA runtime call in the same steps), against the time the
# sqlite3 command line tool takes to dump the same tables to CSV.
#
#   BENCH_EXPORT_EVENTS="1000000 10000000" meson test -C build --benchmark export -v
#
# Each size is EVENTS mstx events + BENCH_EXPORT_TASKS device tasks (default
# 1,000,000 at every size; 0 for mstx alone), each task with its runtime
# call.  BENCH_EXPORT_GOAL=1 (the 'export-goal' benchmark, suite goals):
# issue 14's size, 2,000,000 mstx events and no task, and BENCH_SHORT=1
# makes it 100,000.  For each size: parse (raw -> msprof_{ts}.db, records/s over every
# raw record), export (db -> msprof and msprof_tx timelines, msprof_tx,
# step_trace, op_summary, op_statistic, task_time, api_statistic CSVs;
# events/s over mstx events + tasks + calls; report.html included, and
# timed alone after it), the peak resident memory of
# each (GNU time), and two references, each one sqlite3 -csv run:
#   sqlite3_tx   MSTX_EVENTS joined with its strings in start order, what
#                the msprof_tx CSV holds (the reference of mstx-only runs)
#   sqlite3_all  that, and TASK joined with its strings (task type, kernel
#                name) in start order, what the task_time CSV holds: the
#                same rows the export's CSVs hold, in the same order
# Each step starts after a sync, so that none pays for writing back the
# files of the one before (the export, writing the database it has just
# parsed while writing its own 1.5 GB, ran at half speed and more).
# The CPU time (user + system) of the export and of the sqlite3_all dump
# too: the export runs on two threads, so its CPU time exceeds its wall
# time, and on a shared machine CPU time is the steadier figure.
# The export and the dumps run REPEAT times in turn (BENCH_EXPORT_REPEAT;
# 3 for the goal, 1 otherwise), the best of each the figure: on a shared
# machine the best is the steadiest.
# Prints figures; never fails on time.
set -u
: "${HELPERS:?run under meson test}" "${MSPROF:?}"
if [ -n "${BENCH_EXPORT_GOAL:-}" ]; then
	[ -n "${BENCH_SHORT:-}" ] && size=100000 || size=2000000
	SIZES=${BENCH_EXPORT_EVENTS:-$size}
	TASKS=${BENCH_EXPORT_TASKS:-0}
	[ -n "${BENCH_SHORT:-}" ] && REPEAT=${BENCH_EXPORT_REPEAT:-1} || REPEAT=${BENCH_EXPORT_REPEAT:-3}
else
	SIZES=${BENCH_EXPORT_EVENTS:-1000000}
	TASKS=${BENCH_EXPORT_TASKS:-1000000}
	REPEAT=${BENCH_EXPORT_REPEAT:-1}
fi
case $REPEAT in '' | *[!0-9]* | 0) echo "FAIL: BENCH_EXPORT_REPEAT='$REPEAT' is not a count of runs"; exit 1 ;; esac
case $TASKS in '' | *[!0-9]*) echo "FAIL: BENCH_EXPORT_TASKS='$TASKS' is not a number of tasks"; exit 1 ;; esac
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: sqlite3 is needed for the reference"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) is needed for peak memory"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-export.XXXXXX")
trap 'rm -rf "$W"' EXIT

# run LABEL cmd...: sets SEC (wall), CPU (user + system, every thread) and KB
run() {
	local label=$1 user sys; shift
	sync # what the previous step wrote is not written back during this one
	/usr/bin/time -f "%e %M %U %S" -o "$W/time" "$@" >"$W/$label.log" 2>&1 || { echo "FAIL: $label"; cat "$W/$label.log"; exit 1; }
	read -r SEC KB user sys <"$W/time"
	CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
# best SEC CPU: keeps the run with the least wall time of a repeat in B_SEC/B_CPU
best() { if [ -z "$B_SEC" ] || awk -v a="$1" -v b="$B_SEC" 'BEGIN { exit !(a < b) }'; then B_SEC=$1 B_CPU=$2; fi; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }
ratio() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? e / s : 0) }'; }

TX_SQL="SELECT m.globalTid, m.category, m.eventType, m.startNs, m.endNs, s.value, d.value
	FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId
	ORDER BY m.startNs, m.rowid;"
TASK_SQL="SELECT t.deviceId, n.value, tt.value, t.streamId, t.taskId, t.endNs - t.startNs, t.startNs, t.endNs
	FROM TASK t JOIN STRING_IDS tt ON tt.id = t.taskType LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId
	LEFT JOIN STRING_IDS n ON n.id = c.name ORDER BY t.startNs;"

echo "each size: EVENTS mstx events + $TASKS device tasks (and as many runtime calls)"
printf '%-10s %8s %9s %12s %8s %9s %12s %9s %11s %11s %6s %6s %10s %10s %6s\n' events tasks parse_s records/s \
	parse_MB export_s events/s export_MB sqlite3_tx sqlite3_all r_tx r_all export_cpu sqlite3_cpu r_cpu
for n in $SIZES; do
	P=$W/$n/PROF_000001_20260101000000000_00004242AAAAAAAA
	mkdir -p "$W/$n"
	"$HELPERS/gen-raw" --tasks "$TASKS" "$P" "$n" 100 >/dev/null || { echo "FAIL: gen-raw $n"; exit 1; }
	records=$((n + 3 + 2 * TASKS)) # the process, thread and counters records besides the events, calls and tasks
	run parse "$MSPROF" --parse=on --output="$P"
	ps=$SEC pk=$KB
	db=$(ls "$P"/msprof_*.db)
	es='' ec='' ek=0 ts='' tc='' as='' ac=''
	for _ in $(seq "$REPEAT"); do
		run export "$MSPROF" --export=on --output="$P"
		B_SEC=$es B_CPU=$ec; best "$SEC" "$CPU"; es=$B_SEC ec=$B_CPU
		[ "$KB" -gt "$ek" ] && ek=$KB
		run sqlite3 sqlite3 -csv "$db" "$TX_SQL"
		B_SEC=$ts B_CPU=$tc; best "$SEC" "$CPU"; ts=$B_SEC tc=$B_CPU
		if [ "$TASKS" -gt 0 ]; then
			run sqlite3 sqlite3 -csv "$db" "$TX_SQL $TASK_SQL"
			B_SEC=$as B_CPU=$ac; best "$SEC" "$CPU"; as=$B_SEC ac=$B_CPU
		fi
	done
	[ "$TASKS" -gt 0 ] || as=$ts ac=$tc
	# the export's last stage, report.html, alone: its share of export_s
	run report "$MSPROF" export report -dir "$P"
	REPORTS="${REPORTS:-}report.html alone, $n events + $TASKS tasks: $SEC s wall, $CPU s CPU, $(stat -c %s "$P/mindstudio_profiler_output/report.html") bytes
"
	printf '%-10s %8s %9s %12s %8s %9s %12s %9s %11s %11s %6s %6s %10s %10s %6s\n' "$n" "$TASKS" "$ps" \
		"$(rate $records "$ps")" $((pk / 1024)) "$es" "$(rate $((n + 2 * TASKS)) "$es")" $((ek / 1024)) "$ts" "$as" \
		"$(ratio "$es" "$ts")" "$(ratio "$es" "$as")" "$ec" "$ac" "$(ratio "$ec" "$ac")"
	# issue 14's figure: against the dump of the rows the CSVs hold
	[ "$TASKS" -gt 0 ] && what="$n events + $TASKS tasks" || what="$n events"
	GOALS="${GOALS:-}goal: export ÷ sqlite3 -csv dump, $what | $es s | $as s (sqlite3 -csv) | $(ratio "$es" "$as")× | ≤ 0.8×
"
	rm -rf "${W:?}/$n"
done
echo "export_s, sqlite3_*: wall seconds, the best of $REPEAT run(s) each, in turn; export_MB: the most of them"
echo "records/s: raw records (mstx events, runtime calls, tasks) parsed per second"
echo "events/s: mstx events + runtime calls + tasks exported per second"
echo "r_tx: export time / sqlite3 dump of the mstx events alone (the export also writes the tasks, calls and timelines)"
echo "r_all: export time / sqlite3 dump of the mstx events and the tasks: the rows the export's CSVs hold (it also writes two timelines)"
echo "export_cpu, sqlite3_cpu: user + system seconds of the export (all of its threads) and of the sqlite3_all dump;"
echo "r_cpu: their ratio (on a machine shared with other work the CPU times vary less than the wall times)"
printf '%s' "${REPORTS:-}"
printf '%s' "${GOALS:-}"
