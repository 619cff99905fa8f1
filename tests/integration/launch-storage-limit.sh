# --storage-limit: the launcher checks msprof's range and passes the limit
# on; the daemon ages the oldest raw slices while a session runs; what is
# left still exports.
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

size=$(du -sb "$A/host/data" | cut -f1)
# Ageing runs once a second: at most a second of data (well under 1 MB here)
# can sit above the limit between two passes.
if [ "$size" -le $((2 * 1024 * 1024)) ]; then t_ok "raw data kept near the 1 MB limit ($size bytes)"; else t_fail "raw data $size bytes, limit 1 MB"; fi
t_check "oldest network slice aged out" test ! -e "$A/host/data/host_network.data.slice_0"
newest=$(ls "$A/host/data" | grep '^host_network.data.slice_' | sed 's/.*slice_//' | sort -n | tail -n1)
if [ -n "$newest" ] && [ "$newest" -gt 0 ]; then t_ok "newer network slices kept (newest slice_$newest)"; else t_fail "no newer network slice"; fi
t_grep "daemon logged the ageing" "storage limit" "$MSPROF_RUNTIME_DIR/msprofd.log"

"$MSPROF" --export=on --output="$A" >"$W/export.log" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "aged PROF dir exports"; else t_fail "export exit $rc"; cat "$W/export.log" >&2; fi
db=$(ls "$A"/msprof_*.db 2>/dev/null | head -n1)
n=$(t_sql "$db" "SELECT count(*) FROM HOST_NETWORK_USAGE" 2>/dev/null || echo 0)
if [ "$n" -gt 100 ]; then t_ok "$n network samples survive ageing"; else t_fail "only $n network samples after ageing"; fi
# The oldest data is what went: the first surviving sample is well after the start.
first_ns=$(t_sql "$db" "SELECT min(timestampNs) FROM HOST_NETWORK_USAGE")
if [ -n "$first_ns" ] && [ "$first_ns" -gt $((t0_ns + 500000000)) ]; then
	t_ok "the oldest samples were the ones aged out"
else
	t_fail "first surviving sample $first_ns is not well after the session start $t0_ns"
fi

t_done
