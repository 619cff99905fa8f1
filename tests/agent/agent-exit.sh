# Ends of a process image without exit handlers: _exit, _Exit, _exit from
# a signal handler, exec (the image replaced), an exec that fails, a forked
# child that _exits, a vfork child that execs.  Each records N marks and M
# OS runtime calls and ends at once, before the agent's periodic drain:
# every record is in the file, counted exactly, with both builds of the
# agent (the plain one records no OS runtime calls).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/exit-app
N=2000
M=500

exit_case() {
	local build=$1 case=$2 osrt=$3 lib=$4; shift 4
	local name=$build-$case
	local dir=$T_WORK/$name
	env "$@" LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB:}$lib" MSPROF_AGENT_OUTPUT="$dir" \
		timeout 60 "$APP" run "$case" "$N" "$M" >"$T_WORK/$name.out" 2>"$T_WORK/$name.err"
	local rc=$?
	if [ "$rc" -ne 0 ]; then
		t_fail "$name: the program ended with $rc"; cat "$T_WORK/$name.err" >&2; return
	fi
	# shellcheck disable=SC2046
	if "$APP" check "$dir/host/data" "$case" "$N" "$M" "$osrt" $(cat "$T_WORK/$name.out") \
		>"$T_WORK/$name.check" 2>&1; then
		local what="$N marks"
		[ "$osrt" = 1 ] && what="$what and $M calls"
		t_ok "$name: $what, all recorded"
	else
		t_fail "$name: check failed"; cat "$T_WORK/$name.check" >&2
	fi
	a_expect_stderr "$T_WORK/$name.err"
}

for c in _exit _Exit signal exec execvp execfail fork vfork; do
	exit_case plain "$c" 0 "$AGENT"
	exit_case osrt "$c" 1 "${AGENT_OSRT:?run under meson test}" MSPROF_AGENT_OSRT=1 MSPROF_AGENT_OSRT_THRESHOLD_NS=0
done

# The agent thread held (ptrace-stopped by a helper of the program's) while
# the program records N more marks and _exits: the flush is never answered,
# and what the queues hold is said lost on stderr, with its size: the marks
# missing from the file times the size of one (all of one length); the
# export of the dir names the process and the bytes.
dir=$T_WORK/stalled/PROF_000001_20260101000000000_00004242AAAAAAAA
LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB:}$AGENT" MSPROF_AGENT_OUTPUT="$dir" timeout 60 "$APP" run stalled "$N" 0 \
	>"$T_WORK/stalled.out" 2>"$T_WORK/stalled.err"
t_eq "stalled: the program exits 0" "$?" 0
if grep -qx noptrace "$T_WORK/stalled.out"; then
	echo "# ptrace is refused here: the held agent thread is not tried"
else
	pid=$(head -1 "$T_WORK/stalled.out")
	recorded=$("$APP" check "$dir/host/data" stalled "$N" 0 0 "$pid")
	lost=$((2 * N - ${recorded:-0}))
	bytes=$(sed -nE "s/^msprof agent: the agent thread did not write this process's last annotations before it ended: ([0-9]+) bytes of them are lost$/\1/p" \
		"$T_WORK/stalled.err")
	t_eq "stalled: one line on stderr says so" "$(wc -l <"$T_WORK/stalled.err"):${bytes:+said}" "1:said"
	t_check "stalled: marks are missing from the file ($recorded of $((2 * N)) there)" [ "$lost" -gt 0 ]
	if [ -n "$bytes" ] && [ "$lost" -gt 0 ]; then
		each=$((bytes / lost))
		t_check "stalled: the bytes said lost ($bytes) are the $lost missing marks, $each bytes each" \
			[ $((bytes % lost)) -eq 0 -a "$each" -ge 16 -a "$each" -le 64 ]
		"$MSPROF" --export=on --output="$dir" >"$T_WORK/stalled.export" 2>&1
		t_grep "stalled: the export names the process and the bytes lost" \
			"agent: process $pid ended before its agent thread wrote its last annotations" "$T_WORK/stalled.export"
		t_grep "stalled: ... $bytes of them" "$bytes bytes of them are lost" "$T_WORK/stalled.export"
	fi
fi
t_done
