#!/bin/bash
# msprof's own command lines: every option of msprof's collection table
# (reference §1.2) given once, with a valid value, to a small job: accepted,
# exit 0, and each of Ascend's options either mapped (one [INFO] line naming
# it, and the data it maps to is there) or warned about (one [WARNING] line
# naming it).  Then --application with a quoted command line, resolved and
# written as a shell user expects, and --sys-devices system mode.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
cd "$T_WORK" || exit 1

# run TAG OPTIONS... -- JOB...: msprof into $T_WORK/TAG, its output in TAG.log
run() {
	local tag=$1 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	mkdir -p "$T_WORK/$tag"
	t_msprof --output="$T_WORK/$tag" "${opts[@]}" "$@" >"$T_WORK/$tag.log" 2>&1
	t_eq "$tag: msprof exits 0" $? 0 || cat "$T_WORK/$tag.log" >&2
}

# one_line TAG KIND OPTION=VALUE: exactly one KIND line names the option
one_line() {
	local n
	n=$(grep -cF -- "[$2] Argument --$3" "$T_WORK/$1.log")
	t_eq "$1: one [$2] line for --$3" "$n" 1 || cat "$T_WORK/$1.log" >&2
}

# --- Ascend's options without an equivalent: one warning each --------------------
NPU=(aicore-shape=on ge-api=l1 task-memory=on task-tsfw=on task-block=all model-execution=on ai-core=on
	aic-mode=task-based aic-freq=100 aic-metrics=PipeUtilization aiv=on aiv-mode=sample-based aiv-freq=10
	aiv-metrics=PipeUtilization aicpu=on l2=on npu-events=0x1,0x2 llc-profiling=read sys-mem-serviceflow=on
	sys-cpu-profiling=on sys-cpu-freq=50 dvpp-profiling=on dvpp-freq=50 instr-profiling=on
	instr-profiling-freq=1000 sys-lp=on sys-lp-freq=100 nts-metrics=on optype=MatMul)
args=()
for o in "${NPU[@]}"; do args+=("--$o"); done
run npu "${args[@]}" -- /bin/true
for o in "${NPU[@]}"; do one_line npu WARNING "$o is ignored"; done
t_grep "npu: the warning says why" \
	"[WARNING] Argument --aic-metrics=PipeUtilization is ignored: it asks for AI Core PMU metrics, which only an Ascend NPU has." \
	"$T_WORK/npu.log"
P=$(t_prof_dir "$T_WORK/npu") && t_check "npu: the job is still profiled" test -f "$P/host/sample.json"

# --- Ascend's options with an equivalent: one line each, and the data ---------
run mapped --ascendcl=on --task-trace=l0 --sys-profiling=on --sys-sampling-freq=10 --sys-pid-profiling=on \
	--sys-pid-sampling-freq=10 --sys-io-profiling=on --sys-io-sampling-freq=100 -- \
	sh -c 'dd if=/dev/zero of=f bs=1M count=4 conv=fsync 2>/dev/null; sleep 0.4'
for o in ascendcl=on task-trace=l0 sys-profiling=on sys-sampling-freq=10 sys-pid-profiling=on \
	sys-pid-sampling-freq=10 sys-io-profiling=on sys-io-sampling-freq=100; do
	one_line mapped INFO "$o:"
done
if P=$(t_prof_dir "$T_WORK/mapped"); then
	python3 - "$P" <<'EOF' && t_ok "mapped: sample.json and the outputs hold what the options map to" ||
import glob, json, os, sys
prof = sys.argv[1]
s = json.load(open(os.path.join(prof, "host", "sample.json")))
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
check("runtime_api (--ascendcl)", s.get("runtime_api"), "on")
check("task_time (--task-trace)", s.get("task_time"), "l0")
check("host_sys (--sys-pid-profiling, --sys-io-profiling)", s.get("host_sys"), "cpu,mem,disk,network")
check("host_sys_usage (--sys-profiling)", s.get("host_sys_usage"), "cpu,mem")
check("host_sys_usage_freq (--sys-sampling-freq)", s.get("host_sys_usage_freq"), 10)
check("host_sys_freq (--sys-io-sampling-freq, given last)", s.get("host_sys_freq"), 100)
out = os.path.join(prof, "mindstudio_profiler_output")
for f in ("cpu_usage", "sys_mem", "process_cpu_usage", "process_mem", "host_disk_usage"):
    check(f + " CSV", len(glob.glob(os.path.join(out, f + "_*.csv"))), 1)
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
	t_fail "mapped: sample.json or the outputs differ (see above)"
fi

# an option of our own wins over a mapping onto it
run ours --ascendcl=on --runtime-api=off -- /bin/true
t_grep "ours: the mapping gives way" "[INFO] Argument --ascendcl=on: ignored, --runtime-api is given." "$T_WORK/ours.log"
P=$(t_prof_dir "$T_WORK/ours") &&
	t_eq "ours: runtime_api stays off" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runtime_api"])' \
		"$P/host/sample.json")" off

