#!/bin/bash
# Communication from NCCL's profiler plugin: test-nccl-app plays NCCL in
# front of the agent (msprof sets NCCL_PROFILER_PLUGIN to it; the program
# dlopens it and takes ncclProfiler_vN newest first, as NCCL does) and
# reports four collectives and a send and a receive of one communicator,
# printing each as ground truth.  Two ranks at once (RANK=0/1, one msprof
# each) on the newest interface with a named communicator, two more on v1
# (NCCL 2.23: codes, no name, no rank count), and one rank on each of v2..v5.
# Each rank's COMMUNICATION_OP (types, names numbered as msprof does, group,
# count, data type, algorithm, rank count, spans inside the program's
# clock readings), COMMUNICATION_OP_SOURCE's P2P ranks, NCCL_PROFILER_OP,
# communication_statistic and analyze's communication.json (sizes: count x
# type size), communication_matrix.json and communication_analyzer.db must
# agree with what the program printed; both ranks have the same operation
# names (the send of one is the other's receive, in the other order).  Then the same program abuses every call of every version (NULL and
# stray pointers) under msprof and with no session: no crash, no record.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
APP="$HELPERS/test-nccl-app"
AGENT="$(dirname "$AGENT_OSRT")/libmsprof_agent.so"
export MSPROF_NVIDIA_CTL=/dev/null   # the agent is injected where a GPU driver is

run_ranks() { # tag version comm ranks...
	local tag=$1 version=$2 comm=$3 pids=() r
	shift 3
	for r in "$@"; do
		mkdir -p "$T_WORK/$tag$r"
		(
			export RANK=$r WORLD_SIZE=2
			t_msprof --output="$T_WORK/$tag$r" "$APP" run "$version" "$comm" 2 >"$T_WORK/$tag$r.truth"
		) 2>"$T_WORK/$tag$r.log" &
		pids+=($!)
	done
	local i=0
	for r in "$@"; do
		wait "${pids[$i]}"
		t_eq "$tag rank $r: msprof exits 0" $? 0 || cat "$T_WORK/$tag$r.log" >&2
		i=$((i + 1))
	done
}

check_rank() { # tag rank comm
	local tag=$1 r=$2 comm=$3 P
	P=$(t_prof_dir "$T_WORK/$tag$r") || { t_fail "$tag rank $r: no PROF dir"; return; }
	t_msprof --analyze=on --output="$P" >"$T_WORK/an$tag$r.log" 2>&1
	t_eq "$tag rank $r: msprof --analyze=on exits 0" $? 0
	t_msprof --analyze=on --type=db --output="$P" >>"$T_WORK/an$tag$r.log" 2>&1
	t_eq "$tag rank $r: msprof --analyze=on --type=db exits 0" $? 0
	if python3 - "$P" "$r" "$comm" "$T_WORK/$tag$r.truth" >"$T_WORK/check$tag$r.txt" 2>&1 <<'EOF'; then
import csv, glob, json, os, sqlite3, sys
prof, rank, comm, truth = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"rank {rank}: {what}: got {got!r}, want {want!r}")
# the program's lines among msprof's own
lines = [l.split() for l in open(truth) if l.startswith(("plugin ", "op "))]
version = int(lines[0][1])
ops = [dict(kind=int(l[1]), func=l[2], dtype=l[3], count=int(l[4]), peer=int(l[5]), algo=l[6], proto=l[7],
            before=int(l[8]), after=int(l[9])) for l in lines[1:] if l[0] == "op"]
check("operations printed", len(ops), 6)
types = {"AllReduce": "hcom_allReduce_", "AllGather": "hcom_allGather_", "Broadcast": "hcom_broadcast_",
         "Send": "hcom_send_", "Recv": "hcom_receive_"}
dtypes = {"ncclFloat32": ("FP32", 4), "ncclInt8": ("INT8", 1), "ncclBfloat16": ("BFP16", 2),
          "ncclInt64": ("INT64", 8), "ncclFloat16": ("FP16", 2), "ncclUint8": ("UINT8", 1)}
# the communicator: its name from v4 on (v1..v3 carry it per event too), else its hash
group = comm if comm != "-" else "nccl_0123456789abcdef"
want, seen = [], {}
for i, o in enumerate(ops):
    t = types[o["func"]]
    n = seen.get(t, 0)
    seen[t] = n + 1
    alg = f"{o['algo']}-{o['proto']}" if o["algo"] != "-" else "N/A"
    src = dst = None
    if o["kind"] == 2:
        src, dst = (rank, o["peer"]) if o["func"] == "Send" else (o["peer"], rank)
    want.append((f"{t}_{n}_0_1", group, t, o["count"], dtypes[o["dtype"]][0], alg,
                 2 if version >= 4 else None, "plugin", src, dst))
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
got = q("SELECT n.value, g.value, t.value, o.count, d.name, a.value, o.rankSize, x.source, x.srcRank, x.dstRank, "
        "o.startNs, o.endNs FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName "
        "JOIN STRING_IDS g ON g.id = o.groupName JOIN STRING_IDS t ON t.id = o.opType "
        "JOIN ENUM_HCCL_DATA_TYPE d ON d.id = o.dataType JOIN STRING_IDS a ON a.id = o.algType "
        "JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId ORDER BY o.startNs")
check("COMMUNICATION_OP (name, group, type, count, data type, algorithm, rank size, source, P2P ranks)",
      [g[:10] for g in got], want)
# spans: the agent's clock readings lie between the program's, so each
# span is at least the program's sleep inside it and at most its readings
for i, (g, o) in enumerate(zip(got, ops)):
    d = g[11] - g[10]
    if not (2000000 + 1000000 * i <= d <= o["after"] - o["before"]):
        bad.append(f"rank {rank}: op {i}: span {d} ns not within [{2000000 + 1000000 * i}, {o['after'] - o['before']}]")
