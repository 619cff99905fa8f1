# Export of synthetic agent data (tests/helpers/gen-raw, real raw files):
# msprof_tx CSV slicing at exactly the row limit less one, the limit and
# one more (the limit set to 1,000 with MSPROF_EXPORT_CSV_LIMIT, so that
# crossing it takes 1,001 rows rather than msprof's 1,000,001; a value that
# is no limit fails the export), stale pieces removed, timeline pieces that
# each parse and carry the metadata, iteration selection against the
# generator's step table, JSON summaries that parse with the right rows, a
# torn tail and a damaged record (every whole record taken, the rest
# reported), and an export killed midway leaves no file under a final
# name.  The same for device tasks (gen-raw --tasks): task_time slicing
# past the limit, iteration selection of tasks against the generator's
# per-step counts and kernel time, a damaged and a torn task record.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the JSON outputs"
GEN=$HELPERS/gen-raw
[ -x "$GEN" ] || t_skip "gen-raw was not built"

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
# rows per summary file in this test's exports that slice (msprof's 1,000,000
# works the same way; export/exp.h EXPORT_CSV_LIMIT)
L=1000
gen b1 $((L - 1)) 1
MSPROF_EXPORT_CSV_LIMIT=$L summary
t_eq "$((L - 1)) rows: one file" "$(tx_pieces)" "msprof_tx:$((L - 1)) "
gen b2 $L 1
MSPROF_EXPORT_CSV_LIMIT=$L summary
t_eq "$L rows: still one file" "$(tx_pieces)" "msprof_tx:$L "
gen b3 $((L + 1)) 2
MSPROF_EXPORT_CSV_LIMIT=$L summary
t_eq "$((L + 1)) rows: two slices of $L and 1" "$(tx_pieces)" "msprof_tx_slice_0:$L msprof_tx_slice_1:1 "
t_eq "every piece has the header" "$(head -qn1 "$(OUT)"/msprof_tx_slice_*.csv | sort -u | wc -l)" 1
# the same dir again with one step ($((L / 2)) rows): the slices go, in the same second too
MSPROF_EXPORT_CSV_LIMIT=$L "$MSPROF" export summary -dir "$P" --model-id 4294967295 --iteration-id 1 >/dev/null 2>&1
t_eq "a smaller export replaces the slices" "$(tx_pieces)" "msprof_tx:$(awk '$2 == 1 { print $3 }' "$P.steps") "
# the default limit: the same rows in one file
summary
t_eq "$((L + 1)) rows under msprof's limit: one file" "$(tx_pieces)" "msprof_tx:$((L + 1)) "
for bad in 0 -1 12x 1000001; do
	MSPROF_EXPORT_CSV_LIMIT=$bad "$MSPROF" export summary -dir "$P" >"$T_WORK/log" 2>&1
	t_eq "MSPROF_EXPORT_CSV_LIMIT='$bad': the export fails" "$?" 1
	t_grep "MSPROF_EXPORT_CSV_LIMIT='$bad': it says why" "MSPROF_EXPORT_CSV_LIMIT '$bad' is not a number of rows" \
		"$T_WORK/log"
done

