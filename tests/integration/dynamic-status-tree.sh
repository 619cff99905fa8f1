# The prompt's status counts every process msprofd samples in the job's
# tree, not only the one it started: a shell that starts K sleeps (K
# random) reads "sampling K+1 processes of its tree now, K+1 since the
# window opened"; after the sleeps are gone, 1 now and K+1 since.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"

W=$T_WORK
LOG=$W/log
K=$((2 + RANDOM % 4))
dyn_open in
dyn_run_pipe "$LOG" --dynamic=on --output="$W/out" sh -c "
for i in \$(seq $K); do sleep 4 & done
echo started >'$W/started'
wait
echo gone >'$W/gone'
read line <'$W/end'"
dyn_wait 1 "(msprof) " "$LOG" "the prompt is shown" || t_done
dyn_until test -s "$W/started" || t_fail "the job did not start its sleeps"
dyn_send start
dyn_wait 1 "dynamic profiling start success......" "$LOG" "start"
sleep 0.3
dyn_send status
dyn_wait 1 "sampling" "$LOG" "status says what it samples"
t_grep "status: the shell and its $K sleeps" "    sampling $((K + 1)) processes of its tree now, $((K + 1)) since the window opened" "$LOG"
mkfifo "$W/end"
dyn_until test -s "$W/gone" || t_fail "the sleeps did not end"
sleep 0.3
dyn_send status
dyn_wait 2 "sampling" "$LOG" "status again"
t_grep "status: the shell alone now, the sleeps counted since" "    sampling 1 process of its tree now, $((K + 1)) since the window opened" "$LOG"
dyn_send stop
dyn_wait 1 "dynamic profiling stop success......" "$LOG" "stop"
echo end >"$W/end"
wait "$DYN_PID"
t_eq "msprof exits with the job's status" $? 0
dyn_close
t_done
