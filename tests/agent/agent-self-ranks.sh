#!/bin/bash
# One torch_npu profiler_config.json on "shared storage" followed by 4
# self-enabled ranks standing for two hosts (MSPROF_HOST_UID hostA for
# ranks 0-1, hostB for 2-3), started 0.3 s apart: the file is written as
# torch_npu's documentation shows it (NPU-only keys included), with
# start_step 6, warmup 1, active 2 (steps 7 and 8 kept), rank_list
# [0, 1, 3] and our deadline_s 3.  The job (test-capture-app) marks every
# 10 ms in steps of 150 ms and counts its marks itself:
#   rank 0  10 steps: its window holds steps 7-8's marks alone, every one
#   rank 1  hangs 5 s in step 7: its window is closed by the deadline,
#           named in its log, with step 7's marks
#   rank 2  not in rank_list: nothing of it is recorded
#   rank 3  reaches step 4 only, then waits 5 s: no window, and its log
#           says that no process reached the steps within the deadline
# Each rank's log is in the job's directory (MSPROF_OPTIONS has no --output).
# Ranks 0 and 1 open their windows at the same step although they started
# apart (their sample.json both name steps 7-9); each rank's log names each
# NPU-only key asking for something once; export cluster of the windows
# merges ranks 0 and 1 at steps 7 and 8.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
APP=$HELPERS/test-capture-app
[ -x "$APP" ] || t_skip "test-capture-app not built (no mstx library)"
OUT=$T_WORK/prof
mkdir -p "$OUT" "$T_WORK/cwd"
CFG=$T_WORK/profiler_config.json
cat >"$CFG" <<JSON
{
    "activities": ["CPU", "NPU"],
    "prof_dir": "$OUT",
    "analyse": false,
    "record_shapes": false,
    "profile_memory": true,
    "with_stack": false,
    "with_flops": false,
    "with_modules": false,
    "active": 2,
    "warmup": 1,
    "start_step": 6,
    "is_rank": true,
    "rank_list": [0, 1, 3],
    "deadline_s": 3,
    "experimental_config": {
        "profiler_level": "Level1",
        "aic_metrics": "PipeUtilization",
        "l2_cache": false,
        "op_attr": false,
        "gc_detect_threshold": null,
        "data_simplification": true,
        "record_op_args": false,
        "export_type": ["text"],
        "mstx_domain_include": [],
        "mstx_domain_exclude": [],
        "host_sys": ["cpu", "mem"],
        "sys_io": false,
        "sys_interconnection": false,
        "mstx": true
    },
    "metadata": {"job": "four-ranks"}
}
JSON
# rank r on host h: its steps (argv after "steps")
start_rank() {
	local r=$1 h=$2
	shift 2
	(cd "$T_WORK/cwd" && exec env LD_PRELOAD="$A_PRELOAD" MSPROF_CONFIG="$CFG" RANK="$r" LOCAL_RANK="$r" \
		WORLD_SIZE=4 MSPROF_HOST_UID="$h" "$APP" steps "$@" >"$T_WORK/r$r.out" 2>"$T_WORK/r$r.err") &
	PIDS[r]=$!
	T_PIDS+=("${PIDS[r]}")
}
PIDS=()
start_rank 0 hostA 10 150
sleep 0.3
start_rank 1 hostA 10 150 7 5000
sleep 0.3
start_rank 2 hostB 10 150
sleep 0.3
start_rank 3 hostB 5 150 4 5000
for r in 0 1 2 3; do
	wait "${PIDS[r]}"
	t_eq "rank $r: the job exits 0" $? 0 || cat "$T_WORK/r$r.err" >&2
done
for r in 0 1 2 3; do
	t_wait "rank $r: its msprof ends" grep -q "The self-enabled profiling of process ${PIDS[r]} has ended" \
		"$T_WORK/cwd/msprof_self_${PIDS[r]}.log"
done
LOG() { echo "$T_WORK/cwd/msprof_self_${PIDS[$1]}.log"; }
# the PROF dir of rank r's window: the one whose info.json names its pid
dir_of() { grep -l "\"pid\":\"\\?${PIDS[$1]}\"\\?[,}]" "$OUT"/PROF_*/host/info.json 2>/dev/null | head -n1 | xargs -r dirname |
	xargs -r dirname; }
