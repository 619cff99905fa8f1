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

# a_app_case NAME RUN_ARG CHECK_ARG ENV...: $APP, preloaded with $A_PRELOAD
# and ENV, writes into $T_WORK/NAME with `run RUN_ARG TRUTH`, where TRUTH
# is what it did; then `check DATA_DIR TRUTH CHECK_ARG` compares the file
# with that (the first line of its output names the case); nothing on
# stderr.
a_app_case() {
	local name=$1 run=$2 arg=$3; shift 3
	local dir=$T_WORK/$name
	if ! env "$@" LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" run "$run" "$T_WORK/$name.truth" \
		>"$T_WORK/$name.out" 2>"$T_WORK/$name.err"; then
		t_fail "$name: the program failed"; cat "$T_WORK/$name.err" >&2; return
	fi
	if "$APP" check "$dir/host/data" "$T_WORK/$name.truth" "$arg" >"$T_WORK/$name.check" 2>&1; then
		t_ok "$name: $(head -n1 "$T_WORK/$name.check")"
	else
		t_fail "$name: check failed"; cat "$T_WORK/$name.check" >&2
	fi
	a_expect_stderr "$T_WORK/$name.err"
}

A_BAD_LINE="msprof agent: 5 bad annotation calls ignored (NULL message, unknown range id, pop without push or destroyed domain)"