# and the monotonic gaps between operations are the same in Unix time (to the readings' slack)
for i in range(1, len(got)):
    gap, lo, hi = got[i][10] - got[i - 1][10], ops[i]["before"] - ops[i - 1]["after"], ops[i]["after"] - ops[i - 1]["before"]
    if not lo <= gap <= hi:
        bad.append(f"rank {rank}: op {i}: start gap {gap} not within [{lo}, {hi}]")
raw = q("SELECT p.kind, f.value, d.value, p.count, p.bytes, p.peer, p.rank, p.nRanks, p.version, p.commHash "
        "FROM NCCL_PROFILER_OP p JOIN STRING_IDS f ON f.id = p.func JOIN STRING_IDS d ON d.id = p.dataType "
        "ORDER BY p.startNs")
check("NCCL_PROFILER_OP", raw, [(o["kind"], o["func"], o["dtype"], o["count"], o["count"] * dtypes[o["dtype"]][1],
                                 o["peer"], rank, 2 if version >= 4 else -1, version, "0123456789abcdef")
                                for o in ops])
# communication_statistic: count and total per type
st = list(csv.reader(open(glob.glob(os.path.join(prof, "mindstudio_profiler_output",
                                                  "communication_statistic_*.csv"))[0])))
fmt = lambda ns: f"{ns // 1000}.{ns % 1000:03d}"
agg = {}
for w, g in zip(want, got):
    n, tot = agg.get(w[2], (0, 0))
    agg[w[2]] = (n + 1, tot + g[11] - g[10])
check("communication_statistic rows", sorted((r[1], int(r[2]), r[3]) for r in st[1:]),
      sorted((t, n, fmt(tot)) for t, (n, tot) in agg.items()))
# analyze: sizes are count x the type's size, on SDMA
an = json.load(open(os.path.join(prof, "analyze", "communication.json")))
check("communication.json keys", set(an), {f"{w[0]}@{group}" for w in want} | {"Total Op Info"})
for w, o in zip(want, ops):
    e = an.get(f"{w[0]}@{group}", {})
    size = o["count"] * dtypes[o["dtype"]][1] / 1048576
    check(f"{w[0]}: SDMA Transit Size(MB)",
          round(e.get("Communication Bandwidth Info", {}).get("SDMA", {}).get("Transit Size(MB)", -1), 4), round(size, 4))
mx = json.load(open(os.path.join(prof, "analyze", "communication_matrix.json")))
for w in want:
    links = mx.get(f"{w[0]}@{group}", {})
    if w[8] is not None:
        check(f"{w[0]}: P2P link", sorted(links), sorted({f"{rank}-{rank}", f"{w[8]}-{w[9]}"}))
adb = sqlite3.connect(os.path.join(prof, "analyze", "communication_analyzer.db"))
check("CommAnalyzerTime", sorted(r[0] for r in adb.execute("SELECT hccl_op_name FROM CommAnalyzerTime")),
      sorted(w[0] for w in want))
print("\n".join(sorted(f"{w[0]} {w[1]}" for w in want)))
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
		t_ok "$tag rank $r: COMMUNICATION_OP, NCCL_PROFILER_OP, communication_statistic and analyze's files hold the operations reported"
	else
		cat "$T_WORK/check$tag$r.txt" >&2
		t_fail "$tag rank $r: communication outputs differ from what the program reported (see above)"
	fi
}

# the newest interface (v6), a named communicator, two ranks at once
run_ranks new 0 tp_group 0 1
check_rank new 0 tp_group
check_rank new 1 tp_group
t_check "newest: both ranks name their operations alike" cmp -s "$T_WORK/checknew0.txt" "$T_WORK/checknew1.txt"
# NCCL 2.23's v1: enum codes, the communicator by its hash, no rank count
run_ranks v1_ 1 - 0 1
check_rank v1_ 0 -
check_rank v1_ 1 -
t_check "v1: both ranks name their operations alike" cmp -s "$T_WORK/checkv1_0.txt" "$T_WORK/checkv1_1.txt"
for v in 2 3 4 5; do
	run_ranks "v${v}_" "$v" - 0
	check_rank "v${v}_" 0 -
done

# abuse: NULL and stray arguments never crash and record nothing, while
# recording and with no session at all
mkdir -p "$T_WORK/abuse"
t_msprof --output="$T_WORK/abuse" "$APP" abuse >"$T_WORK/abuse.out" 2>"$T_WORK/abuse.log"
t_eq "abuse under msprof: exits 0" $? 0
t_grep "abuse under msprof: every call returned" "abuse ok" "$T_WORK/abuse.out"
if P=$(t_prof_dir "$T_WORK/abuse"); then
	db=$(ls "$P"/msprof_*.db)
	# an empty table is not kept in the database
	t_eq "abuse under msprof: nothing recorded" "$(python3 -c 'import sqlite3, sys; d = sqlite3.connect(sys.argv[1]); print(d.execute("SELECT (SELECT count(*) FROM sqlite_master WHERE name = ?) + (SELECT count(*) FROM COMMUNICATION_OP)", (sys.argv[2],)).fetchone()[0])' "$db" NCCL_PROFILER_OP)" 0
fi
out=$(NCCL_PROFILER_PLUGIN="$AGENT" "$APP" abuse 2>&1)
t_eq "abuse without a session: every call returned" "$out" "abuse ok"
out=$(NCCL_PROFILER_PLUGIN="$AGENT" "$APP" run 0 - 2>&1)
t_eq "without a session: the plugin records nothing (no group handle)" "$?" 1
t_done
