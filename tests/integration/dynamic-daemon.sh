# The (msprof) prompt when msprofd goes away, and when nobody starts a
# collection.  msprofd killed with a window open: msprof says so, the window
# is saved and exported, the next start brings a new msprofd and works;
# msprofd killed between windows: said too, start recovers; msprofd asked to
# stop (SIGTERM) with a window open: saved.  Earlier windows stay intact.
# The idle timeout (30 min in msprof, MSPROF_DYNAMIC_IDLE_S here) ends the
# prompt with a message, in launch mode then waiting for the job.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
OUT=$W/out
LOG=$W/log
daemon_pid() { cat "$MSPROF_RUNTIME_DIR/msprofd.pid" 2>/dev/null; }
daemon_is_new() { local p; p=$(daemon_pid); [ -n "$p" ] && [ "$p" != "$1" ] && kill -0 "$p" 2>/dev/null; }

dyn_launch pipe job "$LOG" "$OUT"
dyn_wait 1 "(msprof) " "$LOG" "the prompt" || t_done

# --- msprofd killed with a window open ---------------------------------------------
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$LOG" "window 1 started"
dyn_until dyn_has_samples "$OUT" 3000 || t_fail "no samples before the kill"
d1=$(daemon_pid)
kill -KILL "$d1"
dyn_wait 1 "[WARNING] lost the connection to msprofd: the processes keep running; the next start reconnects" \
	"$LOG" "the lost daemon is told"
dyn_wait 1 "ended with msprofd; what was written is saved in PROF_" "$LOG" "the open window is saved"
dyn_wait 1 "done." "$LOG" "... and exported"
t_check "the job runs on" kill -0 "$(pgrep -P "$DYN_PID" | head -n1)"

dyn_send start
dyn_wait 2 "dynamic profiling start success......" "$LOG" "the next start reconnects"
if daemon_is_new "$d1"; then t_ok "a new msprofd serves it"; else t_fail "no new msprofd"; fi
if dyn_burst job 400 1; then t_ok "burst in window 2"; else t_fail "no burst"; fi
dyn_send stop
dyn_wait 1 "dynamic profiling stop success......" "$LOG" "window 2 stopped"
dyn_wait 2 "done." "$LOG" "window 2 exported"

# --- msprofd killed between windows ---------------------------------------------------
d2=$(daemon_pid)
kill -KILL "$d2"
dyn_wait 2 "[WARNING] lost the connection to msprofd" "$LOG" "a loss between windows is told too"
dyn_send start
dyn_wait 3 "dynamic profiling start success......" "$LOG" "start after a loss between windows"
if daemon_is_new "$d2"; then t_ok "a third msprofd"; else t_fail "no third msprofd"; fi

# --- msprofd stopped (SIGTERM) with a window open -------------------------------------
dyn_until dyn_has_samples "$OUT" 1000 || t_fail "no samples in window 3"
kill -TERM "$(daemon_pid)"
dyn_wait 3 "done." "$LOG" "window 3, ended by msprofd's shutdown, exported"
dyn_send quit
dyn_wait 1 "dynamic profiling quit success......" "$LOG" "quit"
dyn_tell job "exit 0"
wait "$DYN_PID"; rc=$?
dyn_close
t_check "exit 0" test "$rc" -eq 0

mapfile -t dirs < <(dyn_prof_dirs "$OUT")
if [ "${#dirs[@]}" -eq 3 ]; then t_ok "three windows, three PROF dirs"; else t_fail "${#dirs[@]} PROF dirs, want 3"; cat "$LOG" >&2; fi
i=1
for d in "${dirs[@]}"; do
	dyn_check_window "$d" "window $i"
	i=$((i + 1))
done
if [ "${#dirs[@]}" -ge 2 ]; then
	t_check "window 2 shows the burst" test "$(dyn_max_cpu "${dirs[1]}")" -gt 40
fi

# --- the idle timeout: launch mode ------------------------------------------------------
MSPROF_DYNAMIC_IDLE_S=1 dyn_launch pipe job2 "$W/log2" "$W/out2"
dyn_wait 1 "[WARNING] No collection was started within 1 seconds, dynamic profiling quits." "$W/log2" \
	"idle: the prompt ends with a message"
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log2" "idle: then msprof waits for the job"
dyn_tell job2 "exit 4"
wait "$DYN_PID"; rc=$?
dyn_close
t_check "idle: exit with the job's 4" test "$rc" -eq 4
t_check "idle: no PROF dir" test "$(dyn_prof_dirs "$W/out2" | wc -l)" -eq 0

# --- the idle timeout after a stop: attach mode ----------------------------------------
dyn_outside job3 P
dyn_open in3
dyn_send start
dyn_send stop
MSPROF_DYNAMIC_IDLE_S=2 dyn_run_pipe "$W/log3" --dynamic=on --output="$W/out3" --pid="$P"
wait "$DYN_PID"; rc=$?
dyn_close
t_grep "idle after a stop: the window was made" "dynamic profiling stop success......" "$W/log3"
t_grep "idle after a stop: the message" "No collection was started within 2 seconds, dynamic profiling quits." "$W/log3"
t_check "idle after a stop: exit 0" test "$rc" -eq 0
t_check "idle after a stop: one PROF dir" test "$(dyn_prof_dirs "$W/out3" | wc -l)" -eq 1
t_check "idle after a stop: the process runs on" kill -0 "$P"
dyn_tell job3 "exit 0"
wait "$P"

# a bad MSPROF_DYNAMIC_IDLE_S is said, and the default used
MSPROF_DYNAMIC_IDLE_S=soon dyn_msprof --dynamic=on --output="$W/out4" /bin/true </dev/null >"$W/log4" 2>&1
t_grep "a bad MSPROF_DYNAMIC_IDLE_S is told" "MSPROF_DYNAMIC_IDLE_S 'soon' is not a number of seconds, using 1800" "$W/log4"

t_done
