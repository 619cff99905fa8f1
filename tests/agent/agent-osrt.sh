# --host-sys=osrt in the agent's standalone mode (MSPROF_AGENT_OSRT=1): a
# program's slow calls (2 ms nanosleeps, a contended mutex, a pipe read that
# waits) recorded exactly once each, inside the program's own timing, none
# under the threshold; errno kept; nothing recorded without the switch.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/osrt-app
# the osrt build of the agent: the plain one wraps no call
A_PRELOAD=${ASAN_LIB:+$ASAN_LIB:}${AGENT_OSRT:?run under meson test}

# osrt_case NAME THRESHOLD_NS ENV...: five 2 ms nanosleeps among the calls
osrt_case() { local name=$1 thr=$2; shift 2; a_app_case "$name" 5 "$thr" "$@"; }

osrt_case all 0 MSPROF_AGENT_OSRT=1 MSPROF_AGENT_OSRT_THRESHOLD_NS=0
osrt_case default 1000 MSPROF_AGENT_OSRT=1
osrt_case slow 500000 MSPROF_AGENT_OSRT=1 MSPROF_AGENT_OSRT_THRESHOLD_NS=500000
# the event clock as clock_gettime (elsewhere the TSC, where the kernel counts it)
osrt_case monotonic 1000 MSPROF_AGENT_OSRT=1 MSPROF_AGENT_CLOCK=monotonic

# without the switch: the calls pass through, nothing is recorded
dir=$T_WORK/off
if env LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" run 2 "$T_WORK/off.calls" 2>"$T_WORK/off.err" &&
	"$AGENT_BIN/agent-dump" -v "$dir/host/data" >"$T_WORK/off.dump" && ! grep -q "^  osrt " "$T_WORK/off.dump"; then
	t_ok "off: no osrt records without MSPROF_AGENT_OSRT"
else
	t_fail "off: osrt recorded without the switch"
fi
t_done
