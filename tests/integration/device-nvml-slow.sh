#!/bin/bash
# A slow, a hung and a failing NVML (tests/helpers/fake-nvml.c with scripted
# delays on nvmlInit_v2 and nvmlDeviceGetPcieThroughput, and a GPU lost
# mid-run): msprofd opens and samples
# the devices on a thread of its own, so it answers other clients while a
# driver call is in progress, and the samples keep their values and
# timestamps.  The fake traces every slow call (begin and end, CLOCK_REALTIME),
# and a status request is timed around it from the outside: the ground truth
# of "while a call was in progress".
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
FAKE="$HELPERS/libfake-nvml.so"
PROBE="$HELPERS/ipc-probe"
[ -f "$FAKE" ] || t_skip "the fake NVML was not built"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"

now_ns() { date +%s%N; }

# msprofd loads NVML with the environment the launcher started it with:
# each case starts a fresh daemon and stops it after (t_stop_daemon).

# probe_until FILE PID: time status requests (one line "t0 t1" each, for
# those answered) until process PID exits.
probe_until() {
	while kill -0 "$2" 2>/dev/null; do
		local t0 t1
		t0=$(now_ns)
		if "$PROBE" --timeout=20000 req:status >/dev/null 2>&1; then
			t1=$(now_ns)
			echo "$t0 $t1" >>"$1"
		fi
		sleep 0.03
	done
}

# --- slow init, slow PCIe: the daemon answers meanwhile, samples exact ----------
INIT_MS=800
PCIE_MS=400
OUT="$T_WORK/out"
TRACE="$T_WORK/trace"
PROBES="$T_WORK/probes"
mkdir -p "$OUT"
: >"$PROBES"
MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_INIT_DELAY_MS=$INIT_MS FAKE_NVML_PCIE_DELAY_MS=$PCIE_MS \
	FAKE_NVML_TRACE="$TRACE" "$MSPROF" --output="$OUT" --sys-hardware-mem=on --sys-hardware-mem-freq=20 \
	--sys-interconnection-profiling=on --sys-interconnection-freq=10 sleep 3.5 >"$T_WORK/log" 2>&1 &
app=$!
probe_until "$PROBES" $app
wait $app
rc=$?
t_check "msprof with a slow NVML exits 0" test $rc -eq 0
t_grep "session_started waited for the slow init" \
	"[INFO] Device collection on 1 device(s) through nvml (0: NVIDIA FakeGPU-0)." "$T_WORK/log"
P=$(t_prof_dir "$OUT") || exit 1
t_check "end_info.0 written before the export" test -f "$P/device_0/end_info.0"

python3 - "$P" "$TRACE" "$PROBES" "$INIT_MS" "$PCIE_MS" <<'EOF' || t_fail "slow NVML: see above"
import glob, os, sqlite3, statistics, sys
prof, trace, probes, init_ms, pcie_ms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
MIB = 1 << 20
bad = []
def check(what, ok, detail=""):
    if not ok:
        bad.append(f"{what} {detail}")

calls = [l.split() for l in open(trace)]
init = [(int(c[3]), int(c[4])) for c in calls if c[0] == "init"]
pcie = [(int(c[2]), int(c[3]), int(c[4])) for c in calls if c[0] == "pcie"]
check("one nvmlInit_v2 call", len(init) == 1, repr(init))
check("the fake slept in init", init and init[0][1] - init[0][0] >= init_ms * 1e6 * 0.95)
pr = [tuple(map(int, l.split())) for l in open(probes)]
def inside(p, calls):
    return any(b < p[0] and p[1] < e for b, e in calls)
in_init = [p for p in pr if inside(p, init)]
in_pcie = [p for p in pr if inside(p, [(b, e) for _, b, e in pcie])]
check("status answered while nvmlInit_v2 was in progress", len(in_init) >= 1,
      f"({len(pr)} answered, none inside {init})")
