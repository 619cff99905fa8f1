# Parse (raw agent files -> msprof_{ts}.db) against the C insert floor
# (parse-floor.c): a C program that writes the very rows the parse wrote
# (every table of its database, same columns, same rows, same indexes) into
# an empty database with prepared statements in one transaction, indexes
# after the load, the parse's pragmas; the rows are in its memory before
# its clock starts.  The parse's time is msprof --parse=on's wall time, the
# raw files' reading and decoding included.
#
#   BENCH_PARSE_EVENTS="1000000" meson test -C build --benchmark parse -v
#
# The data: tests/helpers/gen-raw --ranges, EVENTS mstx events of one
# process in 100 "step N" ranges, a third of them marks, a third push/pop
# ranges, a third start/end ranges (a quarter of those ended on another
# thread, the end first in the file).  Each size is run REPEAT times (3),
# parse then floor in turn, and the best of each is the figure (on a shared
# machine the best is the steadiest).  BENCH_SHORT=1: 50,000 events, once.
# Prints figures and the issue-14 goal line; never fails on time.
set -u
: "${HELPERS:?run under meson test}" "${MSPROF:?}" "${PARSE_FLOOR:?}"
if [ -n "${BENCH_SHORT:-}" ]; then
	SIZES=${BENCH_PARSE_EVENTS:-50000} REPEAT=${BENCH_PARSE_REPEAT:-1}
else
	SIZES=${BENCH_PARSE_EVENTS:-1000000} REPEAT=${BENCH_PARSE_REPEAT:-3}
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-parse.XXXXXX")
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
ratio() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? e / s : 0) }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

printf '%-10s %7s %9s %9s %12s %9s %6s\n' events rows parse_s floor_s parse_ev/s db_MB ratio
for n in $SIZES; do
	P=$W/$n/PROF_000001_20260101000000000_00004242AAAAAAAA
	mkdir -p "$W/$n"
	"$HELPERS/gen-raw" --ranges "$P" "$n" 100 >/dev/null || { echo "FAIL: gen-raw $n"; exit 1; }
	best_p='' best_f='' rows=0
	for _ in $(seq "$REPEAT"); do
		rm -f "$P"/msprof_*.db "$W/floor.db"
		sync # the previous step's writes are not written back during this one
		t0=$(now)
		"$MSPROF" --parse=on --output="$P" >"$W/parse.log" 2>&1 || { echo "FAIL: parse"; cat "$W/parse.log"; exit 1; }
		t1=$(now)
		best_p=$(min "$(sub "$t1" "$t0")" "$best_p")
		db=$(ls "$P"/msprof_*.db)
		sync
		read -r _ secs rows < <("$PARSE_FLOOR" "$db" "$W/floor.db") || { echo "FAIL: parse-floor"; exit 1; }
		[ -n "$secs" ] || { echo "FAIL: parse-floor printed nothing"; exit 1; }
		best_f=$(min "$secs" "$best_f")
	done
	mb=$(($(stat -c %s "$db") / 1048576))
	r=$(ratio "$best_p" "$best_f")
	printf '%-10s %7s %9s %9s %12s %9s %6s\n' "$n" "$rows" "$best_p" "$best_f" "$(rate "$n" "$best_p")" "$mb" "$r"
	GOALS="${GOALS:-}goal: parse ÷ C insert floor, $n events | $best_p s | $best_f s (C insert) | $r× | ≤ 1.3×
"
	rm -rf "${W:?}/$n" "$W/floor.db"
done
echo "parse_s, floor_s: the best of $REPEAT runs each; rows: every row of the database, which both write"
printf '%s' "${GOALS:-}"
