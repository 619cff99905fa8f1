#!/bin/bash
# Communication from NCCL kernels, two ranks of a fake-GPU job: two
# test-cuda-app processes (RANK=0 and RANK=1, one msprof each, at once)
# whose fake CUPTI (FAKE_CUPTI_KERNEL_NAMES) names its kernels after NCCL's,
# with one compute kernel among them.  Each rank's COMMUNICATION_OP must
# hold exactly its NCCL kernels (read from TASK and GPU_TASK in the same
# database: count, times, types from the names), the same operation names
# on both ranks; the Communication layer, communication_statistic, and
# analyze's communication.json, communication_matrix.json (the rank's self
# link LOCAL) and --type=db communication_analyzer.db must agree with them.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/cupti-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"

NAMES="ncclDevKernel_AllReduce_Sum_f32_RING_LL,_Z6kernelv"
NAMES+=",_Z39ncclKernel_AllGather_RING_LL_Sum_int8_t24ncclDevKernelArgsStorageILm4096EE"
NAMES+=",ncclDevKernel_SendRecv,ncclKernel_ReduceScatter_RING_SIMPLE_Sum_half"
pids=()
for r in 0 1; do
	mkdir -p "$T_WORK/r$r"
	(
		export RANK=$r WORLD_SIZE=2 MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=9 \
			FAKE_CUPTI_KERNEL_NAMES="$NAMES" MSPROF_NVIDIA_CTL=/dev/null
		t_msprof --output="$T_WORK/r$r" "$APP" "$T_WORK/r$r.pid" 300
	) >"$T_WORK/r$r.log" 2>&1 &
	pids+=($!)
done
for r in 0 1; do
	wait "${pids[$r]}"
	t_eq "rank $r: msprof exits 0" $? 0
done

for r in 0 1; do
	P=$(t_prof_dir "$T_WORK/r$r") || exit 1
	t_msprof --analyze=on --output="$P" >"$T_WORK/an$r.log" 2>&1
	t_eq "rank $r: msprof --analyze=on exits 0" $? 0
	t_msprof --analyze=on --type=db --output="$P" >>"$T_WORK/an$r.log" 2>&1
	t_eq "rank $r: msprof --analyze=on --type=db exits 0" $? 0
	if python3 - "$P" "$r" >"$T_WORK/check$r.txt" 2>&1 <<'EOF'; then
import csv, glob, json, os, re, sqlite3, sys
prof, rank = sys.argv[1], int(sys.argv[2])
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"rank {rank}: {what}: got {got!r}, want {want!r}")
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
# ground truth: the kernels as recorded, and msprof's type of each NCCL one
types = {"AllReduce": "hcom_allReduce_", "AllGather": "hcom_allGather_", "SendRecv": "hcom_batchSendRecv_",
         "ReduceScatter": "hcom_reduceScatter_"}
dtypes = {"f32": "FP32", "int8_t": "INT8", "half": "FP16"}
kernels = q("SELECT t.globalTaskId, t.startNs, t.endNs, g.name FROM TASK t JOIN GPU_TASK g "
            "ON g.rowid = t.globalTaskId WHERE g.kind = 1 ORDER BY t.startNs, t.globalTaskId")
want, seen = [], {}
for tid, s, e, name in kernels:
    m = re.search(r"nccl(?:Dev)?Kernel_([A-Za-z]+)", name)
    if not m:
        continue
    t = types[m.group(1)]
    dt = next((v for k, v in dtypes.items() if "_" + k in name), "N/A")
    want.append((f"{t}_{seen.get(t, 0)}_0_1", s, e, t, dt, "nccl_world_group", tid))
    seen[t] = seen.get(t, 0) + 1
check("kernels recorded", len(kernels), 9)
check("NCCL kernels", len(want), 7)
got = q("SELECT n.value, o.startNs, o.endNs, t.value, d.name, g.value, c.globalTaskId FROM COMMUNICATION_OP o "
        "JOIN STRING_IDS n ON n.id = o.opName JOIN STRING_IDS t ON t.id = o.opType "
        "JOIN ENUM_HCCL_DATA_TYPE d ON d.id = o.dataType JOIN STRING_IDS g ON g.id = o.groupName "
        "JOIN COMMUNICATION_TASK_INFO c ON c.opId = o.opId ORDER BY o.opId")
