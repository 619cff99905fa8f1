# The host tracks of the timeline are true: one job writes a known number
# of bytes to a file (fsync), sends a known number over a loopback socket,
# touches a known amount of memory and runs two named threads at different
# loads; each part measures itself (/proc/self/io, bytes through its socket,
# VmHWM, its threads' CPU clocks) and the timeline's MB/s, MB and per-thread
# tracks, integrated over time, must agree with that within 10% (15% for a
# thread's CPU: the first interval of a thread is not counted, at 100 Hz one
# 10 ms interval of a 1.5 s run, and a busy machine stretches intervals).
. "$SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null || t_skip "python3 is needed to integrate the samples"
W=$T_WORK
ddir=${MSPROF_TEST_DISK_DIR:-$T_WORK}
fstype=$(stat -f -c %T "$ddir")
disk=1
if [ "$fstype" = tmpfs ] || [ "$fstype" = ramfs ]; then
	echo "# $ddir is $fstype: writes never reach a disk, disk check not run (set MSPROF_TEST_DISK_DIR)"
	disk=0
fi

# the kernel's own count of what the loopback sent meanwhile: the machine's
# other traffic on it (a shared CI machine has some) is in the track too
lo_tx() { awk '$1 == "lo:" { print $10 }' /proc/net/dev; }
lo0=$(lo_tx)
"$MSPROF" --output="$W/p" --host-sys=cpu,mem,disk,network --host-sys-freq=100 sh -c "
	'$HELPERS/test-threads' 1500 > '$W/threads.log' &
	# (a process is seen by the sampler's next look at the tree: the writer
	# waits 0.3 s first, so that none of its writes come before that)
	(sleep 0.3; exec '$HELPERS/test-diskwrite' '$ddir' 64 300 > '$W/disk.log')
	'$HELPERS/test-netloop' 64 300 > '$W/net.log'
	'$HELPERS/test-memtouch' 128 400 > '$W/mem.log'
	wait" >"$W/run.log" 2>&1 || { t_fail "profiled run"; cat "$W/run.log" >&2; }
lo_all=$(($(lo_tx) - lo0))
json=$(ls "$W"/p/PROF_*/mindstudio_profiler_output/msprof_*.json 2>/dev/null | grep -v msprof_tx | head -n1)
[ -n "$json" ] || { t_fail "no timeline"; t_done; }
value_of() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | head -n1; }

# The integral of a counter's arg over time (each value holds until the next
# one; the last for the median interval), MB -> bytes where asked; and its peak.
tl() { # what: integral|peak  process-name-prefix  counter-name  arg  [scale]
	python3 - "$json" "$@" <<'PY'
import json, statistics, sys
path, what, proc, counter, arg = sys.argv[1:6]
scale = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
ev = json.load(open(path))
pids = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name" and e["args"]["name"].startswith(proc)}
rows = sorted((float(e["ts"]), e["args"][arg]) for e in ev
              if e["ph"] == "C" and e["pid"] in pids and e["name"] == counter and arg in e["args"])
if not rows:
    print(0); sys.exit()
if what == "peak":
    print(max(v for _, v in rows) * scale); sys.exit()
gaps = [b[0] - a[0] for a, b in zip(rows, rows[1:])] or [10000.0]
gaps.append(statistics.median(gaps))
print(sum(v * g / 1e6 for (_, v), g in zip(rows, gaps)) * scale)
PY
}
MB=1048576

# --- disk: Disk Rate's Write(MB/s) integrated, and the disk busy -----------
if [ $disk = 1 ]; then
	truth=$(value_of "$W/disk.log" write_bytes)
	t_within "bytes written per the Disk Rate track vs /proc/self/io" "$(tl integral 'Disk Usage' 'Disk Rate' 'Write(MB/s)' $MB)" "$truth" 0.10
	pid=$(python3 - "$W"/p/PROF_*/msprof_*.db <<'PY'
import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute(
    "SELECT p.pid FROM PROCESS_INFO p JOIN STRING_IDS s ON s.id = p.name WHERE s.value = 'test-diskwrite'").fetchone()[0])
