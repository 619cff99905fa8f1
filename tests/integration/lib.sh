# Shared by integration and format tests.  Source it first:
#   . "$SRCDIR/tests/integration/lib.sh"
# Gives the test a private runtime dir (its own daemon) and work dir, stops
# that daemon on exit, and offers small assertions.  Meson sets MSPROF,
# MSPROFD, HELPERS and SRCDIR.
set -u

: "${MSPROF:?run under meson test}" "${MSPROFD:?}" "${HELPERS:?}" "${SRCDIR:?}"

T_WORK=$(mktemp -d "${TMPDIR:-/tmp}/msprof-test.XXXXXX")
export MSPROF_RUNTIME_DIR="$T_WORK/run"
export MSPROFD_PATH="$MSPROFD"
T_FAILS=0
# The test's own shell.  A child bash forked for a background command keeps
# the EXIT trap until it execs: killed before that (a target killed right
# after it was started, on a loaded machine), it would run the trap and
# stop the test's daemon and remove its work dir.  Traps check t_main.
T_MAIN=$BASHPID
t_main() { [ "$BASHPID" = "$T_MAIN" ]; }

# T_PIDS: processes the test started that must not outlive it (workloads,
# session targets), ended first (continued, in case one is stopped).
T_PIDS=()
t_cleanup() {
	local rc=$?
	t_main || return "$rc"
	if [ ${#T_PIDS[@]} -ne 0 ]; then
		kill -CONT "${T_PIDS[@]}" 2>/dev/null
		kill "${T_PIDS[@]}" 2>/dev/null
	fi
	# Stop this test's daemon, if any, by its pid file or socket.
	if [ -S "$MSPROF_RUNTIME_DIR/msprofd.sock" ] && [ -f "$MSPROF_RUNTIME_DIR/msprofd.pid" ]; then
		kill "$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid")" 2>/dev/null
	fi
	if [ "$rc" -eq 0 ] && [ "$T_FAILS" -eq 0 ]; then
		rm -rf "$T_WORK"
	else
		echo "# work dir kept: $T_WORK" >&2
	fi
}
trap t_cleanup EXIT

# A failure in a subshell ($(t_prof_dir ...)) counts too: noted in a file
# that t_done adds up.  T_COUNTER: the shell whose T_FAILS is counted (the
# test's, or a t_each case's).
T_COUNTER=$BASHPID
t_fail() {
	echo "FAIL: $*" >&2
	T_FAILS=$((T_FAILS + 1))
	[ "$BASHPID" = "$T_COUNTER" ] || echo "$*" >>"$T_WORK/.subshell-fails"
}
t_ok() { echo "ok: $*"; }
# t_eq "what" got want: the two strings must be equal (status 1 when not).
t_eq() { if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1: got '$2', want '$3'"; return 1; fi; }
t_skip() { echo "SKIP: $*"; exit 77; }

# In a sanitized build the agent is instrumented too: what it is preloaded
# into needs the ASan runtime first (LD_PRELOAD keeps the user's entries in
# front of the agent), and uninstrumented programs (sh) must not run leak
# checks at exit.  t_msprof runs msprof so; T_ASAN_LIB is empty otherwise.
T_ASAN_LIB=$(ldd "$MSPROF" 2>/dev/null | awk '/libasan/ { print $3; exit }')
T_ASAN_ENV=()
[ -n "$T_ASAN_LIB" ] && T_ASAN_ENV=(--environment="ASAN_OPTIONS=detect_leaks=0")
t_msprof() {
	(
		[ -n "$T_ASAN_LIB" ] && export LD_PRELOAD=$T_ASAN_LIB
		exec "$MSPROF" "${T_ASAN_ENV[@]}" "$@"
	)
}

# t_offers_every_option LIST: every option of msprof --help is among the
# completion candidates LIST (one per line, "--name" or "--name=")
t_offers_every_option() {
	local missing=0 name n_help
	while read -r name; do
		grep -qxE -- "$name=?" <<<"$1" || { missing=$((missing + 1)); echo "# not offered: $name" >&2; }
	done < <("$MSPROF" --help | grep -oE '^ +--[a-z0-9-]+' | tr -d ' ')
	n_help=$("$MSPROF" --help | grep -cE '^ +--[a-z0-9-]+')
	if [ "$missing" -eq 0 ] && [ "$n_help" -gt 50 ]; then t_ok "every option of --help ($n_help) is offered"
	else t_fail "$missing of $n_help options of --help not offered"; fi
}

# t_check "what" cmd args...  (runs the command; failure is recorded)
t_check() {
	local what=$1; shift
	if "$@"; then t_ok "$what"; else t_fail "$what"; fi
}

# t_expect_rc N "what" cmd args...: the command must exit with N.
t_expect_rc() {
	local want=$1 what=$2; shift 2
	"$@"; local got=$?
	if [ "$got" -eq "$want" ]; then t_ok "$what (exit $got)"; else t_fail "$what: exit $got, want $want"; fi
}

# t_grep "what" pattern file: fixed-string match.
t_grep() {
	if grep -qF -- "$2" "$3"; then t_ok "$1"; else t_fail "$1: '$2' not in $3"; echo "--- $3:" >&2; cat "$3" >&2; fi
}

# t_until SECONDS CMD...: poll (every 0.05 s) until CMD succeeds, its
# stderr dropped; status 1 when SECONDS pass first.  Tests wait so, bounded,
# on what a program writes or does, never with a sleep that must be long
# enough.
t_until() {
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# t_wait "what" CMD...: t_until 20 s, and a failure of the test if not.
t_wait() { t_until 20 "${@:2}" || { t_fail "$1: not within 20 s"; return 1; }; }
# t_gone PID: no such process (any more).
t_gone() { ! kill -0 "$1" 2>/dev/null; }

# The one PROF dir under a parent (fails the test if not exactly one).
t_prof_dir() {
	local n
	n=$(find "$1" -maxdepth 1 -type d -name 'PROF_*' | wc -l)
	if [ "$n" -ne 1 ]; then t_fail "expected one PROF dir in $1, found $n"; return 1; fi
	find "$1" -maxdepth 1 -type d -name 'PROF_*'
}

# t_stop_daemon: stop this test's msprofd (if running) and wait until it is
# gone; for cases that each need a daemon started afresh (msprofd reads some
# settings, such as the NVML library, from the environment it started with).
t_stop_daemon() {
	local pid
	pid=$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null
	t_until 5 t_gone "$pid" || t_fail "msprofd $pid did not stop"
}

# Query a database; prints rows separated by '|'.
t_sql() { sqlite3 -batch -noheader "$1" "$2"; }

# t_each JOBS FUNC ARG...: FUNC ARG for each ARG, JOBS at a time, each in a
# subshell of its own (for independent cases that mostly wait: the random
# delays and the jobs' own seconds of a fault-injection loop).  A case's
# output is printed in one piece once it ends, in the order of the ARGs;
# its failures (t_fail) count for the test, and so does a case that did
# not get to its end.  Cases must not count on what another one sets.
t_each() {
	local jobs=$1 fn=$2 dir i
	shift 2
	local args=("$@") pids=()
	dir=$(mktemp -d "$T_WORK/each.XXXXXX")
	for ((i = 0; i < ${#args[@]}; i++)); do
		# JOBS at most: wait for the oldest (the cases take about as long)
		[ "$i" -ge "$jobs" ] && wait "${pids[i - jobs]}"
		(
			T_FAILS=0
			T_COUNTER=$BASHPID
			"$fn" "${args[i]}"
			echo "$T_FAILS" >"$dir/$i.fails"
		) >"$dir/$i.log" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < ${#args[@]}; i++)); do
		wait "${pids[i]}" 2>/dev/null
		cat "$dir/$i.log"
		if [ -f "$dir/$i.fails" ]; then
			T_FAILS=$((T_FAILS + $(cat "$dir/$i.fails")))
		else
			t_fail "$fn ${args[i]}: the case did not get to its end"
		fi
	done
	rm -rf "$dir"
}

# Floating-point comparison through awk: t_within "what" value target tol_fraction
t_within() {
	if awk -v v="$2" -v t="$3" -v f="$4" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * f) }'; then
		t_ok "$1: $2 within $(awk -v f="$4" 'BEGIN{print f*100}')% of $3"
	else
		t_fail "$1: $2 not within $(awk -v f="$4" 'BEGIN{print f*100}')% of $3"
	fi
}

# Every timeline file the test wrote under its work dir: no process name on
# two processes (MindSpore's parser rejects the file otherwise), checked as
# the test ends (t_done) whatever the test itself looked at.
t_timeline_names() {
	command -v python3 >/dev/null 2>&1 || return 0
	# no file of the checker's names (msprof*.json): nothing to check, and no
	# Python to start (a fifth of a second on a loaded machine, in every test)
	[ -n "$(find "$T_WORK" -name 'msprof*.json' -print -quit 2>/dev/null)" ] || return 0
	local out
	out=$(python3 "$SRCDIR/tests/helpers/timeline-names.py" "$T_WORK" 2>&1) ||
		t_fail "a process name repeats in a timeline file: $out"
}

t_done() {
	t_timeline_names
	if [ -f "$T_WORK/.subshell-fails" ]; then
		T_FAILS=$((T_FAILS + $(wc -l <"$T_WORK/.subshell-fails")))
		rm -f "$T_WORK/.subshell-fails"
	fi
	if [ "$T_FAILS" -ne 0 ]; then echo "$T_FAILS check(s) failed" >&2; exit 1; fi
	exit 0
}
