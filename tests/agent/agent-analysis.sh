# The analysis commands on data recorded with msprof from a real annotated
# program (steps-app: six "step N" ranges with annotations inside): every
# form of parse, query, export and analyze, msprof's and msprof.py's, checked
# against the recorded database.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the JSON outputs"
# run what rc cmd...: a_run, then its stdout and stderr together in $T_WORK/log
# (the checks below look for msprof's lines wherever it writes them)
run() { a_run "$@"; cat "$T_WORK/out" "$T_WORK/err" >"$T_WORK/log"; }

W=$T_WORK/rec
run "record steps-app with --msproftx=on" 0 env "${PRE[@]}" RANK=0 timeout 60 "$MSPROF" --msproftx=on --output="$W" \
	"$AGENT_BIN/steps-app" ranges 6
P=$(t_prof_dir "$W")
OUT=$P/mindstudio_profiler_output
DB() { ls "$P"/msprof_*.db | head -n1; }
q() { t_sql "$(DB)" "$1"; }
NSTEPS=$(q "SELECT COUNT(DISTINCT stepId) FROM STEP")
t_eq "the recording has six steps" "$NSTEPS" 6
ALL=$(q "SELECT COUNT(*) FROM MSTX_EVENTS")
csv_rows() { local n=0 f; for f in "$OUT"/$1_*.csv; do [ -e "$f" ] && n=$((n + $(wc -l <"$f") - 1)); done; echo "$n"; }

# --- query -----------------------------------------------------------------------------
TOP=$(q "SELECT group_concat(stepId) FROM (SELECT stepId FROM STEP GROUP BY stepId
	ORDER BY MAX(endNs - startNs) DESC, stepId LIMIT 5)")
run "msprof --query=on on the parent dir" 0 "$MSPROF" --query=on --output="$W"
t_grep "query: the header" "Job Info  Device ID  Dir Name  Collection Time" "$T_WORK/log"
t_eq "query: model id, iteration number and the top iterations" \
	"$(awk '/^NA /{ print $6, $7, $8 }' "$T_WORK/log")" "4294967295 $NSTEPS $TOP"
run "msprof query -dir (msprof.py form)" 0 "$MSPROF" query -dir "$P"
t_grep "query -dir: the same top iterations" " $TOP " "$T_WORK/log"

# --- parse / import: a new database, always --------------------------------------------------
old=$(DB); sleep 1
run "msprof --parse=on" 0 "$MSPROF" --parse=on --output="$P"
t_grep "parse: msprof's lines" "Parse all data in $(basename "$P") done." "$T_WORK/log"
[ "$(DB)" != "$old" ] && [ ! -e "$old" ] && t_ok "parse: a new database replaces the old one" ||
	t_fail "parse: database not rebuilt ($old -> $(DB))"
t_eq "parse: the same events" "$(q "SELECT COUNT(*) FROM MSTX_EVENTS")" "$ALL"
old=$(DB); sleep 1
run "msprof import -dir" 0 "$MSPROF" import -dir="$P"
[ "$(DB)" != "$old" ] && t_ok "import: rebuilt" || t_fail "import: not rebuilt"
old=$(DB)
run "export reuses a current database" 0 "$MSPROF" --export=on --output="$P"
t_eq "export: no new database" "$(DB)" "$old"

# --- export with iteration selection: every step ------------------------------------------------
for s in $(q "SELECT DISTINCT stepId FROM STEP ORDER BY stepId"); do
	want=$(q "SELECT COUNT(*) FROM MSTX_EVENTS m WHERE EXISTS (SELECT 1 FROM STEP s WHERE s.stepId = $s
		AND s.pid = m.globalTid >> 32 AND m.startNs >= s.startNs AND (m.startNs < s.endNs OR m.startNs = s.startNs))")
	"$MSPROF" --export=on --output="$P" --model-id=4294967295 --iteration-id="$s" >"$T_WORK/log" 2>&1 ||
		t_fail "export step $s"
	t_eq "step $s: msprof_tx rows are the events inside it" "$(csv_rows msprof_tx)" "$want"
	t_eq "step $s: one step_trace row" "$(tail -n +2 "$OUT"/step_trace_*.csv | cut -d, -f2)" "$s"