check("status answered while a PCIe call was in progress, several times", len(in_pcie) >= 3,
      f"({len(in_pcie)} of {len(pr)})")
for name, ps, d in (("init", in_init, init_ms), ("PCIe", in_pcie, pcie_ms)):
    if ps:
        rtt = sorted((p[1] - p[0]) / 1e6 for p in ps)
        print(f"status round trip during a {d} ms {name} call: median {statistics.median(rtt):.1f} ms, "
              f"max {rtt[-1]:.1f} ms over {len(rtt)} requests (ratio to the call: {rtt[-1] / d:.3f})")

db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql, *a: db.execute(sql, a).fetchall()
rows = q("SELECT timestampNs, txRate, rxRate FROM GPU_PCIE WHERE deviceId = 0 ORDER BY timestampNs")
tx_begin = [b for c, b, _ in pcie if c == 0]
check("PCIe samples while the app ran", len(rows) >= 2, f"({len(rows)})")
# every sample whole: the stop waited for the call in progress
check("one PCIe row per traced call pair", len(rows) == len(tx_begin) == len([1 for c, _, _ in pcie if c == 1]),
      f"({len(rows)} rows, {len(pcie)} calls)")
for p, r in enumerate(rows):
    check(f"PCIe sample {p}: values", r[1:] == ((1000 + p) * 1024, (2000 + p) * 1024), repr(r))
    if p < len(tx_begin):
        # stamped when the sample began: the start of its tx measurement
        # (not its end, 2 x PCIE_MS later; the margin is for a preempted thread)
        check(f"PCIe sample {p}: timestamp", abs(r[0] - tx_begin[p]) < 20e6,
              f"(row {r[0]}, call began {tx_begin[p]}, {(r[0] - tx_begin[p]) / 1e6:.3f} ms apart)")
smp = q("SELECT timestampNs, memUsed, smClock FROM GPU_SAMPLE WHERE deviceId = 0 ORDER BY timestampNs")
check("memory samples", len(smp) >= 5, f"({len(smp)})")
for k, r in enumerate(smp):
    check(f"memory sample {k}", r[1:] == ((1000 + k) * MIB, 1000 + 10 * k), repr(r))
# no memory sample inside a PCIe call: one thread samples both in turn
for t, *_ in smp:
    check("memory sample outside the PCIe calls", not any(b < t < e - 1e5 for _, b, e in pcie), f"({t})")
for b in bad[:20]:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$T_FAILS" -eq 0 ] && t_ok "status answered during slow init and PCIe calls; PCIe and memory samples exact"

# --- a PCIe call that outlasts the stop: the stop does not wait for it ----------
# The session's stop waits IPC_AGENT_STOP_TIMEOUT_MS (2 s) for the call in
# progress, then answers; the worker finishes the sample and its files when
# the call returns.
t_stop_daemon
HANG_MS=3000
OUT2="$T_WORK/out2"
TRACE2="$T_WORK/trace2"
PROBES2="$T_WORK/probes2"
mkdir -p "$OUT2"
: >"$PROBES2"
MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_PCIE_DELAY_MS=$HANG_MS FAKE_NVML_TRACE="$TRACE2" \
	"$MSPROF" --output="$OUT2" --sys-interconnection-profiling=on sleep 0.5 >"$T_WORK/log2" 2>&1 &
app=$!
probe_until "$PROBES2" $app
wait $app
rc=$?
msprof_end=$(now_ns)
t_check "msprof exits 0 while the PCIe call still runs" test $rc -eq 0
P2=$(t_prof_dir "$OUT2") || exit 1
t_check "host data exported" test -n "$(ls "$P2"/mindstudio_profiler_output/host_cpu_usage_*.csv 2>/dev/null)"
t_check "the daemon still answers" "$PROBE" req:status
# the worker ends its sample (both directions) and its files on its own
t_until 10 test -f "$P2/device_0/end_info.0"
t_check "end_info.0 written once the call returned" test -f "$P2/device_0/end_info.0"
t_grep "the daemon says why it did not wait" "device sampling did not stop within 2000 ms" \
	"$MSPROF_RUNTIME_DIR/msprofd.log"
