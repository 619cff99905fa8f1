# device-cupti-check.py MODE PROF PID: the outputs of one device-cupti.sh
# run against what the fake CUPTI (tests/helpers/fake-cupti.c) delivered.
# MODE "all" (--runtime-api=on), "tasks" (the defaults: no runtime API
# outputs), "api" (--task-time=off --runtime-api=on).
import csv, glob, json, os, sqlite3, sys

mode, prof, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
tasks_on, api_on = mode in ("all", "tasks"), mode in ("all", "api")
bad = []


def check(what, got, want):
    if got != want:
        bad.append(f"{mode}: {what}: got {got!r}, want {want!r}")


db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
q = lambda sql: db.execute(sql).fetchall()
tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}
for t, on in (("CANN_API", api_on), ("MEMCPY_INFO", tasks_on and api_on), ("GPU_TASK", True), ("GPU_API", True),
              ("GPU_SYNC", True)):
    check(f"table {t} present", t in tables, on)
# TASK and COMPUTE_TASK_INFO are always there (cluster readers need them), empty when off
for t in ("TASK", "COMPUTE_TASK_INFO"):
    check(f"table {t} present", t in tables, True)
    if t in tables:
        check(f"table {t} has rows", q(f"SELECT count(*) > 0 FROM {t}")[0][0] == 1, tasks_on)
if bad:  # nothing below makes sense without the raw tables
    for b in bad:
        print("FAIL:", b, file=sys.stderr)
    sys.exit(1)

# the fake stamps relative to its flush T: kernel i at T - 9000 + 2000 i
t0 = q("SELECT min(startNs) FROM GPU_TASK WHERE kind = 1")[0][0]
T = t0 + 9000
calls = q("SELECT startNs, endNs, correlationId, name, tid FROM GPU_API ORDER BY startNs")
check("GPU_API", [c[:4] for c in calls],
      [(T - 10000 + 2000 * i, T - 9900 + 2000 * i, i + 1, "cudaLaunchKernel_v7000") for i in range(3)] +
      [(T - 4000, T - 2500, 5, "cudaStreamSynchronize_v3020"),
       (T - 2400, T - 1500, 6, "cudaDeviceSynchronize_v3020")])
tid = calls[0][4] if calls else None
check("GPU_SYNC", q("SELECT pid, startNs, endNs, type, contextId, streamId, eventId, correlationId, result, tid, "
                    "connectionId FROM GPU_SYNC ORDER BY startNs"),
      [(pid, T - 3900, T - 2600, 3, 1, 7, None, 5, 0, tid, 5),
       (pid, T - 2350, T - 1550, 4, 1, None, None, 6, 0, tid, 6)])
if tasks_on:
    tasks = q("SELECT t.startNs, t.endNs, deviceId, connectionId, globalPid, s.value, contextId, streamId, taskId "
              "FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType ORDER BY t.startNs")
    want = [(t0 + 2000 * i, t0 + 2000 * i + 500, 0, i + 1, pid, "KERNEL", 1, 7, i + 1) for i in range(3)]
    want.append((t0 + 8000, t0 + 8200, 0, 4, pid, "MEMCPY", 1, 9, 4))
    check("TASK", tasks, want)
    check("COMPUTE_TASK_INFO", q("SELECT n.value, blockNum, mixBlockNum, gridDim, blockDim FROM COMPUTE_TASK_INFO c "
                                 "JOIN STRING_IDS n ON n.id = c.name ORDER BY globalTaskId"),
          [("kernel()", 4 + i, 128, f"{4 + i},1,1", "128,1,1") for i in range(3)])
if tasks_on and api_on:
    check("MEMCPY_INFO", q("SELECT size, memcpyOperation FROM MEMCPY_INFO"), [(4096, 1)])
