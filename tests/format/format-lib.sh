# Shared by the format-*.sh tests: record one real profile and the reference
# tables the outputs are checked against.  Source after lib.sh:
#   . "$SRCDIR/tests/integration/lib.sh"; . "$SRCDIR/tests/format/format-lib.sh"
#
# The tables below are reference/msprof-formats.md (§2.1, §3, §4, §5, §9)
# transcribed; they are deliberately not generated from export/tables.c, so
# a wrong entry there fails here.

# Summary CSV headers (§3): "type|header".
F_CSV_HEADERS='host_cpu_usage|Device_id,Total Cpu Numbers,Occupied Cpu Numbers,Recommend Cpu Numbers
host_mem_usage|Device_id,Total Memory(KB),Peak Used Memory(KB),Recommend Memory(KB)
host_disk_usage|Device_id,Peak Disk Read(KB/s),Recommend Disk Read(KB/s),Peak Disk Write(KB/s),Recommend Disk Write(KB/s)
host_network_usage|Device_id,Netcard Speed(KB/s),Peak Used Speed(KB/s),Recommend Speed(KB/s)
cpu_usage|Device_id,Cpu Type,User(%),Sys(%),IoWait(%),Irq(%),Soft(%),Idle(%)
sys_mem|Device_id,Memory Total(kB),Memory Free(kB),Buffers(kB),Cached(kB),Share Memory(kB),Commit Limit(kB),Committed AS(kB),Huge Pages Total(pages),Huge Pages Free(pages)
process_cpu_usage|Device_id,PID,Name,CPU(%)
process_mem|Device_id,PID,Name,Size(pages),Resident(pages),Shared(pages)'

# Timeline host layers (§4): "process name|sort index|label".
F_TRACKS='CPU Usage|9|CPU
Memory Usage|10|CPU
Network Usage|11|CPU
Disk Usage|12|CPU'

# Database tables msprof's readers know (§5): "table|columns in order".
F_DB_TABLES='STRING_IDS|id,value
META_DATA|name,value
SESSION_TIME_INFO|startTimeNs,endTimeNs
HOST_INFO|hostUid,hostName
RANK_DEVICE_MAP|rankId,deviceId
CPU_USAGE|timestampNs,cpuId,usage
HOST_MEM_USAGE|timestampNs,usage
HOST_DISK_USAGE|timestampNs,readRate,writeRate,usage
HOST_NETWORK_USAGE|timestampNs,usage,speed'

F_PROF_RE='^PROF_[0-9]{6}_[0-9]{17}_[0-9]{8}[A-R]{8}$'

# f_record: run the real msprof with every host switch on a short CPU, disk
# and network workload; sets P (the PROF dir) and O (its output dir).
f_record() {
	local w=$T_WORK/rec
	mkdir -p "$w"
	"$MSPROF" --output="$w/out" --host-sys=cpu,mem,disk,network --host-sys-usage=cpu,mem \
		/bin/sh -c '"$1" 300 2; "$2" "$3" 2 300 >/dev/null; "$4" 20 >/dev/null 2>&1 || true' sh \
		"$HELPERS/test-burn" "$HELPERS/test-diskwrite" "$w" "$HELPERS/test-netloop" \
		>"$w/log" 2>&1
	local rc=$?
	if [ "$rc" -ne 0 ]; then
		t_fail "msprof exited $rc"
		cat "$w/log" >&2
		t_done
	fi
	P=$(t_prof_dir "$w/out") || t_done
	O=$P/mindstudio_profiler_output
}

# f_python: python3 is how these tests read JSON and CSV; without it they
# skip rather than half-check.
f_python() {
	command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to parse the outputs"
}
