# Threads: 8 workers annotating at once, ranges ended on other threads,
# 200 short-lived threads one after another (slot reuse), every event of
# every thread exact; then with a tiny buffer, drops counted so that
# recorded + dropped == issued, and said once on stderr.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/threads-app

threads_case() {
	local name=$1 mode=$2 n=$3 m=$4 s=$5; shift 5
	local dir=$T_WORK/$name
	if ! env "$@" LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" run "$n" "$m" "$s" \
		>"$T_WORK/$name.out" 2>"$T_WORK/$name.err"; then
		t_fail "$name: the program failed"; cat "$T_WORK/$name.err" >&2; return
	fi
	# shellcheck disable=SC2046
	if "$APP" check "$dir/host/data" "$mode" "$n" "$m" "$s" $(cat "$T_WORK/$name.out") >"$T_WORK/$name.check" 2>&1; then
		t_ok "$name: $(head -n1 "$T_WORK/$name.check")"
	else
		t_fail "$name: check failed"; cat "$T_WORK/$name.check" >&2
	fi
}

threads_case exact exact 8 5000 200 MSPROF_AGENT_BUFFER_KB=4096
a_expect_stderr "$T_WORK/exact.err"

threads_case lossy lossy 8 50000 20 MSPROF_AGENT_BUFFER_KB=64 MSPROF_AGENT_BUFFER_MAX_MB=1
dropped=$(sed -n 's/.* dropped=\([0-9]*\).*/\1/p' "$T_WORK/lossy.check")
if [ "${dropped:-0}" -gt 0 ]; then
	a_expect_stderr "$T_WORK/lossy.err" "msprof agent: $dropped events dropped (buffer full: the queues reached 1 MiB; MSPROF_AGENT_BUFFER_MAX_MB raises it)"
else
	t_ok "lossy: nothing dropped on this machine (fast enough)"
	a_expect_stderr "$T_WORK/lossy.err"
fi
t_done