"$MSPROF" --export=on --output="$P2" >"$T_WORK/export2.log" 2>&1 || t_fail "export after the call returned"
python3 - "$P2" "$TRACE2" "$PROBES2" "$msprof_end" <<'EOF' || t_fail "hung NVML: see above"
import glob, os, sqlite3, sys
prof, trace, probes, msprof_end = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = []
calls = [l.split() for l in open(trace)]
pcie = [(int(c[2]), int(c[3]), int(c[4])) for c in calls if c[0] == "pcie"]
if len(pcie) != 2:
    bad.append(f"one sample of two calls, got {pcie}")
elif not msprof_end < pcie[1][2]:
    bad.append(f"msprof ended at {msprof_end}, after the sample's last call ({pcie[1][2]})")
else:
    print(f"msprof ended {(pcie[1][2] - msprof_end) / 1e6:.0f} ms before the hung sample did")
pr = [tuple(map(int, l.split())) for l in open(probes)]
if not any(b < p[0] and p[1] < e for p in pr for _, b, e in pcie):
    bad.append(f"no status answered during a hung call ({len(pr)} answered)")
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
rows = db.execute("SELECT timestampNs, txRate, rxRate FROM GPU_PCIE ORDER BY timestampNs").fetchall()
if len(rows) != 1 or rows[0][1:] != (1000 * 1024, 2000 * 1024) or not pcie or abs(rows[0][0] - pcie[0][1]) >= 20e6:
    bad.append(f"the hung sample, whole and stamped at its start: {rows} vs {pcie}")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$T_FAILS" -eq 0 ] && t_ok "a stop during a hung call answers after the wait; the sample and files complete later"

# --- a GPU lost mid-run: its samples end, the session goes on ----------------
t_stop_daemon
OUT3="$T_WORK/out3"
mkdir -p "$OUT3"
MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_LOST_AFTER=5 "$MSPROF" --output="$OUT3" --sys-hardware-mem=on \
	--sys-hardware-mem-freq=20 --sys-interconnection-profiling=on --sys-interconnection-freq=10 \
	sleep 1.5 >"$T_WORK/log3" 2>&1
t_check "msprof exits 0 when the GPU is lost mid-run" test $? -eq 0
P3=$(t_prof_dir "$OUT3") || exit 1
python3 - "$P3" <<'EOF2' || t_fail "lost GPU: see above"
import glob, os, sqlite3, sys
db = sqlite3.connect(glob.glob(os.path.join(sys.argv[1], "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
MIB = 1 << 20
bad = []
rows = q("SELECT timestampNs, memUsed, smClock FROM GPU_SAMPLE ORDER BY timestampNs")
if [r[1:] for r in rows] != [((1000 + k) * MIB, 1000 + 10 * k) for k in range(5)]:
    bad.append(f"the five samples before the loss, exact: {rows}")
if q("SELECT COUNT(*) FROM GPU_SAMPLE WHERE memUsed IS NULL OR smClock IS NULL")[0][0]:
    bad.append("an empty sample after the loss")
if q("SELECT COUNT(*) FROM NPU_MEM m JOIN STRING_IDS s ON s.id = m.type WHERE s.value = 'device'")[0][0] != 5:
    bad.append("NPU_MEM device rows: one per sample before the loss")
host_end = q("SELECT MAX(timestampNs) FROM CPU_USAGE")[0][0]
if not rows or not host_end or host_end < rows[-1][0] + 500_000_000:
    bad.append(f"host samples go on after the loss (last GPU sample {rows[-1][0] if rows else None}, last host {host_end})")
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF2
[ "$T_FAILS" -eq 0 ] && t_ok "a GPU lost mid-run: its five samples exact, no empty ones after, host data to the end"
t_done
