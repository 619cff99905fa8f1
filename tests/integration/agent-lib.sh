# Shared by tests/integration/agent-*.sh (after lib.sh): the agent library
# and the annotated workload, preloaded as msprof preloads them.
WORKLOAD=$HELPERS/test-mstx-workload
[ -x "$WORKLOAD" ] || t_skip "test-mstx-workload not built (no mstx library)"
# the agent lives next to the build's other outputs
AGENT_SO=${AGENT:-$(cd "$HELPERS/../.." && pwd)/collectors/agent/libmsprof_agent.so}
[ -f "$AGENT_SO" ] || t_skip "libmsprof_agent.so not built"
# In a sanitized build the ASan runtime must come first in the preload list.
W_PRELOAD=$AGENT_SO
if ldd "$WORKLOAD" 2>/dev/null | grep -q libasan; then
	W_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so):$AGENT_SO
fi

# w_prof NAME: a PROF dir (named as msprof's readers want) with host/data
w_prof() {
	local p=$T_WORK/prof/PROF_00000${1}_20260101000000000_00000001ABCDEFGH
	mkdir -p "$p/host/data"
	echo "$p"
}

# w_export PROF: msprof --export=on; sets DB and OUT
w_export() {
	if "$MSPROF" --export=on --output="$1" >"$T_WORK/export.log" 2>&1; then
		t_ok "export of $(basename "$1")"
	else
		t_fail "export of $1"
		cat "$T_WORK/export.log" >&2
	fi
	DB=$(ls "$1"/msprof_*.db 2>/dev/null | head -n1)
	OUT=$1/mindstudio_profiler_output
}
