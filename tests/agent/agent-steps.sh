# Training steps and ranks end to end, through msprof --msproftx=on:
# "step N" / "ProfilerStep#N" ranges and mstxStep give exactly one STEP row
# and one step_trace line per step; --step-range=2-4 records annotations
# only in steps 2 and 3 (the step markers always), and the database keeps
# those two steps alone; a forked child of rank 1
# under --ranks=0 records nothing, and info.json carries the launched
# process's rank.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
APP=$AGENT_BIN/steps-app
HEADER='Device_id,Iteration ID,FP Start(us),BP End(us),Iteration End(us),Iteration Time(us),FP to BP Time(us),Iteration Refresh(us),Data Aug Bound(us),Model ID'

# run NAME msprof-options... -- app-args...: sets P (PROF dir) and DB
run() {
	local name=$1 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	if env "${PRE[@]}" "${ENVS[@]}" timeout 60 "$MSPROF" --msproftx=on "${opts[@]}" --output="$T_WORK/$name" "$APP" "$@" \
		>"$T_WORK/$name.log" 2>&1; then
		t_ok "msprof ${opts[*]} steps-app $*"
	else
		t_fail "msprof ${opts[*]} steps-app $*"; cat "$T_WORK/$name.log" >&2
	fi
	P=$(t_prof_dir "$T_WORK/$name")
	DB=$(ls "$P"/msprof_*.db | head -n1)
}
q() { t_sql "$DB" "$1"; }
# the step_trace rows the STEP table implies, as the export must write them
want_csv() {
	echo "$HEADER"
	q "SELECT printf('host,%d,N/A,N/A,%d.%03d' || char(9) || ',%d.%03d,N/A,N/A,N/A,4294967295',
	           stepId, endNs / 1000, endNs % 1000, (endNs - startNs) / 1000, (endNs - startNs) % 1000)
	   FROM STEP ORDER BY startNs"
}
check_csv() {
	local f
	f=$(ls "$P"/mindstudio_profiler_output/step_trace_*.csv 2>/dev/null | head -n1)
	if [ -n "$f" ] && [ "$(cat "$f")" = "$(want_csv)" ]; then
		t_ok "$1: step_trace_{ts}.csv has exactly the STEP rows"
	else
		t_fail "$1: step_trace differs"; cat "$f" >&2; want_csv >&2
	fi
}
ENVS=(RANK=0)

# --- ranges: step 0..4 "step i", step 5 "ProfilerStep#5" ----------------------------
run ranges -- ranges 6
t_eq "ranges: one STEP row per step, in order, on the app's thread" \
	"$(q 'SELECT group_concat(stepId) FROM (SELECT stepId FROM STEP WHERE pid = tid ORDER BY startNs)')" "0,1,2,3,4,5"
t_eq "ranges: each step spans its range" \
	"$(q "SELECT COUNT(*) FROM STEP s JOIN MSTX_EVENTS m ON m.startNs = s.startNs AND m.endNs = s.endNs
	       AND m.eventType = 2 AND m.globalTid >> 32 = s.pid")" 6
check_csv ranges
t_eq "info.json rank_id is the launched process's RANK" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank_id"])' "$P/host/info.json")" 0

# --- explicit: mstxStep(0..4) ------------------------------------------------------------
run explicit -- explicit 5
t_eq "mstxStep: one STEP row per step" "$(q 'SELECT group_concat(stepId) FROM (SELECT stepId FROM STEP ORDER BY startNs)')" \
	"0,1,2,3,4"
t_eq "mstxStep: a step ends where the next starts" \
	"$(q 'SELECT COUNT(*) FROM STEP a JOIN STEP b ON b.stepId = a.stepId + 1 AND b.startNs = a.endNs')" 4
t_eq "mstxStep: the last step ends at the last annotation" \
	"$(q "SELECT s.endNs = (SELECT max(endNs) FROM MSTX_EVENTS) FROM STEP s WHERE stepId = 4")" 1
