# Bursts: one thread marking as fast as it can.  With the default settings
# a burst of 1,000,000 marks is recorded whole whatever the writer does (the
# queue grows), and the memory goes back once it is written.  Past a small
# cap (64 KiB blocks, 1 MiB for the process) with a writer slowed down (tiny
# slices) events are dropped, and the count is exact: recorded + dropped ==
# issued, said once on stderr; the queue never took more than the cap.  And messages of every length and
# alignment come back exactly.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/spin-app

burst_case() { # name exact|lossy N env...
	local name=$1 mode=$2 n=$3; shift 3
	local dir=$T_WORK/$name
	if ! env "$@" LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" burst "$n" \
		>"$T_WORK/$name.out" 2>"$T_WORK/$name.err"; then
		t_fail "$name: the program failed"; cat "$T_WORK/$name.err" >&2; return 1
	fi
	read -r pid issued base peak after <"$T_WORK/$name.out"
	if "$APP" check-burst "$dir/host/data" "$pid" "$issued" "$mode" >"$T_WORK/$name.check" 2>&1; then
		t_ok "$name: $(cat "$T_WORK/$name.check")"
	else
		t_fail "$name: check failed"; cat "$T_WORK/$name.check" >&2
	fi
	B_GROWN=$((peak - base)) B_AFTER=$((after - base))
	B_DROPPED=$(sed -n 's/.* dropped=\([0-9]*\).*/\1/p' "$T_WORK/$name.check")
}

# default settings: nothing dropped, and the memory goes back
if burst_case default exact 1000000; then
	a_expect_stderr "$T_WORK/default.err"
	if [ "$B_AFTER" -le 4096 ]; then
		t_ok "default: the queue grew by up to $B_GROWN kB and gave it back (${B_AFTER} kB over the start)"
	else
		t_fail "default: resident memory stayed $B_AFTER kB above the start after the burst was written"
	fi
fi

# past the cap: dropped, counted exactly, the cap held.  The writer is made
# slower than the program for sure: 4 KiB slices, a new file every ~150
# events, against 2M marks held in at most 1 MiB (~45k of them)
if burst_case capped lossy 2000000 MSPROF_AGENT_BUFFER_KB=64 MSPROF_AGENT_BUFFER_MAX_MB=1 \
	MSPROF_AGENT_SLICE_BYTES=4096; then
	if [ "${B_DROPPED:-0}" -gt 0 ]; then
		a_expect_stderr "$T_WORK/capped.err" "msprof agent: $B_DROPPED events dropped (buffer full: the queues reached 1 MiB; MSPROF_AGENT_BUFFER_MAX_MB raises it)"
	else
		t_fail "capped: 2,000,000 marks through a 1 MiB cap and nothing dropped: the cap is not applied"
	fi
	# the blocks (1 MiB) and the writer's buffer (256 KiB) and what the
	# program and the agent use besides: well under 8 MiB
	if [ "$B_GROWN" -le 8192 ]; then
		t_ok "capped: resident memory grew by $B_GROWN kB at most (cap 1 MiB)"
	else
		t_fail "capped: resident memory grew by $B_GROWN kB with a 1 MiB cap"
	fi
fi
# a signal handler that annotates while the thread takes its first block
# (the sigmmap shim raises it inside that mmap): its mark is dropped and
# counted, every other mark is recorded though the agent drains between
# them, the file is whole
dir=$T_WORK/sig
if env LD_PRELOAD="${ASAN_LIB:+$ASAN_LIB:}$AGENT_BIN/sigmmap.so:$AGENT" MSPROF_AGENT_OUTPUT="$dir" "$APP" sigsetup 300 \
	>"$T_WORK/sig.out" 2>"$T_WORK/sig.err"; then
	read -r pid issued fired <"$T_WORK/sig.out"
	if [ "$fired" != 1 ]; then
		t_ok "signal during the first block: the shim's mmap is not the agent's here (a sanitizer's own); not checked"
	elif "$APP" check-burst "$dir/host/data" "$pid" "$issued" lossy >"$T_WORK/sig.check" 2>&1 &&
		grep -q "recorded=300 dropped=1" "$T_WORK/sig.check"; then
		t_ok "signal during the first block: $(cat "$T_WORK/sig.check")"
	else
		t_fail "signal during the first block"; cat "$T_WORK/sig.check" >&2
	fi
else
	t_fail "sigsetup: the program failed"; cat "$T_WORK/sig.err" >&2
fi

# messages of every length near a word and the cut, at every alignment,
# each ending where the next page is unreadable: read back exactly (the
# agent scans them a word at a time)
dir=$T_WORK/lengths
if env LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" lengths >"$T_WORK/len.out" 2>"$T_WORK/len.err" &&
	"$APP" check-lengths "$dir/host/data" "$(cat "$T_WORK/len.out")" >"$T_WORK/len.check" 2>&1; then
	t_ok "lengths: $(cat "$T_WORK/len.check")"
else
	t_fail "lengths: messages not read back exactly"; cat "$T_WORK/len.err" "$T_WORK/len.check" >&2
fi
t_done