done
run "the ids apart" 1 "$MSPROF" --export=on --output="$P" --iteration-id=1
t_grep "msprof's message" "Please set 'model-id' and 'iteration-id' simultaneously." "$T_WORK/log"
run "a model id there is not" 1 "$MSPROF" --export=on --output="$P" --model-id=7 --iteration-id=1
t_grep "it says what to use" "select them with --model-id=4294967295" "$T_WORK/log"

# --- export forms --------------------------------------------------------------------------------
rm -rf "$OUT"
run "msprof export timeline -dir" 0 "$MSPROF" export timeline -dir "$P"
t_eq "timeline only: msprof and msprof_tx json, no csv (and the report page every export writes)" \
	"$(ls "$OUT" | sed 's/_[0-9]\{14\}//' | tr '\n' ' ')" "README.txt msprof.json msprof_tx.json report.html "
run "msprof export summary -dir --format json" 0 "$MSPROF" export summary -dir "$P" --format json
t_eq "json summaries parse with every event" "$(python3 - "$OUT" <<'PY'
import glob, json, sys
print(len(json.load(open(glob.glob(sys.argv[1] + '/msprof_tx_summary_2*.json')[0]))),
      len(json.load(open(glob.glob(sys.argv[1] + '/step_trace_2*.json')[0]))))
PY
)" "$ALL $NSTEPS"
# --summary-format=json: the msprof_tx summary never takes the mstx
# timeline's name (msprof_tx_{ts}.json); both are written, each whole, and
# no summary is named as a reader matches a timeline (torch_npu's and
# MindSpore's msprof_<digits>..., msprof_slice_...)
rm -rf "$OUT"
run "--export=on --summary-format=json" 0 "$MSPROF" --export=on --output="$P" --summary-format=json
t_eq "json: the mstx timeline and the msprof_tx summary, each whole" "$(python3 - "$OUT" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
tl = [f for f in glob.glob(out + '/msprof_tx_*.json') if re.match(r'^msprof_tx_\d{14}\.json$', os.path.basename(f))]
sm = glob.glob(out + '/msprof_tx_summary_*.json')
a, b = json.load(open(tl[0])), json.load(open(sm[0]))
print(len(tl), len(sm), sum(e.get('ph') == 'X' for e in a), sum('Device_id' in r for r in b),
      open(tl[0]).read() != open(sm[0]).read())
PY
)" "1 1 $ALL $ALL True"
t_eq "json: no summary is named as a timeline" "$(python3 - "$OUT" <<'PY'
import os, re, sys
tl = re.compile(r'^msprof_\d{1,20}.*\.json|^msprof_slice_\d{1,20}.*\.json')
print(sorted(n for n in os.listdir(sys.argv[1]) if tl.match(n) and not re.match(r'^msprof_(slice_\d+_)?\d{14}\.json$', n)))
PY
)" "[]"
t_check "json: README lists the timeline and the summary" \
	bash -c "grep -q '^[0-9]*\.msprof_tx\.json:' '$OUT/README.txt' && grep -q '^[0-9]*\.msprof_tx_summary\.json:' '$OUT/README.txt'"
run "msprof export summary -dir --iteration-id 1 --iteration-count 2 --model-id" 0 \
	"$MSPROF" export summary -dir "$P" --model-id 4294967295 --iteration-id 1 --iteration-count 2
t_eq "two steps' step_trace rows" "$(tail -n +2 "$OUT"/step_trace_*.csv | cut -d, -f2 | sort | tr '\n' ' ')" "1 2 "
run "msprof export db -dir" 0 "$MSPROF" export db -dir "$P"
run "msprof export db with --format: refused" 2 "$MSPROF" export db -dir "$P" --format json
run "msprof export with no kind: refused" 2 "$MSPROF" export -dir "$P"
run "msprof export timeline without -dir: refused" 2 "$MSPROF" export timeline
t_grep "argparse's message" "the following arguments are required: -dir/--collection-dir" "$T_WORK/log"
run "--type=db writes the database only" 0 "$MSPROF" --export=on --type=db --output="$P"