marks_of() {
	t_sql "$(ls "$1"/msprof_*.db)" "SELECT group_concat(k || ':' || n, ' ') FROM (SELECT substr(s.value, 1,
		instr(s.value, '-') - 1) AS k, count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message
		JOIN STRING_IDS d ON d.id = e.domainId WHERE d.value = 'default' GROUP BY 1 ORDER BY 1)"
}
job_marks() { sed -n "s/^marks \(s[0-9]*\) \([0-9]*\)$/\1:\2/p" "$T_WORK/r$1.out" | grep -E "^s($2):" | tr '\n' ' ' |
	sed 's/ $//'; }

# rank 0: the window of steps 7-8
D0=$(dir_of 0)
t_check "rank 0: a window" test -n "$D0"
if [ -n "$D0" ]; then
	t_grep "rank 0: its window names steps 7-8" '"step_range":"7-9"' "$D0/host/sample.json"
	t_eq "rank 0: the marks of steps 7 and 8, every one, no other step's" \
		"$(tail -n +2 "$D0"/mindstudio_profiler_output/msprof_tx_*.csv | awk -F, '$12 == "default" { split($11, a, "-"); n[a[1]]++ }
			END { for (k in n) printf "%s:%d\n", k, n[k] }' | sort | tr '\n' ' ' | sed 's/ $//')" "$(job_marks 0 '7|8')"
fi
# rank 1: hangs in step 7; the deadline closes its window
D1=$(dir_of 1)
t_check "rank 1: a window" test -n "$D1"
t_grep "rank 1: the deadline closed its window" "the window of steps 7-9 is closed by its deadline (3 s after it opened)" \
	"$(LOG 1)"
[ -n "$D1" ] && t_grep "rank 1: it opened at the same step as rank 0's" '"step_range":"7-9"' "$D1/host/sample.json"
[ -n "$D1" ] && t_eq "rank 1: step 7's marks, every one" "$(marks_of "$D1" | grep -o 's7:[0-9]*')" "$(job_marks 1 7)"
# rank 2: not in rank_list
D2=$(dir_of 2)
if [ -n "$D2" ]; then
	t_eq "rank 2 (not in rank_list): none of its annotations" "$(marks_of "$D2")" ""
else
	t_ok "rank 2 (not in rank_list): no window"
fi
# rank 3: never reaches step 6
t_eq "rank 3: no window" "$(dir_of 3)" ""
t_grep "rank 3: its log says no process reached the steps in time" \
	"no process reached the steps of --schedule=start_step=6,warmup=1,active=2,repeat=1,deadline=3 within its deadline (3 s)" \
	"$(LOG 3)"
# the NPU-only keys that ask for something, once per rank's log
for r in 0 1 3; do
	for k in profile_memory profiler_level aic_metrics; do
		t_eq "rank $r: '$k' named once" "$(grep -c "MSPROF_CONFIG: '$k' asks for data" "$(LOG "$r")")" 1
	done
	t_eq "rank $r: keys at their defaults are not named" \
		"$(grep -cE "'(record_shapes|l2_cache|sys_io)' asks for data" "$(LOG "$r")")" 0
done
# export cluster of the windows of ranks 0 and 1
if [ -n "$D0" ] && [ -n "$D1" ]; then
	mkdir -p "$T_WORK/cl"
	cp -r "$D0" "$D1" "$T_WORK/cl/"
	"$MSPROF" export cluster -dir "$T_WORK/cl" >"$T_WORK/cl.out" 2>&1
	t_eq "export cluster: exit 0" $? 0 || cat "$T_WORK/cl.out" >&2
	t_eq "export cluster: steps 7 and 8 of rank 0, step 7 of rank 1" \
		"$(tail -n +2 "$T_WORK"/cl/msprof_cluster_output/cluster_step_trace_*.csv | cut -d, -f1,3 | tr '\n' ' ')" \
		"7,Rank 0 7,Rank 1 8,Rank 0 "
fi
t_done
