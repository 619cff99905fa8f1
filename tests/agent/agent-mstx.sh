# The mstx API end to end: a program using our header and libms_tools_ext,
# run with the agent preloaded, with the agent only as MSTX_INJECTION_PATH
# (libms_tools_ext's loader finds it), with both, with domain filters and
# without the agent; the checker asserts every record exactly.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/mstx-app

# case NAME VARIANT WANT_TOOL ENV...: run, then check the file
mstx_case() {
	local name=$1 variant=$2 want_tool=$3; shift 3
	local dir=$T_WORK/$name
	if ! env "$@" MSPROF_AGENT_OUTPUT="$dir" "$APP" run >"$T_WORK/$name.out" 2>"$T_WORK/$name.err"; then
		t_fail "$name: the program failed"; cat "$T_WORK/$name.err" >&2; return
	fi
	local pid tmain tthread tool
	read -r pid tmain tthread tool <"$T_WORK/$name.out"
	if [ "$tool" = "$want_tool" ]; then t_ok "$name: mstxGetToolId = $tool"; else t_fail "$name: tool id $tool, want $want_tool"; fi
	if [ "$want_tool" = 0 ]; then
		if [ -e "$dir" ]; then t_fail "$name: files written without the agent"; else t_ok "$name: no files without the agent"; fi
		a_expect_stderr "$T_WORK/$name.err"
		return
	fi
	t_check "$name: file holds exactly the calls ($variant)" "$APP" check "$dir/host/data" "$pid" "$tmain" "$tthread" "$variant"
	a_expect_stderr "$T_WORK/$name.err" "$A_BAD_LINE" "msprof agent: 1 messages cut to 1024 bytes"
	local n
	n=$("$DUMP" "$dir/host/data" | wc -l)
	if [ "$n" -eq 1 ]; then t_ok "$name: one process's files"; else t_fail "$name: files of $n processes"; ls -l "$dir/host/data" >&2; fi
}

mstx_case preload all 4096 LD_PRELOAD="$A_PRELOAD"
mstx_case injection all 4096 MSTX_INJECTION_PATH="$AGENT"
mstx_case both all 4096 LD_PRELOAD="$A_PRELOAD" MSTX_INJECTION_PATH="$AGENT"
mstx_case exclude exclude-io 4096 LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_MSTX_DOMAIN_EXCLUDE=io
mstx_case include exclude-io 4096 MSTX_INJECTION_PATH="$AGENT" MSPROF_AGENT_MSTX_DOMAIN_INCLUDE="default, other"
mstx_case none all 0

# a tiny slice size: every slice stands alone (PROCESS first, checked by
# the checker), the records are the same
mstx_case slices all 4096 LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_SLICE_BYTES=600
n=$(find "$T_WORK/slices/host/data" -name 'agent_*' | wc -l)
if [ "$n" -gt 1 ]; then t_ok "small slices: $n slices"; else t_fail "small slices: $n slice(s)"; fi

t_done
