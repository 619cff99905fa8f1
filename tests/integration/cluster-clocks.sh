# export cluster aligns the clocks of hosts from the job's own collectives.
# Two ranks stand in for two hosts (MSPROF_HOST_UID hostA and hostB, each
# under its own msprof) and meet in 40 all-reduces (test-sync-ranks).  The
# test then moves everything hostB's database and start_info say by a known
# amount, as a clock that many ms ahead would have written them, and the
# cluster export must find that offset within the error it states, write
# it in cluster_ranks and say it; the merged timeline's all-reduces of the
# two ranks then end together.  Unshifted, the offset found is within its
# error of 0; without collectives in common the clock is trusted, and said.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null || t_skip "python3 is needed to shift and read the databases"
APP=$HELPERS/test-sync-ranks
[ -x "$APP" ] || t_skip "test-sync-ranks not built (no mstx library)"
W=$T_WORK
J=$W/job
mkdir -p "$J"
MSPROF_HOST_UID=hostA RANK=0 WORLD_SIZE=2 t_msprof --output="$J" --msproftx=on "$APP" "$W/sock" 0 40 >"$W/a.log" 2>&1 &
A=$!
MSPROF_HOST_UID=hostB RANK=1 WORLD_SIZE=2 t_msprof --output="$J" --msproftx=on "$APP" "$W/sock" 1 40 >"$W/b.log" 2>&1
rb=$?
wait "$A"
ra=$?
t_eq "both stand-in hosts' ranks run" "$ra $rb" "0 0" || { cat "$W/a.log" "$W/b.log" >&2; t_done; }
B=$(grep -l '"hostUid":"hostB"' "$J"/PROF_*/host/info.json | head -n1)
B=${B%/host/info.json}
[ -d "$B" ] || { t_fail "no PROF dir of hostB"; t_done; }

# cluster DIR: its cluster_ranks row of hostB "offset error operations", and the log
cluster() {
	rm -rf "$1/msprof_cluster_output"
	"$MSPROF" export cluster -dir "$1" >"$1.log" 2>&1
	awk -F, 'NR > 1 && $3 == "hostB" { print $8, $9, $10 }' "$1"/msprof_cluster_output/cluster_ranks_*.csv
}
# as written: one clock, the offset found is 0 within its error
read -r off err n <<<"$(cluster "$J")"
t_check "unshifted: hostB's offset ($off ns, error $err, $n operations) is 0 within its error" \
	awk -v o="$off" -v e="$err" -v n="$n" 'BEGIN { exit !(n == 40 && (o < 0 ? -o : o) <= 3 * e + 200000) }'

# hostB's clock 7 ms ahead: every time its files hold, 7 ms later
SHIFT=7000000
cp -a "$J" "$W/shifted"
BS=$W/shifted/$(basename "$B")
# (the database alone: without raw data beside it, the export reads it as it is)
rm -rf "$BS/host/data"
python3 - "$BS" "$SHIFT" <<'PY'
import glob, json, os, sqlite3, sys
prof, shift = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(glob.glob(os.path.join(prof, "msprof_*.db"))[0])
for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
    for col in [c[1] for c in db.execute("PRAGMA table_info(%s)" % t)]:
        if col.endswith("Ns") and col not in ("durationNs",):
            db.execute("UPDATE %s SET %s = %s + ? WHERE %s IS NOT NULL" % (t, col, col, col), (shift,))
db.commit()
p = os.path.join(prof, "host", "start_info")
s = json.load(open(p))
s["collectionTimeBegin"] = str(int(s["collectionTimeBegin"]) + shift // 1000)
json.dump(s, open(p, "w"))
PY
read -r off err n <<<"$(cluster "$W/shifted")"
t_check "shifted 7 ms: the offset found, $off ns (error $err ns, $n operations), is -7 ms within its error" \
	awk -v o="$off" -v e="$err" -v s="$SHIFT" 'BEGIN { d = o + s; exit !((d < 0 ? -d : d) <= 3 * e + 200000) }'
t_grep "the export says it" "ms ahead of host hostA's, from 40 collective(s) both saw" "$W/shifted.log"
t_check "the merged timeline: the two ranks' all-reduces end together" python3 - "$W/shifted" <<'PY'
import glob, json, os, sys
tl = json.load(open(glob.glob(os.path.join(sys.argv[1], "msprof_cluster_output", "msprof_cluster_*.json"))[0]))
names = {e["pid"]: e["args"]["name"] for e in tl if e.get("ph") == "M" and e.get("name") == "process_name"}
ends = {}
for e in tl:
    if e.get("ph") == "X" and "HcclAllreduce" in e.get("name", "") + json.dumps(e.get("args", {})):
        rank = names.get(e["pid"], "").split(" ")[1]
        ends.setdefault(rank, []).append(float(e["ts"]) + float(e["dur"]))
a, b = sorted(ends.get("0", [])), sorted(ends.get("1", []))
gaps = sorted(abs(x - y) for x, y in zip(a, b))
print("%d and %d all-reduces; median end gap %.1f us" % (len(a), len(b), gaps[len(gaps) // 2] if gaps else -1))
sys.exit(not (len(a) == len(b) == 40 and gaps[len(gaps) // 2] < 1000))
PY

# no collectives in common: trusted, and said
cp -a "$J" "$W/none"
rm -rf "$W/none/$(basename "$B")/host/data"
python3 -c 'import glob, sqlite3, sys; d = sqlite3.connect(glob.glob(sys.argv[1] + "/msprof_*.db")[0]); d.execute("DELETE FROM COMMUNICATION_OP"); d.commit()' \
	"$W/none/$(basename "$B")"
read -r off err n <<<"$(cluster "$W/none")"
t_eq "no collective in common: no offset" "$off $err $n" "N/A N/A 0"
t_grep "... and the clock trusted, said" "clock of host hostB: trusted (only 0 collective(s) in common" "$W/none.log"
t_done