# --- --reports ---------------------------------------------------------------------------------------
echo '{"json_process": {"msproftx": false, "cpu_usage": true, "memory_usage": true}}' >"$T_WORK/r.json"
run "--reports without msproftx" 0 "$MSPROF" --export=on --output="$P" --reports="$T_WORK/r.json"
t_eq "no mstx layer, host layers kept" "$(python3 - "$OUT" <<'PY'
import glob, json, sys
a = json.load(open(glob.glob(sys.argv[1] + '/msprof_2*.json')[0]))
print(sum(e['ph'] == 'X' for e in a), sum(e['ph'] == 'C' for e in a) > 0,
      len(glob.glob(sys.argv[1] + '/msprof_tx_2*.json')))
PY
)" "0 True 0"
echo '{"json_process": {"msproftx": true}}' >"$T_WORK/r.json"
run "--reports with msproftx alone" 0 "$MSPROF" --export=on --output="$P" --reports="$T_WORK/r.json"
t_eq "only the mstx layer" "$(python3 - "$OUT" <<'PY'
import glob, json, sys
a = json.load(open(glob.glob(sys.argv[1] + '/msprof_2*.json')[0]))
print(sum(e['ph'] == 'X' for e in a), sum(e['ph'] == 'C' for e in a))
PY
)" "$ALL 0"
echo 'not json' >"$T_WORK/bad.json"
run "--reports that is not JSON" 1 "$MSPROF" --export=on --output="$P" --reports="$T_WORK/bad.json"
t_grep "it names the file" "is not a reports configuration: it is not valid JSON" "$T_WORK/log"
run "--reports that does not exist" 1 "$MSPROF" --export=on --output="$P" --reports="$T_WORK/none.json"

# --- --clear: msprof's intermediates go, raw data stays ---------------------------------------------
mkdir -p "$P/host/sqlite"
touch "$P/host/sqlite/host_cpu_usage.db" "$P/host/sqlite/thread.db" "$P/host/data/x.complete"
raw=$(ls "$P/host/data" | grep -c slice_)
run "--clear=on" 0 "$MSPROF" --export=on --output="$P" --clear=on
t_eq "clear: sqlite/ emptied but thread.db, .complete tags gone, raw kept" \
	"$(ls "$P/host/sqlite" | tr '\n' ' ')$(ls "$P/host/data" | grep -c complete) $(ls "$P/host/data" | grep -c slice_)" \
	"thread.db 0 $raw"

# --- analyze: nothing to analyze is not a failure (torch_npu calls it after every export) -----------
run "msprof --analyze=on" 0 "$MSPROF" --analyze=on --output="$P"
t_grep "analyze says why" "has no communication data" "$T_WORK/log"
[ ! -e "$P/analyze" ] && t_ok "no analyze/ without data" || t_fail "analyze/ written without data"
run "msprof --analyze=on --type=db --rule=communication_matrix" 0 "$MSPROF" --analyze=on --type=db \
	--rule=communication_matrix --output="$P"
run "msprof analyze -dir -r communication" 0 "$MSPROF" analyze -dir "$P" -r communication
run "msprof analyze without a rule" 2 "$MSPROF" analyze -dir "$P"
run "msprof --analyze=on --rule=x" 1 "$MSPROF" --analyze=on --rule=x --output="$P"
t_grep "msprof's rule message" "Argument --rule: invalid value: x. Please input 'communication' or 'communication_matrix'." \
	"$T_WORK/log"

# --- nothing there -----------------------------------------------------------------------------------
mkdir -p "$T_WORK/empty"
run "export of a dir without PROF dirs" 1 "$MSPROF" --export=on --output="$T_WORK/empty"
t_grep "it says what to give" "no PROF_* directory in" "$T_WORK/log"
t_done
