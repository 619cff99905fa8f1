# A job that annotates while --msproftx is off: msprof says at the end how
# many mstx/NVTX marks and range starts it made, in how many processes, and
# the option that records them; with --msproftx=on, or a job that makes
# none, nothing is said.  The counts are the ones the workloads make (their
# scripts), also with --host-sys=osrt (the agent is preloaded for osrt and
# records no annotation), in several processes at once, and from Python
# with a forked child.  Nothing is left in TMPDIR.
. "$SRCDIR/tests/integration/lib.sh"
[ -z "$T_ASAN_LIB" ] || t_skip "the sanitized build preloads no agent only to count (launcher/mode-launch.c)"

W=$T_WORK
export TMPDIR="$W/tmp"
mkdir -p "$TMPDIR"
line() { grep 'that were not recorded: --msproftx is off' "$1"; }

# test-mstx-workload script N: 8 marks and range starts, then N marks
N=$((7 + RANDOM % 20))
echo go | "$MSPROF" --output="$W/off" "$HELPERS/test-mstx-workload" script "$N" >"$W/off.log" 2>&1
t_eq "tx off: exit 0" $? 0 || cat "$W/off.log" >&2
t_eq "tx off: the calls counted, in one process" "$(line "$W/off.log")" \
	"[WARNING] The job made $((8 + N)) mstx/NVTX annotation calls (marks and range starts, in 1 process) that were not recorded: --msproftx is off. Profile with --msproftx=on to record them."
t_eq "tx off: said last" "$(tail -n1 "$W/off.log" | line /dev/stdin | wc -l)" 1

echo go | "$MSPROF" --output="$W/osrt" --host-sys=osrt "$HELPERS/test-mstx-workload" script "$N" >"$W/osrt.log" 2>&1
t_eq "osrt, tx off: exit 0" $? 0 || cat "$W/osrt.log" >&2
t_grep "osrt, tx off: the same count" "The job made $((8 + N)) mstx/NVTX annotation calls (marks and range starts, in 1 process)" "$W/osrt.log"

echo go | "$MSPROF" --output="$W/on" --msproftx=on "$HELPERS/test-mstx-workload" script "$N" >"$W/on.log" 2>&1
t_eq "tx on: exit 0" $? 0 || cat "$W/on.log" >&2
t_eq "tx on: nothing said" "$(line "$W/on.log" | wc -l)" 0
P=$(t_prof_dir "$W/on") && DB=$(ls "$P"/msprof_*.db | head -n1) &&
	t_eq "tx on: the calls recorded instead" \
		"$(t_sql "$DB" "SELECT COUNT(*) FROM MSTX_EVENTS WHERE eventType IN (0, 2)")" "$((8 + N))"

"$MSPROF" --output="$W/procs" "$HELPERS/test-mstx-procs" 3 >"$W/procs.log" 2>&1
t_eq "3 processes: exit 0" $? 0 || cat "$W/procs.log" >&2
t_grep "3 processes: one mark each" "The job made 3 mstx/NVTX annotation calls (marks and range starts, in 3 processes)" "$W/procs.log"

"$MSPROF" --output="$W/none" "$HELPERS/test-burn" 50 >"$W/none.log" 2>&1
t_eq "no annotation: nothing said" "$(line "$W/none.log" | wc -l)" 0

if [ -n "$MSTX_PYTHON" ] && [ -z "$T_ASAN_LIB" ]; then
	export PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}"
	K=$((3 + RANDOM % 10))
	"$MSPROF" --output="$W/py" "$MSTX_PYTHON" -c "
import os, mstx
for i in range($K):
    mstx.mark('m')
with mstx.range('r'):
    pass
if os.fork() == 0:
    mstx.mark('child')
    os._exit(0)
os.wait()" >"$W/py.log" 2>&1
	t_eq "python: exit 0" $? 0 || cat "$W/py.log" >&2
	t_grep "python: its marks, its range and its child's mark" \
		"The job made $((K + 2)) mstx/NVTX annotation calls (marks and range starts, in 2 processes)" "$W/py.log"
fi
t_eq "nothing left in TMPDIR" "$(ls -A "$TMPDIR")" ""
t_done
