# Export throughput and memory on synthetic agent data (tests/helpers/gen-raw:
# real raw files, mstx marks inside "step N" ranges), against the time the
# sqlite3 command line tool takes to dump the same events to CSV.
#
#   BENCH_EXPORT_EVENTS="1000000 10000000" meson test -C build --benchmark export -v
#
# For each size: parse (raw -> msprof_{ts}.db, records/s), export (db ->
# msprof and msprof_tx timelines, msprof_tx and step_trace CSVs, events/s),
# the peak resident memory of each (GNU time), and the reference: sqlite3
# -csv dumping MSTX_EVENTS joined with its strings in start order, what the
# msprof_tx CSV holds.  Prints figures; never fails on time.
#
# Device tasks (1M TASK rows) are to be added here once the GPU collector's
# raw records and TASK export exist: generate them in gen-raw next to the
# mstx events and time the same steps.
set -u
: "${HELPERS:?run under meson test}" "${MSPROF:?}"
SIZES=${BENCH_EXPORT_EVENTS:-1000000}
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: sqlite3 is needed for the reference"; exit 77; }
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) is needed for peak memory"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-export.XXXXXX")
trap 'rm -rf "$W"' EXIT

# run LABEL cmd...: sets SEC and KB
run() {
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$W/time" "$@" >"$W/$label.log" 2>&1 || { echo "FAIL: $label"; cat "$W/$label.log"; exit 1; }
	read -r SEC KB <"$W/time"
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

printf '%-10s %10s %12s %9s %10s %12s %9s %10s %8s\n' events parse_s records/s parse_MB export_s events/s export_MB sqlite3_s ratio
for n in $SIZES; do
	P=$W/$n/PROF_000001_20260101000000000_00004242AAAAAAAA
	mkdir -p "$W/$n"
	"$HELPERS/gen-raw" "$P" "$n" 100 >/dev/null || { echo "FAIL: gen-raw $n"; exit 1; }
	records=$((n + 3)) # the process, thread and counters records besides the events
	run parse "$MSPROF" --parse=on --output="$P"
	ps=$SEC pk=$KB
	run export "$MSPROF" --export=on --output="$P"
	es=$SEC ek=$KB
	db=$(ls "$P"/msprof_*.db)
	run sqlite3 sqlite3 -csv "$db" "SELECT m.globalTid, m.category, m.eventType, m.startNs, m.endNs, s.value, d.value
		FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId
		ORDER BY m.startNs, m.rowid"
	ss=$SEC
	printf '%-10s %10s %12s %9s %10s %12s %9s %10s %8s\n' "$n" "$ps" "$(rate $records "$ps")" $((pk / 1024)) \
		"$es" "$(rate "$n" "$es")" $((ek / 1024)) "$ss" "$(awk -v e="$es" -v s="$ss" 'BEGIN { printf "%.2f", (s > 0 ? e / s : 0) }')"
	rm -rf "${W:?}/$n"
done
echo "ratio: export time / sqlite3 dump time (the export writes two timelines and two CSVs, the dump one CSV)"
