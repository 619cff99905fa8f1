#!/bin/bash
# Self-enable: jobs that never saw msprof, with the agent loaded (LD_PRELOAD,
# or `import mstx` in Python) and MSPROF_OPTIONS in their environment,
# leave an exported PROF dir when they exit.  A C job's MSTX_EVENTS hold
# exactly its marks; its children (forked, exec'd) are in the same PROF dir;
# a bad option is msprof's message once on the job's stderr and the job runs
# unprofiled with its own exit status; so does a job whose msprof cannot be
# found; start_step/stop_step in MSPROF_CONFIG record those steps alone.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
APP=$AGENT_BIN/self-app
EV="FROM MSTX_EVENTS e JOIN STRING_IDS m ON m.id = e.message"
# a sanitized msprof and msprofd take seconds to come up: the job waits longer
[ -n "${ASAN_LIB:-}" ] && export MSPROF_SELF_WAIT_MS=30000

# self_wait OUT PID: the detached msprof of job PID has ended (its log's last line)
self_wait() {
	t_wait "the self-enabled msprof of $2 ends" grep -q "The self-enabled profiling of process $2 has ended" \
		"$1/msprof_self_$2.log"
}
# self_db OUT: the database of the one PROF dir in OUT
self_db() { local p; p=$(t_prof_dir "$1") && ls "$p"/msprof_*.db; }
# config_job WHAT CWD CONFIG N ERR: "$APP" steps N in CWD with MSPROF_CONFIG=CONFIG
# (stderr to ERR), JOB its pid: it exits 0 and its self-enabled msprof ends
config_job() {
	(cd "$2" && exec env LD_PRELOAD="$A_PRELOAD" MSPROF_CONFIG="$3" "$APP" steps "$4" >/dev/null 2>"$5") &
	JOB=$!
	wait $JOB
	t_eq "$1 exits 0" $? 0
	self_wait "$2" "$JOB"
}

# --- MSPROF_OPTIONS, LD_PRELOAD: exactly the job's marks ------------------------------
O=$T_WORK/opts; mkdir -p "$O"
LD_PRELOAD=$A_PRELOAD MSPROF_OPTIONS="--output=$O --msproftx=on" "$APP" marks 50 2 3 >"$T_WORK/o1" 2>"$T_WORK/e1" &
JOB=$!
wait $JOB
t_eq "the job's exit status is its own" $? 3
t_grep "one line says where the log is" "msprof profiles process $JOB (MSPROF_OPTIONS) until it exits; its log is $O/msprof_self_$JOB.log" "$T_WORK/e1"
self_wait "$O" "$JOB"
if DB=$(self_db "$O"); then
	t_eq "MSTX_EVENTS hold exactly the 50 marks, in order" \
		"$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value AS v $EV ORDER BY e.startNs)")" \
		"$(seq -s, -f 'm%g' 0 49)"
	t_eq "the PROF dir is exported" "$(ls "$(t_prof_dir "$O")"/mindstudio_profiler_output/msprof_tx_*.csv | wc -l)" 1
fi

# --- children: in the job's PROF dir, none of their own --------------------------------
C=$T_WORK/child; mkdir -p "$C"
LD_PRELOAD=$A_PRELOAD MSPROF_OPTIONS="--output=$C --msproftx=on" "$APP" child >"$T_WORK/o2" 2>"$T_WORK/e2"
t_eq "the parent job exits 0" $? 0 || cat "$T_WORK/e2" >&2
read -r P F X <"$T_WORK/o2"
self_wait "$C" "$P"
t_eq "one log: the children started no msprof of their own" "$(ls "$C"/msprof_self_*.log | wc -l)" 1
if DB=$(self_db "$C"); then
	got=$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value || '@' || (e.globalTid >> 32) AS v $EV ORDER BY m.value)")
	# ASan's allocator is not fork-safe (GCC 12's libasan; agent-fork-threads):
	# the forked child's new agent thread can wait forever on its lock, seen
	# as a futex wait in libasan's region before the thread's first line, so
	# its mark cannot be written; then it must be said lost (the job's stderr,
	# the export's summary), never silent.
	# The plain build checks the mark.
	if [ -n "${ASAN_LIB:-}" ] && [ "$got" = "exec-a@$X,parent-a@$P,parent-b@$P" ] &&
		grep -qE "did not write this process's last annotations before it ended: [0-9]+ bytes" "$T_WORK/e2" &&
		grep -q "agent: process $F ended before its agent thread wrote its last annotations" \
			"$C/msprof_self_$P.log"; then
		t_ok "sanitized build: the forked child's mark, its agent thread held by libasan's lock, is said lost" \
			"on its stderr and in the export"
	else
		t_eq "the parent's, the forked and the exec'd child's marks in one PROF dir" "$got" \
			"exec-a@$X,fork-a@$F,parent-a@$P,parent-b@$P"
	fi