if api_on:
    apis = q("SELECT startNs, endNs, type, globalTid, connectionId, s.value FROM CANN_API a "
             "JOIN STRING_IDS s ON s.id = a.name ORDER BY startNs")
    check("CANN_API", apis, [(c[0], c[1], 5000, (pid << 32) | c[4], c[2], c[3]) for c in calls])

out = os.path.join(prof, "mindstudio_profiler_output")
files = lambda name: glob.glob(os.path.join(out, name + "_*.csv"))
for name, on in (("op_summary", tasks_on), ("op_statistic", tasks_on), ("task_time", tasks_on),
                 ("api_statistic", api_on)):
    check(f"{name} written", len(files(name)), 1 if on else 0)
if tasks_on:
    rows = list(csv.reader(open(files("op_summary")[0])))
    check("op_summary rows", [(r[2], r[4], r[5], r[9], r[10], r[11], r[12]) for r in rows[1:]],
          [(str(i + 1), "kernel()", "kernel", "0.500", "0.000" if i == 0 else "1.500", str(4 + i), "128")
           for i in range(3)])
    rows = list(csv.reader(open(files("task_time")[0])))
    check("task_time names", [r[1] for r in rows[1:]], ["kernel()"] * 3 + ["Memcpy HtoD"])
if api_on:
    rows = list(csv.reader(open(files("api_statistic")[0])))
    check("api_statistic", rows[1:], [
        ["host", "Runtime", "cudaStreamSynchronize_v3020", "1.500", "1", "1.500", "1.500", "1.500", "0.0"],
        ["host", "Runtime", "cudaDeviceSynchronize_v3020", "0.900", "1", "0.900", "0.900", "0.900", "0.0"],
        ["host", "Runtime", "cudaLaunchKernel_v7000", "0.300", "3", "0.100", "0.100", "0.100", "0.0"]])

ev = json.load(open(glob.glob(os.path.join(out, "msprof_*.json"))[0]))
us = lambda ns: f"{ns // 1000}.{ns % 1000:03d}"
xs = {(e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "X"}
flows = [e for e in ev if e["ph"] in "sf" and e.get("cat") == "HostToDevice"]
want_flows = [("s", str((i + 1) << 32)) for i in range(3)] + [("f", str((i + 1) << 32)) for i in range(3)]
check("flows", sorted((e["ph"], e["id"]) for e in flows), sorted(want_flows) if tasks_on and api_on else [])
for e in flows:
    check(f"flow {e['ph']} {e['id']} ends on an X event", (e["pid"], e["tid"], e["ts"]) in xs, True)
check("device stream tracks",
      sorted({e["tid"] for e in ev if e["ph"] == "X" and e["name"] in ("kernel()", "Memcpy HtoD")}),
      [7, 9] if tasks_on else [])
runtime = {e["args"]["connection_id"]: e for e in ev if e["ph"] == "X" and e["name"].startswith("Runtime@")}
check("Runtime@ events", len(runtime), 5 if api_on else 0)
syncs = sorted((e for e in ev if e["ph"] == "X" and e["name"].startswith("Sync@")), key=lambda e: e["ts"])
check("Sync@ slices",
      [(e["name"], e["tid"], e["ts"], e["dur"], e["args"].get("Stream Id"), e["args"]["Context Id"],
        e["args"]["connection_id"], e["args"]["level"]) for e in syncs],
      [("Sync@Stream Synchronize", tid, us(T - 3900), 1.3, 7, 1, 5, "sync"),
       ("Sync@Context Synchronize", tid, us(T - 2350), 0.8, None, 1, 6, "sync")] if api_on else [])
for e in syncs:  # inside its call, on the call's track
    c = runtime.get(e["args"]["connection_id"])
    check(f"{e['name']} nests in its call", c is not None and c["pid"] == e["pid"] and c["tid"] == e["tid"] and
          float(c["ts"]) <= float(e["ts"]) and float(e["ts"]) + e["dur"] <= float(c["ts"]) + c["dur"], True)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