t_eq "mstxStep: its marks are in the domain msprof.step" \
	"$(q "SELECT COUNT(*) FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId WHERE d.value = 'msprof.step'")" 5
check_csv explicit

# --- --step-range=2-4: the annotations of steps 2 and 3 only -------------------------------
run range-ranges --step-range=2-4 -- ranges 6
# the agent records every step marker; the database of the window keeps
# steps 2 and 3 alone, as its outputs do
t_eq "--step-range=2-4, ranges: the database holds steps 2 and 3" "$(q 'SELECT group_concat(stepId) FROM STEP')" "2,3"
t_eq "--step-range=2-4, ranges: work and inner only in steps 2 and 3" \
	"$(q "SELECT COUNT(*), COUNT(DISTINCT s.stepId), min(s.stepId), max(s.stepId) FROM MSTX_EVENTS m
	       JOIN STRING_IDS t ON t.id = m.message JOIN STEP s ON m.startNs BETWEEN s.startNs AND s.endNs
	       WHERE t.value IN ('work', 'inner')")" "4|2|2|3"
t_eq "--step-range=2-4, ranges: nothing else (their two step ranges)" "$(q 'SELECT COUNT(*) FROM MSTX_EVENTS')" 6
run range-explicit --step-range=2-4 -- explicit 6
t_eq "--step-range=2-4, mstxStep: steps 2 and 3's marks, 2 x (work, inner), nothing after" \
	"$(q "SELECT COUNT(*), SUM(t.value IN ('work', 'inner')), SUM(t.value = 'after') FROM MSTX_EVENTS m
	       JOIN STRING_IDS t ON t.id = m.message")" "6|4|0"

# --- ranks: a child of rank 1 under --ranks=0 -----------------------------------------------
run ranks --ranks=0 -- fork
t_eq "--ranks=0: the parent (rank 0) records its two steps, the child (rank 1) nothing" \
	"$(q 'SELECT COUNT(DISTINCT globalTid >> 32), COUNT(*) FROM MSTX_EVENTS')" "1|6"
t_eq "--ranks=0: STEP rows of the parent only" "$(q 'SELECT COUNT(*), COUNT(DISTINCT pid) FROM STEP')" "2|1"
ENVS=(RANK=1)
run ranks1 --ranks=0 -- fork
t_eq "--ranks=0 with RANK=1: nothing recorded" "$(q "SELECT COUNT(*) FROM sqlite_master WHERE name = 'MSTX_EVENTS'")" 0
t_eq "info.json rank_id 1" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank_id"])' "$P/host/info.json")" 1
# without --ranks the child of rank 1 is a rank of its own: each rank gets
# its own PROF dir (collectors/profdir-ranks.c), holding its own events
ENVS=(RANK=0)
env "${PRE[@]}" "${ENVS[@]}" timeout 60 "$MSPROF" --msproftx=on --output="$T_WORK/ranks-all" "$APP" fork \
	>"$T_WORK/ranks-all.log" 2>&1 || t_fail "msprof steps-app fork"
dirs=("$T_WORK"/ranks-all/PROF_*)
t_eq "without --ranks: one PROF dir per rank" "${#dirs[@]}" 2
for d in "${dirs[@]}"; do
	rank=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank_id"])' "$d/host/info.json")
	DB=$(ls "$d"/msprof_*.db | head -n1)
	case $rank in
	0) want="1|6" ;;   # the parent: steps 0 and 1, each with work and inner
	1) want="1|3" ;;   # the child: step 0 and a mark
	*) want="?" ;;
	esac
	t_eq "without --ranks: rank $rank's dir holds its one process's events" \
		"$(q 'SELECT COUNT(DISTINCT globalTid >> 32), COUNT(*) FROM MSTX_EVENTS')" "$want"
	t_eq "rank $rank's dir: its host/info.json.<N> names the rank" \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank_id"])' "$d/host/info.json.0" 2>/dev/null ||
		   python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rank_id"])' "$d"/host/info.json.[0-9]*)" "$rank"
done
t_done