fi

# --- a bad option: msprof's message, once; unprofiled; the exit status kept -----------------
B=$T_WORK/bad; mkdir -p "$B"
LD_PRELOAD=$A_PRELOAD MSPROF_OPTIONS="--output=$B --msproftx=maybe" "$APP" child >"$T_WORK/o3" 2>"$T_WORK/e3"
t_eq "with a bad option the job exits 0 as it would" $? 0
t_eq "msprof's message, once" "$(grep -c "msproftx" "$T_WORK/e3")" 2
t_grep "the bad option named" "Argument --msproftx" "$T_WORK/e3"
t_eq "said once for the job and its children" "$(grep -c "runs unprofiled" "$T_WORK/e3")" 1
t_eq "no PROF dir, no log" "$(ls "$B" | wc -l)" 0

# --- what self-enable cannot honour: refused by name; unprofiled; nothing left running -------
# (MSPROF_OPTIONS=--pid=1 once attached pid 1's whole tree and outlived the job)
R=$T_WORK/refused; mkdir -p "$R"
refused() { # refused NAME WANT_IN_MESSAGE ENV...: a job of 500 ms exiting 6 with ENV
	local name=$1 want=$2; shift 2
	env LD_PRELOAD="$A_PRELOAD" "$@" "$APP" marks 5 100 6 >/dev/null 2>"$T_WORK/r.err" &
	local job=$!
	wait $job
	t_eq "$name: the job keeps its exit status" $? 6
	t_grep "$name: named, with what to do" "$want" "$T_WORK/r.err"
	t_grep "$name: the job runs unprofiled" "process $job runs unprofiled" "$T_WORK/r.err"
	t_eq "$name: said once" "$(grep -c "has no place in" "$T_WORK/r.err")" 1
	t_check "$name: no msprof left for the job" sh -c "! pgrep -f 'msprof self-enable $job\$|--pid=$job( |\$)' >/dev/null"
}
refused "--pid" "--pid has no place in MSPROF_OPTIONS: self-enable profiles the process it is loaded in" \
	MSPROF_OPTIONS="--output=$R --msproftx=on --pid=1"
refused "--pid as a prefix, its value apart" "--pid has no place in MSPROF_OPTIONS" \
	MSPROF_OPTIONS="--output=$R --pi 1"
refused "--dynamic" "--dynamic has no place in MSPROF_OPTIONS" MSPROF_OPTIONS="--output=$R --dynamic=on"
refused "an application" "'sleep' has no place in MSPROF_OPTIONS: self-enable profiles the process it is loaded in" \
	MSPROF_OPTIONS="--output=$R sleep 100"
refused "an option of export mode" "--export has no place in MSPROF_OPTIONS: it is an option of msprof run from a terminal" \
	MSPROF_OPTIONS="--output=$R --export=on"
refused "an option of launch mode" "--duration has no place in MSPROF_OPTIONS" \
	MSPROF_OPTIONS="--output=$R --duration=5"
printf '{"start": true, "options": "--output=%s --msproftx=on --pid=1"}' "$R" >"$T_WORK/refused.json"
refused "MSPROF_CONFIG's options" "MSPROF_CONFIG '$T_WORK/refused.json': --pid has no place in MSPROF_CONFIG's options" \
	MSPROF_CONFIG="$T_WORK/refused.json"
t_eq "refused: no PROF dir, no log" "$(ls "$R" | wc -l)" 0

# --- no msprof to be found ------------------------------------------------------------------
LD_PRELOAD=$A_PRELOAD MSPROF_BIN=/nonexistent MSPROF_OPTIONS="--output=$B --msproftx=on" "$APP" marks 3 0 5 \
	>/dev/null 2>"$T_WORK/e4"
t_eq "without msprof the job keeps its exit status" $? 5
a_expect_stderr "$T_WORK/e4" \
	"msprof agent: MSPROF_OPTIONS is set but msprof cannot be found: MSPROF_BIN names no executable file; the program runs unprofiled"