# --hccl=on: the agent goes in and NCCL's plugin records its operations
NCCL="$HELPERS/test-nccl-app"
run hccl --hccl=on -- "$NCCL" run 0 - 1
one_line hccl INFO "hccl=on:"
if P=$(t_prof_dir "$T_WORK/hccl"); then
	ops=$(grep -c '^op ' "$T_WORK/hccl.log")
	rows=$(t_sql "$(ls "$P"/msprof_*.db)" "SELECT count(*) FROM COMMUNICATION_OP" 2>/dev/null || echo 0)
	t_check "hccl: the program reported operations" test "$ops" -gt 0
	t_eq "hccl: every operation the program reported is in COMMUNICATION_OP" "$rows" "$ops"
fi
# without it (no GPU, no --msproftx) NCCL is given no plugin
MSPROF_NVIDIA_CTL=/nonexistent run nohccl -- sh -c 'echo "plugin=${NCCL_PROFILER_PLUGIN:-none}"'
t_grep "without --hccl: no plugin for NCCL" "plugin=none" "$T_WORK/nohccl.log"

# --- every other option of the table, once ----------------------------------------
run table --type=text --storage-limit=200MB --environment=A=1 --task-time=l1 --runtime-api=off --msproftx=on \
	--mstx-domain-include=default --sys-hardware-mem=on --sys-hardware-mem-freq=50 \
	--sys-interconnection-profiling=on --sys-interconnection-freq=50 --host-sys=cpu,mem \
	--host-sys-usage=cpu,mem --host-sys-usage-freq=50 --python-path=python3 -- /bin/true
t_check "table: no warning" sh -c "! grep -F '[WARNING] Argument' '$T_WORK/table.log'"

# --- --application: split and resolved like a shell, written where the user is ----
mkdir -p "$T_WORK/proj"
cat >"$T_WORK/proj/job.sh" <<'EOF'
printf '%s|' "$@" >args.txt
EOF
(cd "$T_WORK/proj" && t_msprof --application="sh job.sh 'a  b' \"c d\" e\\ f" >"$T_WORK/app.log" 2>&1)
t_eq "--application: msprof exits 0" $? 0 || cat "$T_WORK/app.log" >&2
t_eq "--application: quoted words reach the job as the shell passes them" "$(cat "$T_WORK/proj/args.txt")" "a  b|c d|e f|"
t_check "--application: the PROF dir is next to the script, not the interpreter" \
	sh -c "ls -d '$T_WORK'/proj/PROF_* >/dev/null"
SH_DIR=$(dirname "$(readlink -f "$(command -v sh)")")
t_check "--application: nothing written beside the interpreter" sh -c "! ls -d '$SH_DIR'/PROF_* 2>/dev/null"
(cd "$T_WORK/proj" && "$MSPROF" --application="sh 'job.sh" >"$T_WORK/app2.log" 2>&1)
t_eq "--application with an open quote: exit 1" $? 1
t_grep "--application with an open quote: the message" \
	"[ERROR] Argument --application: an unterminated ' quote in 'sh 'job.sh'." "$T_WORK/app2.log"

# --- --sys-devices: msprof's system mode --------------------------------------------
mkdir -p "$T_WORK/sys"
t_msprof --sys-devices=all --sys-period=1 --output="$T_WORK/sys" >"$T_WORK/sys.log" 2>&1
t_eq "system mode: msprof exits 0" $? 0 || cat "$T_WORK/sys.log" >&2
t_grep "system mode: says what it collects" "[INFO] System mode, for 1 s: the host's CPU and memory usage" \
	"$T_WORK/sys.log"
if P=$(t_prof_dir "$T_WORK/sys"); then
	n=$(t_sql "$(ls "$P"/msprof_*.db)" "SELECT count(*) FROM SYS_CPU" 2>/dev/null || echo 0)
	t_check "system mode: the host's CPU usage was sampled ($n rows)" test "$n" -gt 0
fi
FAKE="$HELPERS/libfake-nvml.so"
if [ -f "$FAKE" ]; then
	t_stop_daemon
	mkdir -p "$T_WORK/sysgpu"
	MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_DEVICES=1 t_msprof --sys-devices=0 --sys-period=1 \
		--output="$T_WORK/sysgpu" >"$T_WORK/sysgpu.log" 2>&1
	t_eq "system mode with a (fake) GPU: msprof exits 0" $? 0 || cat "$T_WORK/sysgpu.log" >&2
	t_stop_daemon
	if P=$(t_prof_dir "$T_WORK/sysgpu"); then
		n=$(t_sql "$(ls "$P"/msprof_*.db)" "SELECT count(*) FROM GPU_SAMPLE" 2>/dev/null || echo 0)
		t_check "system mode: the device was sampled ($n GPU_SAMPLE rows)" test "$n" -gt 0
	fi
fi
t_done
