#!/bin/bash
# Device collection end to end through a fake NVML (tests/helpers/fake-nvml.c)
# loaded by msprofd's real dlopen path (MSPROF_NVML_LIBRARY): every value in
# the database, npu_mem CSV, timeline and info.json.N is checked exactly
# against the fake's formulas, sample by sample.  Then the two ways device
# collection is off (no library, a driver that cannot start): one line, host
# profiling goes on.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
FAKE="$HELPERS/libfake-nvml.so"
[ -f "$FAKE" ] || t_skip "the fake NVML was not built"

# msprofd loads NVML with its own environment: each case below starts a
# fresh daemon (the launcher starts it) and stops it after (t_stop_daemon).

# --- two devices, memory and interconnection sampling ------------------------
OUT="$T_WORK/out"
mkdir -p "$OUT"
PIDFILE="$T_WORK/app.pid"
MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_DEVICES=2 FAKE_NVML_PIDFILE="$PIDFILE" \
	"$MSPROF" --output="$OUT" --sys-hardware-mem=on --sys-hardware-mem-freq=20 \
	--sys-interconnection-profiling=on --sys-interconnection-freq=10 \
	sh -c 'echo $$ > "$0"; sleep 1.2' "$PIDFILE" >"$T_WORK/log" 2>&1
rc=$?
t_stop_daemon
t_check "msprof with the fake NVML exits 0" test $rc -eq 0
t_grep "devices named on the console" \
	"[INFO] Device collection on 2 device(s) through nvml (0: NVIDIA FakeGPU-0, 1: NVIDIA FakeGPU-1)." "$T_WORK/log"
P=$(t_prof_dir "$OUT") || exit 1

python3 - "$P" "$(cat "$PIDFILE")" <<'EOF' || t_fail "device values differ from the fake NVML's (see above)"
import csv, glob, json, os, sqlite3, sys
prof, app_pid = sys.argv[1], int(sys.argv[2])
MIB = 1 << 20
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")

db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql, *a: db.execute(sql, a).fetchall()
check("NPU_INFO", q("SELECT id, name FROM NPU_INFO ORDER BY id"), [(0, "NVIDIA FakeGPU-0"), (1, "NVIDIA FakeGPU-1")])
# fake-nvml.c fake_arch: device 0 an H100 (132 SMs of 128 cores), 1 an A100 (108 of 64)
ARCH = [(132 * 128, 132), (108 * 64, 108)]
check("GPU_INFO", q("SELECT deviceId, uuid, busId, driverVersion, memTotal, maxSmClock, maxMemClock, cores, smCount "
                    "FROM GPU_INFO ORDER BY 1"),
      [(i, f"GPU-fake-{i}", f"00000000:{0x10 + i:02X}:00.0", "999.99", 80 << 30, 1980, 2619) + ARCH[i] for i in (0, 1)])
