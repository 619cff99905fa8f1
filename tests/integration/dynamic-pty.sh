# The (msprof) prompt at a real terminal: msprof runs on a pseudo-terminal
# (tests/helpers/pty-run) and the test types into it.  Windows over an idle
# and a bursting job; ^C typed at the prompt (a key there: a hint, the
# prompt stays, the job is untouched and answers), line editing and history
# recall (Up, in the run and from the history file in the next run), then
# ^C after quit, while msprof waits for the job (the terminal's again: it
# reaches the job, which dies of it, and msprof exits with its status); ^D
# typed at the prompt (quit, then launch mode waits for the job).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
OUT=$W/out
# an editing terminal, and a history file of the test's own
export TERM=xterm XDG_STATE_HOME=$W/state
LOG=$W/log
dyn_launch pty job "$LOG" "$OUT"

dyn_wait 1 "(msprof) " "$LOG" "the prompt is shown on the terminal" || t_done

dyn_idle_window "$LOG" "$OUT"
dyn_wait 1 "done." "$LOG" "window 1 exported while the prompt waits"
dyn_burst_window job "$LOG"
dyn_send stop
dyn_wait 2 "dynamic profiling stop success......" "$LOG" "stop again"
dyn_send q
dyn_wait 1 "dynamic profiling quit success......" "$LOG" "q quits"
dyn_wait 1 "[INFO] waiting for app process exit......" "$LOG" "then msprof waits for the job"
dyn_tell job "exit 0"
wait "$DYN_PID"; rc=$?
dyn_close
t_check "exit 0" test "$rc" -eq 0
# a terminal's line discipline: the typing is echoed, lines end in CR LF
t_grep "the terminal echoes the typing" "start" "$LOG"
if grep -q $'\r$' "$LOG"; then t_ok "output went through a tty (CR LF)"; else t_fail "no CR LF: not a terminal"; fi
mapfile -t dirs < <(dyn_prof_dirs "$OUT")
if [ "${#dirs[@]}" -eq 2 ]; then t_ok "two windows, two PROF dirs"; else t_fail "${#dirs[@]} PROF dirs, want 2"; t_done; fi
dyn_check_window "${dirs[0]}" "idle window"
dyn_check_window "${dirs[1]}" "burst window"
idle=$(dyn_max_cpu "${dirs[0]}"); busy=$(dyn_max_cpu "${dirs[1]}")
if [ "$idle" -lt 20 ]; then t_ok "idle window: busiest thread at $idle%"; else t_fail "idle window shows $idle% CPU"; fi
if [ "$busy" -gt 40 ]; then t_ok "burst window: busiest thread at $busy%"; else t_fail "burst window shows only $busy% CPU"; fi

# --- ^C typed at the prompt with a window open: a key -------------------------
dyn_launch pty job2 "$W/log2" "$W/out2"
dyn_wait 1 "(msprof) " "$W/log2" "second prompt"
t_check "one banner" test "$(dyn_count "$W/log2" "dynamic mode: 'start' and 'stop' a collection")" -eq 1
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$W/log2" "start before ^C"
dyn_until dyn_has_samples "$W/out2" 1000 || t_fail "no samples before ^C"
dyn_send status
dyn_wait 1 "window 1, open since " "$W/log2" "status: the open window"
printf '\033[A\r' >&7          # Up: status again
dyn_wait 2 "window 1, open since " "$W/log2" "Up recalls the last command"
printf '\003' >&7
dyn_wait 1 "(Ctrl-C at the prompt does not reach the application: type 'stop' to end the collection" \
	"$W/log2" "^C at the prompt: the hint"
# the job never saw it: it still answers
if dyn_burst job2 300 1; then t_ok "^C at the prompt: the job is untouched"; else t_fail "the job did not answer after ^C"; fi
# editing: "xtop", Home, Delete, "s", Enter is "stop"
printf 'xtop\001\033[3~s\r' >&7
dyn_wait 1 "dynamic profiling stop success......" "$W/log2" "Home, Delete and insert edit the line"
dyn_wait 1 "done." "$W/log2" "the window is exported"
# Backspace, Ctrl-W, Ctrl-U and Ctrl-K: what is left is "help"
printf 'bad words\027\027\025hx\177elp!\002\013\r' >&7
dyn_wait 1 "	 status: " "$W/log2" "Backspace, Ctrl-W, Ctrl-U, Left (Ctrl-B), Ctrl-K"
t_check "no invalid line was run" test "$(dyn_count "$W/log2" "invalid option")" -eq 0
dyn_send q
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log2" "q: msprof waits for the job"
printf '\003' >&7
wait "$DYN_PID"; rc=$?
dyn_close
# the terminal is given back at quit: its SIGINT reaches the job (same
# process group) as at launch mode's wait, and msprof says so
if [ "$rc" -eq 130 ]; then t_ok "^C after quit: msprof exits with the job's 128+SIGINT"; else t_fail "^C after quit: exit $rc, want 130"; cat "$W/log2" >&2; fi
t_grep "^C after quit: msprof's stop line" "[WARNING] Receive stop singal." "$W/log2"
t_check "one PROF dir" test "$(dyn_prof_dirs "$W/out2" | wc -l)" -eq 1
hist=$XDG_STATE_HOME/msprof/history
t_check "the history file keeps the commands" test "$(grep -cxE 'start|status|stop|help|q' "$hist")" -ge 5

# --- ^D typed at the prompt --------------------------------------------------------
dyn_launch pty job3 "$W/log3" "$W/out3"
dyn_wait 1 "(msprof) " "$W/log3" "third prompt"
printf '\033[A\033[A\033[A\r' >&7      # q, help, stop... the run before's commands
dyn_wait 1 "dynamic profiling has not started......" "$W/log3" "the last run's history is recalled"
dyn_close   # pty-run types ^D once its input ends
dyn_wait 1 "dynamic profiling quit success......" "$W/log3" "^D is quit"
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log3" "^D: msprof waits for the job"
dyn_tell job3 "exit 3"
wait "$DYN_PID"; rc=$?
t_check "^D: exit with the job's 3" test "$rc" -eq 3
t_check "^D without a start: no PROF dir" test "$(dyn_prof_dirs "$W/out3" | wc -l)" -eq 0

t_done