check("COMMUNICATION_OP (name, times, type, data type, group, task)", got, want)
# msprof keeps communication tasks out of COMPUTE_TASK_INFO: only the compute kernels are there
check("COMPUTE_TASK_INFO holds the other kernels", sorted(r[0] for r in q("SELECT globalTaskId FROM COMPUTE_TASK_INFO")),
      sorted(k[0] for k in kernels if not re.search(r"nccl(?:Dev)?Kernel_", k[3])))
# the timeline: the Communication process holds these, ts as the kernels'
tl = json.load(open(glob.glob(os.path.join(prof, "mindstudio_profiler_output", "msprof_*.json"))[0]))
pid = [e["pid"] for e in tl if e.get("ph") == "M" and e["name"] == "process_name" and e["args"]["name"] == "Communication"]
check("one Communication process", len(pid), 1)
ev = sorted((e["name"], e["ts"], e["dur"]) for e in tl if pid and e["pid"] == pid[0] and e["ph"] == "X")
fmt = lambda ns: f"{ns // 1000}.{ns % 1000:03d}"
check("Communication layer", ev, sorted((w[0], fmt(w[1]), (w[2] - w[1]) / 1000) for w in want))
meta = {e["name"]: e["args"] for e in tl if pid and e["pid"] == pid[0] and e["ph"] == "M" and e["tid"] == 0}
# and Ascend Hardware still shows each kernel by name
hw = [e["pid"] for e in tl if e.get("ph") == "M" and e["name"] == "process_name" and e["args"]["name"] == "Ascend Hardware"]
hw_names = sorted(e["name"] for e in tl if hw and e["pid"] == hw[0] and e["ph"] == "X")
check("Ascend Hardware kernel names", [n for n in hw_names if "ncclDevKernel_AllReduce" in n],
      ["ncclDevKernel_AllReduce_Sum_f32_RING_LL"] * sum("ncclDevKernel_AllReduce" in k[3] for k in kernels))
check("Communication process", (meta["process_labels"]["labels"], meta["process_sort_index"]["sort_index"]),
      ("NPU 0", 16))
# communication_statistic: count and total per type
st = list(csv.reader(open(glob.glob(os.path.join(prof, "mindstudio_profiler_output",
                                                  "communication_statistic_*.csv"))[0])))
check("communication_statistic header", st[0], ["Device_id", "OP Type", "Count", "Total Time(us)", "Min Time(us)",
                                                 "Avg Time(us)", "Max Time(us)", "Ratio(%)"])
agg = {}
for w in want:
    n, tot = agg.get(w[3], (0, 0))
    agg[w[3]] = (n + 1, tot + w[2] - w[1])
check("communication_statistic rows", sorted((r[1], int(r[2]), r[3]) for r in st[1:]),
      sorted((t, n, fmt(tot)) for t, (n, tot) in agg.items()))
# analyze: one entry per operation (+ Total Op Info), the self link of this rank
comm = json.load(open(os.path.join(prof, "analyze", "communication.json")))
keys = {f"{w[0]}@{w[5]}" for w in want}
check("communication.json keys", set(comm), keys | {"Total Op Info"})
for w in want:
    info = comm[f"{w[0]}@{w[5]}"]["Communication Time Info"]
    check(f"{w[0]} Elapse Time(ms)", round(info["Elapse Time(ms)"], 4), round((w[2] - w[1]) / 1e6, 4))
mx = json.load(open(os.path.join(prof, "analyze", "communication_matrix.json")))
check("communication_matrix.json keys", set(mx), keys)
check("self links LOCAL", {k: v[f"{rank}-{rank}"]["Transport Type"] for k, v in mx.items()},
      {k: "LOCAL" for k in keys})
adb = sqlite3.connect(os.path.join(prof, "analyze", "communication_analyzer.db"))
check("CommAnalyzerTime", sorted(r[0] for r in adb.execute("SELECT hccl_op_name FROM CommAnalyzerTime")),
      sorted(w[0] for w in want))
check("CommAnalyzerMatrix self links", adb.execute(
    "SELECT count(*), sum(src_rank = ? AND dst_rank = ? AND transport_type = 'LOCAL') FROM CommAnalyzerMatrix",
    (str(rank), str(rank))).fetchone(), (len(want), len(want)))
print("\n".join(w[0] for w in want))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
		t_ok "rank $r: COMMUNICATION_OP, the layer, communication_statistic and analyze's files hold its NCCL kernels"
	else
		cat "$T_WORK/check$r.txt" >&2
		t_fail "rank $r: communication outputs differ from the kernels (see above)"
	fi
done
# the cluster tools match operations across ranks by name and group
t_check "both ranks name their operations alike" cmp -s "$T_WORK/check0.txt" "$T_WORK/check1.txt"
t_done