for i in (0, 1):
    info = json.load(open(os.path.join(prof, f"device_{i}", f"info.json.{i}")))
    check(f"info.json.{i} DeviceInfo", (info["DeviceInfo"][0]["id"], info["DeviceInfo"][0]["name"],
          info["DeviceInfo"][0]["aic_frequency"], info["DeviceInfo"][0]["ai_core_num"]),
          (i, f"NVIDIA FakeGPU-{i}", "1980", ARCH[i][1]))
    check(f"info.json.{i} pid/rank_id", (info["pid"], info["rank_id"]), (str(app_pid), -1))
    for f in (f"start_info.{i}", f"end_info.{i}"):
        check(f"{f} exists", os.path.isfile(os.path.join(prof, f"device_{i}", f)), True)

    rows = q("SELECT timestampNs, gpuUtil, memUtil, memUsed, memFree, memReserved, smClock, memClock, power, "
             "temperature FROM GPU_SAMPLE WHERE deviceId = ? ORDER BY timestampNs", i)
    # 20 Hz over at least 1.2 s
    check(f"device {i}: at least 15 samples", len(rows) >= 15, True)
    for k, r in enumerate(rows):
        used, res = (1000 + 100 * i + k) * MIB, (512 + i) * MIB
        check(f"device {i} sample {k}", r[1:], ((10 * i + k) % 101, (5 + k) % 101, used, (80 << 30) - used - res,
              res, 1000 + 10 * k + i, 2619 + i, 100000 + 1000 * k, 40 + i + k % 10))
    ts = [r[0] for r in rows]
    check(f"device {i}: NPU_MEM device rows", q(
        "SELECT m.timestampNs, m.ddr, m.hbm FROM NPU_MEM m JOIN STRING_IDS s ON s.id = m.type "
        "WHERE s.value = 'device' AND m.deviceId = ? ORDER BY 1", i),
        [(t, 0, (1000 + 100 * i + k) * MIB) for k, t in enumerate(ts)])
    # the profiled process: (200 + k) MiB once it wrote its pid; pid 1 never counts
    app = q("SELECT m.hbm FROM NPU_MEM m JOIN STRING_IDS s ON s.id = m.type "
            "WHERE s.value = 'app' AND m.deviceId = ? ORDER BY m.timestampNs", i)
    check(f"device {i}: one app row per sample", len(app), len(rows))
    seen = [k for k, (h,) in enumerate(app) if h]
    check(f"device {i}: the app's memory is sampled", len(seen) > 5, True)
    for k in seen:
        check(f"device {i}: app memory at sample {k}", app[k][0], (200 + k) * MIB)
    check(f"device {i}: AICORE_FREQ", q("SELECT timestampNs, freq FROM AICORE_FREQ WHERE deviceId = ? ORDER BY 1", i),
          [(t, 1000 + 10 * k + i) for k, t in enumerate(ts)])
    pcie = q("SELECT txRate, rxRate FROM GPU_PCIE WHERE deviceId = ? ORDER BY timestampNs", i)
    check(f"device {i}: at least 8 PCIe samples", len(pcie) >= 8, True)
    check(f"device {i}: PCIe B/s", pcie, [((1000 * (i + 1) + p) * 1024, (2000 * (i + 1) + p) * 1024)
                                           for p in range(len(pcie))])

    # npu_mem CSV: integer KB, the timestamp as µs with three decimals and a tab
    out = os.path.join(prof, "mindstudio_profiler_output")
    with open(glob.glob(os.path.join(out, "npu_mem_*.csv"))[0], newline="") as f:
        rd = list(csv.reader(f))
    check("npu_mem header", rd[0], ["Device_id", "event", "ddr(KB)", "hbm(KB)", "memory(KB)", "timestamp(us)"])
    dev = [r for r in rd[1:] if r[0] == str(i) and r[1] == "device"]
    check(f"npu_mem device {i}", dev, [[str(i), "device", "0", str((1000 + 100 * i + k) * 1024),
           str((1000 + 100 * i + k) * 1024), f"{t // 1000}.{t % 1000:03d}\t"] for k, t in enumerate(ts)])
    appcsv = [r for r in rd[1:] if r[0] == str(i) and r[1] == "app"]
    check(f"npu_mem app {i}", [r[3] for r in appcsv], [str(h // 1024) for (h,) in app])

    # timeline: per device, Device/HBM and AI Core Freq counters, label "NPU i"
    ev = json.load(open(glob.glob(os.path.join(out, "msprof_*.json"))[0]))
    names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    labels = {e["pid"]: e["args"]["labels"] for e in ev if e["ph"] == "M" and e["name"] == "process_labels"}
    # process names are unique in the file: the first device of a layer
    # has the layer's name, the others "<name> (device <i>)"
    def track(name):
        want = name if i == 0 else f"{name} (device {i})"
        return [p for p, n in names.items() if n == want and labels.get(p) == f"NPU {i}"]
    for name in ("NPU MEM", "AI Core Freq", "PCIe", "GPU Usage"):
        check(f"timeline: one '{name}' process for device {i}", len(track(name)), 1)
    mem_pid, freq_pid = track("NPU MEM")[0], track("AI Core Freq")[0]
    check(f"timeline: NPU MEM pid of device {i}", mem_pid, (app_pid << 10) | (17 << 5) | i)
    hbm = [(e["ts"], e["args"]["KB"]) for e in ev if e["pid"] == mem_pid and e["name"] == "Device/HBM"]
    check(f"timeline: Device/HBM of device {i}", hbm,
          [(f"{t // 1000}.{t % 1000:03d}", float((1000 + 100 * i + k) * 1024)) for k, t in enumerate(ts)])
    freq = [e["args"]["MHz"] for e in ev if e["pid"] == freq_pid and e["name"] == "AI Core Freq"]
    check(f"timeline: AI Core Freq of device {i}", freq, [1000 + 10 * k + i for k in range(len(ts))])
for b in bad[:20]:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$T_FAILS" -eq 0 ] && t_ok "database, npu_mem CSV, timeline and info.json.N hold the fake NVML's values"

# --- no device switch: the devices are described, not sampled -----------------
OUT2="$T_WORK/out2"
mkdir -p "$OUT2"
MSPROF_NVML_LIBRARY="$FAKE" "$MSPROF" --output="$OUT2" sleep 0.2 >"$T_WORK/log2" 2>&1
t_stop_daemon
P2=$(t_prof_dir "$OUT2") || exit 1
t_check "device_0/info.json.0 without --sys-hardware-mem" test -f "$P2/device_0/info.json.0"
t_check "no npu_mem CSV without --sys-hardware-mem" test -z "$(ls "$P2"/mindstudio_profiler_output/npu_mem_* 2>/dev/null)"

# --- device collection off: no library, a driver that cannot start ------------
for case in missing init; do
	O="$T_WORK/off-$case"
	mkdir -p "$O"
	if [ $case = missing ]; then
		MSPROF_NVML_LIBRARY="$T_WORK/no-such-libnvidia-ml.so" "$MSPROF" --output="$O" --sys-hardware-mem=on \
			sleep 0.2 >"$T_WORK/log-$case" 2>&1
		want="[INFO] Device collection is off: no NVIDIA driver ($T_WORK/no-such-libnvidia-ml.so: cannot open shared object file"
	else
		MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_INIT_ERROR=9 "$MSPROF" --output="$O" --sys-hardware-mem=on \
			sleep 0.2 >"$T_WORK/log-$case" 2>&1
		want="[INFO] Device collection is off: NVML cannot start: Driver Not Loaded; host profiling goes on."
	fi
	rc=$?
	t_stop_daemon
	t_check "$case: msprof exits 0" test $rc -eq 0
	t_grep "$case: one line says device collection is off" "$want" "$T_WORK/log-$case"
	t_check "$case: said once" test "$(grep -c 'Device collection' "$T_WORK/log-$case")" -eq 1
	PO=$(t_prof_dir "$O") || continue
	t_check "$case: no device_N directory" test -z "$(ls -d "$PO"/device_* 2>/dev/null)"
	t_check "$case: host data exported" test -n "$(ls "$PO"/mindstudio_profiler_output/host_cpu_usage_*.csv 2>/dev/null)"
done
exit $((T_FAILS > 0))