# --- a progress line on a terminal, none on a pipe ------------------------------------------
if [ -x "$HELPERS/pty-run" ]; then
	# stdin a fifo held open here: nothing is typed and no EOF either
	mkfifo "$T_WORK/in"
	exec 8<>"$T_WORK/in"
	# an export that lasts over two seconds, whatever the machine: it waits
	# 2.5 s for the dir's lock (flock(1) holding it stands in for another
	# export), and reports progress all along, as it does while it parses
	held() {
		rm -f "$T_WORK/held"
		flock "$P" sh -c "touch '$T_WORK/held'; sleep 2.5" &
		holder=$!
		t_until 5 test -e "$T_WORK/held"
	}
	held
	"$HELPERS/pty-run" -t 300 -- "$MSPROF" --export=on --output="$P" <"$T_WORK/in" >"$T_WORK/tty.log" 2>&1
	wait "$holder"
	exec 8>&-
	t_grep "a terminal gets the progress line (after two seconds)" \
		"$(printf '\r\033[K[INFO] %s: ' "$(basename "$P")")" "$T_WORK/tty.log"
	held
	"$MSPROF" --export=on --output="$P" >"$T_WORK/pipe.log" 2>&1
	wait "$holder"
	t_eq "a pipe gets none" "$(grep -c "$(printf '\r')" "$T_WORK/pipe.log")" 0
	# a 2M-event export: the parse's percent and rate, the later stages' rate.
	# In the plain build only: its subject is the progress line of a long
	# export (the parse of damaged and sliced data below runs under ASan),
	# and under ASan the two exports of 2M events took 50 s.
	if [ -n "$T_ASAN_LIB" ]; then
		echo "# sanitized build: the 2M-event export's progress lines are checked in the plain build"
	else
		gen big 2000000 20
		exec 8<>"$T_WORK/in"
		# the parse of 2M events may take less than the 2 s before the line
		MSPROF_TEST_PROGRESS_AFTER_S=0.2 "$HELPERS/pty-run" -t 300 -- "$MSPROF" --export=on --output="$P" \
			<"$T_WORK/in" >"$T_WORK/tty.log" 2>&1
		exec 8>&-
		t_grep "2M events on a terminal: stage, percent and rate" "$(basename "$P"): parse " "$T_WORK/tty.log"
		t_eq "2M events: the parse's lines carry a percent and MB/s" \
			"$(tr '\r' '\n' <"$T_WORK/tty.log" | grep -c ': parse [0-9]*%, [0-9.]* MB/s$')" \
			"$(tr '\r' '\n' <"$T_WORK/tty.log" | grep -c ': parse ')"
		t_grep "2M events: a later stage's rate" "written, " "$T_WORK/tty.log"
		rm -f "$P"/msprof_*.db
		"$MSPROF" --export=on --output="$P" >"$T_WORK/pipe.log" 2>&1
		t_eq "2M events to a pipe: no progress line" "$(grep -c "$(printf '\r')" "$T_WORK/pipe.log")" 0
		rm -rf "$T_WORK/big"
	fi
fi

# --- iteration selection against the generator's steps ---------------------------------
gen it 4000 4
"$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id=3 >"$T_WORK/log" 2>&1 ||
	{ t_fail "export --iteration-id=3"; cat "$T_WORK/log" >&2; }
t_eq "step 3: exactly its events" "$(tx_pieces)" "msprof_tx:$(awk '$2 == 3 { print $3 }' "$P.steps") "
t_eq "step 3: step_trace has step 3 alone" \
	"$(tail -n +2 "$(OUT)"/step_trace_*.csv | cut -d, -f2 | tr '\n' ' ')" "3 "
first=$(awk '$2 == 3 { print $4 }' "$P.steps"); last=$(awk '$2 == 3 { print $5 }' "$P.steps")
t_eq "step 3: every event inside it" "$(python3 - "$(OUT)" "$first" "$last" <<'PY'
import glob, json, sys
out, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ev = [e for f in glob.glob(out + '/msprof_2*.json') for e in json.load(open(f))]
# the annotations' events, not the Overlap Analysis of their ranges
ov = {e['pid'] for e in ev if e['ph'] == 'M' and e['args'].get('name') == 'Overlap Analysis'}
ev = [e for e in ev if e['ph'] == 'X' and e['pid'] not in ov]
ts = [int(e['ts'].replace('.', '')) for e in ev]
print(len(ev), all(lo <= t <= hi for t in ts))
PY
)" "1000 True"
"$MSPROF" export summary -dir "$P" --model-id 4294967295 --iteration-id 2 --iteration-count 2 >/dev/null 2>&1
t_eq "--iteration-count 2 from step 2: steps 2 and 3" "$(tx_pieces)" \
	"msprof_tx:$(awk '$2 == 2 || $2 == 3 { n += $3 } END { print n }' "$P.steps") "
t_expect_rc 1 "an iteration that is not there" "$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id=9
t_grep "it says which steps there are" "its steps are 1 to 4" <("$MSPROF" --export=on --output="$P" \
	--model-id=4294967295 --iteration-id=9 2>&1)

# --- JSON summaries ----------------------------------------------------------------------
"$MSPROF" --export=on --output="$P" --summary-format=json >/dev/null 2>&1 || t_fail "--summary-format=json"
t_eq "JSON summaries parse, one object per row, keyed by the header" "$(python3 - "$(OUT)" <<'PY'
import glob, json, sys
out = sys.argv[1]
tx = json.load(open(glob.glob(out + '/msprof_tx_summary_2*.json')[0]))
st = json.load(open(glob.glob(out + '/step_trace_2*.json')[0]))
print(len(tx), sorted(tx[0])[:3], tx[0]['Device_id'], type(tx[0]['pid']).__name__,
      type(tx[0]['Start_time(us)']).__name__, len(st), st[0]['Iteration ID'], st[0]['Model ID'])
PY
)" "4000 ['Device End_time(us)', 'Device Start_time(us)', 'Device_id'] host int str 4 1 4294967295"
t_eq "no CSV of an older export left beside them" "$(ls "$(OUT)" | grep -c '\.csv$')" 0

