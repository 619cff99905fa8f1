# report.html of a real run: steps-app (40 "step N" ranges, each holding a
# range "inner" and a mark) recorded by msprof with host sampling, as rank
# 0.  The data the page embeds is checked against the database of the same
# export (steps, the top range's count and total, the threads, the rank);
# 'msprof export report -dir' writes the page alone and touches nothing
# else; a second rank recorded beside it is in both pages' ranks table;
# then a browser (Debian's chromium, headless) loads the page: no
# console message, the script finished (body data-report="ok"), the DOM
# holds every chart and the job's range name; its screenshot is kept as
# build/meson-logs/report-screenshot.png.  Skips the browser part, saying
# so, where no chromium is installed.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the report's data"
N=40
W=$T_WORK/rec
a_run "record steps-app ranges $N with host sampling" 0 env "${PRE[@]}" RANK_ID=0 timeout 120 "$MSPROF" \
	--msproftx=on --host-sys=cpu,mem,disk,network --host-sys-usage=cpu --sys-hardware-mem=on --output="$W" \
	"$AGENT_BIN/steps-app" ranges $N
P=$(t_prof_dir "$W")
OUT=$P/mindstudio_profiler_output
R=$OUT/report.html
DB=$(ls "$P"/msprof_*.db | head -n1)
q() { t_sql "$DB" "$1"; }
t_check "the export wrote report.html" test -s "$R"
python3 "$SRCDIR/tests/helpers/report-data.py" "$R" >"$T_WORK/data.json" || t_fail "report.html holds no data"
# j EXPR: Python expressions over the report's data d, printed as print() does
j() { python3 -c "import json,sys; d = json.load(open(sys.argv[1])); print($1)" "$T_WORK/data.json"; }
# t_near what GOT WANT: the same words, numbers within 0.002 (the page's and
# SQLite's rounding to 3 decimals may differ in the last one)
t_near() {
	if python3 -c '
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
def same(x, y):
    try:
        return abs(float(x) - float(y)) <= 0.002
    except ValueError:
        return x == y
sys.exit(0 if len(a) == len(b) and all(same(x, y) for x, y in zip(a, b)) else 1)' "$2" "$3"; then
		t_ok "$1"
	else
		t_fail "$1: got '$2', want '$3'"
	fi
}

# --- the numbers, against the database ------------------------------------------------------
t_eq "the application: as it was run, its command line" "$(j 'd["meta"]["app"]')" \
	"$AGENT_BIN/steps-app ranges $N (pid $(q 'SELECT pid FROM AGENT_PROCESS LIMIT 1'))"
t_eq "steps: every STEP row" "$(j 'd["steps"]["count"]')" "$(q 'SELECT COUNT(*) FROM STEP')"
t_near "steps: the slowest" "$(j 'd["steps"]["slowest"]["step"], round(d["steps"]["slowest"]["ms"], 3)')" \
	"$(q "SELECT stepId || ' ' || round((endNs - startNs) / 1e6, 3) FROM STEP
	      ORDER BY endNs - startNs DESC, startNs LIMIT 1")"
# (both to 3 decimals: rounding each to 2 from different sides could differ by 0.01)
t_near "steps: the mean" "$(j 'round(d["steps"]["mean"], 3)')" "$(q 'SELECT round(AVG(endNs - startNs) / 1e6, 3) FROM STEP')"
t_near "steps: the longest" "$(j 'd["steps"]["max"]')" "$(q 'SELECT round(MAX(endNs - startNs) / 1e6, 3) FROM STEP')"
t_eq "steps: one bar per step" "$(j 'len(d["steps"]["points"])')" "$N"
t_eq "top range: 'inner', $N times (the step ranges are left out)" \
	"$(j 'd["ranges"]["top"][0]["name"], d["ranges"]["top"][0]["count"], d["ranges"]["names"]')" "inner $N 1"
t_near "top range: its total and longest" "$(j 'd["ranges"]["top"][0]["total"], d["ranges"]["top"][0]["max"]')" \
	"$(q "SELECT round(SUM(m.endNs - m.startNs) / 1e6, 3) || ' ' || round(MAX(m.endNs - m.startNs) / 1e6, 3)
	      FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message WHERE s.value = 'inner'")"
t_eq "threads: every thread sampled" "$(j 'd["threads"]["total"]')" \
	"$(q 'SELECT COUNT(*) FROM (SELECT DISTINCT pid, tid FROM TARGET_THREAD_CPU_USAGE)')"
# (the mean to 3 decimals too: the page's is rounded to 3, and rounding that
# to 2 against SQLite's rounding of the exact mean gave 6.63 and 6.64)
t_near "threads: the busiest one's mean and peak" "$(j 'round(d["threads"]["rows"][0]["mean"], 3), d["threads"]["rows"][0]["peak"]')" \
	"$(q "SELECT round(AVG(usage), 3) || ' ' || round(MAX(usage), 3) FROM TARGET_THREAD_CPU_USAGE
	      GROUP BY pid, tid ORDER BY AVG(usage) DESC LIMIT 1")"
t_eq "overview: CPU, memory, disk and network charts" \
	"$(j '" ".join(c["id"] for c in d["timeline"]["charts"])')" "cpu memory disk network"