# --- start_step/stop_step: those steps' marks alone ---------------------------------------------
S=$T_WORK/steps; mkdir -p "$S"
echo '{"start_step": 2, "stop_step": 3, "options": "--output='"$S"' --msproftx=on"}' >"$T_WORK/steps.json"
mkdir -p "$T_WORK/cwd"
# without --output in MSPROF_OPTIONS the log is in the job's directory (the current one)
config_job "the stepping job" "$T_WORK/cwd" "$T_WORK/steps.json" 6 "$T_WORK/e5"
if DB=$(self_db "$S"); then
	t_eq "the marks of steps 2 and 3 alone" \
		"$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value AS v $EV WHERE m.value LIKE 's_-_' ORDER BY m.value)")" \
		"s2-a,s2-b,s3-a,s3-b"
fi

# --- "schedule": --schedule's windows from the file ----------------------------------------------
# wait 1, warmup 1, active 2, once: steps 2 and 3 of the 6
Q=$T_WORK/sched; mkdir -p "$Q" "$T_WORK/cwd3"
echo '{"schedule": {"wait": 1, "warmup": 1, "active": 2, "repeat": 1}, "options": "--output='"$Q"' --msproftx=on"}' \
	>"$T_WORK/sched.json"
config_job "the job of a schedule" "$T_WORK/cwd3" "$T_WORK/sched.json" 6 "$T_WORK/e6"
if DB=$(self_db "$Q"); then
	t_eq "schedule: the marks of steps 2 and 3 alone" \
		"$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value AS v $EV WHERE m.value LIKE 's_-_' ORDER BY m.value)")" \
		"s2-a,s2-b,s3-a,s3-b"
fi
# a schedule msprof does not take, as a string or an object with a bad
# value after good ones: said in the log, the job runs on
for bad in '"wait=1,activ=2"' '{"wait": 1, "active": -2}'; do
	echo "{\"schedule\": $bad}" >"$T_WORK/sched-bad.json"
	config_job "the job of a bad schedule ($bad)" "$T_WORK/cwd3" "$T_WORK/sched-bad.json" 3 "$T_WORK/e6b"
	t_grep "a bad schedule ($bad) is said in the log" "is ignored: 'schedule' must be --schedule's form" \
		"$T_WORK/cwd3/msprof_self_$JOB.log"
done

# --- torch_npu's profiler_config.json as it is: its window, keys and metadata --------------------
# (as torch_npu's documentation shows the file: every key, most at their
# defaults; start_step 1 with 1 warmup step and 2 active ones records steps
# 2 and 3; two keys ask for NPU-only data and are named once each)
N=$T_WORK/npu; mkdir -p "$N" "$T_WORK/cwd2"
cat >"$T_WORK/profiler_config.json" <<EOF
{
    "activities": ["CPU", "NPU"],
    "prof_dir": "$N",
    "analyse": false,
    "record_shapes": true,
    "profile_memory": false,
    "with_stack": false,
    "with_flops": false,
    "with_modules": false,
    "active": 2,
    "warmup": 1,
    "start_step": 1,
    "is_rank": false,
    "rank_list": [],
    "async_mode": false,
    "experimental_config": {
        "profiler_level": "Level1",
        "aic_metrics": "AiCoreNone",
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
    "metadata": {"job": "npu-config", "distributed_args": {"world_size": 1}}
}
EOF
config_job "the job of a torch_npu config" "$T_WORK/cwd2" "$T_WORK/profiler_config.json" 6 "$T_WORK/e7"
L=$T_WORK/cwd2/msprof_self_$JOB.log
if DB=$(self_db "$N"); then
	P=$(t_prof_dir "$N")
	t_eq "torch_npu config: start_step 1, warmup 1, active 2: the marks of steps 2 and 3 alone" \
		"$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value AS v $EV WHERE m.value LIKE 's_-_' ORDER BY m.value)")" \
		"s2-a,s2-b,s3-a,s3-b"
	t_grep "torch_npu config: host_sys reaches sample.json" '"host_sys":"cpu,mem"' "$P/host/sample.json"
	t_grep "torch_npu config: mstx turns annotations on" '"msproftx":"on"' "$P/host/sample.json"
	t_check "torch_npu config: metadata kept as profiler_metadata.json" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(not (m["job"] == "npu-config" and m["distributed_args"]["world_size"] == 1))' "$P/profiler_metadata.json"
