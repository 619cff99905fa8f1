#!/bin/bash
# The agent's data end to end: test-mstx-workload (mstx calls known in
# advance, on two threads, one range ended on the other thread, one never
# ended, a domain of its own) runs with the agent preloaded; a session
# through msprofd records it; the export must hold exactly those calls in
# MSTX_EVENTS, msprof_tx_{ts}.csv and the timelines.  Then the same through
# the launcher, msprof --msproftx=on --mstx-domain-exclude=netdom.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the timeline"
PROBE="$HELPERS/ipc-probe"
RUN=$MSPROF_RUNTIME_DIR
N=200

agent_state() { "$PROBE" req:agents | grep -q "\"pid\":$1,[^}]*\"state\":\"$2\""; }
# the agent answered agent_start (the list says "recording" from the request on)
agent_on() { grep -q "agent of pid $1 started" "$RUN/msprofd.log"; }
q() { t_sql "$DB" "$1"; }

# --- through msprofd ----------------------------------------------------------------------
t_expect_rc 0 "msprofd starts" "$MSPROFD" --idle-timeout=0
P=$(w_prof 1)
mkfifo "$T_WORK/w.in"
LD_PRELOAD=$W_PRELOAD "$WORKLOAD" script $N <"$T_WORK/w.in" >"$T_WORK/w.out" 2>"$T_WORK/w.err" &
W=$!
T_PIDS+=($W)
exec {WIN}>"$T_WORK/w.in"
t_wait "the workload's threads" bash -c "[ \$(wc -l <'$T_WORK/w.out') -ge 2 ]"
MAIN=$(sed -n 's/^main //p' "$T_WORK/w.out")
WORKER=$(sed -n 's/^worker //p' "$T_WORK/w.out")
t_wait "the agent registers" agent_state "$W" idle && t_ok "the agent registered"

mkfifo "$T_WORK/c.in" "$T_WORK/c.out"
# (without the workload's stdin: it must see EOF when we close it)
"$PROBE" --timeout=15000 -i <"$T_WORK/c.in" >"$T_WORK/c.out" 2>"$T_WORK/c.err" {WIN}>&- &
T_PIDS+=($!)
exec {CIN}>"$T_WORK/c.in" {COUT}<"$T_WORK/c.out"
c_do() { echo "$1" >&"$CIN"; L=; read -r -t 20 L <&"$COUT" || L='{"probe":"no line"}'; }
c_do "req:session_start:{\"prof_dir\":\"$P\",\"pids\":[$W],\"msproftx\":true}"
t_check "session_start drives the agent" grep -q "\"agents\":\[$W\]" <<<"$L"
t_wait "the agent records" agent_on "$W" && t_ok "the agent records when session_started arrives"
echo go >&"$WIN"
t_wait "the calls" grep -q '^done$' "$T_WORK/w.out" && t_ok "the workload made its calls"
c_do 'req:session_stop:{"session":1}'
EVENTS=$(sed -nE 's/.*"agents":\[\{"pid":[0-9]+,"events":([0-9]+),"dropped":0.*/\1/p' <<<"$L")
# marks (main-mark, dom-mark, N loops, worker-mark), range starts (outer,
# inner, cross, dom-range, left-open) and ends (all but left-open's)
WANT_EVENTS=$((N + 3 + 5 + 4))
t_eq "session_stopped carries the agent's count, nothing dropped" "$EVENTS" "$WANT_EVENTS" || echo "# $L"
exec {WIN}>&-
wait "$W"
t_check "the workload exits 0" test $? -eq 0

w_export "$P"
t_check "an msprof_{ts}.db" test -f "$DB"
t_eq "MSTX_EVENTS rows: one per mark and range" "$(q 'SELECT COUNT(*) FROM MSTX_EVENTS')" $((N + 8))
t_eq "marks: main-mark, dom-mark and the loops on main, worker-mark on the worker" \
	"$(q "SELECT globalTid & 4294967295, COUNT(*) FROM MSTX_EVENTS WHERE startNs = endNs AND eventType IN (0, 3)
	       AND globalTid >> 32 = $W GROUP BY 1 ORDER BY 2" | tr '\n' ' ')" "$WORKER|1 $MAIN|$((N + 2)) "
