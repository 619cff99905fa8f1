# NVTX v3 end to end: a program built with NVIDIA's header-only NVTX (none
# of our code linked) gets the agent through NVTX_INJECTION64_PATH alone.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

[ "$NVTX_FOUND" = 1 ] || t_skip "NVTX v3 headers (nvtx3/nvToolsExt.h) not found at configure time"
APP=$AGENT_BIN/nvtx-app

dir=$T_WORK/nvtx
if NVTX_INJECTION64_PATH="$AGENT" MSPROF_AGENT_OUTPUT="$dir" "$APP" run >"$T_WORK/out" 2>"$T_WORK/err"; then
	t_ok "the NVTX program ran with the agent injected"
	read -r pid tmain tthread <"$T_WORK/out"
	t_check "file holds exactly the NVTX calls" "$APP" check "$dir/host/data" "$pid" "$tmain" "$tthread"
	a_expect_stderr "$T_WORK/err" "$A_BAD_LINE"
else
	t_fail "the NVTX program failed"; cat "$T_WORK/err" >&2
fi

# NVTX's loader (v3 headers on Linux) looks at NVTX_INJECTION64_PATH only:
# a preloaded agent alone is not found, and the program runs as without it.
dir=$T_WORK/preload-only
if LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" run notool >"$T_WORK/out2" 2>"$T_WORK/err2"; then
	t_ok "preloaded without NVTX_INJECTION64_PATH: the program runs"
	# no events, so no file (an agent writes one only when it has something)
	if [ -z "$(find "$dir" -name 'agent_*' 2>/dev/null)" ]; then
		t_ok "no NVTX events without the injection path: no file"
	else
		t_fail "unexpected: $("$DUMP" "$dir/host/data")"
	fi
else
	t_fail "the NVTX program failed when only preloaded"; cat "$T_WORK/err2" >&2
fi
t_done
