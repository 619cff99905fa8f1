# Every CPU and disk figure a person reads stays within what is possible
# and agrees with what the job measured itself, on a loaded machine.
#
# Another process keeps CPU 1 busy the whole time (where there are two
# CPUs) while test-figures, under msprof at 100 Hz, burns a thread pinned
# to CPU 0 for a known CPU time, then writes bursts of known size and
# timing (tests/helpers/figures.c prints its own clock reads, its thread's
# CPU time, getrusage and /proc/self/io).  Then:
#   - no figure exceeds its range in the database, the CSVs, the timeline,
#     report.html's data or the summary: a thread at most 100 % of one CPU,
#     a process and the host at most 100 % of all (or 100 x the CPUs where
#     the unit is one CPU), a usage at most 100 %;
#   - the busy thread's samples add up to its CPU time, the process's to
#     getrusage, the per-process write rates to /proc/self/io's bytes;
#   - no sample says the process wrote faster than it wrote: the bytes a
#     row claims fit in the job's writes around it;
#   - the host's CPU (/proc/stat, SYS_CPU) over the thread's span holds at
#     least the thread's own CPU time there.
. "$SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null || t_skip "python3 is needed to read the outputs"
W=$T_WORK
NCPU=$(nproc)
mkdir -p "$W/d"
if [ "$NCPU" -ge 2 ] && command -v taskset >/dev/null; then
	taskset -c 1 "$HELPERS/test-burn" 60000 >/dev/null 2>&1 &
	LOADER=$!
	echo "# loader pid $LOADER keeps CPU 1 busy"
fi
"$MSPROF" --output="$W/out" --host-sys=cpu,disk --host-sys-usage=cpu --host-sys-freq=100 \
	"$HELPERS/test-figures" "$W/d" 800 4 16 150 >"$W/run.log" 2>&1
rc=$?
[ -n "${LOADER:-}" ] && kill "$LOADER" 2>/dev/null && wait "$LOADER" 2>/dev/null
t_eq "the job runs under msprof" "$rc" 0 || { cat "$W/run.log" >&2; t_done; }
P=$(t_prof_dir "$W/out") || t_done

t_check "every figure within its range and agreeing with the job's own" python3 - "$P" "$W/run.log" "$NCPU" <<'PY'
import csv, glob, json, os, re, sqlite3, subprocess, sys

prof, log, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = os.path.join(prof, "mindstudio_profiler_output")
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
    print(("ok: " if ok else "FAIL: ") + what)

lines = [l.split() for l in open(log)]
busy = [l for l in lines if l[:1] == ["busy"]][0]
tid, t0, t1, thread_ns = int(busy[1]), int(busy[2]), int(busy[3]), int(busy[4])
chunks = [(int(l[1]), int(l[2]), int(l[3])) for l in lines if l[:1] == ["chunk"]]
total = [l for l in lines if l[:1] == ["total"]][0]
cpu_ns, write_bytes = int(total[1]), int(total[2])
pid = db.execute("SELECT pid FROM TARGET_THREAD_CPU_USAGE WHERE tid = ?", (tid,)).fetchone()[0]
EPS = 1e-6

# --- ranges, in the database -----------------------------------------------------------
def peak(sql):
    v = db.execute(sql).fetchone()[0]
    return v if v is not None else 0
for sql, top, what in [
        ("SELECT max(usage) FROM TARGET_THREAD_CPU_USAGE", 100, "a thread, % of one CPU"),
        ("SELECT max(usage) FROM CPU_USAGE", 100, "a CPU"),
        ("SELECT max(usage) FROM CPU_USAGE_AVG", 100, "the tree, % of all CPUs"),
        ("SELECT max(usage) FROM PROCESS_CPU_USAGE", 100, "a process, % of all CPUs"),
        ("SELECT max(usage) FROM TARGET_PROCESS_DISK_USAGE", 100, "a process's time blocked on I/O"),
        ("SELECT max(usage) FROM HOST_DISK_USAGE", 100, "the disk usage")]:
    v = peak(sql)
    check(v <= top + EPS, "%s: peak %.3f <= %d" % (what, v, top))
for table, col in [("TARGET_THREAD_CPU_USAGE", "usage"), ("PROCESS_CPU_USAGE", "usage"),
                   ("TARGET_PROCESS_DISK_USAGE", "writeRate"), ("HOST_DISK_USAGE", "writeRate")]:
    check(peak("SELECT min(%s) FROM %s" % (col, table)) >= 0, "%s.%s never below 0" % (table, col))
# a process: its threads' sum at one timestamp, at most every CPU
v = peak("SELECT max(s) FROM (SELECT sum(usage) AS s FROM TARGET_THREAD_CPU_USAGE GROUP BY pid, timestampNs)")
check(v <= 100 * ncpu * 1.02 + EPS, "a process's threads together: peak %.1f %% of one CPU, %d CPUs" % (v, ncpu))
# the host from /proc/stat, as report.html draws it
host = db.execute("SELECT t, busy * 100.0 / (busy + idl), busy, t2 FROM (SELECT LAG(timestampNs) OVER w AS t, "
                  "timestampNs AS t2, user + nice + system + irq + softirq + steal - LAG(user + nice + system + irq + "
                  "softirq + steal) OVER w AS busy, idle + iowait - LAG(idle + iowait) OVER w AS idl FROM SYS_CPU "
                  "WHERE cpuId = -1 WINDOW w AS (ORDER BY timestampNs)) WHERE busy >= 0 AND idl >= 0 AND "
                  "busy + idl > 0").fetchall()
