# msprof export cluster end to end: four ranks recorded by real runs of
# msprof (steps-app with RANK_ID=0..3, one PROF dir each, as a distributed
# job's ranks write them), plus a process without a rank and a damaged
# dir, merged into one timeline and a step table across ranks; checked
# against each rank's own exported timeline and step_trace CSV, read here.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the JSON and CSV files"
APP=$AGENT_BIN/steps-app
OUT=$T_WORK/job
# a_run's stdout and stderr in one file, for t_grep
both() { cat "$T_WORK/out" "$T_WORK/err" >"$T_WORK/both"; echo "$T_WORK/both"; }

# rank R (empty: none) STEPS: one msprof run, one PROF dir under $OUT
rank() {
	local envs=()
	[ -n "$1" ] && envs=(RANK_ID="$1" RANK="$1")
	if env "${PRE[@]}" "${envs[@]}" timeout 60 "$MSPROF" --msproftx=on --host-sys=cpu,mem --output="$OUT" \
		"$APP" ranges "$2" >"$T_WORK/rank$1.log" 2>&1; then
		t_ok "rank '${1:-none}': msprof steps-app ranges $2"
	else
		t_fail "rank '${1:-none}': msprof exits non-zero"; cat "$T_WORK/rank$1.log" >&2
	fi
}

# --- errors before any data ---------------------------------------------------------
mkdir -p "$T_WORK/empty"
a_run "a dir with no PROF_* is refused" 1 "$MSPROF" export cluster -dir "$T_WORK/empty"
t_grep "its message names the dir" "no PROF_* directory in '$T_WORK/empty'" "$(both)"
a_run "a missing dir is refused" 1 "$MSPROF" export cluster -dir "$T_WORK/nowhere"
a_run "an unknown option is argparse's error" 2 "$MSPROF" export cluster -dir "$T_WORK/empty" --clear
a_run "export cluster -h" 0 "$MSPROF" export cluster -h
t_grep "-h names the outputs" "cluster_step_trace_<ts>.csv" "$T_WORK/out"

# --- four ranks, steps of different lengths ------------------------------------------------
for r in 0 1 2 3; do rank "$r" $((8 + r)); done
rank "" 3
# rank 4: a program that forks a child annotating step 0 as well: two
# processes of one name, their STEP rows not in id order
if env "${PRE[@]}" RANK_ID=4 timeout 60 "$MSPROF" --msproftx=on --output="$OUT" "$APP" fork >"$T_WORK/rank4.log" 2>&1; then
	t_ok "rank 4: msprof steps-app fork"
else
	t_fail "rank 4: msprof exits non-zero"; cat "$T_WORK/rank4.log" >&2
fi
# a damaged rank dir: a PROF dir whose database is not one and which has no raw data
BAD=$OUT/PROF_000009_20260101000000000_00009999AAAAAAAA
mkdir -p "$BAD/host"
echo '{"pid": 9999, "rank_id": 7, "hostname": "x", "memoryTotal": 1}' >"$BAD/host/info.json"
head -c 4096 /dev/urandom >"$BAD/msprof_20260101000000.db"

a_run "export cluster: exit 1 as one dir is skipped" 1 "$MSPROF" export cluster -dir "$OUT"
t_grep "the damaged dir is named" "'PROF_000009_20260101000000000_00009999AAAAAAAA' is skipped" "$(both)"
t_grep "the count says 6 of 7 merged, 1 skipped" "Merged 6 of 7 PROF_* directories (1 skipped)" "$(both)"
C=$OUT/msprof_cluster_output

python3 - "$OUT" "$C" <<'EOF'
import csv, glob, json, os, sys
out, cdir = sys.argv[1], sys.argv[2]
fails = 0
def check(what, ok, detail=""):
    global fails
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " -- " + str(detail)), file=sys.stdout if ok else sys.stderr)
    fails += not ok

def one(pattern):
    f = glob.glob(pattern)
    check("one " + os.path.basename(pattern), len(f) == 1, f)
    return f[0]

