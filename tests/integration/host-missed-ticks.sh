# Missed sampling ticks are counted for real: the profiled job stops msprofd
# (SIGSTOP) for 200 ms while it samples at 1000 Hz.  Ground truth from the
# raw files themselves: the sampling clock keeps absolute deadlines, so the
# ticks taken plus the ticks missed must be the deadlines due between the
# session's start (the header's mono0) and its last sample (±1 each side);
# the stop alone must account for at least 200 - 2 of the missed ones, and
# the longest gap between two samples must cover it.  The counts must reach
# the database (SAMPLER_TICKS), the export's report and msprof's own
# end-of-run warning unchanged.
. "$SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null || t_skip "python3 is needed to read the raw files"
command -v sqlite3 >/dev/null || t_skip "sqlite3 is needed"
W=$T_WORK
STOP_MS=200

cat >"$W/app.sh" <<EOF_APP
#!/bin/bash
sleep 0.5
d=\$(cat "\$MSPROF_RUNTIME_DIR/msprofd.pid")
kill -STOP "\$d"
sleep $(awk -v m=$STOP_MS 'BEGIN { print m / 1000 }')
kill -CONT "\$d"
sleep 0.5
EOF_APP
chmod +x "$W/app.sh"

t_msprof --output="$W/out" --host-sys=cpu,mem --host-sys-freq=1000 "$W/app.sh" >"$W/run.log" 2>&1 ||
	{ t_fail "msprof run"; cat "$W/run.log" >&2; }
prof=$(ls -d "$W"/out/PROF_* 2>/dev/null | head -n1)
db=$(ls "$prof"/msprof_*.db 2>/dev/null | head -n1)
[ -n "$db" ] || { t_fail "no database"; cat "$W/run.log" >&2; exit 1; }

# per source: taken missed lo hi maxgap_ms (lo/hi: deadlines due by the last
# sample, less the one its tick may have run late into, and by the end of
# the session, at 1 ms a deadline)
read_raw() {
	python3 - "$prof/host/data" "$1" <<'PY'
import glob, os, re, struct, sys
d, stem = sys.argv[1:]
paths = sorted(glob.glob(os.path.join(d, stem + ".data.slice_*")),
               key=lambda p: int(re.search(r"slice_(\d+)$", p).group(1)))
mono0, samples, ticks, end = None, [], None, None
for p in paths:
    b = open(p, "rb").read()
    assert b[:8] == b"MSPRAW\r\n", p
    hsize = struct.unpack_from("<I", b, 12)[0]
    mono0 = struct.unpack_from("<Q", b, 16)[0]
    off = hsize
    while off + 16 <= len(b):
        sync, typ, _, ln, _ = struct.unpack_from("<IHHII", b, off)
        if sync != 0x5846524d:
            break
        pay = b[off + 16: off + 16 + ln]
        off += 16 + ln
        ts = struct.unpack_from("<Q", pay, 0)[0]
        if typ in (3, 4):          # RAW_THREAD_CPU, RAW_PROC_MEM: one a tick
            if not samples or samples[-1] != ts:
                samples.append(ts)
        elif typ == 12:            # RAW_SAMPLER_TICKS
            ticks = struct.unpack_from("<QQ", pay, 8)
        elif typ == 11:            # RAW_SESSION_END
            end = ts
P = 1_000_000
gap = max(b - a for a, b in zip(samples, samples[1:]))
# the last sample's stamp is read when its tick runs, which may be up to a
# period after its deadline without missing it (a loaded machine, ASan):
# the deadlines due by it are one fewer at least
print(ticks[0], ticks[1], (samples[-1] - mono0) // P + 1 - 2, (end - mono0) // P + 1 + 1, gap // 1_000_000)
PY
}

for src in host_cpu host_mem; do
	read -r taken missed lo hi gap <<<"$(read_raw $src)"
	[ -n "$hi" ] || { t_fail "$src: no RAW_SAMPLER_TICKS or samples"; continue; }
	if [ $((taken + missed)) -ge "$lo" ] && [ $((taken + missed)) -le "$hi" ]; then
		t_ok "$src: taken $taken + missed $missed = the deadlines due ($lo..$hi)"
	else
		t_fail "$src: taken $taken + missed $missed is not the deadlines due ($lo..$hi)"
	fi
	if [ "$missed" -ge $((STOP_MS - 2)) ] && [ "$gap" -ge "$STOP_MS" ]; then
		t_ok "$src: the ${STOP_MS} ms stop is missed ($missed ticks, longest gap $gap ms)"
	else
		t_fail "$src: a ${STOP_MS} ms stop shows $missed missed ticks, longest gap $gap ms"
	fi
	t_eq "$src: SAMPLER_TICKS has the raw counts" \
		"$(t_sql "$db" "SELECT taken || ' ' || missed FROM SAMPLER_TICKS WHERE source = '$src'")" "$taken $missed"
	if grep -q "host sampling: tick(s) missed.*$src $missed of $((taken + missed))" "$W/run.log"; then
		t_ok "$src: the export's report has the counts"
	else
		t_fail "$src: the export's report lacks '$src $missed of $((taken + missed))'"; cat "$W/run.log" >&2
	fi
done
# one timer feeds both sources: msprof's own warning has the same counts
t_grep "msprof's end-of-run warning" "host sampling missed $missed of $((taken + missed)) tick(s)" "$W/run.log"
t_done
