# Shared by the agent's scripts (after tests/integration/lib.sh): paths of
# the programs and helpers to run one annotated program and check its file.
: "${AGENT:?run under meson test}" "${AGENT_BIN:?}"
DUMP=$AGENT_BIN/agent-dump
# What LD_PRELOAD gets: the agent, after the ASan runtime in a sanitized
# build (ASan must come first in the initial library list).
A_PRELOAD=${ASAN_LIB:+$ASAN_LIB:}$AGENT
# For a program msprof runs (msprof puts the agent after what the user
# preloads): PRE=(LD_PRELOAD=<the ASan runtime> ...) in a sanitized build,
# empty otherwise, to put in front of the command.
ASAN_RT=$(ldd "$MSPROF" 2>/dev/null | awk '/libasan/ { print $3; exit }')
PRE=()
[ -n "$ASAN_RT" ] && PRE=(LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS=detect_leaks=0)

# a_run what rc cmd...: cmd must exit with rc; its stdout in $T_WORK/out,
# its stderr in $T_WORK/err (both shown when the status is not rc).
a_run() {
	local what=$1 want=$2; shift 2
	"$@" >"$T_WORK/out" 2>"$T_WORK/err"
	local got=$?
	if [ "$got" -eq "$want" ]; then t_ok "$what (exit $got)"; else
		t_fail "$what: exit $got, want $want"; cat "$T_WORK/out" "$T_WORK/err" >&2; fi
}

# a_field "pid=1 rank=3 ..." rank -> 3
a_field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }

# a_summary DATA_DIR PID: agent-dump's summary line of that pid
a_summary() { "$DUMP" "$1" "$2"; }

# a_expect_stderr FILE LINE...: FILE holds exactly these lines
a_expect_stderr() {
	local file=$1; shift
	local want
	want=$(printf '%s\n' "$@")
	if [ "$(cat "$file")" = "$want" ]; then
		t_ok "stderr of $(basename "$file") as expected"
	else
		t_fail "stderr of $(basename "$file") differs"; echo "--- want:" >&2; printf '%s\n' "$want" >&2
		echo "--- got:" >&2; cat "$file" >&2
	fi
}

A_BAD_LINE="msprof agent: 5 bad annotation calls ignored (NULL message, unknown range id, pop without push or destroyed domain)"
