# Dynamic launch mode driven through a pipe: msprof --dynamic=on <app> with
# the prompt reading a FIFO.  A workload that idles, then bursts CPU when
# told: a window over the idle time shows no burst, a window over the burst
# shows it, every sample lies inside its window; msprof's replies to stop
# without start, start twice, unknown input; the job exiting while a window
# is open saves that window and msprof exits with the job's status; status
# names the open window and the bytes its raw files hold, measured here
# before and after; one banner and one device line however many windows.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
OUT=$W/out
LOG=$W/log
dyn_launch pipe job "$LOG" "$OUT"

dyn_wait 1 "(msprof) " "$LOG" "the prompt is shown" || t_done

# --- window 1: the job idles ---------------------------------------------------
dyn_idle_window "$LOG" "$OUT"

# --- window 2: the job bursts ---------------------------------------------------
dyn_burst_window job "$LOG"
dyn_send stop
dyn_wait 2 "dynamic profiling stop success......" "$LOG" "second stop"

# --- replies to misuse ----------------------------------------------------------
dyn_send stop
dyn_wait 1 "[WARNING] dynamic profiling has not started......" "$LOG" "stop without start: msprof's warning"
dyn_send bogus
dyn_wait 1 "invalid option -- 'bogus'" "$LOG" "unknown input: msprof's reply"
dyn_wait 1 "	 start:                 Start a collection in interactive mode." "$LOG" "... followed by the usage"
dyn_send "   "
dyn_send h
dyn_wait 2 "	 quit:                  Stop collection and quit interactive mode." "$LOG" "h prints the usage"
dyn_send start
dyn_wait 3 "dynamic profiling start success......" "$LOG" "third start"
dyn_send start
dyn_wait 1 "[WARNING] dynamic profiling already started......" "$LOG" "start twice: msprof's warning"
dir3=$(dyn_prof_dirs "$OUT" | tail -n1)
before=$(dyn_raw_bytes "$dir3")
dyn_send status
dyn_wait 1 "bytes written" "$LOG" "status shows the open window and the data so far"
after=$(dyn_raw_bytes "$dir3")
t_grep "status names the output" "output $OUT" "$LOG"
t_grep "status: the window's number and the dir" "    window 3, open since " "$LOG"
t_grep "status: the window's PROF dir" "into $(basename "$dir3"): " "$LOG"
said=$(sed -n 's/.*window 3, open since [0-9:]* ([0-9.]* s), into .*: \([0-9]*\) bytes written.*/\1/p' "$LOG")
if [ -n "$said" ] && [ "$before" -le "$said" ] && [ "$said" -le "$after" ]; then
	t_ok "status: $said bytes written, between $before and $after measured around it"
else
	t_fail "status said '$said' bytes written, measured $before before and $after after"
fi

# --- the job exits while window 3 is open -----------------------------------------
dyn_until dyn_has_samples "$OUT" 3000 || t_fail "no samples in window 3"
dyn_tell job "exit 7"
wait "$DYN_PID"; rc=$?
dyn_close
if [ "$rc" -eq 7 ]; then t_ok "msprof exits with the job's status"; else t_fail "exit $rc, want 7"; cat "$LOG" >&2; fi
t_grep "the job's exit is told" "exited with status 7, dynamic profiling ends." "$LOG"
t_grep "the open window is saved" "The collection of process" "$LOG"
t_grep "each window is exported in the background" "[INFO] Start export data in PROF_" "$LOG"
n_done=$(dyn_count "$LOG" "done.")
if [ "$n_done" -eq 3 ]; then t_ok "three exports done"; else t_fail "$n_done exports done, want 3"; cat "$LOG" >&2; fi
t_grep "where the data is" "Process profiling data complete. Data is saved in $OUT" "$LOG"
t_check "one banner" test "$(dyn_count "$LOG" "dynamic mode: 'start' and 'stop' a collection")" -eq 1
# with or without a driver: one line on the devices for three windows
t_check "the devices are told once, not per window" test "$(dyn_count "$LOG" "[INFO] Device collection ")" -eq 1

