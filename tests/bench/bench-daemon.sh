#!/bin/bash
# CPU cost of msprofd's host sampling: a real daemon in the foreground, one
# session on a sleeping child with every --host-sys source at 50, 100 and
# 1000 Hz, the daemon's own CPU time read from /proc over a fixed window.
# The baseline is the same daemon idle (a client connected, no session),
# measured in the same run.  Prints figures; never fails on them.
#   env: MSPROFD, HELPERS (meson sets both); BENCH_WINDOW_S (default 5)
set -u
: "${MSPROFD:?run under meson test --benchmark}" "${HELPERS:?}"
PROBE="$HELPERS/ipc-probe"
WINDOW=${BENCH_WINDOW_S:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/msprof-bench.XXXXXX")
export MSPROF_RUNTIME_DIR="$work/run"
dpid= target= 
cleanup() {
	[ -n "$target" ] && kill "$target" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

mkfifo "$work/ready"
"$MSPROFD" --foreground --idle-timeout=0 --ready-fd=3 3>"$work/ready" 2>"$work/daemon.log" &
dpid=$!
read -r line <"$work/ready" || { echo "msprofd did not start" >&2; exit 1; }

sleep 100000 </dev/null >/dev/null 2>&1 &
target=$!
coproc P { "$PROBE" -i; }
call() { echo "$1" >&"${P[1]}"; local l; read -r -t 30 l <&"${P[0]}"; echo "$l"; }

# CPU time of the daemon in ns: schedstat when the kernel has it (ns
# resolution), else utime+stime from stat in clock ticks.
cpu_ns() {
	if [ -r "/proc/$dpid/schedstat" ]; then
		cut -d' ' -f1 "/proc/$dpid/schedstat"
	else
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' "/proc/$dpid/stat"
	fi
}
now_ns() { date +%s%N; }
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$2"; }

# measure: prints "cpu_percent wall_ns cpu_ns"
measure() {
	local c0 t0 c1 t1
	c0=$(cpu_ns); t0=$(now_ns)
	sleep "$WINDOW"
	c1=$(cpu_ns); t1=$(now_ns)
	awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.3f %.0f %.0f\n", 100 * c / t, t, c }'
}

call req:status >/dev/null
read -r idle_pct _ _ <<<"$(measure)"

printf 'msprofd CPU use (%% of one core), host_sys=cpu,mem,disk,network, one sleeping target, %s s each\n' "$WINDOW"
printf '  %-8s %8s %10s %10s %12s %10s\n' rate cpu% ticks tick/s us/tick vs-50Hz
printf '  %-8s %8.3f %10s %10s %12s %10s\n' idle "$idle_pct" - - - -
first=
for hz in 50 100 1000; do
	mkdir -p "$work/prof$hz/host/data"
	r=$(call "req:session_start:{\"prof_dir\":\"$work/prof$hz\",\"pids\":[$target],\"host_sys\":\"cpu,mem,disk,network\",\"host_sys_freq\":$hz}")
	sid=$(field session "$r")
	[ -n "$sid" ] || { echo "session_start failed: $r" >&2; exit 1; }
	read -r pct wall cpu <<<"$(measure)"
	r=$(call "req:session_stop:{\"session\":$sid}")
	ticks=$(field ticks "$r")
	# The session lasts the window plus two round trips: close enough.
	[ -z "$first" ] && first=$pct
	awk -v hz="$hz" -v pct="$pct" -v ticks="$ticks" -v wall="$wall" -v cpu="$cpu" -v base="$first" 'BEGIN {
		printf "  %-8s %8.3f %10d %10.1f %12.1f %10s\n", hz " Hz", pct, ticks, ticks / (wall / 1e9),
			(ticks > 0 ? cpu / 1e3 / ticks : 0), (base > 0 ? sprintf("%.1fx", pct / base) : "-")
	}'
	last=$pct
done
awk -v a="$first" -v b="$last" 'BEGIN { if (a > 0) printf "  1000 Hz costs %.1fx the CPU of 50 Hz (the rate is 20x)\n", b / a }'
call req:shutdown >/dev/null
wait "$dpid"
dpid=
