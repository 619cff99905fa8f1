# msprof query's data types (msprof.py query --data-type, --id, --model-id,
# --iteration-id) and the step export of system data, on data recorded with
# msprof from a real annotated program and a real system collection: every
# answer checked against the recorded databases, every msprof message and
# exit status of a bad value.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the JSON outputs"
# json EXPR: a Python expression over s, the status line on stdout
json() { python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print($1)" "$T_WORK/out"; }
DB() { ls "$1"/msprof_*.db | head -n1; }
W=$T_WORK/rec

# --- one process, rank 3, with host usage samples ----------------------------------------------
a_run "record steps-app (RANK=3) with --host-sys-usage=cpu,mem" 0 env "${PRE[@]}" RANK=3 timeout 60 "$MSPROF" \
	--msproftx=on --host-sys-usage=cpu,mem --output="$W" "$AGENT_BIN/steps-app" ranges 60
A=$(t_prof_dir "$W")
qa() { t_sql "$(DB "$A")" "$1"; }
t_eq "the recording has 60 steps of rank 3" "$(qa "SELECT COUNT(*), MIN(a.rank) FROM STEP s JOIN AGENT_PROCESS a USING (pid)")" "60|3"

a_run "query --data-type 0 (cluster scene), one ranked process" 0 "$MSPROF" query -dir "$W" --data-type 0
t_eq "cluster scene: msprof's status line, 1" "$(cat "$T_WORK/out")" '{"status": 0, "info": "", "data": "1"}'

# step trace of one id: every step, times as in the database
a_run "query --data-type 1 --id 3 --model-id 4294967295" 0 "$MSPROF" query -dir "$W" --data-type 1 --id 3 \
	--model-id 4294967295
F=$(json "s['data']")
t_eq "step trace: written to <dir>/query/step_trace_<id>_<model>_-1.json" "$F" "$(realpath "$W")/query/step_trace_3_4294967295_-1.json"
t_eq "step trace: every step with its time, start and end in µs (two decimals)" "$(python3 - "$F" "$(DB "$A")" <<'PY'
import json, sqlite3, sys
from decimal import Decimal, ROUND_HALF_UP
us = lambda ns: (Decimal(ns) / 1000).quantize(Decimal('0.01'), ROUND_HALF_UP)
rows = json.load(open(sys.argv[1]), parse_float=Decimal)
want = sqlite3.connect(sys.argv[2]).execute('SELECT stepId, startNs, endNs FROM STEP ORDER BY stepId').fetchall()
assert len(rows) == len(want), (len(rows), len(want))
for r, (step, start, end) in zip(rows, want):
    assert r['ID'] == 3 and r['Model ID'] == 'N/A' and r['FP to BP Time'] == 'N/A', r
    assert (r['Iteration ID'], r['Iteration Time'], r['Iteration Start'], r['Iteration End']) == \
        (step, us(end - start), us(start), us(end)), (r, step, start, end)
print('ok', len(rows))
PY
)" "ok 60"

# step trace of every id, one step
a_run "query --data-type 1 --id -1 --iteration-id 2" 0 "$MSPROF" query -dir "$W" --data-type 1 --id -1 \
	--model-id 4294967295 --iteration-id 2
t_eq "all ids, step 2: one row, rank 3, its start" "$(python3 - "$(json "s['data']")" "$(DB "$A")" <<'PY'
import json, sqlite3, sys
from decimal import Decimal, ROUND_HALF_UP
r = json.load(open(sys.argv[1]), parse_float=Decimal)
start = sqlite3.connect(sys.argv[2]).execute('SELECT startNs FROM STEP WHERE stepId = 2').fetchone()[0]
print(len(r), r[0]['ID'], r[0]['Iteration ID'],
      r[0]['Iteration Start'] == (Decimal(start) / 1000).quantize(Decimal('0.01'), ROUND_HALF_UP))
PY
)" "1 3 2 True"

