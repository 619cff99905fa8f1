# Numbers are true: each workload measures itself (getrusage, VmHWM,
# /proc/self/io, bytes through its own socket) and the profile msprof
# writes must agree with that ground truth, taken in the same run.
. "$SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null || t_skip "python3 is needed to integrate the samples"
W=$T_WORK

db_of() { ls "$1"/PROF_*/msprof_*.db 2>/dev/null | head -n1; }
info_of() { ls "$1"/PROF_*/host/info.json 2>/dev/null | head -n1; }
csv_of() { ls "$1"/PROF_*/mindstudio_profiler_output/"$2"_*.csv 2>/dev/null | head -n1; }
value_of() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$1" | head -n1; }

# Integrate a rate column over time.  Each row holds the value for the
# interval that starts at its timestamp; the interval ends at the next row
# (the last row gets the median interval).  Prints the integral of
# (expr * interval_seconds).
integrate() { # db table expr
	python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, statistics, sys
db, table, expr = sys.argv[1:]
rows = sqlite3.connect(db).execute(
    f"SELECT timestampNs, {expr} FROM {table} ORDER BY timestampNs").fetchall()
if len(rows) < 2:
    print(0); sys.exit()
gaps = [b[0] - a[0] for a, b in zip(rows, rows[1:])]
gaps.append(statistics.median(gaps))
print(sum(v * g / 1e9 for (_, v), g in zip(rows, gaps)))
PY
}

# --- CPU: one core burned for 1.5 s at 100 Hz ----------------------------------
"$MSPROF" --output="$W/cpu" --host-sys=cpu --host-sys-freq=100 "$HELPERS/test-burn" 1500 >"$W/cpu.log" 2>&1 ||
	{ t_fail "cpu run"; cat "$W/cpu.log" >&2; }
truth_ns=$(value_of "$W/cpu.log" cpu_ns)
db=$(db_of "$W/cpu")
ncpu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cpuNums"])' "$(info_of "$W/cpu")")
busy_s=$(integrate "$db" CPU_USAGE_AVG "usage / 100.0 * $ncpu")
t_within "CPU time integrated from the samples vs getrusage" "$busy_s" "$(awk -v n="$truth_ns" 'BEGIN{print n/1e9}')" 0.10
# While it burns, the job uses one core as far as the machine lets it: its own
# cpu/wall ratio (getrusage over its monotonic clock) is the ground truth for
# the time-weighted mean of the samples (100% on a quiet machine), and no
# sample of a single-threaded job may show more than one core.
wall_ns=$(value_of "$W/cpu.log" wall_ns)
read -r mean peak <<EOF_PY
$(python3 - "$db" "$ncpu" <<'PY'
import sqlite3, statistics, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT timestampNs, usage FROM CPU_USAGE_AVG ORDER BY timestampNs").fetchall()
n = int(sys.argv[2])
gaps = [b[0] - a[0] for a, b in zip(rows, rows[1:])]
gaps.append(statistics.median(gaps))
busy = sum(u * n * g for (_, u), g in zip(rows, gaps))
print(busy / sum(gaps), max(u * n for _, u in rows))
PY
)
EOF_PY
t_within "mean process CPU (% of one core) vs the job's own cpu/wall" "$mean" \
	"$(awk -v c="$truth_ns" -v w="$wall_ns" 'BEGIN{print 100*c/w}')" 0.10
if awk -v p="$peak" 'BEGIN{exit !(p <= 102)}'; then t_ok "no sample above one core ($peak%)"; else t_fail "a sample shows $peak% of one core for a single-threaded job"; fi

# --- Memory: 128 MiB touched and held ----------------------------------------
"$MSPROF" --output="$W/mem" --host-sys=mem --host-sys-freq=100 "$HELPERS/test-memtouch" 128 600 >"$W/mem.log" 2>&1 ||
	{ t_fail "mem run"; cat "$W/mem.log" >&2; }
touched_kb=$(value_of "$W/mem.log" touched_kb)
hwm_kb=$(value_of "$W/mem.log" vmhwm_kb)
peak_kb=$(python3 - "$(csv_of "$W/mem" host_mem_usage)" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[0]["Peak Used Memory(KB)"])
PY
)
t_within "memory peak vs the 128 MiB touched" "$peak_kb" "$touched_kb" 0.10
t_within "memory peak vs the kernel's VmHWM" "$peak_kb" "$hwm_kb" 0.10

# --- Disk: 64 MiB written and fsynced to a disk-backed directory --------------
ddir=${MSPROF_TEST_DISK_DIR:-$T_WORK}
fstype=$(stat -f -c %T "$ddir")
if [ "$fstype" = tmpfs ] || [ "$fstype" = ramfs ]; then
	echo "# $ddir is $fstype: writes never reach a disk, disk check not run (set MSPROF_TEST_DISK_DIR)"
else
	"$MSPROF" --output="$W/disk" --host-sys=disk --host-sys-freq=100 "$HELPERS/test-diskwrite" "$ddir" 64 600 >"$W/disk.log" 2>&1 ||
		{ t_fail "disk run"; cat "$W/disk.log" >&2; }
	truth=$(value_of "$W/disk.log" write_bytes)
	written=$(integrate "$(db_of "$W/disk")" HOST_DISK_USAGE writeRate)
	t_within "bytes written per the disk samples vs /proc/self/io" "$written" "$truth" 0.10
	t_within "bytes written per the disk samples vs the 64 MiB written" "$written" 67108864 0.10
fi

# --- Network: 64 MiB over loopback (each byte is sent and received on lo) -----
"$MSPROF" --output="$W/net" --host-sys=network --host-sys-freq=100 "$HELPERS/test-netloop" 64 400 >"$W/net.log" 2>&1 ||
	{ t_fail "net run"; cat "$W/net.log" >&2; }
sent=$(value_of "$W/net.log" bytes)
moved=$(python3 - "$(db_of "$W/net")" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
# Per-interface rates for lo only, so other traffic on the machine does not count.
rows = c.execute("""SELECT n.timestampNs, n.rxRate + n.txRate FROM NETWORK_INTERFACE_USAGE n
                    JOIN STRING_IDS s ON s.id = n.name WHERE s.value = 'lo' ORDER BY n.timestampNs""").fetchall()
gaps = [b[0] - a[0] for a, b in zip(rows, rows[1:])]
gaps.append(sorted(gaps)[len(gaps) // 2] if gaps else 0)
print(sum(v * g / 1e9 for (_, v), g in zip(rows, gaps)))
PY
)
t_within "loopback bytes per the network samples vs bytes through the socket (x2: rx+tx)" "$moved" "$((sent * 2))" 0.10

t_done
