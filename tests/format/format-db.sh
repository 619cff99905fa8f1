# The database of a real profile against reference §5 and §9: the name
# msprof's readers match, msprof's tables with their columns in order,
# META_DATA's schema version, one session and one host row, values in range,
# no temporary database left behind.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/format/format-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
f_record

n=$(ls "$P" | grep -Ec '^msprof_[0-9]{14}\.db$')
[ "$n" -eq 1 ] && t_ok "one msprof_{ts}.db in the PROF dir" || t_fail "$n msprof_{ts}.db files"
DB=$P/$(ls "$P" | grep -E '^msprof_[0-9]{14}\.db$' | head -n1)
t_check "no temporary database left" sh -c "! ls -A '$P' | grep -q '^\.msprof_'"
[ "$(t_sql "$DB" 'PRAGMA integrity_check')" = ok ] && t_ok "integrity_check ok" || t_fail "integrity_check"
sqlite3 "$DB" .schema >"$T_WORK/schema"
t_check ".schema lists tables" grep -q 'CREATE TABLE' "$T_WORK/schema"

while IFS='|' read -r table cols; do
	got=$(t_sql "$DB" "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('$table') ORDER BY cid)")
	if [ "$got" = "$cols" ]; then t_ok "$table($cols)"; else t_fail "$table columns '$got', want '$cols'"; fi
done <<<"$F_DB_TABLES"

v=$(t_sql "$DB" "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'")
parts=$(t_sql "$DB" "SELECT (SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION_MAJOR') || '.' ||
	(SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION_MINOR') || '.' ||
	(SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION_MICRO')")
if echo "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' && [ "$v" = "$parts" ]; then
	t_ok "SCHEMA_VERSION $v = MAJOR.MINOR.MICRO"
else
	t_fail "META_DATA schema version '$v' vs parts '$parts'"
fi
[ "$(t_sql "$DB" "SELECT COUNT(*) FROM SESSION_TIME_INFO WHERE startTimeNs > 0 AND endTimeNs > startTimeNs")" = 1 ] &&
	t_ok "one session, start before end" || t_fail "SESSION_TIME_INFO"
host=$(t_sql "$DB" "SELECT hostName FROM HOST_INFO")
t_grep "HOST_INFO hostName is info.json's hostname" "\"hostname\":\"$host\"" "$P/host/info.json"
uid=$(t_sql "$DB" "SELECT hostUid FROM HOST_INFO")
[ -n "$uid" ] && t_grep "HOST_INFO hostUid is info.json's hostUid" "\"hostUid\":\"$uid\"" "$P/host/info.json" ||
	t_fail "HOST_INFO hostUid empty"
t_eq "HOST_INFO: one row" "$(t_sql "$DB" "SELECT COUNT(*) FROM HOST_INFO")" 1

# RANK_DEVICE_MAP (§5): a row per device_<N> dir with info.json's rank_id;
# a dir without devices one row with deviceId -1 (as torch_npu writes it:
# msprof-analyze's recipes CROSS JOIN the table with a rank's data).
# $1 PROF dir: the rows that it should have, "rank|device" by device
want_map() {
	local rank devs d
	rank=$(sed -n 's/.*"rank_id":\(-\{0,1\}[0-9]*\).*/\1/p' "$1/host/info.json")
	devs=$(ls "$1" | sed -n 's/^device_\([0-9]*\)$/\1/p' | sort -n)
	[ -n "$devs" ] || devs=-1
	for d in $devs; do echo "$rank|$d"; done
}
got_map() { t_sql "$(ls "$1"/msprof_*.db | head -n1)" "SELECT rankId, deviceId FROM RANK_DEVICE_MAP ORDER BY deviceId"; }
t_eq "RANK_DEVICE_MAP: the dir's rank, a row per device (or -1)" "$(got_map "$P")" "$(want_map "$P")"
# the same profile given a rank, a host id and two devices: exported anew
Q=$T_WORK/ranked/$(basename "$P")
mkdir -p "$T_WORK/ranked" && cp -r "$P" "$Q" && rm -f "$Q"/msprof_*.db
sed -i 's/"rank_id":-\{0,1\}[0-9]*/"rank_id":5/; s/"hostUid":"[^"]*"/"hostUid":"hostuid-for-test"/' "$Q/host/info.json"
rm -rf "$Q"/device_* && mkdir "$Q/device_2" "$Q/device_7"
t_expect_rc 0 "export of the dir given rank 5 and devices 2 and 7" "$MSPROF" --export=on --type=db --output="$Q"
t_eq "RANK_DEVICE_MAP: rank 5 on devices 2 and 7" "$(got_map "$Q")" "$(want_map "$Q")"
t_eq "RANK_DEVICE_MAP: as written in info.json" "$(got_map "$Q" | tr '\n' ' ')" "5|2 5|7 "
t_eq "HOST_INFO: info.json's hostUid" "$(t_sql "$(ls "$Q"/msprof_*.db)" "SELECT hostUid FROM HOST_INFO")" hostuid-for-test
# no rank in host/info.json: a device's info.json.<N> gives it
sed -i 's/"rank_id":5/"rank_id":-1/' "$Q/host/info.json" && rm -f "$Q"/msprof_*.db
echo '{"rank_id":3,"devices":"7"}' >"$Q/device_7/info.json.7"
t_expect_rc 0 "export with the rank in device_7/info.json.7 only" "$MSPROF" --export=on --type=db --output="$Q"
t_eq "RANK_DEVICE_MAP: the device's rank" "$(got_map "$Q" | tr '\n' ' ')" "3|2 3|7 "

# f_count "what" op N "SQL": the query's single number compared with N.
f_count() {
	local got
	got=$(t_sql "$DB" "$4")
	if [ "${got:-x}" "$2" "$3" ] 2>/dev/null; then t_ok "$1 ($got)"; else t_fail "$1: $got, want $2 $3"; fi
}

for table in CPU_USAGE HOST_MEM_USAGE HOST_DISK_USAGE HOST_NETWORK_USAGE; do
	f_count "$table has rows" -gt 0 "SELECT COUNT(*) FROM $table"
	f_count "$table usage in 0..100, stamped" -eq 0 \
		"SELECT COUNT(*) FROM $table WHERE usage IS NULL OR usage < 0 OR usage > 100 OR timestampNs IS NULL"
done
f_count "CPU_USAGE cpuId are CPU numbers" -eq 0 \
	"SELECT COUNT(*) FROM CPU_USAGE WHERE typeof(cpuId) != 'integer' OR cpuId < 0"
f_count "disk rates are non-negative" -eq 0 \
	"SELECT COUNT(*) FROM HOST_DISK_USAGE WHERE readRate < 0 OR writeRate < 0"
f_count "the workload wrote to storage" -gt 0 "SELECT COUNT(*) FROM HOST_DISK_USAGE WHERE writeRate > 0"
f_count "samples inside the session" -eq 0 \
	"SELECT COUNT(*) FROM CPU_USAGE, SESSION_TIME_INFO
	 WHERE timestampNs < startTimeNs - 1000000000 OR timestampNs > endTimeNs + 1000000000"
f_count "STRING_IDS holds the workload's name" -gt 0 "SELECT COUNT(*) FROM STRING_IDS WHERE value = 'test-burn'"
f_count "PROCESS_INFO knows the profiled tree" -gt 0 "SELECT COUNT(*) FROM PROCESS_INFO WHERE isTarget = 1"

t_done
