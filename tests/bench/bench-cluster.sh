# msprof export cluster on a generated distributed job: RANKS PROF dirs
# (default 64) of STEPS steps each (default 10,000), against the sqlite3
# command line tool reading the same rows in the same run.
#
#   BENCH_CLUSTER_RANKS=64 BENCH_CLUSTER_STEPS=10000 meson test -C build --benchmark export-cluster -v
#
# The set: tests/helpers/gen-raw writes one rank's raw files (STEPS "step
# N" ranges, each holding one mark), msprof parses them once into
# msprof_{ts}.db, and each rank dir gets a copy of that database and of its
# host/ files with its own rank_id, its steps made longer by a different
# 0-999 µs each (so every step has its own slowest and fastest rank).  A
# copy with no raw data beside it is what the cluster export reads as it
# is: the figure is the merge itself (timeline, step table, database), not
# the parse of each rank, which `BENCH_EXPORT_EVENTS` of the export
# benchmark measures.
# References, one sqlite3 run over every rank's database each:
#   sqlite3_steps  every STEP row (what the step table is made of)
#   sqlite3_all    every STEP row and every MSTX_EVENTS row joined with its
#                  strings (what the step table and the timeline are made of)
# Prints figures; never fails on time.
set -u
: "${HELPERS:?run under meson test}" "${MSPROF:?}"
RANKS=${BENCH_CLUSTER_RANKS:-64}
STEPS=${BENCH_CLUSTER_STEPS:-10000}
for v in "$RANKS" "$STEPS"; do
	case $v in '' | *[!0-9]* | 0) echo "FAIL: BENCH_CLUSTER_RANKS/STEPS: '$v' is not a positive number"; exit 1 ;; esac
done
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: sqlite3 is needed for the reference"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) is needed for peak memory"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-cluster.XXXXXX")
trap 'rm -rf "$W"' EXIT
export MSPROF_RUNTIME_DIR=$W/run

# run LABEL cmd...: sets SEC (wall), CPU (user + system) and KB (peak RSS)
run() {
	local label=$1 user sys; shift
	sync
	/usr/bin/time -f "%e %M %U %S" -o "$W/time" "$@" >"$W/$label.log" 2>&1 || {
		[ "$label" = cluster ] || { echo "FAIL: $label"; cat "$W/$label.log"; exit 1; }
	}
	read -r SEC KB user sys <"$W/time"
	CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
ratio() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? e / s : 0) }'; }

start=$(date +%s.%N)
SEED=$W/seed/PROF_000001_20260101000000000_00004242AAAAAAAA
mkdir -p "$W/seed" "$W/job"
"$HELPERS/gen-raw" "$SEED" $((2 * STEPS)) "$STEPS" >/dev/null || { echo "FAIL: gen-raw"; exit 1; }
"$MSPROF" --parse=on --output="$SEED" >"$W/parse.log" 2>&1 || { echo "FAIL: parse"; cat "$W/parse.log"; exit 1; }
DB=$(ls "$SEED"/msprof_*.db)
# one sqlite3 for every rank's update (RANKS starts of it would cost more than the updates)
for ((r = 0; r < RANKS; r++)); do
	P=$(printf '%s/PROF_%06d_20260101000000000_%08dAAAAAAAA' "$W/job" $((r + 1)) $((4242 + r)))
	mkdir -p "$P/host"
	cp "$SEED"/host/{sample.json,start_info,end_info} "$P/host/"
	sed "s/\"rank_id\":-1/\"rank_id\":$r/" "$SEED/host/info.json" >"$P/host/info.json"
	cp "$DB" "$P/"
	echo "$P/$(basename "$DB")" >>"$W/dbs"
	printf "ATTACH '%s' AS r; UPDATE r.STEP SET endNs = endNs + ((stepId * 7919 + %d * 104729) %% 1000) * 1000; DETACH r;\n" \
		"$P/$(basename "$DB")" "$r"
done | sqlite3 :memory: || { echo "FAIL: sqlite3 update"; exit 1; }
gen=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

# the references: every rank's rows, read by one sqlite3
STEP_SQL="SELECT stepId, startNs, endNs, pid, tid FROM r.STEP;"
ALL_SQL="$STEP_SQL SELECT m.globalTid, m.eventType, m.startNs, m.endNs, s.value, d.value FROM r.MSTX_EVENTS m
	JOIN r.STRING_IDS s ON s.id = m.message JOIN r.STRING_IDS d ON d.id = m.domainId ORDER BY m.startNs;"
refs() { while read -r d; do printf "ATTACH '%s' AS r;\n%s\nDETACH r;\n" "$d" "$1"; done <"$W/dbs"; }
refs "$STEP_SQL" >"$W/steps.sql"
refs "$ALL_SQL" >"$W/all.sql"

run cluster "$MSPROF" export cluster -dir "$W/job"
cs=$SEC ck=$KB cc=$CPU
grep -q "Merged $RANKS of $RANKS" "$W/cluster.log" || { echo "FAIL: export cluster"; cat "$W/cluster.log"; exit 1; }
run sqlite3_steps sh -c "sqlite3 -csv :memory: <'$W/steps.sql' >/dev/null"
ss=$SEC
run sqlite3_all sh -c "sqlite3 -csv :memory: <'$W/all.sql' >/dev/null"
as=$SEC ac=$CPU
C=$W/job/msprof_cluster_output
rows=$(($(wc -l <"$(ls "$C"/cluster_step_trace_*.csv)") - 1))
events=$(sed -n 's/.*: \([0-9]*\) timeline events.*/\1/p' "$W/cluster.log")
mb=$(du -m "$(ls "$C"/msprof_cluster_*.json)" | cut -f1)

echo "set: $RANKS ranks x $STEPS steps (generated in ${gen} s): $rows step rows, $events timeline events (${mb} MB)"
printf '%6s %7s %10s %10s %10s %11s %13s %11s %8s %8s %11s %11s %6s\n' ranks steps cluster_s cluster_MB \
	rows/s events/s sqlite3_steps sqlite3_all r_steps r_all cluster_cpu sqlite3_cpu r_cpu
printf '%6s %7s %10s %10s %10s %11s %13s %11s %8s %8s %11s %11s %6s\n' "$RANKS" "$STEPS" "$cs" $((ck / 1024)) \
	"$(awk -v n="$rows" -v s="$cs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')" \
	"$(awk -v n="$events" -v s="$cs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')" \
	"$ss" "$as" "$(ratio "$cs" "$ss")" "$(ratio "$cs" "$as")" "$cc" "$ac" "$(ratio "$cc" "$ac")"
echo "r_steps: export cluster time / sqlite3 reading every rank's STEP rows (the step table's input)"
echo "r_all: export cluster time / sqlite3 reading the STEP rows and the MSTX_EVENTS rows with their strings"
echo "  (the timeline's and the step table's input; the export also writes the JSON, two CSVs and a database)"
echo "cluster_MB: peak resident memory of msprof export cluster"
