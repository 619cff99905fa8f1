# Export of synthetic agent data (tests/helpers/gen-raw, real raw files):
# msprof_tx CSV slicing at exactly 999,999 / 1,000,000 / 1,000,001 rows,
# stale pieces removed, timeline pieces that each parse and carry the
# metadata, iteration selection against the generator's step table, JSON
# summaries that parse with the right rows, a torn tail and a damaged
# record (every whole record taken, the rest reported), and an export
# killed midway leaves no file under a final name.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the JSON outputs"
GEN=$HELPERS/gen-raw
[ -x "$GEN" ] || t_skip "gen-raw was not built"
eq() { if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1: got '$2', want '$3'"; fi; }

# gen NAME EVENTS STEPS: a PROF dir under $T_WORK/NAME; sets P, keeps steps in $P.steps
gen() {
	mkdir -p "$T_WORK/$1"
	P=$T_WORK/$1/PROF_000001_20260101000000000_00004242AAAAAAAA
	"$GEN" "$P" "$2" "$3" >"$P.steps" || t_fail "gen-raw $2 $3"
}
OUT() { echo "$P/mindstudio_profiler_output"; }
# data rows of the msprof_tx CSV pieces, "name:rows" in name order, ts dropped
tx_pieces() {
	local f
	for f in "$(OUT)"/msprof_tx*.csv; do
		[ -e "$f" ] || continue
		printf '%s:%s\n' "$(basename "$f" | sed 's/_[0-9]\{14\}\.csv$//')" "$(($(wc -l <"$f") - 1))"
	done | sort | tr '\n' ' '
}
summary() { "$MSPROF" export summary -dir "$P" "$@" >"$T_WORK/log" 2>&1 || { t_fail "export summary $*"; cat "$T_WORK/log" >&2; }; }

# --- slicing at the boundary ----------------------------------------------------------
gen b1 999999 1
summary
eq "999,999 rows: one file" "$(tx_pieces)" "msprof_tx:999999 "
gen b2 1000000 1
summary
eq "1,000,000 rows: still one file" "$(tx_pieces)" "msprof_tx:1000000 "
gen b3 1000001 2
summary
eq "1,000,001 rows: two slices of 1,000,000 and 1" "$(tx_pieces)" "msprof_tx_slice_0:1000000 msprof_tx_slice_1:1 "
eq "every piece has the header" "$(head -qn1 "$(OUT)"/msprof_tx_slice_*.csv | sort -u | wc -l)" 1
# the same dir again with one step (500,000 rows): the slices go, in the same second too
"$MSPROF" export summary -dir "$P" --model-id 4294967295 --iteration-id 1 >/dev/null 2>&1
eq "a smaller export replaces the slices" "$(tx_pieces)" "msprof_tx:$(awk '$2 == 1 { print $3 }' "$P.steps") "

# --- a progress line on a terminal, none on a pipe ------------------------------------------
if [ -x "$HELPERS/pty-run" ]; then
	# stdin a fifo held open here: nothing is typed and no EOF either
	mkfifo "$T_WORK/in"
	exec 8<>"$T_WORK/in"
	# raw data newer than the database: parse and export, well over a
	# second for 1,000,001 events (the export alone may take less)
	touch "$P"/host/data/*
	"$HELPERS/pty-run" -t 300 -- "$MSPROF" --export=on --output="$P" <"$T_WORK/in" >"$T_WORK/tty.log" 2>&1
	exec 8>&-
	t_grep "a terminal gets the progress line (after a second)" \
		"$(printf '\r\033[K[INFO] %s: ' "$(basename "$P")")" "$T_WORK/tty.log"
	"$MSPROF" --export=on --output="$P" >"$T_WORK/pipe.log" 2>&1
	eq "a pipe gets none" "$(grep -c "$(printf '\r')" "$T_WORK/pipe.log")" 0
fi

# --- iteration selection against the generator's steps ---------------------------------
gen it 4000 4
"$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id=3 >"$T_WORK/log" 2>&1 ||
	{ t_fail "export --iteration-id=3"; cat "$T_WORK/log" >&2; }
eq "step 3: exactly its events" "$(tx_pieces)" "msprof_tx:$(awk '$2 == 3 { print $3 }' "$P.steps") "
eq "step 3: step_trace has step 3 alone" \
	"$(tail -n +2 "$(OUT)"/step_trace_*.csv | cut -d, -f2 | tr '\n' ' ')" "3 "
first=$(awk '$2 == 3 { print $4 }' "$P.steps"); last=$(awk '$2 == 3 { print $5 }' "$P.steps")
eq "step 3: every event inside it" "$(python3 - "$(OUT)" "$first" "$last" <<'PY'
import glob, json, sys
out, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ev = [e for f in glob.glob(out + '/msprof_2*.json') for e in json.load(open(f)) if e['ph'] == 'X']
ts = [int(e['ts'].replace('.', '')) for e in ev]
print(len(ev), all(lo <= t <= hi for t in ts))
PY
)" "1000 True"
"$MSPROF" export summary -dir "$P" --model-id 4294967295 --iteration-id 2 --iteration-count 2 >/dev/null 2>&1
eq "--iteration-count 2 from step 2: steps 2 and 3" "$(tx_pieces)" \
	"msprof_tx:$(awk '$2 == 2 || $2 == 3 { n += $3 } END { print n }' "$P.steps") "
t_expect_rc 1 "an iteration that is not there" "$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id=9
t_grep "it says which steps there are" "its steps are 1 to 4" <("$MSPROF" --export=on --output="$P" \
	--model-id=4294967295 --iteration-id=9 2>&1)

# --- JSON summaries ----------------------------------------------------------------------
"$MSPROF" --export=on --output="$P" --summary-format=json >/dev/null 2>&1 || t_fail "--summary-format=json"
eq "JSON summaries parse, one object per row, keyed by the header" "$(python3 - "$(OUT)" <<'PY'
import glob, json, sys
out = sys.argv[1]
tx = json.load(open(glob.glob(out + '/msprof_tx_2*.json')[0]))
st = json.load(open(glob.glob(out + '/step_trace_2*.json')[0]))
print(len(tx), sorted(tx[0])[:3], tx[0]['Device_id'], type(tx[0]['pid']).__name__,
      type(tx[0]['Start_time(us)']).__name__, len(st), st[0]['Iteration ID'], st[0]['Model ID'])
PY
)" "4000 ['Device End_time(us)', 'Device Start_time(us)', 'Device_id'] host int str 4 1 4294967295"
eq "no CSV of an older export left beside them" "$(ls "$(OUT)" | grep -c '\.csv$')" 0

# --- timeline pieces -----------------------------------------------------------------------
gen tl 100000 2
MSPROF_SLICE_MB=4 "$MSPROF" export timeline -dir "$P" >/dev/null 2>&1 || t_fail "export timeline"
eq "the timeline in pieces, each a JSON array with all metadata, no event lost" "$(python3 - "$(OUT)" <<'PY'
import glob, json, sys
fs = sorted(glob.glob(sys.argv[1] + '/msprof_slice_*.json'))
ok, x = True, 0
for f in fs:
    a = json.load(open(f))
    ok = ok and isinstance(a, list) and sum(e['ph'] == 'M' for e in a) == 5
    x += sum(e['ph'] == 'X' for e in a)
print(len(fs) > 1, ok, x, len(glob.glob(sys.argv[1] + '/msprof_2*.json')))
PY
)" "True True 100000 0"

# --- damaged raw data ----------------------------------------------------------------------------
gen torn 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
truncate -s -20 "$RAW"   # into the last record (the agent's counters)
"$MSPROF" --export=on --output="$P" >"$T_WORK/log" 2>&1
eq "torn tail: exit 0" "$?" 0
t_grep "torn tail: reported" "ends with an incomplete record" "$T_WORK/log"
eq "torn tail: every event kept" "$(tx_pieces)" "msprof_tx:1000 "
gen bad 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
# the first mark's payload starts at 263 (64 header + process 74 + thread 35
# + step range 74 + its 16-byte frame); one flipped byte fails its CRC
printf 'Z' | dd of="$RAW" bs=1 seek=273 conv=notrunc 2>/dev/null
"$MSPROF" --export=on --output="$P" >"$T_WORK/log" 2>&1
eq "damaged record: exit 0" "$?" 0
t_grep "damaged record: reported" "is damaged: 1 record(s)" "$T_WORK/log"
eq "damaged record: the others kept" "$(tx_pieces)" "msprof_tx:999 "
gen garbage 10 1
head -c 5000 /dev/urandom >"$P/host/data/agent_4242.data.slice_0"
t_expect_rc 0 "a raw file that is not one: the export goes on" "$MSPROF" --export=on --output="$P"

# --- an interrupted export ---------------------------------------------------------------------
gen kill 600000 1
"$MSPROF" --export=on --output="$P" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
bad=$(python3 - "$P" <<'PY'
import glob, json, os, sqlite3, sys
bad = []
for f in glob.glob(sys.argv[1] + '/mindstudio_profiler_output/*.json'):
    try: json.load(open(f))
    except Exception: bad.append(os.path.basename(f))
for f in glob.glob(sys.argv[1] + '/msprof_*.db'):
    try: sqlite3.connect(f).execute('SELECT COUNT(*) FROM STRING_IDS').fetchall()
    except Exception: bad.append(os.path.basename(f))
print(' '.join(bad))
PY
)
eq "killed midway: no file under a final name is incomplete" "$bad" ""
"$MSPROF" --export=on --output="$P" >/dev/null 2>&1 || t_fail "export after the kill"
eq "export after the kill: complete" "$(tx_pieces)" "msprof_tx:600000 "
t_done
