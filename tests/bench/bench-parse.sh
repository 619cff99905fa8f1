# Parse (raw agent files -> msprof_{ts}.db) against the C insert floor
# (parse-floor.c): a C program that writes the very rows the parse wrote
# (every table of its database, same columns, same rows, same indexes) into
# an empty database with prepared statements in one transaction, indexes
# after the load, the parse's pragmas; the rows are in its memory before
# its clock starts.  The parse's time is msprof --parse=on's wall time, the
# raw files' reading and decoding included.  The floor is the issue's: one
# row per INSERT.  The parse puts the rows of its large tables 16 to an
# INSERT (export/sql.h's exp_batch), which halves what the inserts
# cost; the floor with 16-row INSERTs (floor16_s: every table so, the
# parse's small ones and STRING_IDS included) is shown beside it, for about
# what the parse's own work (reading, decoding, matching) still adds.
#
#   BENCH_PARSE_EVENTS="1000000" meson test -C build --benchmark parse -v
#
# The data: tests/helpers/gen-raw --ranges, EVENTS mstx events of one
# process in 100 "step N" ranges, a third of them marks, a third push/pop
# ranges, a third start/end ranges (a quarter of those ended on another
# thread, the end first in the file).  Each size is run REPEAT times (3),
# parse then floor in turn, and the best of each is the figure (on a shared
# machine the best is the steadiest); the CPU times (user + system) of both
# too, which vary less than wall times on a loaded machine.  BENCH_SHORT=1:
# 50,000 events, once.  Prints figures and the issue-14 goal line (wall
# times); never fails on time.
set -u
: "${HELPERS:?run under meson test}" "${MSPROF:?}" "${PARSE_FLOOR:?}"
[ -x /usr/bin/time ] || { echo "SKIP: GNU time (/usr/bin/time) is needed for the CPU time"; exit 77; }
if [ -n "${BENCH_SHORT:-}" ]; then
	SIZES=${BENCH_PARSE_EVENTS:-50000} REPEAT=${BENCH_PARSE_REPEAT:-1}
else
	SIZES=${BENCH_PARSE_EVENTS:-1000000} REPEAT=${BENCH_PARSE_REPEAT:-3}
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-parse.XXXXXX")
trap 'rm -rf "$W"' EXIT

add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }
ratio() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? e / s : 0) }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'; }

printf '%-10s %8s %8s %8s %6s %10s %10s %6s %10s %6s %11s %6s\n' events rows parse_s floor_s ratio parse_cpu floor_cpu r_cpu \
	floor16_s r16 parse_ev/s db_MB
for n in $SIZES; do
	P=$W/$n/PROF_000001_20260101000000000_00004242AAAAAAAA
	mkdir -p "$W/$n"
	"$HELPERS/gen-raw" --ranges "$P" "$n" 100 >/dev/null || { echo "FAIL: gen-raw $n"; exit 1; }
	best_p='' best_f='' best_16='' cpu_p='' cpu_f='' rows=0
	for _ in $(seq "$REPEAT"); do
		rm -f "$P"/msprof_*.db "$W/floor.db"
		sync # the previous step's writes are not written back during this one
		/usr/bin/time -f "%e %U %S" -o "$W/time" "$MSPROF" --parse=on --output="$P" >"$W/parse.log" 2>&1 ||
			{ echo "FAIL: parse"; cat "$W/parse.log"; exit 1; }
		read -r secs user sys <"$W/time"
		best_p=$(min "$secs" "$best_p")
		cpu_p=$(min "$(add "$user" "$sys")" "$cpu_p")
		db=$(ls "$P"/msprof_*.db)
		sync
		read -r _ secs rows cpu < <("$PARSE_FLOOR" "$db" "$W/floor.db") || { echo "FAIL: parse-floor"; exit 1; }
		[ -n "$cpu" ] || { echo "FAIL: parse-floor printed nothing"; exit 1; }
		best_f=$(min "$secs" "$best_f")
		cpu_f=$(min "$cpu" "$cpu_f")
		rm -f "$W/floor.db"
		sync
		read -r _ secs _ _ < <("$PARSE_FLOOR" "$db" "$W/floor.db" 16) || { echo "FAIL: parse-floor 16"; exit 1; }
		best_16=$(min "$secs" "$best_16")
	done
	mb=$(($(stat -c %s "$db") / 1048576))
	r=$(ratio "$best_p" "$best_f")
	printf '%-10s %8s %8s %8s %6s %10s %10s %6s %10s %6s %11s %6s\n' "$n" "$rows" "$best_p" "$best_f" "$r" "$cpu_p" \
		"$cpu_f" "$(ratio "$cpu_p" "$cpu_f")" "$best_16" "$(ratio "$best_p" "$best_16")" "$(rate "$n" "$best_p")" "$mb"
	GOALS="${GOALS:-}goal: parse ÷ C insert floor, $n events | $best_p s | $best_f s (C insert; $best_16 s 16 rows an INSERT) | $r× | ≤ 1.3×
"
	rm -rf "${W:?}/$n" "$W/floor.db"
done
echo "parse_s, floor_s: wall seconds, the best of $REPEAT runs each; parse_cpu, floor_cpu: user + system seconds, the best"
echo "of each; rows: every row of the database, which both write; ratio, r_cpu: parse / floor"
echo "floor16_s: the floor with 16 rows an INSERT, as the parse inserts its large tables; r16: parse / floor16"
printf '%s' "${GOALS:-}"