t_eq "the loop marks in order, messages intact" \
	"$(q "SELECT COUNT(*) FROM (SELECT s.value, ROW_NUMBER() OVER (ORDER BY m.startNs) - 1 AS k FROM MSTX_EVENTS m
	       JOIN STRING_IDS s ON s.id = m.message WHERE s.value LIKE 'loop %') WHERE value = 'loop ' || k")" $N
rng() { q "SELECT m.eventType, m.globalTid & 4294967295, m.endGlobalTid & 4294967295, d.value, m.rangeId > 0,
	       m.endNs > m.startNs FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message
	       JOIN STRING_IDS d ON d.id = m.domainId WHERE s.value = '$1'"; }
t_eq "outer: a range of the main thread" "$(rng outer)" "2|$MAIN|$MAIN|default|1|1"
t_eq "inner: inside outer" "$(q "SELECT i.startNs > o.startNs AND i.endNs < o.endNs FROM MSTX_EVENTS i, MSTX_EVENTS o
	WHERE i.message = (SELECT id FROM STRING_IDS WHERE value = 'inner')
	  AND o.message = (SELECT id FROM STRING_IDS WHERE value = 'outer')")" 1
t_eq "cross: started on main, ended on the worker (endGlobalTid)" "$(rng cross)" "2|$MAIN|$WORKER|default|1|1"
t_eq "dom-range: in domain netdom" "$(rng dom-range)" "2|$MAIN|$MAIN|netdom|1|1"
t_eq "dom-mark: in domain netdom" "$(q "SELECT d.value FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId
	WHERE m.message = (SELECT id FROM STRING_IDS WHERE value = 'dom-mark')")" netdom
t_eq "left-open: ends at the session end" "$(q "SELECT m.endNs = t.endTimeNs FROM MSTX_EVENTS m, SESSION_TIME_INFO t
	WHERE m.message = (SELECT id FROM STRING_IDS WHERE value = 'left-open')")" 1
t_eq "AGENT_COUNTERS: the agent's counts, one range open at the end" \
	"$(q "SELECT events, dropped, badCalls, truncated, openAtEnd, endWithoutStart FROM AGENT_COUNTERS WHERE pid = $W")" \
	"$WANT_EVENTS|0|0|0|1|0"
t_eq "AGENT_PROCESS names the workload" "$(q "SELECT s.value FROM AGENT_PROCESS a JOIN STRING_IDS s ON s.id = a.name WHERE a.pid = $W")" \
	"test-mstx-workl"
t_eq "msprof_{ts}.db connectionId and rangeId as msprof's host-only mstx" \
	"$(q "SELECT DISTINCT connectionId FROM MSTX_EVENTS")|$(q "SELECT DISTINCT rangeId FROM MSTX_EVENTS WHERE eventType IN (0, 3)")" \
	"4000000000|4294967295"

CSV=$(ls "$OUT"/msprof_tx_*.csv 2>/dev/null | head -n1)
t_check "msprof_tx_{ts}.csv written" test -f "$CSV"
t_eq "its header" "$(head -n1 "$CSV")" \
	"Device_id,pid,tid,category,event_type,payload_type,payload_value,Start_time(us),End_time(us),message_type,message,domain,Device Start_time(us),Device End_time(us)"
t_eq "one line per event" "$(($(wc -l <"$CSV") - 1))" $((N + 8))
t_eq "14 fields on every line" "$(awk -F, 'NF != 14' "$CSV" | wc -l)" 0
t_check "README lists msprof_tx.csv and msprof_tx.json" grep -q '^1.msprof_tx.csv:' "$OUT/README.txt"
python3 - "$OUT" "$W" "$MAIN" "$WORKER" $((N + 8)) <<'PY' && t_ok "timelines: events, layer, nesting" || t_fail "timelines"
import glob, json, sys
out, pid, main, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tx = json.load(open(glob.glob(out + "/msprof_tx_*.json")[0]))
full = json.load(open([f for f in glob.glob(out + "/msprof_*.json") if "/msprof_tx_" not in f][0]))
ok = True
def bad(m):
    global ok
    ok = False
    print(m, file=sys.stderr)
xs = [e for e in tx if e["ph"] == "X"]
if len(xs) != n: bad(f"{len(xs)} X events, want {n}")
if [e for e in full if e.get("pid") == (pid << 10 | 6 << 5 | 31) % 2**32] != tx: bad("msprof.json lacks the tx layer")
for e in xs:
    if list(e) != ["name", "pid", "tid", "ts", "dur", "ph", "args"]: bad(f"keys {list(e)}")
    if e["pid"] != (pid << 10 | 6 << 5 | 31) % 2**32: bad(f"pid {e['pid']}")
meta = {(e["name"], e["tid"]): e["args"] for e in tx if e["ph"] == "M"}
if meta.get(("process_name", 0)) != {"name": "test-mstx-workl"}: bad(f"process_name {meta.get(('process_name', 0))}")
if meta.get(("process_sort_index", 0)) != {"sort_index": 6}: bad("sort index")
# the thread's comm, as the agent reported it, and its tid
if meta.get(("thread_name", main)) != {"name": f"test-mstx-workl ({main})"}: bad(f"thread name {meta.get(('thread_name', main))}")
cross = [e for e in xs if e["name"] == "cross"]
if len(cross) != 1 or cross[0]["tid"] % 4194304 != main: bad(f"cross {cross}")
# in integer ns: a double cannot hold µs since 1970 to the ns
tracks = {}
for e in xs:
    us, ns = e["ts"].split(".")
    s = int(us) * 1000 + int(ns)
    tracks.setdefault(e["tid"], []).append((s, s + round(e["dur"] * 1000)))
for tid, evs in tracks.items():
    evs.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for s, t in evs:
        while stack and stack[-1] <= s: stack.pop()
        if stack and t > stack[-1]: bad(f"tid {tid}: [{s}, {t}] overlaps its parent ending {stack[-1]}")
        stack.append(t)
sys.exit(0 if ok else 1)
PY

t_check "msprofd's log has no sanitizer report" bash -c "! grep -E 'runtime error|Sanitizer' '$RUN/msprofd.log'"
t_check "the export reported no sanitizer error" bash -c "! grep -E 'runtime error|Sanitizer' '$T_WORK/export.log'"

# --- through the launcher ----------------------------------------------------------------
# (in a sanitized build the launcher preloads the agent without the ASan
# runtime first, which ASan refuses: that part needs an unsanitized build)
if ldd "$MSPROF" 2>/dev/null | grep -q libasan; then
	echo "# sanitized build: the launcher part is skipped"
	t_done
fi
mkfifo "$T_WORK/l.in"
"$MSPROF" --msproftx=on --mstx-domain-exclude=netdom --output="$T_WORK/launch" "$WORKLOAD" script 50 \
	<"$T_WORK/l.in" >"$T_WORK/l.out" 2>&1 {CIN}>&- {COUT}<&- &
M=$!
T_PIDS+=($M)
exec {LIN}>"$T_WORK/l.in"
t_wait "the launched workload" bash -c "grep -q '^main ' '$T_WORK/l.out'"
LW=$(pgrep -P "$M" -f test-mstx-workload | head -n1)
t_wait "the launched agent records" agent_on "$LW" && t_ok "msprof --msproftx=on: the agent records"
echo go >&"$LIN"
t_wait "the launched calls" grep -q '^done$' "$T_WORK/l.out"
exec {LIN}>&-
wait "$M"
rc=$?
t_eq "msprof exits with the workload's status" "$rc" 0
LP=$(t_prof_dir "$T_WORK/launch")
DB=$(ls "$LP"/msprof_*.db | head -n1)
t_eq "the launcher's export: 50 loops and the other calls, netdom left out by the agent" \
	"$(q "SELECT COUNT(*), SUM(d.value = 'netdom') FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId")" "56|0"
t_check "msprof_tx_{ts}.csv in the launcher's output" bash -c "ls '$LP'/mindstudio_profiler_output/msprof_tx_*.csv"
t_done