def ns(s):  # "123.456" µs -> ns, exactly
    s = s.strip()
    i, _, f = s.partition(".")
    return int(i) * 1000 + int((f + "000")[:3])

# the ranks as this test launched them, from their own files
ranks = {}
for d in sorted(glob.glob(out + "/PROF_*")):
    info = json.load(open(d + "/host/info.json"))
    tl = glob.glob(d + "/mindstudio_profiler_output/msprof_[0-9]*.json")
    if not tl:
        continue  # the damaged one
    rid, pid = int(info["rank_id"]), int(info["pid"])
    label = "Rank %d" % rid if rid >= 0 else "Pid %d" % pid
    st = list(csv.reader(open(glob.glob(d + "/mindstudio_profiler_output/step_trace_*.csv")[0])))[1:]
    ranks[label] = {"rank": rid, "events": json.load(open(tl[0])),
                    "steps": {}}
    for r in st:  # a rank's step N: from the first start to the last end of its processes' step N
        i, end, dur = int(r[1]), ns(r[4]), ns(r[5])
        b, e = ranks[label]["steps"].get(i, (end - dur, end))
        ranks[label]["steps"][i] = (min(b, end - dur), max(e, end))
check("six ranks recorded (5 ranks, 1 without)", len(ranks) == 6 and
      sorted(l for l in ranks if l.startswith("Rank")) == ["Rank %d" % i for i in range(5)], sorted(ranks))

# --- the merged timeline -----------------------------------------------------------------
tl = json.load(open(one(cdir + "/msprof_cluster_*.json")))
check("the timeline is a bare JSON array", isinstance(tl, list))
names = {}
for e in tl:
    if e["ph"] == "M" and e["name"] == "process_name":
        names.setdefault(e["pid"], []).append(e["args"]["name"])
allnames = [n for v in names.values() for n in v]
check("every process name is unique in the file", len(allnames) == len(set(allnames)), allnames)
check("each pid has one process_name", all(len(v) == 1 for v in names.values()), names)
for label, r in ranks.items():
    own = {e["pid"]: e["args"]["name"] for e in r["events"] if e["ph"] == "M" and e["name"] == "process_name"}
    mine = {p: n[0] for p, n in names.items() if n[0].startswith(label + " ")}
    # a name twice in the rank: the second says its pid
    seen, want_names = set(), []
    for p in sorted(own, key=lambda p: min(i for i, e in enumerate(r["events"]) if e.get("pid") == p and e["ph"] == "M")):
        n = own[p]
        want_names.append(n if n not in seen else "%s (pid %d)" % (n, p >> 10))
        seen.add(n)
    check(label + ": its processes, named '<rank> <name>'",
          sorted(n[len(label) + 1:] for n in mine.values()) == sorted(want_names), (mine, own))
    for kind in ("X", "C", "M"):
        want = sum(1 for e in r["events"] if e["ph"] == kind)
        got = sum(1 for e in tl if e["ph"] == kind and e["pid"] in mine)
        check("%s: %s events as many as in its own timeline (%d)" % (label, kind, want), got == want, got)
    # the same events, moved to the rank's pids: compare names and times
    own_x = sorted((e["name"], e["ts"], e["dur"]) for e in r["events"] if e["ph"] == "X")
    got_x = sorted((e["name"], e["ts"], e["dur"]) for e in tl if e["ph"] == "X" and e["pid"] in mine)
    check(label + ": its X events, same names and times (one host: no clock shift)", own_x == got_x)
total = sum(len(r["events"]) for r in ranks.values())
check("the file holds the sum of the ranks' events (%d)" % total, len(tl) == total, len(tl))
check("layers: mstx and host counters present", any(e["ph"] == "C" for e in tl) and any(e["ph"] == "X" for e in tl))
sort = {}
for e in tl:
    if e["ph"] == "M" and e["name"] == "process_sort_index":
        sort[names[e["pid"]][0]] = e["args"]["sort_index"]