PY
)
	t_within "bytes written per the job's own track (test-diskwrite (pid $pid))" \
		"$(tl integral 'Disk Usage' "test-diskwrite (pid $pid)" 'Write(MB/s)' $MB)" "$truth" 0.10
	busy=$(tl peak 'Disk Usage' 'Disk Usage' 'Usage(%)')
	if awk -v b="$busy" 'BEGIN{exit !(b > 0)}'; then t_ok "Disk Usage moves while the job writes (peak $busy%)"
	else t_fail "Disk Usage stays at 0% while 64 MiB are written and fsynced"; fi
fi

# --- network: lo's bytes once, as sent -----------------------------------------
sent=$(value_of "$W/net.log" bytes)
# between what the job sent and what the loopback sent during the whole run
# (the job's bytes and the machine's other traffic), 10% either side; counted
# twice, the total would be twice the job's bytes at least
in_range() { # what value low high
	if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v >= lo * 0.9 && v <= hi * 1.1) }'; then
		t_ok "$1: $2 between $3 and $4 (10% either side)"
	else
		t_fail "$1: $2 not between $3 and $4 (10% either side)"
	fi
}
in_range "loopback bytes per the lo track's Tx vs the job's and the loopback's count" \
	"$(tl integral 'Network Usage' 'Interface lo' 'Tx(MB/s)' $MB)" "$sent" "$lo_all"
in_range "bytes per the Network Rate track (the loopback once, not twice)" \
	"$(tl integral 'Network Usage' 'Network Rate' 'Speed(MB/s)' $MB)" "$sent" "$lo_all"
if [ "$lo_all" -lt $((sent * 3 / 2)) ]; then
	t_check "the total is not the loopback counted twice" \
		awk -v v="$(tl integral 'Network Usage' 'Network Rate' 'Speed(MB/s)' $MB)" -v s="$sent" 'BEGIN { exit !(v < 1.5 * s) }'
fi

# --- memory: the job's peak RSS in MB, the machine's used + available ----------
hwm_kb=$(value_of "$W/mem.log" vmhwm_kb)
t_within "test-memtouch's peak RSS(MB) track vs its VmHWM" \
	"$(python3 - "$json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
print(max(e["args"]["RSS(MB)"] for e in ev if e["ph"] == "C" and "RSS(MB)" in e["args"] and e["name"].startswith("test-memtouch (pid ")) * 1024)
PY
)" "$hwm_kb" 0.10
total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
t_within "System Memory used + available vs MemTotal" \
	"$(python3 - "$json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))
r = [e["args"] for e in ev if e["ph"] == "C" and e["name"] == "System Memory"]
print((r[0]["Used(MB)"] + r[0]["Available(MB)"]) * 1024 if r else 0)
PY
)" "$total_kb" 0.01

# --- threads: named, grouped under their process, their CPU time ---------------
read -r hot_tid hot_ns warm_tid warm_ns <<EOF_T
$(sed -n 's/hot_tid=\([0-9]*\) hot_ns=\([0-9]*\) warm_tid=\([0-9]*\) warm_ns=\([0-9]*\).*/\1 \2 \3 \4/p' "$W/threads.log")
EOF_T
[ -n "$hot_tid" ] || t_fail "test-threads printed nothing"
proc="Thread CPU: test-threads (pid "
t_within "CPU time of the 'hot ($hot_tid)' track vs its thread clock" \
	"$(tl integral "$proc" "hot ($hot_tid)" 'Usage(%)' 0.01)" "$(awk -v n="$hot_ns" 'BEGIN{print n/1e9}')" 0.15
t_within "CPU time of the 'warm ($warm_tid)' track vs its thread clock" \
	"$(tl integral "$proc" "warm ($warm_tid)" 'Usage(%)' 0.01)" "$(awk -v n="$warm_ns" 'BEGIN{print n/1e9}')" 0.15

# --- the readers' rule: every process name once --------------------------------
python3 "$SRCDIR/tests/helpers/timeline-names.py" "$W/p" >/dev/null && t_ok "process names unique" || t_fail "a process name twice"
t_done
