# The (msprof) prompt at a real terminal: msprof runs on a pseudo-terminal
# (tests/helpers/pty-run) and the test types into it.  Windows over an idle
# and a bursting job, ^C typed at the prompt (the terminal signals msprof
# and the job: the open window is saved, msprof exits with the job's
# status), ^D typed at the prompt (quit, then launch mode waits for the job).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
OUT=$W/out
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

# --- ^C typed at the prompt with a window open ----------------------------------
dyn_launch pty job2 "$W/log2" "$W/out2"
dyn_wait 1 "(msprof) " "$W/log2" "second prompt"
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$W/log2" "start before ^C"
dyn_until dyn_has_samples "$W/out2" 1000 || t_fail "no samples before ^C"
printf '\003' >&7
wait "$DYN_PID"; rc=$?
dyn_close
# the terminal's SIGINT reaches the job too (same process group): it dies of it
if [ "$rc" -eq 130 ]; then t_ok "^C: msprof exits with the job's 128+SIGINT"; else t_fail "^C: exit $rc, want 130"; cat "$W/log2" >&2; fi
t_grep "^C: msprof's stop line" "[WARNING] Receive stop singal." "$W/log2"
t_grep "^C: the open window is exported" "done." "$W/log2"
d=$(dyn_prof_dirs "$W/out2" | tail -n1)
if [ -n "$d" ]; then dyn_check_window "$d" "window closed by ^C"; else t_fail "no PROF dir after ^C"; fi

# --- ^D typed at the prompt --------------------------------------------------------
dyn_launch pty job3 "$W/log3" "$W/out3"
dyn_wait 1 "(msprof) " "$W/log3" "third prompt"
dyn_close   # pty-run types ^D once its input ends
dyn_wait 1 "dynamic profiling quit success......" "$W/log3" "^D is quit"
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log3" "^D: msprof waits for the job"
dyn_tell job3 "exit 3"
wait "$DYN_PID"; rc=$?
t_check "^D: exit with the job's 3" test "$rc" -eq 3
t_check "^D without a start: no PROF dir" test "$(dyn_prof_dirs "$W/out3" | wc -l)" -eq 0

t_done