# --- timeline pieces -----------------------------------------------------------------------
gen tl 100000 2
MSPROF_SLICE_MB=4 "$MSPROF" export timeline -dir "$P" >/dev/null 2>&1 || t_fail "export timeline"
t_eq "the timeline in pieces, each a JSON array with all metadata, no event lost" "$(python3 - "$(OUT)" <<'PY'
import glob, json, sys
fs = sorted(glob.glob(sys.argv[1] + '/msprof_slice_*.json'))
ok, x = True, 0
for f in fs:
    a = json.load(open(f))
    # the annotations' layer, not the Overlap Analysis of its ranges
    ov = {e['pid'] for e in a if e['ph'] == 'M' and e['args'].get('name') == 'Overlap Analysis'}
    a = [e for e in a if e['pid'] not in ov] if isinstance(a, list) else a
    ok = ok and isinstance(a, list) and len(ov) == 1 and sum(e['ph'] == 'M' for e in a) == 5
    x += sum(e['ph'] == 'X' for e in a)
print(len(fs) > 1, ok, x, len(glob.glob(sys.argv[1] + '/msprof_2*.json')))
PY
)" "True True 100000 0"
# the full export writes the mstx layers on the summaries' thread and
# appends them in their place: the same pieces, byte for byte, as the
# timeline written alone (and the same msprof_tx timeline)
same_pieces() {
	local a b n=0
	a=($(cd "$1" && ls msprof_slice_*.json msprof_tx_*.json)) b=($(cd "$2" && ls msprof_slice_*.json msprof_tx_*.json))
	[ "${#a[@]}" = "${#b[@]}" ] || { echo "${#a[@]} files against ${#b[@]}"; return; }
	for ((i = 0; i < ${#a[@]}; i++)); do
		cmp -s "$1/${a[i]}" "$2/${b[i]}" && n=$((n + 1)) || echo "${a[i]} differs from ${b[i]}"
	done
	echo "$n same"
}
# alone_vs_full WHAT: the timeline exported alone, then all of it, in pieces of 4 MB
alone_vs_full() {
	rm -rf "$(OUT)" "$T_WORK/tl_alone"
	MSPROF_SLICE_MB=4 "$MSPROF" export timeline -dir "$P" >/dev/null 2>&1 || t_fail "$1: export timeline"
	cp -r "$(OUT)" "$T_WORK/tl_alone" && rm -rf "$(OUT)"
	MSPROF_SLICE_MB=4 "$MSPROF" --export=on --output="$P" >/dev/null 2>&1 || t_fail "$1: full export"
	t_eq "$1: the full export's pieces are the timeline's alone" "$(same_pieces "$T_WORK/tl_alone" "$(OUT)")" \
		"$(cd "$T_WORK/tl_alone" && ls msprof_slice_*.json msprof_tx_*.json | wc -l) same"
	t_eq "$1: both timelines in pieces" "$(cd "$(OUT)" && ls msprof_slice_1_*.json msprof_tx_slice_1_*.json | wc -l)" 2
}
alone_vs_full "mstx events"

# --- damaged raw data ----------------------------------------------------------------------------
gen torn 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
truncate -s -20 "$RAW"   # into the last record (the agent's counters)
"$MSPROF" --export=on --output="$P" >"$T_WORK/log" 2>&1
t_eq "torn tail: exit 0" "$?" 0
t_grep "torn tail: reported" "ends with an incomplete record" "$T_WORK/log"
t_eq "torn tail: every event kept" "$(tx_pieces)" "msprof_tx:1000 "
gen bad 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
# the first mark's payload starts at 263 (64 header + process 74 + thread 35
# + step range 74 + its 16-byte frame); one flipped byte fails its CRC
printf 'Z' | dd of="$RAW" bs=1 seek=273 conv=notrunc 2>/dev/null
"$MSPROF" --export=on --output="$P" >"$T_WORK/log" 2>&1
t_eq "damaged record: exit 0" "$?" 0
t_grep "damaged record: reported" "): 1 record(s)" "$T_WORK/log"
t_eq "damaged record: the others kept" "$(tx_pieces)" "msprof_tx:999 "
gen garbage 10 1
head -c 5000 /dev/urandom >"$P/host/data/agent_4242.data.slice_0"
t_expect_rc 0 "a raw file that is not one: the export goes on" "$MSPROF" --export=on --output="$P"

# --- device tasks ------------------------------------------------------------------------
# gen_t NAME TASKS EVENTS STEPS: gen with device tasks
gen_t() {
	mkdir -p "$T_WORK/$1"
	P=$T_WORK/$1/PROF_000001_20260101000000000_00004242AAAAAAAA
	"$GEN" --tasks "$2" "$P" "$3" "$4" >"$P.steps" || t_fail "gen-raw --tasks $2 $3 $4"
}
# data rows of a CSV's pieces, "name:rows" in name order
pieces() {
	local f
	for f in "$(OUT)/$1"_*.csv; do
		[ -e "$f" ] || continue
		printf '%s:%s\n' "$(basename "$f" | sed 's/_[0-9]\{14\}\.csv$//')" "$(($(wc -l <"$f") - 1))"
	done | sort | tr '\n' ' '
}
# the step lines' column $1 summed over the steps with $2 <= step < $3
truth() { awk -v c="$1" -v lo="$2" -v hi="$3" '$1 == "step" && $2 >= lo && $2 < hi { n += $c } END { printf "%d\n", n }' "$P.steps"; }
# the step line's column $1 of step $2 as written (times: 19 digits, past awk's doubles)
col() { awk -v c="$1" -v s="$2" '$1 == "step" && $2 == s { print $c }' "$P.steps"; }
# "tasks kernels kernelNs inside" from the CSVs: task_time rows, op_summary
# rows and their durations in ns, and whether every task starts in [lo, hi]
csv_tasks() {
	python3 - "$(OUT)" "${1:-0}" "${2:-9223372036854775807}" <<'PY'
import csv, glob, sys
out, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ns = lambda v: int(v.strip().replace('.', ''))
tt = [r for f in sorted(glob.glob(out + '/task_time_*.csv')) for r in list(csv.reader(open(f)))[1:]]
op = [r for f in sorted(glob.glob(out + '/op_summary_*.csv')) for r in list(csv.reader(open(f)))[1:]]
print(len(tt), len(op), sum(ns(r[9]) for r in op), all(lo <= ns(r[6]) <= hi for r in tt))
PY
}

gen_t tm 60000 50000 2
alone_vs_full "device tasks and mstx events"
gen_t tb $((L + 1)) 2 2
MSPROF_EXPORT_CSV_LIMIT=$L summary
t_eq "$((L + 1)) tasks: task_time in slices of $L and 1" "$(pieces task_time)" \
	"task_time_slice_0:$L task_time_slice_1:1 "
t_eq "$((L + 1)) tasks: every kernel and its time in op_summary" "$(csv_tasks | cut -d' ' -f2,3)" \
	"$(truth 7 1 3) $(truth 8 1 3)"
MSPROF_EXPORT_CSV_LIMIT=$L summary --model-id 4294967295 --iteration-id 1
t_eq "step 1 of 2: its tasks alone, the slices gone" "$(pieces task_time)" "task_time:$(truth 6 1 2) "
t_eq "step 1 of 2: its kernels, kernel time exact, every task inside it" "$(csv_tasks "$(col 4 1)" "$(col 5 1)")" \
	"$(truth 6 1 2) $(truth 7 1 2) $(truth 8 1 2) True"

gen_t ti 4000 4000 4
"$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id=3 >"$T_WORK/log" 2>&1 ||
	{ t_fail "export --iteration-id=3 with tasks"; cat "$T_WORK/log" >&2; }
t_eq "tasks, step 3: exactly its tasks and kernels, kernel time exact, every task inside it" \
	"$(csv_tasks "$(col 4 3)" "$(col 5 3)")" "$(truth 6 3 4) $(truth 7 3 4) $(truth 8 3 4) True"
t_eq "tasks, step 3: its runtime calls in api_statistic" \
	"$(tail -n +2 "$(OUT)"/api_statistic_*.csv | awk -F, '{ n += $5 } END { print n }')" "$(truth 6 3 4)"
t_eq "tasks, step 3: timeline tasks, calls and flows, each a task of step 3" "$(python3 - "$(OUT)" \
	"$(col 4 3)" "$(col 5 3)" <<'PY'
import glob, json, sys
out, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ev = [e for f in glob.glob(out + '/msprof_2*.json') for e in json.load(open(f))]
ns = lambda e: int(e['ts'].replace('.', ''))
tasks = [e for e in ev if e['ph'] == 'X' and 'Task Type' in e.get('args', {})]
calls = [e for e in ev if e['ph'] == 'X' and e['name'].startswith('Runtime@')]
flows = [e for e in ev if e['ph'] in 'sf' and e.get('cat') == 'HostToDevice']
print(len(tasks), len(calls), len(flows), all(lo <= ns(e) <= hi for e in tasks + calls),
      {e['args'].get('range') for e in tasks})
PY
)" "$(truth 6 3 4) $(truth 6 3 4) $(($(truth 6 3 4) * 2)) True {'step 3'}"

# frame NTH KIND: "offset payload_len duration kernel" of the NTH (1-based;
# -1: the last) RAW_AGENT_GPU_TASK frame of kind KIND (1 kernel; 0 any) in
# $RAW; kernel: 1 if it is one, else 0
frame() {
	python3 - "$RAW" "$1" "$2" <<'PY'
import struct, sys
data, nth, kind = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), int(sys.argv[3])
off, found = 64, []
while off + 16 <= len(data):
    sync, typ, _, ln, _ = struct.unpack_from('<IHHII', data, off)
    assert sync == 0x5846524d
    if typ == 140:
        s, e, k = struct.unpack_from('<QQI', data, off + 16)
        if kind in (0, k):
            found.append((off, ln, e - s, int(k == 1)))
    off += 16 + ln
print(*found[nth - 1 if nth > 0 else nth])
PY
}
gen_t tdmg 1000 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
read -r off len dur kernel <<<"$(frame 10 1)"
printf 'Z' | dd of="$RAW" bs=1 seek=$((off + 16 + 20)) conv=notrunc 2>/dev/null   # into its device id: the CRC fails
summary
t_grep "damaged task record: reported" "): 1 record(s)" "$T_WORK/log"
t_eq "damaged task record: the other tasks and their kernel time kept" "$(csv_tasks | cut -d' ' -f1-3)" \
	"999 $(($(truth 7 1 2) - 1)) $(($(truth 8 1 2) - dur))"
gen_t ttorn 1000 1000 1
RAW=$P/host/data/agent_4242.data.slice_0
read -r off len dur kernel <<<"$(frame -1 0)"
truncate -s $((off + 16 + len / 2)) "$RAW"   # the last task cut in half, the counters after it gone
summary
t_grep "torn task record: reported" "ends with an incomplete record" "$T_WORK/log"
t_eq "torn task record: every whole task kept" "$(csv_tasks | cut -d' ' -f1-3)" \
	"999 $(($(truth 7 1 2) - kernel)) $(($(truth 8 1 2) - kernel * dur))"

# --- an interrupted export ---------------------------------------------------------------------
# killed once its temp database is there (it is made first; 200,000
# events keep the export busy for a good while after); a later export of
# the dir takes the lock, removes what the killed one left and nothing else
hidden() { (cd "$P" && find . "$(basename "$(OUT)")" -maxdepth 1 -name '.?*' -type f -printf '%f\n' 2>/dev/null) |
	sort | tr '\n' ' '; }
gen kill 200000 1
mkdir -p "$(OUT)"
touch "$P/.notes" "$(OUT)/.keep.csv" "$(OUT)/.user.csv.bak"
"$MSPROF" --export=on --output="$P" >/dev/null 2>&1 &
pid=$!
t_until 10 bash -c "ls '$P'/.msprof_*.db.* >/dev/null 2>&1"
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
t_check "killed midway: it left a temp database ($(hidden))" bash -c "ls '$P'/.msprof_*.db.* >/dev/null 2>&1"
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
t_eq "killed midway: no file under a final name is incomplete" "$bad" ""
"$MSPROF" --export=on --output="$P" >/dev/null 2>&1 || t_fail "export after the kill"
t_eq "export after the kill: complete" "$(tx_pieces)" "msprof_tx:200000 "
t_eq "export after the kill: the killed one's temp files removed, other hidden files kept" "$(hidden)" \
	".keep.csv .notes .user.csv.bak "

# exports of one dir take turns: one waits while another holds the dir's
# lock (flock(1) stands in for it), and its temp files are not touched
# until it lets go
gen lock 1000 1
flock "$P" sh -c "touch '$P/.msprof_20260101000000.db.AbC123'; sleep 1; touch '$T_WORK/released'" &
holder=$!
t_until 5 test -e "$P/.msprof_20260101000000.db.AbC123"
"$MSPROF" --export=on --output="$P" >"$T_WORK/lock.log" 2>&1 &
pid=$!
sleep 0.5
t_check "lock held: the holder's temp file is kept" test -e "$P/.msprof_20260101000000.db.AbC123"
wait "$pid" || t_fail "export waiting for the lock: exit $?"
t_check "lock held: the export finished after the holder let go" test -e "$T_WORK/released"
wait "$holder"
t_check "lock let go: the holder's temp file is removed" test ! -e "$P/.msprof_20260101000000.db.AbC123"
t_eq "lock let go: the export is complete" "$(tx_pieces)" "msprof_tx:1000 "
t_done