# --- msprof's messages for bad values ------------------------------------------------------------------
a_run "query -h" 0 "$MSPROF" query -h
t_grep "-h lists the data types" "0 cluster scene, 1 step trace, 8 host sys usage" "$T_WORK/out"
a_run "export summary --help" 0 "$MSPROF" export summary --help
t_grep "--help lists its options" "--format <export_format>" "$T_WORK/out"
a_run "--id without --data-type" 1 "$MSPROF" query -dir "$W" --id 3
t_grep "msprof's data type message" "[ERROR] The query data type is wrong. Please enter a valid value." "$T_WORK/err"
a_run "--data-type 11" 2 "$MSPROF" query -dir "$W" --data-type 11
t_grep "argparse's choice message" "argument --data-type: invalid choice: 11 (choose from 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)" "$T_WORK/err"
a_run "--id x" 2 "$MSPROF" query -dir "$W" --data-type 1 --id x
t_grep "argparse's int message" "argument --id: invalid int value: 'x'" "$T_WORK/err"
a_run "--data-type 1 without --id" 1 "$MSPROF" query -dir "$W" --data-type 1 --model-id 4294967295
t_grep "msprof's id message" "The query id is wrong. Please enter a valid value." "$T_WORK/err"
a_run "--id -2" 1 "$MSPROF" query -dir "$W" --data-type 1 --id -2 --model-id 4294967295
a_run "--data-type 1 without --model-id" 1 "$MSPROF" query -dir "$W" --data-type 1 --id 3
t_grep "msprof's model id message" "The query model id is wrong. Please enter a valid value." "$T_WORK/err"
a_run "--iteration-id 0" 1 "$MSPROF" query -dir "$W" --data-type 1 --id -1 --model-id 4294967295 --iteration-id 0
t_grep "msprof's iteration message" "The query iteration id is wrong. Please enter a valid value." "$T_WORK/err"
a_run "all ids without an iteration" 1 "$MSPROF" query -dir "$W" --data-type 1 --id -1 --model-id 4294967295
t_eq "msprof's status line" "$(json "s['status'], s['info']")" \
	"1 For querying all devices data, you should input a valid iteration id."
a_run "one id with an iteration" 1 "$MSPROF" query -dir "$W" --data-type 1 --id 3 --model-id 4294967295 --iteration-id 2
t_eq "msprof's status line" "$(json "s['status'], s['info']")" \
	"1 For querying single device data, you should not input a iteration id."
a_run "an id with no steps" 0 "$MSPROF" query -dir "$W" --data-type 1 --id 4 --model-id 4294967295
t_eq "status 1, msprof's words and why" "$(json "s['status'], s['info'][:64]")" "1 Query step trace data failed. id 4 has no steps (the ids are the"
a_run "a model id with no steps" 0 "$MSPROF" query -dir "$W" --data-type 1 --id 3 --model-id 5
t_grep "it names the model id to use" "model id 4294967295" "$T_WORK/out"

# --- data types with no data: named, with the reason ----------------------------------------------------
for t in 2:"fops analysis" 3:"data preparation" 4:"parallel tuning" 5:"parallel data" 6:"cluster communication" \
	7:"communication matrix" 9:"cluster communication critical path" 10:"communication matrix critical path"; do
	n=${t%%:*} name=${t#*:}
	a_run "--data-type $n" 0 "$MSPROF" query -dir "$W" --data-type "$n" --id 3 --model-id 0 --iteration-id 1
	t_eq "data type $n: status 1 naming it and why" "$(json "s['status'], s['info'].split(':')[0], 'needs' in s['info']")" \
		"1 Query data type $n ($name) has no data in '$W' True"
done

# --- 8: host sys usage, from the samples in the database -------------------------------------------------
a_run "query --data-type 8 --id 3 --model-id 4294967295" 0 "$MSPROF" query -dir "$W" --data-type 8 --id 3 --model-id 4294967295
t_eq "host sys usage: status 0, the query dir" "$(json "s['status'], s['data']")" "0 $(realpath "$W")/query"
Q=$(realpath "$W")/query
PID=$(qa "SELECT pid FROM AGENT_PROCESS")
t_eq "system CPU: every interval's share of user, system, iowait and idle ticks" "$(python3 - "$(DB "$A")" "$Q" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute('SELECT timestampNs, user + nice, system + irq + softirq, iowait, idle FROM SYS_CPU '
                  'WHERE cpuId = -1 ORDER BY timestampNs').fetchall()
want = []
for a, b in zip(rows, rows[1:]):
    d = [y - x for x, y in zip(a[1:], b[1:])]
    if sum(d):
        want.append((a[0], [100.0 * v / sum(d) for v in d]))
got = json.load(open(sys.argv[2] + '/host_sys_cpu_usage_3_4294967295.json'))
assert len(want) >= 2, 'too few samples: %d' % len(want)
assert len(got['data']) == len(want), (len(got['data']), len(want))
for g, (t, w) in zip(got['data'], want):
    assert all(abs(g[k] - v) < 0.006 for k, v in zip(('user_usage', 'sys_usage', 'io_usage', 'idle_usage'), w)), (g, w)
    assert abs(g['timestamp'] - (t - want[0][0]) / 1e9) < 0.006, (g, t)
