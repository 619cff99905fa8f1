# Summary CSVs of a real profile against reference §3: one file per type
# (only the newest kept), the exact header, the same field count on every
# row, Device_id "host", numbers where numbers belong.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/format/format-lib.sh"
f_python
f_record

while IFS='|' read -r type header; do
	n=$(ls "$O" | grep -Ec "^${type}_[0-9]{14}\.csv$")
	if [ "$n" -ne 1 ]; then
		t_fail "$type: $n files named ${type}_{14 digits}.csv, want 1"
		continue
	fi
	f=$O/$(ls "$O" | grep -E "^${type}_[0-9]{14}\.csv$")
	if python3 - "$f" "$header" "$type" <<'PY'; then t_ok "$type: header, fields, Device_id"; else t_fail "$type: $f"; fi
import csv, re, sys
path, header, kind = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
num = re.compile(r"^-?[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?$")
text_cols = {"Device_id", "Cpu Type", "Name"}
with open(path, newline="") as f:
    rows = list(csv.reader(f))
ok = True
if not rows or rows[0] != header:
    print(f"{kind}: header {rows[0] if rows else None!r}, want {header!r}", file=sys.stderr)
    sys.exit(1)
if len(rows) < 2:
    print(f"{kind}: no data rows", file=sys.stderr)
    ok = False
for i, r in enumerate(rows[1:], 2):
    if len(r) != len(header):
        print(f"{kind} line {i}: {len(r)} fields, want {len(header)}: {r}", file=sys.stderr)
        ok = False
        continue
    if r[0] != "host":
        print(f"{kind} line {i}: Device_id {r[0]!r}, want 'host'", file=sys.stderr)
        ok = False
    for col, v in zip(header, r):
        if col not in text_cols and not num.match(v):
            print(f"{kind} line {i}: {col} = {v!r} is not a number", file=sys.stderr)
            ok = False
        if col.endswith("(%)") and num.match(v) and not 0 <= float(v) <= 100:
            print(f"{kind} line {i}: {col} = {v} outside 0..100", file=sys.stderr)
            ok = False
sys.exit(0 if ok else 1)
PY
done <<<"$F_CSV_HEADERS"

# The profiled tree ran on the host's CPUs; sums that must hold.
hc=$O/$(ls "$O" | grep -E '^host_cpu_usage_[0-9]{14}\.csv$' | head -n1)
python3 - "$hc" "$P/host/info.json" <<'PY' && t_ok "host_cpu_usage counts within the host's CPUs" || t_fail "host_cpu_usage counts"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
cpus = json.load(open(sys.argv[2]))["cpuNums"]
total, occupied, recommend = (int(x) for x in rows[1][1:4])
sys.exit(0 if total == cpus and 1 <= occupied <= total and recommend <= occupied else 1)
PY
cu=$O/$(ls "$O" | grep -E '^cpu_usage_[0-9]{14}\.csv$' | head -n1)
python3 - "$cu" <<'PY' && t_ok "cpu_usage: cpuN rows and Avg, states sum to at most 100" || t_fail "cpu_usage rows"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
types = [r[1] for r in rows]
ok = types and types[-1] == "Avg" and all(t.startswith("cpu") and t[3:].isdigit() for t in types[:-1])
ok = ok and all(sum(float(x) for x in r[2:]) <= 100.01 for r in rows)
sys.exit(0 if ok else 1)
PY
pc=$O/$(ls "$O" | grep -E '^process_cpu_usage_[0-9]{14}\.csv$' | head -n1)
t_grep "process_cpu_usage names the workload" "test-burn" "$pc"

t_done
