# The agent's event clock end to end (standalone mode, the real writer):
# marks made between the program's own clock_gettime(CLOCK_MONOTONIC) reads
# land between them in the file, through many drains and beside bursts of
# ranges, with the TSC (where the kernel's clock counts it) and with
# MSPROF_AGENT_CLOCK=monotonic; every thread's events in time order.
# tests/agent/test-clock.c checks the mapping itself.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/clock-app

# clock_case NAME TOL_NS ENV...: 600 marks between clock reads
clock_case() { local name=$1 tol=$2; shift 2; a_app_case "$name" 600 "$tol" "$@"; }

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
echo "# the kernel's clocksource: ${cs:-unknown} (the TSC is the event clock only where it is 'tsc', on x86-64)"
# the pair reads' spread: tens of ns; a microsecond leaves room for a loaded machine
clock_case default 1000
# clock_gettime itself: exactly between the reads
clock_case monotonic 0 MSPROF_AGENT_CLOCK=monotonic
t_done