mapfile -t dirs < <(dyn_prof_dirs "$OUT")
if [ "${#dirs[@]}" -eq 3 ]; then t_ok "one PROF dir per window"; else t_fail "${#dirs[@]} PROF dirs, want 3"; t_done; fi
i=1
for d in "${dirs[@]}"; do
	dyn_check_window "$d" "window $i"
	i=$((i + 1))
done

# windows follow one another without overlap
e1=$(dyn_window_end "${dirs[0]}"); s2=$(dyn_window_start "${dirs[1]}")
e2=$(dyn_window_end "${dirs[1]}"); s3=$(dyn_window_start "${dirs[2]}")
if [ "$e1" -le "$s2" ] && [ "$e2" -le "$s3" ]; then t_ok "windows are disjoint and in order"; else t_fail "windows overlap: $e1 > $s2 or $e2 > $s3"; fi

# the idle window shows no burst, the burst window shows it
idle=$(dyn_max_cpu "${dirs[0]}"); busy=$(dyn_max_cpu "${dirs[1]}")
if [ "$idle" -lt 20 ]; then t_ok "idle window: busiest thread at $idle%"; else t_fail "idle window shows $idle% CPU"; fi
if [ "$busy" -gt 40 ]; then t_ok "burst window: busiest thread at $busy%"; else t_fail "burst window shows only $busy% CPU"; fi
t_check "the burst's process is in the burst window" test "$(dyn_procs "${dirs[1]}" test-burn)" -ge 1
t_check "and not in the idle window" test "$(dyn_procs "${dirs[0]}" test-burn)" -eq 0

# every window is about the job: info.json names it, the dir name carries its pid
jp=$(dyn_info_pid "${dirs[0]}")
if [ -n "$jp" ] && [ "$(dyn_info_pid "${dirs[2]}")" = "$jp" ]; then t_ok "info.json names the job ($jp)"; else t_fail "info.json pids differ"; fi
case "$(basename "${dirs[0]}")" in
*"_$(printf '%08d' "$jp")"*) t_ok "the PROF dir name carries the job's pid" ;;
*) t_fail "PROF dir $(basename "${dirs[0]}") does not carry pid $jp" ;;
esac
t_grep "sample.json says dynamic" '"dynamic":"on"' "${dirs[0]}/host/sample.json"

# --- EOF on the pipe is quit; launch mode then waits for the job ------------------
dyn_launch pipe job2 "$W/log2" "$W/out2"
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$W/log2" "start (second job)"
dyn_close
dyn_wait 1 "dynamic profiling quit success......" "$W/log2" "EOF on the input is quit"
dyn_wait 1 "[INFO] waiting for app process exit......" "$W/log2" "launch mode waits for the job after quit"
dyn_wait 1 "done." "$W/log2" "the window open at EOF is exported"
dyn_tell job2 "exit 0"
wait "$DYN_PID"; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "exit 0 with the job's 0"; else t_fail "exit $rc after the second job"; cat "$W/log2" >&2; fi
n=$(dyn_prof_dirs "$W/out2" | wc -l)
if [ "$n" -eq 1 ]; then t_ok "one PROF dir for the window closed by EOF"; else t_fail "$n PROF dirs, want 1"; fi

# --- a printf'd script, as users pipe one in ------------------------------------------
printf 'start\nstop\nstart\nstop\nquit\n' | dyn_msprof --dynamic=on --output="$W/out3" --task-time=off \
	sh -c 'sleep 0.5' >"$W/log3" 2>&1
rc=$?
t_check "printf | msprof: exit 0" test "$rc" -eq 0
t_check "printf | msprof: two windows" test "$(dyn_prof_dirs "$W/out3" | wc -l)" -eq 2
t_grep "printf | msprof: quit" "dynamic profiling quit success......" "$W/log3"
t_check "--task-time=off: no device data asked, no line about devices" \
	test "$(dyn_count "$W/log3" "Device collection")" -eq 0

t_done
