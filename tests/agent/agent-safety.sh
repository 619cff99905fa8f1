# The agent must never hurt the program: SIGKILL loses at most the last
# 100 ms; no daemon costs nothing (no file, no word); an unusable runtime
# directory or output directory is said once; annotations from a signal
# handler inside an annotation are dropped and counted, never a deadlock.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

SPIN=$AGENT_BIN/spin-app
MSTX=$AGENT_BIN/mstx-app

# 1. SIGKILL: what was recorded up to ~50 ms before the kill is on disk
dir=$T_WORK/kill
: >"$T_WORK/kill.out"
LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$SPIN" steady 30 >>"$T_WORK/kill.out" 2>"$T_WORK/kill.err" &
pid=$!
marked() { [ "$(wc -l <"$T_WORK/kill.out")" -ge 80 ]; }
t_until 30 marked # until it has marked for 0.8 s (80 lines)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
last=$(tail -n1 "$T_WORK/kill.out" | awk '{print $2}')
if "$SPIN" check-kill "$dir/host/data" "$pid" "$last" >"$T_WORK/kill.check" 2>&1; then
	t_ok "SIGKILL: $(cat "$T_WORK/kill.check")"
else
	t_fail "SIGKILL lost more than 100 ms"; cat "$T_WORK/kill.check" >&2
fi

# 2. no daemon, no standalone output: the program runs as without us
mkdir -p "$T_WORK/nodaemon" && chmod 700 "$T_WORK/nodaemon"
if (cd "$T_WORK/nodaemon" && MSPROF_RUNTIME_DIR="$T_WORK/nodaemon" LD_PRELOAD="$A_PRELOAD" "$MSTX" run >"$T_WORK/nd.out" 2>"$T_WORK/nd.err"); then
	t_ok "no daemon: the program succeeds"
else
	t_fail "no daemon: the program failed"
fi
a_expect_stderr "$T_WORK/nd.err"
if [ -z "$(find "$T_WORK/nodaemon" -mindepth 1)" ]; then t_ok "no daemon: nothing written"; else t_fail "no daemon: files appeared"; fi

# 3. an unsafe runtime directory: one line, however many retries
mkdir -p "$T_WORK/loose" && chmod 755 "$T_WORK/loose"
if MSPROF_RUNTIME_DIR="$T_WORK/loose" LD_PRELOAD="$A_PRELOAD" "$SPIN" steady 2.5 >/dev/null 2>"$T_WORK/loose.err"; then
	t_ok "unsafe runtime dir: the program succeeds"
else
	t_fail "unsafe runtime dir: the program failed"
fi
a_expect_stderr "$T_WORK/loose.err" "msprof agent: cannot use the msprofd runtime directory: it is not a 0700 directory of the current user"

# 4. an output directory that cannot be made: one line, the program runs
if MSPROF_AGENT_OUTPUT=/proc/self/nonexistent LD_PRELOAD="$A_PRELOAD" "$MSTX" run >"$T_WORK/ro.out" 2>"$T_WORK/ro.err"; then
	t_ok "unwritable output: the program succeeds"
else
	t_fail "unwritable output: the program failed"
fi
t_grep "unwritable output: said once" "msprof agent: cannot record into '/proc/self/nonexistent/host/data'" "$T_WORK/ro.err"
if [ "$(wc -l <"$T_WORK/ro.err")" -eq 1 ]; then t_ok "unwritable output: one line"; else t_fail "unwritable output: $(wc -l <"$T_WORK/ro.err") lines"; cat "$T_WORK/ro.err" >&2; fi

# 5. annotations from a signal handler
dir=$T_WORK/sig
# (timeout runs env, so that only spin-app gets the agent)
if timeout 60 env LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" MSPROF_AGENT_BUFFER_KB=64 "$SPIN" signals 1 \
	>"$T_WORK/sig.out" 2>"$T_WORK/sig.err"; then
	read -r pid issued sigs <"$T_WORK/sig.out"
	if "$SPIN" check-signals "$dir/host/data" "$pid" "$issued" >"$T_WORK/sig.check" 2>&1; then
		t_ok "signal handler marks ($sigs of them): $(cat "$T_WORK/sig.check")"
	else
		t_fail "signal handler marks lost silently"; cat "$T_WORK/sig.check" >&2
	fi
else
	t_fail "signals: the program failed or hung"; cat "$T_WORK/sig.err" >&2
fi
t_done
