# --storage-limit: the launcher checks msprof's range and passes the limit
# on; every writer of the PROF dir (msprofd's samplers, the job's agent)
# keeps to it at every write, ageing the oldest raw slices; what is left
# still exports, and the export names what the limit took.
. "$SRCDIR/tests/integration/lib.sh"

W=$T_WORK
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"

# --- msprof's range and unit rules --------------------------------------------
"$MSPROF" --output="$W/bad" --storage-limit=199MB --host-sys=cpu /bin/true >"$W/bad.log" 2>&1; rc=$?
if [ "$rc" -ne 0 ]; then t_ok "199MB refused"; else t_fail "199MB accepted"; fi
t_grep "range message" "valid range is 200MB~4294967295MB" "$W/bad.log"
"$MSPROF" --output="$W/bad" --storage-limit=300 --host-sys=cpu /bin/true >"$W/bad2.log" 2>&1; rc=$?
if [ "$rc" -ne 0 ]; then t_ok "a limit without MB refused"; else t_fail "a limit without MB accepted"; fi
t_check "no PROF dir after refused limits" sh -c "! ls '$W/bad' 2>/dev/null | grep -q PROF_"

"$MSPROF" --output="$W/ok" --storage-limit=200MB --host-sys=cpu,mem "$HELPERS/test-burn" 200 >"$W/ok.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "run with --storage-limit=200MB"; else t_fail "exit $rc"; cat "$W/ok.log" >&2; fi
P=$(t_prof_dir "$W/ok") || t_done
t_grep "limit recorded in sample.json" '"storageLimit"' "$P/host/sample.json"

# --- a fast writer under 200MB: the limit holds at every instant ---------------
# Two threads of the job mark 1000-byte messages as fast as they can (hundreds
# of MB a second reach the agent's writer) beside host sampling at 1000 Hz.
# msprof's rule gives --storage-limit=200MB 80 MiB of raw data (daemon/session.c
# storage_limit_bytes).  The dir's size is sampled every 2 ms while it runs;
# the only slack allowed is what one listing can count twice while a writer
# deletes an old slice and writes a new one: one slice (a sixteenth of the limit).
LIMIT=$((80 * 1024 * 1024))
F="$W/fast"
python3 - "$F" "$W/fast.stop" >"$W/fast.sizes" <<'PY' &
import glob, os, sys, time
out, stop = sys.argv[1], sys.argv[2]
peak = samples = 0
data = None
while not os.path.exists(stop):
    if data is None:
        found = glob.glob(out + "/PROF_*/host/data")
        if not found:
            time.sleep(0.002)
            continue
        data = found[0]
    total = 0
    with os.scandir(data) as it:
        for e in it:
            try:
                total += e.stat(follow_symlinks=False).st_size
            except FileNotFoundError:
                pass  # aged while listed
    peak, samples = max(peak, total), samples + 1
    time.sleep(0.002)
print(peak, samples)
PY
sampler=$!
t_msprof --output="$F" --storage-limit=200MB --msproftx=on --host-sys=cpu,mem,disk,network --host-sys-freq=1000 \
	--host-sys-usage=cpu,mem "$HELPERS/test-mstx-workload" flood 4 1000 2 >"$W/fast.log" 2>&1; rc=$?
touch "$W/fast.stop"
wait $sampler
if [ "$rc" -eq 0 ]; then t_ok "fast writer under --storage-limit=200MB"; else t_fail "exit $rc"; cat "$W/fast.log" >&2; fi
read -r peak samples <"$W/fast.sizes"
FP=$(t_prof_dir "$F") || t_done
if [ "${samples:-0}" -ge 200 ] && [ "${peak:-0}" -gt $((LIMIT / 2)) ]; then
	t_ok "the data dir sampled $samples times, up to $peak bytes"
else
	t_fail "the sampler saw ${samples:-0} samples, at most ${peak:-0} bytes: the writer did not reach the limit"
fi
if [ "${peak:-0}" -le $((LIMIT + LIMIT / 16)) ]; then
	t_ok "the data dir never held more than the limit ($peak <= $LIMIT bytes, + one slice of listing race)"
else
	t_fail "the data dir held $peak bytes, limit $LIMIT"