order = sorted(sort, key=lambda n: sort[n])
firsts = [n.split(" ")[0] + " " + n.split(" ")[1] for n in order]
groups = [g for i, g in enumerate(firsts) if i == 0 or firsts[i - 1] != g]
check("process groups sorted by rank, the rankless one last", groups == ["Rank 0", "Rank 1", "Rank 2", "Rank 3", "Rank 4"] + [g for g in ranks if g.startswith("Pid")], groups)

# --- the step table -----------------------------------------------------------------------
rows = list(csv.DictReader(open(one(cdir + "/cluster_step_trace_*.csv"))))
want = []
for step in sorted({s for r in ranks.values() for s in r["steps"]}):
    have = [(l, r) for l, r in sorted(ranks.items(), key=lambda x: (x[1]["rank"] < 0, x[1]["rank"])) if step in r["steps"]]
    slow = max(r["steps"][step][1] - r["steps"][step][0] for l, r in have)
    fast = min(r["steps"][step][1] - r["steps"][step][0] for l, r in have)
    for l, r in have:
        b, e = r["steps"][step]
        want.append((step, l, b, e - b, slow - (e - b), slow, fast))
got = [(int(r["Step ID"]), r["Rank"], ns(r["Step Start(us)"]), ns(r["Step Time(us)"]), ns(r["Wait(us)"]),
        ns(r["Slowest Time(us)"]), ns(r["Fastest Time(us)"])) for r in rows]
check("a row per step and rank, times as each rank's step_trace has them (%d rows)" % len(want), got == want,
      [(a, b) for a, b in zip(got, want) if a != b][:3] or (len(got), len(want)))
for r in rows:
    slowest = [x for x in rows if x["Step ID"] == r["Step ID"] and x["Rank"] == r["Slowest Rank"]]
    fastest = [x for x in rows if x["Step ID"] == r["Step ID"] and x["Rank"] == r["Fastest Rank"]]
    if not (slowest and slowest[0]["Step Time(us)"] == r["Slowest Time(us)"] and fastest and
            fastest[0]["Step Time(us)"] == r["Fastest Time(us)"] and r["Communication(us)"] == "0.000"):
        check("step %s %s: slowest/fastest rank are rows of the step" % (r["Step ID"], r["Rank"]), False, r)
        break
else:
    check("every row's slowest and fastest rank are that step's; no communication data: 0", True)
check("steps 8..10 only on the ranks that ran them", sorted({r["Rank"] for r in rows if r["Step ID"] == "10"}) == ["Rank 3"])

# --- the ranks table --------------------------------------------------------------------
rk = list(csv.DictReader(open(one(cdir + "/cluster_ranks_*.csv"))))
check("the ranks CSV lists all 7 dirs", len(rk) == 7, rk)
bad = [r for r in rk if r["Status"] != "merged"]
check("one skipped, named, with why", len(bad) == 1 and bad[0]["PROF Dir"].startswith("PROF_000009") and
      bad[0]["Status"].startswith("skipped: cannot read its database 'msprof_20260101000000.db': ") and
      "not a database" in bad[0]["Status"], bad)
for r in rk:
    if r["Status"] == "merged":
        rr = ranks[r["Rank"]]
        ok = int(r["Events"]) == sum(1 for e in rr["events"] if e["ph"] != "M") and int(r["Steps"]) == len(rr["steps"])
        if not ok:
            check(r["Rank"] + ": events and steps counted", False, r)
sys.exit(1 if fails else 0)
EOF
[ $? -eq 0 ] || t_fail "the merged outputs differ from the ranks' own (above)"

# the database holds the same rows as the CSVs
if command -v sqlite3 >/dev/null 2>&1; then
	DB=$(ls "$C"/msprof_cluster_*.db)
	t_eq "msprof_cluster db: CLUSTER_STEP rows = the CSV's" "$(t_sql "$DB" 'SELECT COUNT(*) FROM CLUSTER_STEP')" \
		"$(($(wc -l <"$(ls "$C"/cluster_step_trace_*.csv)") - 1))"
	t_eq "msprof_cluster db: one CLUSTER_RANK row per dir, one skipped" \
		"$(t_sql "$DB" "SELECT COUNT(*), SUM(status <> 'merged') FROM CLUSTER_RANK")" "7|1"
