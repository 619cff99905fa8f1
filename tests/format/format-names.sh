# Process names in the timeline files of a profile made to repeat them
# (readers/NOTES.md §5: MindSpore's parser raises "Process name 'X'
# already exists." on a second process of one name): two annotated
# processes of one command name, each with OS runtime calls, and two
# devices (the fake NVML).  Every timeline file must name each process
# once; the mstx layers of the two take " (pid <pid>)"; one "OS Runtime
# API" process holds a thread per tid of both; the second device's layers
# are "<name> (device 1)", the first's keep msprof's names.  The checker
# (tests/helpers/timeline-names.py, which t_done runs on every test's
# files) is first shown to fail on a file that repeats a name.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/format/format-lib.sh"
f_python
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
WORKLOAD=$HELPERS/test-mstx-workload
FAKE=$HELPERS/libfake-nvml.so
[ -x "$WORKLOAD" ] || t_skip "test-mstx-workload not built (no mstx library)"
[ -f "$FAKE" ] || t_skip "the fake NVML was not built"
# (in a sanitized build the launcher preloads the agent without the ASan
# runtime first, which ASan refuses)
ldd "$MSPROF" 2>/dev/null | grep -q libasan && t_skip "sanitized build: the launcher cannot preload the agent"
NAMES="python3 $SRCDIR/tests/helpers/timeline-names.py"

# --- the checker fails on a repeated name, and passes a file without one ------------------
mkdir -p "$T_WORK/bad" "$T_WORK/good"
cat >"$T_WORK/bad/msprof_20240101120000.json" <<'EOF'
[{"name":"process_name","pid":1,"tid":0,"ph":"M","args":{"name":"OS Runtime API"}},
{"name":"process_name","pid":2,"tid":0,"ph":"M","args":{"name":"OS Runtime API"}}]
EOF
sed 's/"pid":2,/"pid":1,/' "$T_WORK/bad/msprof_20240101120000.json" >"$T_WORK/bad/msprof_tx_20240101120000.json"
sed '2s/OS Runtime API/CANN/' "$T_WORK/bad/msprof_20240101120000.json" >"$T_WORK/good/msprof_20240101120000.json"
t_expect_rc 1 "the checker: a name on two processes, a process named twice" $NAMES "$T_WORK/bad"
t_eq "the checker names both problems" "$($NAMES "$T_WORK/bad" | grep -c 'on 2 processes\|named 2 times')" 2
t_expect_rc 0 "the checker: distinct names pass" $NAMES "$T_WORK/good"
rm -rf "$T_WORK/bad" "$T_WORK/good" # t_done checks every file left under T_WORK

# --- a profile that would repeat names --------------------------------------------------
# (the job lasts 0.3 s more than its two processes: the devices' 50 Hz
# sampler, whose files are made on a thread of its own, has its first
# samples in even when a loaded machine delays that thread; a CI run whose
# session lasted 55 ms had the device files and no sample)
OUT=$T_WORK/out
MSPROF_NVML_LIBRARY="$FAKE" FAKE_NVML_DEVICES=2 "$MSPROF" --output="$OUT" --msproftx=on --host-sys=osrt \
	--sys-hardware-mem=on --sys-hardware-mem-freq=50 \
	sh -c 'echo go | "$0" script 3 >/dev/null & echo go | "$0" script 3 >/dev/null; wait; sleep 0.3' "$WORKLOAD" \
	>"$T_WORK/log" 2>&1
rc=$?
t_stop_daemon
[ "$rc" -eq 0 ] && t_ok "msprof runs two annotated processes on two fake devices" ||
	{ t_fail "msprof exited $rc"; cat "$T_WORK/log" >&2; t_done; }
P=$(t_prof_dir "$OUT") || t_done
O=$P/mindstudio_profiler_output
DB=$(ls "$P"/msprof_*.db | head -n1)
t_check "every timeline file names each process once" $NAMES "$O"

# ground truth from the database: the annotated pids and the tids with calls
TX_PIDS=$(t_sql "$DB" "SELECT DISTINCT globalTid >> 32 FROM MSTX_EVENTS ORDER BY 1" | tr '\n' ' ')
OSRT_TIDS=$(t_sql "$DB" "SELECT DISTINCT globalTid & 4294967295 FROM OSRT_API ORDER BY 1" | tr '\n' ' ')
OSRT_PIDS=$(t_sql "$DB" "SELECT COUNT(DISTINCT globalTid >> 32) FROM OSRT_API")
t_eq "two annotated processes of one command name" \
	"$(t_sql "$DB" "SELECT COUNT(DISTINCT a.pid), COUNT(DISTINCT a.name) FROM AGENT_PROCESS a
		WHERE a.pid IN (SELECT globalTid >> 32 FROM MSTX_EVENTS)")" "2|1"
[ "$OSRT_PIDS" -ge 2 ] && t_ok "OS runtime calls of $OSRT_PIDS processes" || t_fail "OS runtime calls of $OSRT_PIDS process(es)"

python3 - "$O" "$P/host/info.json" "$TX_PIDS" "$OSRT_TIDS" <<'PY' && t_ok "layer names, pids and threads" || t_fail "layer names"
import glob, json, os, re, sys
out, info, tx_pids, osrt_tids = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
app = int(json.load(open(info))["pid"])
ok = True
def bad(m):
    global ok
    ok = False
    print(m, file=sys.stderr)
def meta(path):
    ev = json.load(open(path))
    names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    labels = {e["pid"]: e["args"]["labels"] for e in ev if e["ph"] == "M" and e["name"] == "process_labels"}
    threads = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    return ev, names, labels, threads
files = {re.sub(r"_\d{14}", "", os.path.basename(f)): f for f in glob.glob(out + "/msprof*.json")}
ev, names, labels, threads = meta(files["msprof.json"])
# the mstx layers: one per process, both named after the command and the pid
for f in ("msprof.json", "msprof_tx.json"):
    _, n, _, _ = meta(files[f])
    for p in tx_pids:
        fp = (int(p) << 10 | 6 << 5 | 31) % 2**32
        if n.get(fp) != f"test-mstx-workl (pid {p})":
            bad(f"{f}: mstx layer of {p} named {n.get(fp)!r}")
# one OS Runtime API process, pid packed with the PROF dir's, a thread per tid
osrt = [p for p, n in names.items() if n == "OS Runtime API"]
if osrt != [(app << 10 | 13 << 5 | 31) % 2**32]:
    bad(f"OS Runtime API processes {osrt}")
else:
    got = sorted(str(t) for (p, t) in threads if p == osrt[0])
    if got != sorted(osrt_tids):
        bad(f"OS Runtime API threads {got}, want {sorted(osrt_tids)}")
    x = {str(e["tid"]) for e in ev if e["ph"] == "X" and e["pid"] == osrt[0]}
    if x != set(osrt_tids):
        bad(f"OS Runtime API events on tids {sorted(x)}")
# devices: the first keeps msprof's name, the second says which it is
for layer, sort in (("NPU MEM", 17), ("AI Core Freq", 15)):
    for d, want in ((0, layer), (1, f"{layer} (device 1)")):
        fp = (app << 10 | sort << 5 | d) % 2**32
        if names.get(fp) != want or labels.get(fp) != f"NPU {d}":
            bad(f"device {d} {layer}: {names.get(fp)!r}, label {labels.get(fp)!r}")
sys.exit(0 if ok else 1)
PY
t_done