print('ok', got['info']['cpu_nums'] == int(json.load(open(sys.argv[1].rsplit('/', 1)[0] + '/host/info.json'))['cpuNums']))
PY
)" "ok True"
t_eq "system memory: used share of MemTotal per sample" "$(python3 - "$(DB "$A")" "$Q" <<'PY'
import json, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute('SELECT memTotal, memFree FROM SYS_MEM ORDER BY timestampNs').fetchall()
got = json.load(open(sys.argv[2] + '/host_sys_mem_usage_3_4294967295.json'))
assert len(got['data']) == len(rows) > 0
assert all(abs(g['mem_usage'] - 100.0 * (t - f) / t) < 0.006 for g, (t, f) in zip(got['data'], rows))
print(got['info']['total_mem'] == rows[0][0])
PY
)" "True"
t_eq "the process's memory: statm pages as MB, every sample" "$(python3 - "$(DB "$A")" "$Q" "$PID" <<'PY'
import json, os, sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute('SELECT sizePages, residentPages, sharedPages FROM PROCESS_MEM_USAGE '
                                            'WHERE pid = ? ORDER BY timestampNs', (int(sys.argv[3]),)).fetchall()
f = sys.argv[2] + '/host_pid_mem_usage_3_4294967295.json'
if not rows:
    print('ok' if not os.path.exists(f) else 'written without samples')
else:
    got = json.load(open(f))
    assert got['info']['cur_pid'] == int(sys.argv[3])
    print('ok' if [(g['size'], g['resident'], g['shared']) for g in got['data']] ==
          [(s // 256, r // 256, h // 256) for s, r, h in rows] else 'differs')
PY
)" "ok"
[ -e "$Q/host_pid_cpu_usage_3_4294967295.json" ] && t_fail "host_pid_cpu_usage written" || t_ok "no host_pid_cpu_usage"
t_grep "it says why host_pid_cpu_usage is missing" "host_pid_cpu_usage is not written" "$T_WORK/out"
a_run "--data-type 8 without --id" 1 "$MSPROF" query -dir "$W" --data-type 8
a_run "--data-type 8 --id of no process" 0 "$MSPROF" query -dir "$W" --data-type 8 --id 9
t_grep "status 1 naming the id" '"Query host sys usage data failed. No process has id 9' "$T_WORK/out"

# --- several processes: ranks 0 and 1 of a second recording beside the first ------------------------------
a_run "record steps-app fork (RANK=0, its child RANK=1)" 0 env "${PRE[@]}" RANK=0 timeout 60 "$MSPROF" \
	--msproftx=on --output="$W" "$AGENT_BIN/steps-app" fork
a_run "cluster scene over ranks 3, 0, 1" 0 "$MSPROF" query -dir "$W" --data-type 0
t_eq "distinct ranks: 1" "$(json "s['data']")" "1"
want=0
for p in "$W"/PROF_*; do want=$((want + $(t_sql "$(DB "$p")" "SELECT COUNT(*) FROM STEP WHERE stepId = 1"))); done
a_run "step 1 of every id" 0 "$MSPROF" query -dir "$W" --data-type 1 --id -1 --model-id 4294967295 --iteration-id 1
t_eq "step 1: one row per process that has it" "$(python3 -c "import json, sys
print(len(json.load(open(sys.argv[1]))))" "$(json "s['data']")")" "$want"

# --- system data only ---------------------------------------------------------------------------------------
a_run "record system data (--host-sys-usage, no application)" 0 timeout 60 "$MSPROF" --host-sys-usage=cpu,mem \
	--sys-period=1 --output="$T_WORK/sys"
S=$(t_prof_dir "$T_WORK/sys")
a_run "cluster scene of system data: no rank" 0 "$MSPROF" query -dir "$T_WORK/sys" --data-type 0
t_eq "no ranks: 0" "$(json "s['data']")" "0"
mv "$S" "$W"/ && a_run "a PROF dir without ranks among ranked ones" 0 "$MSPROF" query -dir "$W" --data-type 0
t_eq "not every process has a rank: 0" "$(json "s['data']")" "0"
S=$W/$(basename "$S")
a_run "--export=on of system data" 0 "$MSPROF" --export=on --output="$S"
[ -n "$(ls "$S"/mindstudio_profiler_output/sys_mem_*.csv 2>/dev/null)" ] && t_ok "system data export: sys_mem CSV" ||
	t_fail "system data export: no sys_mem CSV"
a_run "--export=on --model-id --iteration-id of system data" 1 "$MSPROF" --export=on --output="$S" \
	--model-id=4294967295 --iteration-id=1
t_grep "msprof's refusal, with the reason" "The step export is not supported: '$S' holds system data only" "$T_WORK/err"
a_run "msprof export summary --model-id --iteration-id of system data" 1 "$MSPROF" export summary -dir "$S" \
	--model-id 4294967295 --iteration-id 1
t_grep "the same refusal" "The step export is not supported" "$T_WORK/err"
a_run "--export=on --model-id of the application's data still works" 0 "$MSPROF" --export=on --output="$A" \
	--model-id=4294967295 --iteration-id=1
t_done
