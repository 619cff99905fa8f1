# Threads of a forked child while the child registers with msprofd: 8
# children of a recording job, each starting 16 threads whose first
# annotations come at once (released by a barrier), lose none of them.
# The child's first call registers; meanwhile its other threads queue their
# events (under the agent's cap), and the window that opens takes them:
# recorded = emitted, their ranges whole.  Under a cap too small for them,
# recorded + dropped = emitted.  Also in standalone mode (no daemon).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
APP=$AGENT_BIN/fork-app
C=8 TH=16 M=10000
# ASan's own allocator is not fork-safe: a child forked while the parent's
# other threads allocate can wait forever on its lock (seen with GCC 12's
# libasan, all threads of the child in __sanitizer::Mutex::Lock); the plain
# build runs this test
[ -n "${ASAN_LIB:-}" ] && t_skip "ASan's allocator can deadlock a child forked beside allocating threads"

# fork_case NAME exact|lossy ENV...: the job under msprof, then each child's file
fork_case() {
	local name=$1 mode=$2; shift 2
	local out=$T_WORK/$name
	if env "${PRE[@]}" "$@" timeout 120 "$MSPROF" --msproftx=on --output="$out" "$APP" threads $C $TH $M \
		>"$T_WORK/$name.log" 2>&1; then
		t_ok "$name: the job ran under msprof"
	else
		t_fail "$name: msprof failed"; cat "$T_WORK/$name.log" >&2; return
	fi
	local pids prof
	pids=$(grep -E '^[0-9]+( [0-9]+)*$' "$T_WORK/$name.log" | tail -n1)
	prof=$(t_prof_dir "$out") || return
	# shellcheck disable=SC2086
	t_check "$name: each child's threads: $mode" "$APP" check-threads "$prof/host/data" $TH $M "$mode" $pids
}

fork_case launch exact
# a cap of 1 MiB: two blocks a thread are granted whatever the cap, the rest
# is counted dropped
fork_case capped lossy MSPROF_AGENT_BUFFER_MAX_MB=1 MSPROF_AGENT_BUFFER_KB=64

# standalone (no daemon): the child's window opens at its first call, and
# takes what the other threads queued meanwhile
dir=$T_WORK/standalone
if timeout 120 env LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" threads $C $TH $M \
	>"$T_WORK/sa.out" 2>"$T_WORK/sa.err"; then
	# shellcheck disable=SC2046
	t_check "standalone: each child's threads: exact" "$APP" check-threads "$dir/host/data" $TH $M exact \
		$(cat "$T_WORK/sa.out")
else
	t_fail "standalone: fork-app failed"; cat "$T_WORK/sa.err" >&2
fi
t_done