check(host and max(h[1] for h in host) <= 100 + EPS, "the host (/proc/stat): peak within 100 %")

# --- ranges, in every output file ----------------------------------------------------------
for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
    rows = list(csv.reader(open(path)))
    if not rows:
        continue
    for k, h in enumerate(rows[0]):
        if "(%)" not in h and "Usage" not in h:
            continue
        vals = [float(r[k].strip()) for r in rows[1:] if k < len(r) and re.match(r"^\s*[0-9.]+\s*$", r[k])]
        check(not vals or max(vals) <= 100 + EPS, "%s %s: peak %s <= 100" % (os.path.basename(path), h,
                                                                            max(vals) if vals else "-"))
for path in glob.glob(os.path.join(out, "msprof_*.json")):
    tl = json.load(open(path))
    names = {e["pid"]: e["args"]["name"] for e in tl if e.get("ph") == "M" and e.get("name") == "process_name"}
    over = [(names.get(e["pid"]), k, v) for e in tl if e.get("ph") == "C" for k, v in e.get("args", {}).items()
            if isinstance(v, (int, float)) and ("%" in k or "Usage" in k or "usage" in k) and v > 100 + EPS]
    check(not over, "%s: no percentage counter above 100%s" % (os.path.basename(path), ": %s" % over[:3] if over else ""))
data = json.loads(subprocess.check_output([sys.executable, os.path.join(os.environ["SRCDIR"], "tests/helpers/report-data.py"),
                                           os.path.join(out, "report.html")]))
for c in data["timeline"]["charts"]:
    if c.get("unit") == "%":
        top = max([v for s in c["series"] for v in s["v"] if v is not None] + [0])
        check(top <= c.get("max", 100) + EPS, "report.html chart %s: drawn peak %.2f within its axis" % (c["id"], top))
        for s in c["series"]:
            check(s["peak"] <= c.get("max", 100) + EPS, "report.html %s, %s: legend peak %.2f" % (c["id"], s["name"], s["peak"]))
for r in data.get("threads", {}).get("rows", []):
    check(r["peak"] <= 100 + EPS, "report.html thread %s: peak %.2f %% of one CPU" % (r["tid"], r["peak"]))
summ = [float(m) for m in re.findall(r"^\s+\d+\s+\S.*?\s([0-9.]+)%\s+[0-9.]+%", open(log).read(), re.M)]
check(summ and max(summ) <= 100 * ncpu + EPS, "the summary's peak CPU of a process: %s <= %d" % (summ, 100 * ncpu))

# --- against the job's own measures -----------------------------------------------------
def integral(rows):
    """rows (ts, value per s); each row's value holds until the next row."""
    rows = sorted(rows)
    gaps = [b[0] - a[0] for a, b in zip(rows, rows[1:])]
    if not gaps:
        return 0
    gaps.append(sorted(gaps)[len(gaps) // 2])
    return sum(v * g / 1e9 for (_, v), g in zip(rows, gaps))
got = integral(db.execute("SELECT timestampNs, usage / 100.0 FROM TARGET_THREAD_CPU_USAGE WHERE tid = ?", (tid,)).fetchall())
check(abs(got - thread_ns / 1e9) <= 0.1 * thread_ns / 1e9,
      "the busy thread's samples add up to its CPU time: %.3f s, it measured %.3f s" % (got, thread_ns / 1e9))
got = integral(db.execute("SELECT timestampNs, usage / 100.0 * ? FROM PROCESS_CPU_USAGE WHERE pid = ?", (ncpu, pid)).fetchall())
check(abs(got - cpu_ns / 1e9) <= 0.15 * cpu_ns / 1e9,
      "the process's samples add up to getrusage: %.3f s, it measured %.3f s" % (got, cpu_ns / 1e9))
rows = db.execute("SELECT timestampNs, writeRate FROM TARGET_PROCESS_DISK_USAGE WHERE pid = ? ORDER BY 1", (pid,)).fetchall()
got = integral(rows)
check(abs(got - write_bytes) <= 0.1 * write_bytes,
      "the process's write rates add up to /proc/self/io: %.0f bytes, it counted %d" % (got, write_bytes))
# the reads of a sample may lie this far from its time: a process that
# seemed not to run has its I/O counters held up to 20 ms (man msprof,
# --host-sys-freq), and a thread woken a moment before a tick may already
# have written before its run time shows it
J = 25_000_000
faster = []
for (s, rate), (e, _) in zip(rows, rows[1:]):
    if rate <= 0 or e - s <= J:
        continue
    near = sum(b for (c0, c1, b) in chunks if c1 >= s - J and c0 <= e + J)
    claimed = rate * (e - s - J) / 1e9
    if claimed > near * 1.02 + 4096:
        faster.append((s, rate, near))
check(not faster, "no sample has the process writing faster than it wrote%s" % (": %s" % faster[:3] if faster else ""))
# the host's busy CPU time over the thread's span holds the thread's
span = [(t, b) for (t, _, b, t2) in host if t >= t0 - 20_000_000 and t2 <= t1 + 20_000_000]
hz = os.sysconf("SC_CLK_TCK")
host_s = sum(b for (_, b) in span) / hz
check(host_s >= thread_ns / 1e9 * 0.9,
      "the host's busy time (/proc/stat) over the thread's span, %.3f s, holds its %.3f s" % (host_s, thread_ns / 1e9))
sys.exit(1 if bad else 0)
PY
t_done