fi
for k in record_shapes profiler_level; do
	t_eq "torch_npu config: '$k' (NPU-only data asked for) named once" \
		"$(grep -c "MSPROF_CONFIG: '$k' asks for data of torch_npu's profiler or an Ascend NPU" "$L")" 1
done
t_eq "torch_npu config: keys at their defaults are not named" "$(grep -c "asks for data of torch_npu" "$L")" 2

# --- Python: `import mstx` loads the agent itself ---------------------------------------------
if [ -n "${MSTX_PYTHON:-}" ]; then
	Y=$T_WORK/py; mkdir -p "$Y"
	# (a sanitized package needs the ASan runtime first; the interpreter's leaks are not ours)
	env ${ASAN_LIB:+LD_PRELOAD=$ASAN_LIB ASAN_OPTIONS=detect_leaks=0} \
		PYTHONPATH="$MSTX_PYTHONPATH" MSPROF_OPTIONS="--output=$Y --msproftx=on" \
		"$MSTX_PYTHON" "$SRCDIR/tests/python/mstx-job.py" >"$T_WORK/o6" 2>&1
	t_eq "the Python job exits 0" $? 0
	t_grep "mstx is enabled by MSPROF_OPTIONS alone" "enabled True" "$T_WORK/o6"
	PJ=$(sed -n 's/^enabled True pid //p' "$T_WORK/o6")
	self_wait "$Y" "$PJ"
	if DB=$(self_db "$Y"); then
		t_eq "the Python job's five marks" \
			"$(t_sql "$DB" "SELECT group_concat(v) FROM (SELECT m.value AS v $EV WHERE m.value LIKE 'm_' ORDER BY e.startNs)")" \
			"m0,m1,m2,m3,m4"
	fi
else
	echo "# the mstx package was not built: its self-enable is not checked"
fi
# --- MSPROF_OPTIONS with --flight-recorder: the job's exit dumps ------------------------
F=$T_WORK/flight
mkdir -p "$F"
LD_PRELOAD=$A_PRELOAD MSPROF_RING_DIR=$F MSPROF_OPTIONS="--output=$F --flight-recorder=60s" \
	"$HELPERS/test-capture-app" steps 12 100 8 100 fail >"$T_WORK/of" 2>"$T_WORK/ef"
t_eq "flight: the job keeps its exit status" "$?" 3
JOB=$(sed -n 's/^\[INFO\] msprof profiles process \([0-9]*\) .*/\1/p' "$T_WORK/ef")
self_wait "$F" "$JOB"
t_grep "flight: the process's exit dumped its recorder" "dump (exit: process $JOB" "$F/msprof_self_$JOB.log"
FP=$(t_prof_dir "$F")
want=$(for k in 0 1 2 3 4 5 6 7 8; do sed -n "s/^marks s$k \([0-9]*\)$/\1/p" "$T_WORK/of"; done | awk '{ s += $1 } END { print s + 0 }')
t_eq "flight: the dump holds every mark of steps 0-8" \
	"$(t_sql "$(ls "$FP"/msprof_*.db)" "SELECT count(*) $EV WHERE m.value LIKE 's%-%'")" "$want"

# --- MSPROF_CONFIG's "flight_recorder" alone: the recorder runs from the attach -----------
G=$T_WORK/flight-config
mkdir -p "$G/cwd"
echo "{\"flight_recorder\": \"60s\", \"options\": \"--output=$G\"}" >"$G/config.json"
(cd "$G/cwd" && exec env LD_PRELOAD="$A_PRELOAD" MSPROF_RING_DIR="$G" MSPROF_CONFIG="$G/config.json" \
	"$HELPERS/test-capture-app" steps 12 100 8 100 fail >"$T_WORK/og" 2>"$T_WORK/eg")
t_eq "flight config: the job keeps its exit status" "$?" 3
JOB=$(sed -n 's/^\[INFO\] msprof follows MSPROF_CONFIG .* for process \([0-9]*\);.*/\1/p' "$T_WORK/eg")
self_wait "$G/cwd" "$JOB"
t_grep "flight config: the recorder runs" "MSPROF_CONFIG: the flight recorder records" "$G/cwd/msprof_self_$JOB.log"
t_grep "flight config: the process's exit dumped it" "dump (exit: process $JOB" "$G/cwd/msprof_self_$JOB.log"

t_done
