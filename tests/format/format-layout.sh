# The PROF dir of a real profile against reference §2 and §9: the dir name,
# host/ files and their keys, raw slices, the names consumers match in the
# PROF root and mindstudio_profiler_output/, README.txt listing exactly the
# files there, nothing temporary left behind.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/format/format-lib.sh"
f_python
f_record

name=$(basename "$P")
echo "$name" | grep -Eq "$F_PROF_RE" && t_ok "PROF dir name $name" || t_fail "PROF dir name $name"
echo "$name" | grep -Eq '^PROF_[0-9]+_[0-9]+_[0-9a-zA-Z]+' && t_ok "torch_npu's PROF regex" || t_fail "PROF regex of §9"

for f in info.json start_info end_info sample.json; do
	t_check "host/$f" test -s "$P/host/$f"
done
python3 - "$P/host" <<'PY' && t_ok "host/ JSON keys readers need" || t_fail "host/ JSON keys"
import json, os, sys
h = sys.argv[1]
info = json.load(open(os.path.join(h, "info.json")))
ok = all(k in info for k in ("rank_id", "devices", "DeviceInfo", "pid", "hostname"))
ok = ok and isinstance(info["DeviceInfo"], list) and str(info["pid"]).isdigit()
start = json.load(open(os.path.join(h, "start_info")))
end = json.load(open(os.path.join(h, "end_info")))
ok = ok and isinstance(start.get("collectionTimeBegin"), str) and start["collectionTimeBegin"].isdigit()
ok = ok and isinstance(start.get("clockMonotonicRaw"), str) and start["clockMonotonicRaw"].isdigit()
ok = ok and isinstance(end.get("collectionTimeEnd"), str) and end["collectionTimeEnd"].isdigit()
ok = ok and int(end["collectionTimeEnd"]) >= int(start["collectionTimeBegin"])
sys.exit(0 if ok else 1)
PY
for s in host_cpu host_mem host_disk host_network host_usage_cpu host_usage_mem; do
	t_check "raw $s.data.slice_0" test -s "$P/host/data/$s.data.slice_0"
done

# PROF root: exactly one database, by the name msprof-analyze matches.
t_check "msprof_{ts}.db in the PROF root" sh -c "ls '$P' | grep -Eq '^msprof_[0-9]{1,20}\.db$'"
t_check "mindstudio_profiler_output/" test -d "$O"

# Every file in the output dir has a name a consumer matches, one per type.
python3 - "$O" "$F_CSV_HEADERS" <<'PY' && t_ok "output file names" || t_fail "output file names in $O"
import os, re, sys
out, types = sys.argv[1], [l.split("|")[0] for l in sys.argv[2].splitlines()]
names = sorted(os.listdir(out))
ok = True
seen = {}
for n in names:
    if n in ("README.txt", "report.html"):
        continue
    if n.startswith("."):
        print(f"temporary file left: {n}", file=sys.stderr); ok = False; continue
    m = re.match(r"^msprof_\d{14}\.json$", n)
    if m:
        seen["msprof.json"] = seen.get("msprof.json", 0) + 1
        if not re.match(r"^msprof_\d{1,20}.*\.json", n):
            ok = False
        continue
    m = re.match(r"^(.+)_(\d{14})\.csv$", n)
    if not m or m.group(1) not in types:
        print(f"unexpected file {n}", file=sys.stderr); ok = False; continue
    seen[m.group(1)] = seen.get(m.group(1), 0) + 1
for t in types + ["msprof.json"]:
    if seen.get(t) != 1:
        print(f"{t}: {seen.get(t, 0)} files", file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
PY

# README.txt (§2.4): the two lists, numbered, naming exactly what is there.
python3 - "$O" <<'PY' && t_ok "README.txt lists exactly the files written" || t_fail "README.txt"
import os, re, sys
out = sys.argv[1]
text = open(os.path.join(out, "README.txt")).read()
ok = text.startswith("Timeline file description:\n") and "\nSummary file description:\n" in text
listed = set(re.findall(r"^[0-9]+\.([a-z_]+\.(?:json|csv)):", text, re.M))
present = set()
for n in os.listdir(out):
    m = re.match(r"^(.+)_\d{14}\.(json|csv)$", n)
    if m:
        present.add(f"{m.group(1)}.{m.group(2)}")
if listed != present:
    print(f"listed {sorted(listed)} present {sorted(present)}", file=sys.stderr)
    ok = False
sys.exit(0 if ok else 1)
PY

t_check "no temporary files anywhere in the PROF dir" sh -c "! find '$P' -name '.*' ! -name '.' | grep -q ."

# An export again replaces, never accumulates.
if "$MSPROF" --export=on --output="$P" >"$T_WORK/export.log" 2>&1; then
	t_ok "msprof --export=on on the PROF dir"
	n=$(ls "$P" | grep -Ec '^msprof_[0-9]{14}\.db$')
	[ "$n" -eq 1 ] && t_ok "still one database after re-export" || t_fail "$n databases after re-export"
	n=$(ls "$O" | grep -Ec '^host_cpu_usage_[0-9]{14}\.csv$')
	[ "$n" -eq 1 ] && t_ok "still one host_cpu_usage after re-export" || t_fail "$n host_cpu_usage files after re-export"
else
	t_fail "msprof --export=on exited non-zero"
	cat "$T_WORK/export.log" >&2
fi

t_done