t_eq "overview: the CPU chart draws the host (/proc/stat) and the profiled processes" \
	"$(j 'd["timeline"]["charts"][0]["title"], "|", ", ".join(s["name"] for s in d["timeline"]["charts"][0]["series"])')" \
	"Host CPU | host, all CPUs, profiled processes"
# every legend says the mean and the peak of the points its line draws,
# and no CPU point lies outside 0..100 % of all CPUs
t_eq "overview: legends are the drawn points' mean and peak, CPU within 0-100%" "$(j '[
	(c["id"], s["name"]) for c in d["timeline"]["charts"] for s in c["series"]
	for v in [[x for x in s["v"] if x is not None]]
	if abs(s["peak"] - max(v)) > 0.002 or abs(s["mean"] - sum(v) / len(v)) > 0.002
	or (c["id"] == "cpu" and not all(0 <= x <= 100 for x in v))]')" "[]"
t_eq "ranks: this PROF dir is rank 0" "$(j 'd["ranks"][0]["rank"], d["ranks"][0]["self"], d["ranks"][0]["count"]')" \
	"0 True $N"
t_eq "losses: none counted" "$(j 'len(d["losses"])')" 0
SIZE=$(stat -c %s "$R")
[ "$SIZE" -lt 400000 ] && t_ok "report.html is $SIZE bytes" || t_fail "report.html is $SIZE bytes"
t_check "no reference outside the file (no URL to load)" bash -c "! grep -Eq '(src|href)=\"(https?:)?//' '$R'"

# --- msprof export report: the page alone -----------------------------------------------------
ls -l --time-style=+%s.%N "$OUT" | grep -v report.html >"$T_WORK/before"
rm "$R"
a_run "msprof export report -dir" 0 "$MSPROF" export report -dir "$P"
t_grep "it says where the report is" "The report of $(basename "$P") is saved in $OUT/report.html" "$T_WORK/out"
t_check "report.html written again" test -s "$R"
ls -l --time-style=+%s.%N "$OUT" | grep -v report.html >"$T_WORK/after"
t_check "every other output file untouched" cmp -s "$T_WORK/before" "$T_WORK/after"
a_run "msprof export report takes no other option" 2 "$MSPROF" export report -dir "$P" --clear

# --- a second rank beside it: the ranks table of both pages -------------------------------------
a_run "record rank 1 (steps-app ranges 3) into the same directory" 0 env "${PRE[@]}" RANK_ID=1 timeout 120 "$MSPROF" \
	--msproftx=on --output="$W" "$AGENT_BIN/steps-app" ranges 3
a_run "msprof export report -dir on the directory of both ranks" 0 "$MSPROF" export report -dir "$W"
for f in "$W"/PROF_*/mindstudio_profiler_output/report.html; do
	python3 "$SRCDIR/tests/helpers/report-data.py" "$f" >"$T_WORK/data.json" || t_fail "$f holds no data"
	self=$(j '[r["rank"] for r in d["ranks"] if r["self"]][0]')
	t_eq "rank $self's page: both ranks, their step counts" \
		"$(j '" ".join("%d:%d" % (r["rank"], r["count"]) for r in d["ranks"])')" "0:$N 1:3"
done
python3 "$SRCDIR/tests/helpers/report-data.py" "$R" >"$T_WORK/data.json"

# --- in a browser -------------------------------------------------------------------------------
CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ]; then
	echo "# no chromium: the browser checks are skipped (Debian: apt-get install chromium)"
	t_done
fi
# headless, a profile of its own, its console on stderr; --no-sandbox: as root the sandbox refuses to start
browse() {
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T_WORK/chrome" \
		--enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@" "file://$R"
}
browse --dump-dom >"$T_WORK/dom.html" 2>"$T_WORK/chrome.err" || t_fail "$CHROME --dump-dom failed: $(tail -n 5 "$T_WORK/chrome.err")"
t_check "no console message (errors, warnings) while the page loads" bash -c "! grep -a ':CONSOLE' '$T_WORK/chrome.err'"
grep -a ':CONSOLE' "$T_WORK/chrome.err" >&2
t_grep "the page's script finished without error" 'data-report="ok"' "$T_WORK/dom.html"
echo "# drawn $(grep -o 'data-render-ms="[0-9]*"' "$T_WORK/dom.html" | tr -dc 0-9) ms after the browser began loading it"
for c in cpu memory disk network steps ranges threads; do
	t_grep "the DOM holds the chart '$c'" "data-chart=\"$c\"" "$T_WORK/dom.html"
done
t_grep "the DOM shows the job's range 'inner'" '<td class="l">inner</td>' "$T_WORK/dom.html"
t_check "the step chart has a bar per step" test "$(grep -o '<title>step [0-9]* (pid' "$T_WORK/dom.html" | wc -l)" -eq $N
SHOT=$BUILDDIR/meson-logs/report-screenshot.png
mkdir -p "$(dirname "$SHOT")"
browse --hide-scrollbars --window-size=1280,3200 --screenshot="$T_WORK/shot.png" >/dev/null 2>&1
t_check "a screenshot of the page" test -s "$T_WORK/shot.png" && cp "$T_WORK/shot.png" "$SHOT" && echo "# screenshot: $SHOT"
t_done