fi
# The writers' own count, reserved before every write: the limit at every
# write of every process, exactly.  Read from the quota file (collectors/raw.h
# struct quota_map: limit at 16, peak at 40, aged files at 48, bytes at 56).
read -r q_limit q_peak q_aged q_aged_bytes < <(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(80)
print(*struct.unpack_from("=QQQQQQQ", b, 16)[0:1], *struct.unpack_from("=QQQ", b, 40))' \
	"$FP/host/data/storage_limit.quota")
if [ "${q_limit:-0}" -eq "$LIMIT" ] && [ "${q_peak:-0}" -le "$LIMIT" ] && [ "${q_peak:-0}" -gt $((LIMIT / 2)) ]; then
	t_ok "the writers' count peaked at $q_peak bytes, at most the limit"
else
	t_fail "quota file: limit ${q_limit:-?}, peak ${q_peak:-?} (sampled $peak, limit $LIMIT)"
fi
if [ "${q_aged:-0}" -gt 0 ]; then t_ok "$q_aged oldest slices ($q_aged_bytes bytes) aged out while writing"; else t_fail "nothing aged"; fi
final=$(find "$FP/host/data" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
if [ "$final" -le "$LIMIT" ]; then t_ok "the data left takes $final bytes"; else t_fail "$final bytes left, limit $LIMIT"; fi
# Named at the end of the run and in the export's report.
t_grep "end of run names the aged data" "--storage-limit: the raw data reached its limit of 80.0 MiB: the $q_aged oldest raw slice(s)" "$W/fast.log"
fdb=$(ls "$FP"/msprof_*.db 2>/dev/null | head -n1)
n=$(t_sql "$fdb" "SELECT count(*) FROM MSTX_EVENTS" 2>/dev/null || echo 0)
if [ "$n" -gt 10000 ]; then t_ok "$n marks of the newest slices exported"; else t_fail "only $n marks exported"; fi
n=$(t_sql "$fdb" "SELECT count(*) FROM CPU_USAGE" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then t_ok "host samples exported beside them ($n)"; else t_fail "no host samples exported"; fi
"$MSPROF" --export=on --output="$FP" >"$W/fast-export.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "exported again"; else t_fail "export exit $rc"; cat "$W/fast-export.log" >&2; fi
t_grep "a later export names the aged data too" "the $q_aged oldest raw slice(s)" "$W/fast-export.log"
t_grep "msprofd's log says what the limit took" "$q_aged oldest slice(s)" "$MSPROF_RUNTIME_DIR/msprofd.log"

# --- ageing in the daemon, with a limit small enough to reach in seconds -------
# The launcher never asks for less than msprof's 200 MB (80 MB of data after
# msprof's halving and reserve); the daemon's protocol takes any limit, and
# 1 MB lets a few seconds of 1 kHz sampling overflow it.
A="$W/aged/PROF_000001_20260101000000000_00000001AAAAAAAA"
mkdir -p "$A/host/data"
cp "$P"/host/info.json "$P"/host/start_info "$A/host/"
t0_ns=$(date +%s%N)
sleep 4 &
target=$!
"$PROBE" --spawn="$MSPROFD" --timeout=30000 \
	"req:session_start:{\"prof_dir\":\"$A\",\"pids\":[$target],\"host_sys\":\"cpu,mem,disk,network\",\"host_sys_freq\":1000,\"host_sys_usage\":\"cpu,mem\",\"host_sys_usage_freq\":50,\"storage_limit_mb\":1}" \
	event >"$W/probe.log" 2>&1
wait $target
t_grep "session ran until its target exited" '"session_ended"' "$W/probe.log"
# Sample-json as the launcher would have written it, so export knows what was asked.
cp "$P/host/sample.json" "$A/host/"
sed -i 's/"host_sys":"[^"]*"/"host_sys":"cpu,mem,disk,network"/' "$A/host/sample.json"

size=$(find "$A/host/data" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
if [ "$size" -le $((1024 * 1024)) ]; then t_ok "raw data kept under the 1 MB limit ($size bytes)"; else t_fail "raw data $size bytes, limit 1 MB"; fi
# Which slices go is by when each was last written, across sources: the
# CPU, read at 1 kHz per core, fills its slices first; the machine's
# network, read at about 50 Hz, may never have a slice old enough to go.
t_check "oldest CPU slice aged out" test ! -e "$A/host/data/host_cpu.data.slice_0"
# Each source lost only its oldest slices: what is left of it is one run
# of slice numbers ending with the newest.
gaps=$(ls "$A/host/data" | sed -n 's/^\(.*\.data\)\.slice_\([0-9]*\)$/\1 \2/p' | sort -k1,1 -k2,2n |
	awk '$1 == stem && $2 != last + 1 { print $1 " slice_" last " then slice_" $2 } { stem = $1; last = $2 }')
if [ -z "$gaps" ]; then t_ok "each source kept its newest slices, one unbroken run"; else t_fail "slices kept with gaps: $gaps"; fi
newest=$(ls "$A/host/data" | grep '^host_cpu.data.slice_' | sed 's/.*slice_//' | sort -n | tail -n1)
if [ -n "$newest" ] && [ "$newest" -gt 0 ]; then t_ok "newer CPU slices kept (newest slice_$newest)"; else t_fail "no newer CPU slice"; fi
t_grep "daemon logged the ageing" "storage limit" "$MSPROF_RUNTIME_DIR/msprofd.log"

"$MSPROF" --export=on --output="$A" >"$W/export.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "aged PROF dir exports"; else t_fail "export exit $rc"; cat "$W/export.log" >&2; fi
db=$(ls "$A"/msprof_*.db 2>/dev/null | head -n1)
n=$(t_sql "$db" "SELECT count(*) FROM HOST_NETWORK_USAGE" 2>/dev/null || echo 0)
# (the machine's network is read at about 50 Hz at most: a second's worth)
if [ "$n" -gt 40 ]; then t_ok "$n network samples survive ageing"; else t_fail "only $n network samples after ageing"; fi
# The oldest data is what went: the first surviving CPU sample is well
# after the start, its last near the end.
n=$(t_sql "$db" "SELECT count(*) FROM CPU_USAGE" 2>/dev/null || echo 0)
if [ "$n" -gt 100 ]; then t_ok "$n CPU samples survive ageing"; else t_fail "only $n CPU samples after ageing"; fi
first_ns=$(t_sql "$db" "SELECT min(timestampNs) FROM CPU_USAGE")
if [ -n "$first_ns" ] && [ "$first_ns" -gt $((t0_ns + 500000000)) ]; then
	t_ok "the oldest samples were the ones aged out"
else
	t_fail "first surviving CPU sample $first_ns is not well after the session start $t0_ns"
fi

t_done
