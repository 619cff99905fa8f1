# The timeline of a real profile against reference §4 and §9: a bare JSON
# array; key order per event kind; ts strings in µs with exactly three
# decimals; pid = (app pid << 10) | (sort index << 5) | 31 with the app pid
# of host/info.json; each host layer named, labelled "CPU" and sort-indexed
# as msprof does; counters named as msprof's host assemblers name them,
# and ours beside them: MB/s and MB counters (non-negative numbers), and a
# "Thread CPU: <name> (pid <pid>)" process (sort index 8, the pid of each
# profiled process) with a "<comm> (<tid>)" counter per thread.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/format/format-lib.sh"
f_python
f_record

n=$(ls "$O" | grep -Ec '^msprof_[0-9]{14}\.json$')
[ "$n" -eq 1 ] && t_ok "one msprof_{ts}.json" || t_fail "$n timeline files"
J=$O/$(ls "$O" | grep -E '^msprof_[0-9]{14}\.json$' | head -n1)
t_check "starts as a bare array, not a traceEvents object" sh -c "head -c 1 '$J' | grep -q '\['"

python3 - "$J" "$P/host/info.json" "$F_TRACKS" <<'PY' && t_ok "timeline events, pids, tracks" || t_fail "timeline: $J"
import json, re, sys
events = json.load(open(sys.argv[1]))
app = int(json.load(open(sys.argv[2]))["pid"])
tracks = {}
for line in sys.argv[3].splitlines():
    name, sort, label = line.split("|")
    tracks[int(sort)] = (name, label)
ok = True
THREADS = 8
threads = 0
def bad(msg):
    global ok
    ok = False
    print(msg, file=sys.stderr)

if not isinstance(events, list) or not events:
    bad("not a non-empty JSON array")
    sys.exit(1)
keys = {"C": ["name", "pid", "tid", "ts", "ph", "args"], "M": ["name", "pid", "tid", "ph", "args"]}
ts_re = re.compile(r"^[0-9]+\.[0-9]{3}$")
meta = {}
counters = {}
for i, e in enumerate(events):
    ph = e.get("ph")
    if ph not in keys:
        bad(f"event {i}: ph {ph!r}")
        continue
    if list(e.keys()) != keys[ph]:
        bad(f"event {i}: keys {list(e.keys())}, want {keys[ph]}")
    pid = e["pid"]
    sort = (pid >> 5) & 31 if isinstance(pid, int) else -1
    if sort == THREADS and pid & 31 == 31:
        if ph == "C":
            v = e["args"].get("Usage(%)")
            if not re.match(r"^.* \([0-9]+\)$", e["name"]) or not isinstance(v, (int, float)) or v < 0:
                bad(f"event {i}: thread counter {e['name']!r} {e['args']}")
        elif e["name"] == "process_name" and not re.match(r"^Thread CPU: .* \(pid [0-9]+\)$", e["args"]["name"]):
            bad(f"event {i}: thread process name {e['args']}")
        threads += 1
        continue
    if not isinstance(pid, int) or pid & 31 != 31 or pid >> 10 != app:
        bad(f"event {i}: pid {pid} is not ({app} << 10) | (sort << 5) | 31")
        continue
    if sort not in tracks:
        bad(f"event {i}: sort index {sort} is not a host layer")
        continue
    if e["tid"] != 0:
        bad(f"event {i}: tid {e['tid']}")
    if ph == "C":
        if not isinstance(e["ts"], str) or not ts_re.match(e["ts"]):
            bad(f"event {i}: ts {e['ts']!r} is not a string of µs with 3 decimals")
        if "Usage(%)" not in e["args"]:
            # ours: sizes and rates beside the layer's percentage
            if not all(re.match(r"^.*\(MB(/s)?\)$", k) and isinstance(v, (int, float)) and v >= 0
                       for k, v in e["args"].items()):
                bad(f"event {i}: {e['name']} args {e['args']}")
            continue
        v = e["args"].get("Usage(%)")
        if not isinstance(v, (int, float)) or not 0 <= v <= 100:
            bad(f"event {i}: Usage(%) {v!r}")
        counters.setdefault(sort, set()).add(e["name"])
    else:
        meta.setdefault(sort, {})[e["name"]] = e["args"]

for sort, (name, label) in tracks.items():
    if sort not in counters:
        bad(f"no counters for {name}")
        continue
    m = meta.get(sort, {})
    if m.get("process_name") != {"name": name}:
        bad(f"{name}: process_name {m.get('process_name')}")
    if m.get("process_labels") != {"labels": label}:
        bad(f"{name}: process_labels {m.get('process_labels')}")
    if m.get("process_sort_index") != {"sort_index": sort}:
        bad(f"{name}: process_sort_index {m.get('process_sort_index')}")
    if sort == 9:
        names = counters[sort]
        if "CPU Avg" not in names or not all(n == "CPU Avg" or re.match(r"^CPU [0-9]+$", n) for n in names):
            bad(f"CPU Usage counters {sorted(names)}")
    elif counters[sort] != {name}:
        bad(f"{name}: counters {sorted(counters[sort])}")
if not threads:
    bad("no Thread CPU process")
sys.exit(0 if ok else 1)
PY

# Timestamps lie inside the session (SESSION_TIME_INFO, ns) give or take a
# sampling interval.
if command -v sqlite3 >/dev/null 2>&1; then
	db=$(ls "$P"/msprof_*.db | head -n1)
	span=$(t_sql "$db" "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO")
	python3 - "$J" "$span" <<'PY' && t_ok "counter times inside the session" || t_fail "counter times outside the session ($span)"
import json, sys
start, end = (int(x) for x in sys.argv[2].split("|"))
ts = [int(e["ts"].replace(".", "")) for e in json.load(open(sys.argv[1])) if e["ph"] == "C"]
slack = 1_000_000_000
sys.exit(0 if ts and min(ts) >= start - slack and max(ts) <= end + slack else 1)
PY
fi

t_done
