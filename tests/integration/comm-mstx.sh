#!/bin/bash
# Communication from mstx, as torch_npu marks its HCCL operations: ranges
# in the domain "communication" whose message is a dict, quotes escaped
# with backslashes (torch_npu's getMstxHcclMsg) or plain, P2P ranks, and
# messages that are no such dict (named by the message, and counted in
# msprof's output).  test-comm-app sends the messages under msprof
# --msproftx=on with RANK=1; COMMUNICATION_OP must hold one operation per
# range with the fields its message gives (parsed here by Python from the
# same messages), the range's times (MSTX_EVENTS), and analyze's matrix
# the self link 1-1 and the P2P link.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
APP="$HELPERS/test-comm-app"
[ -x "$APP" ] || t_skip "test-comm-app not built (no mstx library)"

MSGS=(
	'{\"opName\": \"HcclAllreduce\",\"groupName\": \"tp_group\",\"dataType\": \"fp32\",\"count\": \"1048576\",\"streamId\": \"3\"}'
	'{\"opName\": \"HcclAllreduce\",\"groupName\": \"tp_group\",\"dataType\": \"bf16\",\"count\": \"64\",\"streamId\": \"3\"}'
	'{"opName": "HcclSend", "groupName": "pp_group", "dataType": "fp16", "count": "4096", "srcRank": "1", "destRank": "0"}'
	'{\"opName\": \"HcclAllgather\",\"groupName\": \"dp_group\",\"dataType\": \"int8\",\"count\": \"10\"}'
	'barrier at epoch end'
	'{"opName": "HcclBroadcast", "groupName": "tp_group"'
	'mark:not an operation'
)
mkdir -p "$T_WORK/out"
RANK=1 t_msprof --output="$T_WORK/out" --msproftx=on "$APP" "${MSGS[@]}" >"$T_WORK/run.log" 2>&1
t_eq "msprof exits 0" $? 0
P=$(t_prof_dir "$T_WORK/out") || exit 1
t_grep "the messages that are no dict are told" \
	"communication: 2 range(s) of the mstx domain 'communication' have a message that is not a dict" "$T_WORK/run.log"
t_grep "the mark is told" "communication: 1 mark(s) of the mstx domain 'communication' are not operations" \
	"$T_WORK/run.log"
t_msprof --analyze=on --output="$P" >"$T_WORK/an.log" 2>&1
t_eq "msprof --analyze=on exits 0" $? 0

if python3 - "$P" "${MSGS[@]}" <<'EOF' >"$T_WORK/check.txt" 2>&1; then
import glob, json, os, re, sqlite3, sys
prof, msgs = sys.argv[1], [m for m in sys.argv[2:] if not m.startswith("mark:")]
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
types = {"HcclAllreduce": "hcom_allReduce_", "HcclSend": "hcom_send_", "HcclAllgather": "hcom_allGather_"}
dtypes = {"fp32": ("FP32", 4), "bf16": ("BFP16", 2), "fp16": ("FP16", 2), "int8": ("INT8", 1)}
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
# the ranges as recorded, in start order, each with its message
ranges = q("SELECT m.startNs, m.endNs, s.value FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId "
           "JOIN STRING_IDS s ON s.id = m.message WHERE d.value = 'communication' AND m.eventType = 2 "
           "ORDER BY m.startNs")
check("ranges recorded, as sent", [r[2] for r in ranges], msgs)
want, seen = [], {}
for s, e, msg in ranges:
    try:  # the dict as Python reads it, quotes unescaped
        d = json.loads(msg.replace('\\"', '"'))
    except ValueError:
        d = None
    if d is None or "opName" not in d:
        want.append((msg, s, e, msg, "N/A", "N/A", None, None, None))
        continue
    t, g = types[d["opName"]], d.get("groupName", "N/A")
    n = seen.get((t, g), 0)
    seen[(t, g)] = n + 1
    dt = dtypes[d["dataType"]]
    want.append((f"{t}_{n}_0_1", s, e, t, dt[0], g, int(d["count"]),
                 int(d["srcRank"]) if "srcRank" in d else None, int(d["destRank"]) if "destRank" in d else None))
got = q("SELECT n.value, o.startNs, o.endNs, t.value, dt.name, g.value, o.count, x.srcRank, x.dstRank "
        "FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = o.opName JOIN STRING_IDS t ON t.id = o.opType "
        "JOIN ENUM_HCCL_DATA_TYPE dt ON dt.id = o.dataType JOIN STRING_IDS g ON g.id = o.groupName "
        "JOIN COMMUNICATION_OP_SOURCE x ON x.opId = o.opId ORDER BY o.opId")
check("COMMUNICATION_OP", got, want)
check("COMMUNICATION_TASK_INFO: no kernels, no rows", q("SELECT count(*) FROM COMMUNICATION_TASK_INFO")[0][0], 0)
comm = json.load(open(os.path.join(prof, "analyze", "communication.json")))
mx = json.load(open(os.path.join(prof, "analyze", "communication_matrix.json")))
for w in want:
    key = f"{w[0]}@{w[5]}"
    size = w[6] * dtypes[[k for k, v in dtypes.items() if v[0] == w[4]][0]][1] / 1048576 if w[6] else 0
    check(f"{key}: SDMA Transit Size(MB)",
          round(comm[key]["Communication Bandwidth Info"]["SDMA"]["Transit Size(MB)"], 4), round(size, 4))
    links = {"1-1": "LOCAL"}
    if w[7] is not None:
        links[f"{w[7]}-{w[8]}"] = "HCCS"
    check(f"{key}: matrix links", {k: v["Transport Type"] for k, v in mx[key].items()}, links)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
	t_ok "COMMUNICATION_OP and analyze's files hold each range with the fields of its message"
else
	cat "$T_WORK/check.txt" >&2
	t_fail "communication from mstx differs from the messages sent (see above)"
fi
t_done