fi

# --- names kept away from the single-PROF-dir readers' patterns ------------------------------
t_eq "no cluster file matches a reader's single-PROF-dir pattern" \
	"$(ls "$C" | grep -cE '^msprof_[0-9]{1,20}.*\.json$|^msprof_[0-9]{1,20}\.db$|^step_trace_|^PROF_')" 0

# --- a PROF dir itself is not a cluster --------------------------------------------------------
P0=$(ls -d "$OUT"/PROF_* | head -n1)
a_run "a PROF_* dir given as -dir is refused" 1 "$MSPROF" export cluster -dir "$P0"
t_grep "its message says to give the parent" "give the directory that holds the ranks' PROF_* directories" "$(both)"

# --- again, without the damaged dir: exit 0, older outputs replaced -------------------------------
rm -rf "$BAD"
sleep 1 # a new timestamp in the names
a_run "export cluster again: exit 0" 0 "$MSPROF" export cluster -dir "$OUT"
ls "$C" >"$T_WORK/left"
t_eq "one file of each kind left" "$(sed -E "s/_[0-9]+(\.(json|csv|db))$/\1/" "$T_WORK/left" | sort | uniq -d)" ""

# --- clocks: rank 1's wall clock stepped 5 s ahead after rank 0 started (its
# start_info says so: wall - monotonic 5 s more than rank 0's, same host), and
# rank 3 on a host of its own (its hostUid), whose wall clock is trusted ------------------
dir_of() { grep -l "\"rank_id\":$1[,}]" "$OUT"/PROF_*/host/info.json | sed 's|/host/info.json||'; }
R1=$(dir_of 1) R3=$(dir_of 3)
python3 - "$R1" "$R3" <<'PY'
import json, sys
p = sys.argv[1] + "/host/start_info"
j = json.load(open(p))
j["collectionTimeBegin"] = str(int(j["collectionTimeBegin"]) + 5000000)
json.dump(j, open(p, "w"))
p = sys.argv[2] + "/host/info.json"
j = json.load(open(p))
j["hostUid"] = "another-host"
json.dump(j, open(p, "w"))
PY
# their own timelines anew, to compare with
for d in "$R1" "$R3"; do "$MSPROF" --export=on --output="$d" >/dev/null 2>&1 || t_fail "export of '$d'"; done
sleep 1
a_run "export cluster after the clock step: exit 0" 0 "$MSPROF" export cluster -dir "$OUT"
t_grep "two hosts counted" "from 2 hosts" "$(both)"
python3 - "$R1" "$R3" "$C" <<'PY' || t_fail "clock shift (above)"
import csv, glob, json, sys
def ns(s):
    i, _, f = s.strip().partition(".")
    return int(i) * 1000 + int((f + "000")[:3])
