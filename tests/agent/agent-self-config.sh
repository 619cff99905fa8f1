#!/bin/bash
# MSPROF_CONFIG: a job that never saw msprof follows a JSON file the test
# edits while it runs.  start true/false twice gives two PROF dirs, each
# holding exactly the marks made while its window was open: the job marks
# every 25 ms, and a window's first and last marks lie within TOL of the
# times the file was changed (the agent sees a change within 50 ms; TOL
# covers msprof starting and a loaded machine), with none missing between.
# A malformed file is said once in the log and ignored; fixed, it is obeyed.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
APP=$AGENT_BIN/self-app
TOL=1000000000        # 1 s, in ns
STEP=100000000        # 4 marks' interval: the last mark before a stop was asked for
W=$T_WORK/out; mkdir -p "$W"
CFG=$T_WORK/profile.json

# set_cfg JSON: replace the file at once (as an editor saving by rename does)
set_cfg() { printf '%s\n' "$1" >"$CFG.tmp" && mv "$CFG.tmp" "$CFG"; }
now() { date +%s%N; }

set_cfg '{"start": false}'
LD_PRELOAD=$A_PRELOAD MSPROF_OPTIONS="--output=$W --msproftx=on" MSPROF_CONFIG="$CFG" \
	"$APP" marks 280 25 >/dev/null 2>"$T_WORK/err" &
JOB=$!
T_PIDS+=("$JOB")
LOG=$W/msprof_self_$JOB.log
sleep 0.7
B1=$(now); set_cfg '{"start": true}'; A1=$(now)
sleep 1.5
B2=$(now); set_cfg '{"start": false}'; A2=$(now)
sleep 0.4
set_cfg '{"start": tru'
sleep 0.6
t_eq "a malformed file is said once" "$(grep -c "is ignored" "$LOG")" 1
t_grep "what is wrong with it" "MSPROF_CONFIG '$CFG' is ignored: it is not a JSON object (a syntax error); the previous state stays" "$LOG"
B3=$(now); set_cfg '{"start": true, "options": "--msproftx=on"}'; A3=$(now)
sleep 1.5
B4=$(now); set_cfg '{"start": false}'; A4=$(now)
wait "$JOB"
t_eq "the job exits 0" $? 0 || cat "$T_WORK/err" >&2
t_wait "the self-enabled msprof ends" grep -q "The self-enabled profiling of process $JOB has ended" "$LOG"
t_eq "the job's stderr: one line" "$(cat "$T_WORK/err")" \
	"[INFO] msprof follows MSPROF_CONFIG '$CFG' for process $JOB; its log is $LOG"

mapfile -t DIRS < <(find "$W" -maxdepth 1 -type d -name 'PROF_*' | sort)
t_eq "two windows, two PROF dirs" "${#DIRS[@]}" 2 || { cat "$LOG" >&2; t_done; }
EV="FROM MSTX_EVENTS e JOIN STRING_IDS m ON m.id = e.message"
# check_window N DIR ON_BEFORE ON_AFTER OFF_BEFORE OFF_AFTER
check_window() {
	local db first last n lo hi
	db=$(ls "$2"/msprof_*.db)
	IFS='|' read -r first last n lo hi <<<"$(t_sql "$db" "SELECT min(e.startNs), max(e.startNs), count(*),
		min(CAST(substr(m.value, 2) AS INTEGER)), max(CAST(substr(m.value, 2) AS INTEGER)) $EV")"
	t_eq "window $1: no mark missing between its first and last" "$n" "$((hi - lo + 1))"
	t_check "window $1: its first mark after the file said start" [ "$first" -ge "$3" ]
	t_check "window $1: its first mark within 1 s of it ($(( (first - $4) / 1000000 )) ms)" [ "$first" -le $(($4 + TOL)) ]
	t_check "window $1: its last mark within 1 s after the file said stop ($(( (last - $6) / 1000000 )) ms)" \
		[ "$last" -le $(($6 + TOL)) ]
	t_check "window $1: marks up to the stop" [ "$last" -ge $(($5 - STEP)) ]
}
check_window 1 "${DIRS[0]}" "$B1" "$A1" "$B2" "$A2"
check_window 2 "${DIRS[1]}" "$B3" "$A3" "$B4" "$A4"
for d in "${DIRS[@]}"; do
	t_check "$(basename "$d") is exported" test -s "$(ls "$d"/mindstudio_profiler_output/msprof_tx_*.csv)"
done
t_done
