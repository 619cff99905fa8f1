#!/bin/bash
# Device tasks end to end without a GPU: msprof injects its agent and sets
# CUDA_INJECTION64_PATH; test-cuda-app does what the CUDA driver does with
# it (InitializeInjection); the agent loads the fake CUPTI
# (tests/helpers/fake-cupti.c) through its real dlopen path and records
# what the fake delivers at the window's end.  The database, CSVs and
# timeline must hold exactly those kernels, the copy and the API calls,
# linked by HostToDevice flows.  Then a second CUPTI user: one message, the
# run goes on.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
FAKE="$HELPERS/libfake-cupti.so"
[ -f "$FAKE" ] || t_skip "built without the CUDA toolkit headers (-Dcupti): no CUPTI part to test"
APP="$HELPERS/test-cuda-app"

# In a sanitized build the agent is instrumented: the application it is
# preloaded into needs the ASan runtime first (msprof keeps a user's
# LD_PRELOAD entries in front of the agent's).
ASAN_LIB=$(ldd "$MSPROF" 2>/dev/null | awk '/libasan/ { print $3; exit }')
run_msprof() {
	(
		if [ -n "$ASAN_LIB" ]; then
			export LD_PRELOAD=$ASAN_LIB
			exec "$MSPROF" --environment="ASAN_OPTIONS=detect_leaks=0" "$@"
		fi
		exec "$MSPROF" "$@"
	)
}

OUT="$T_WORK/out"
mkdir -p "$OUT"
MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 run_msprof --output="$OUT" --msproftx=on \
	"$APP" "$T_WORK/app.pid" 300 >"$T_WORK/log" 2>&1
rc=$?
t_check "msprof exits 0" test $rc -eq 0
P=$(t_prof_dir "$OUT") || exit 1
python3 - "$P" "$(cat "$T_WORK/app.pid")" <<'EOF' || t_fail "device tasks differ from the fake CUPTI's records (see above)"
import csv, glob, json, os, sqlite3, sys
prof, pid = sys.argv[1], int(sys.argv[2])
bad = []
def check(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got!r}, want {want!r}")
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
tasks = q("SELECT t.startNs, t.endNs, deviceId, connectionId, globalPid, s.value, contextId, streamId, taskId "
          "FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType ORDER BY t.startNs")
check("task count", len(tasks), 4)
if len(tasks) == 4:
    t0 = tasks[0][0]   # the fake stamps relative to its flush: kernel i at t0 + 2000 i
    want = [(t0 + 2000 * i, t0 + 2000 * i + 500, 0, i + 1, pid, "KERNEL", 1, 7, i + 1) for i in range(3)]
    want.append((t0 + 8000, t0 + 8200, 0, 4, pid, "MEMCPY", 1, 9, 4))
    check("TASK", tasks, want)
    apis = q("SELECT startNs, endNs, type, globalTid >> 32, connectionId, s.value FROM CANN_API a "
             "JOIN STRING_IDS s ON s.id = a.name ORDER BY startNs")
    check("CANN_API", apis, [(t0 - 1000 + 2000 * i, t0 - 900 + 2000 * i, 5000, pid, i + 1, "cudaLaunchKernel_v7000")
                             for i in range(3)])
check("COMPUTE_TASK_INFO", q("SELECT n.value, blockNum, mixBlockNum, gridDim, blockDim FROM COMPUTE_TASK_INFO c "
                             "JOIN STRING_IDS n ON n.id = c.name ORDER BY globalTaskId"),
      [("kernel()", 4 + i, 128, f"{4 + i},1,1", "128,1,1") for i in range(3)])
check("MEMCPY_INFO", q("SELECT size, memcpyOperation FROM MEMCPY_INFO"), [(4096, 1)])
out = os.path.join(prof, "mindstudio_profiler_output")
rows = list(csv.reader(open(glob.glob(os.path.join(out, "op_summary_*.csv"))[0])))
check("op_summary rows", [(r[2], r[4], r[5], r[9], r[10], r[11], r[12]) for r in rows[1:]],
      [(str(i + 1), "kernel()", "kernel", "0.500", "0.000" if i == 0 else "1.500", str(4 + i), "128") for i in range(3)])
rows = list(csv.reader(open(glob.glob(os.path.join(out, "api_statistic_*.csv"))[0])))
check("api_statistic", rows[1:], [["host", "Runtime", "cudaLaunchKernel_v7000", "0.300", "3", "0.100", "0.100",
                                   "0.100", "0.0"]])
rows = list(csv.reader(open(glob.glob(os.path.join(out, "task_time_*.csv"))[0])))
check("task_time names", [r[1] for r in rows[1:]], ["kernel()"] * 3 + ["Memcpy HtoD"])
ev = json.load(open(glob.glob(os.path.join(out, "msprof_*.json"))[0]))
xs = {(e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "X"}
flows = [e for e in ev if e["ph"] in "sf" and e.get("cat") == "HostToDevice"]
check("flows", sorted((e["ph"], e["id"]) for e in flows),
      sorted([("s", str((i + 1) << 32)) for i in range(3)] + [("f", str((i + 1) << 32)) for i in range(3)]))
for e in flows:
    check(f"flow {e['ph']} {e['id']} ends on an X event", (e["pid"], e["tid"], e["ts"]) in xs, True)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
[ "$T_FAILS" -eq 0 ] && t_ok "TASK, CANN_API, COMPUTE_TASK_INFO, MEMCPY_INFO, CSVs and flows hold the fake CUPTI's records"

# another CUPTI user in the process: one message, the application and the
# rest of the collection go on
OUT2="$T_WORK/out2"
mkdir -p "$OUT2"
MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_SUBSCRIBE_ERROR=39 run_msprof --output="$OUT2" --msproftx=on \
	"$APP" "$T_WORK/app2.pid" 100 >"$T_WORK/log2" 2>&1
rc=$?
t_check "another CUPTI user: msprof exits 0" test $rc -eq 0
t_grep "another CUPTI user: one clear message" \
	"msprof agent: another CUPTI user (nsys, Kineto, ncu...) is active in this process: device tasks are not recorded, everything else is" \
	"$T_WORK/log2"
t_check "another CUPTI user: said once" test "$(grep -c 'another CUPTI user' "$T_WORK/log2")" -eq 1
P2=$(t_prof_dir "$OUT2") || exit 1
t_check "another CUPTI user: no TASK table" \
	test -z "$(sqlite3 "$P2"/msprof_*.db "SELECT name FROM sqlite_master WHERE name = 'TASK'")"
t_check "another CUPTI user: host data exported" \
	test -n "$(ls "$P2"/mindstudio_profiler_output/host_cpu_usage_*.csv 2>/dev/null)"
t_check "no sanitizer report from the agent" bash -c "! grep -E 'runtime error|Sanitizer' '$T_WORK/log' '$T_WORK/log2'"
exit $((T_FAILS > 0))