tl = json.load(open(glob.glob(sys.argv[3] + "/msprof_cluster_*.json")[0]))
names = {e["pid"]: e["args"]["name"] for e in tl if e["ph"] == "M" and e["name"] == "process_name"}
rk = {r["Rank"]: int(r["Clock Shift(ns)"]) for r in csv.DictReader(open(glob.glob(sys.argv[3] + "/cluster_ranks_*.csv")[0]))}
# the 5 s, give or take the jitter of start_info's two clock reads
ok = abs(rk["Rank 1"] + 5000000000) < 1000000 and rk["Rank 0"] == rk["Rank 2"] == rk["Rank 3"] == 0
print(("ok: " if ok else "FAIL: ") + "the ranks CSV: rank 1 shifted by -5 s (%d ns), the others not" % rk["Rank 1"])
bad = not ok
for d, label, shift in ((sys.argv[1], "Rank 1 ", rk["Rank 1"]), (sys.argv[2], "Rank 3 ", 0)):
    own = json.load(open(glob.glob(d + "/mindstudio_profiler_output/msprof_[0-9]*.json")[0]))
    want = sorted((e["name"], ns(e["ts"]) + shift) for e in own if e["ph"] in "XC")
    got = sorted((e["name"], ns(e["ts"])) for e in tl if e["ph"] in "XC" and names[e["pid"]].startswith(label))
    ok = want == got and want
    print(("ok: " if ok else "FAIL: ") + label + "events shifted by %d ns" % shift)
    bad += not ok
    st = {int(r[1]): ns(r[4]) - ns(r[5]) for r in list(csv.reader(open(glob.glob(d + "/mindstudio_profiler_output/step_trace_*.csv")[0])))[1:]}
    rows = {int(r["Step ID"]): ns(r["Step Start(us)"]) for r in csv.DictReader(open(glob.glob(sys.argv[3] + "/cluster_step_trace_*.csv")[0])) if r["Rank"] == label.strip()}
    ok = rows == {k: v + shift for k, v in st.items()}
    print(("ok: " if ok else "FAIL: ") + label + "step starts shifted by %d ns" % shift)
    bad += not ok
sys.exit(1 if bad else 0)
PY

# --- communication: COMMUNICATION_OP rows (reference §5 columns) put into rank 2's
# database, some inside a step, some across a step's end or between steps; the
# step table's Communication is each step's share of them, computed here too ------------
R2=$(dir_of 2)
python3 - "$(ls "$R2"/msprof_*.db)" >"$T_WORK/comm.want" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("""CREATE TABLE IF NOT EXISTS COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER,
    connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER, retry INTEGER, dataType INTEGER,
    algType INTEGER, count NUMERIC, opType INTEGER, deviceId INTEGER, rankSize INTEGER)""")
steps = db.execute("SELECT stepId, MIN(startNs), MAX(endNs) FROM STEP GROUP BY stepId ORDER BY stepId").fetchall()
ops = []
for i, (sid, b, e) in enumerate(steps):
    d = e - b
    ops.append((b + d // 4, b + d // 2))            # inside
    if i % 2:
        ops.append((e - d // 10, e + 1000000))      # across the end
    if i % 3 == 0:
        ops.append((b - 500000, b + d // 8))        # across the start
for n, (b, e) in enumerate(ops):
    db.execute("INSERT INTO COMMUNICATION_OP (opName, startNs, endNs, opId) VALUES (0, ?, ?, ?)", (b, e, n))
db.commit()
for sid, b, e in steps:
    ns = sum(min(oe, e) - max(ob, b) for ob, oe in ops if ob < e and oe > b)
    print(sid, "%d.%03d" % (ns // 1000, ns % 1000))
PY
sleep 1
a_run "export cluster with communication data: exit 0" 0 "$MSPROF" export cluster -dir "$OUT"
t_eq "rank 2's Communication per step: its ops' time inside the step" \
	"$(python3 -c 'import csv,sys; [print(r["Step ID"], r["Communication(us)"]) for r in csv.DictReader(open(sys.argv[1])) if r["Rank"] == "Rank 2"]' \
		"$(ls "$C"/cluster_step_trace_*.csv)")" "$(cat "$T_WORK/comm.want")"
t_eq "the other ranks' Communication: 0 (no COMMUNICATION_OP)" \
	"$(python3 -c 'import csv,sys; print(sorted({r["Communication(us)"] for r in csv.DictReader(open(sys.argv[1])) if r["Rank"] != "Rank 2"}))' \
		"$(ls "$C"/cluster_step_trace_*.csv)")" "['0.000']"

# --- what is not a rank: every entry named, with why -------------------------------------
# Copies of rank 0's dir whose info.json names no rank rightly (out of range,
# the wrong type, a pid of "-1"): damaged, left out; a second dir of rank 0:
# both merged and both named; a symlink and a plain file named PROF_*: skipped.
ODD=$T_WORK/odd; mkdir -p "$ODD"
R0=$(dir_of 0)
cp -a "$R0" "$ODD/"
odd() { # odd N KEY JSON-VALUE: a copy of rank 0's dir, its info.json's KEY set to the value
	local d=$ODD/PROF_00000$1_20260101000000000_0000000${1}ODDODDOD
	cp -a "$R0" "$d"
	python3 -c 'import json,sys; p=sys.argv[1]+"/host/info.json"; j=json.load(open(p)); j[sys.argv[2]]=json.loads(sys.argv[3]); json.dump(j,open(p,"w"))' \
		"$d" "$2" "$3"
}
odd 1 rank_id 2147483648
odd 2 rank_id 9223372036854775807
odd 3 rank_id -7
odd 4 rank_id '"0"'
odd 5 pid '"-1"'
odd 6 rank_id 0
ln -s "$R0" "$ODD/PROF_000007_20260101000000000_00000007LINKLINK"
echo "not a dir" >"$ODD/PROF_000008_20260101000000000_00000008FILEFILE"
a_run "export cluster of odd entries: exit 1 as some are skipped" 1 "$MSPROF" export cluster -dir "$ODD"
t_grep "the count: 2 of 9 merged, 7 skipped" "Merged 2 of 9 PROF_* directories (7 skipped)" "$(both)"
for n in 1 2 3 4 5; do
	t_grep "damaged info.json $n named with its path" "'$ODD/PROF_00000${n}_20260101000000000_0000000${n}ODDODDOD/host/info.json' is damaged" "$(both)"
done
t_grep "the symlink named as skipped" "'PROF_000007_20260101000000000_00000007LINKLINK' is skipped: a symbolic link to '$R0', not followed" "$(both)"
t_grep "the plain file named as skipped" "'PROF_000008_20260101000000000_00000008FILEFILE' is skipped: a plain file, not a directory" "$(both)"
t_grep "the two dirs of rank 0 named" "Rank 0 is in both" "$(both)"
python3 - "$ODD" "$(basename "$R0")" <<'PY' || t_fail "cluster_ranks of the odd entries (above)"
import csv, glob, sys
rows = {r["PROF Dir"]: r["Status"] for r in csv.DictReader(open(glob.glob(sys.argv[1] + "/msprof_cluster_output/cluster_ranks_*.csv")[0]))}
r0 = sys.argv[2]
d6 = "PROF_000006_20260101000000000_00000006ODDODDOD"
want = {
    r0: "merged; '%s' claims rank 0 too" % d6,
    d6: "merged; '%s' claims rank 0 too" % r0,
    "PROF_000001_20260101000000000_00000001ODDODDOD": "'rank_id' is 2147483648, not a rank (a whole number from 0 to 2147483647, or -1 for none)",
    "PROF_000002_20260101000000000_00000002ODDODDOD": "'rank_id' is 9223372036854775808, not a rank",
    "PROF_000003_20260101000000000_00000003ODDODDOD": "'rank_id' is -7, not a rank",
    "PROF_000004_20260101000000000_00000004ODDODDOD": "'rank_id' is a string, not a number",
    "PROF_000005_20260101000000000_00000005ODDODDOD": "'pid' is \"-1\", not a process id",
    "PROF_000007_20260101000000000_00000007LINKLINK": "skipped: a symbolic link to",
    "PROF_000008_20260101000000000_00000008FILEFILE": "skipped: a plain file, not a directory",
}
bad = 0
ok = sorted(rows) == sorted(want)
print(("ok: " if ok else "FAIL: ") + "cluster_ranks lists every PROF_* entry, once: %s" % sorted(rows))
bad += not ok
for d, w in want.items():
    got = rows.get(d, "")
    ok = got.startswith(w) if w.startswith(("merged", "skipped")) else got.startswith("skipped: ") and w in got
    print(("ok: " if ok else "FAIL: ") + "%s: %s" % (d, got))
    bad += not ok
sys.exit(1 if bad else 0)
PY
t_done
