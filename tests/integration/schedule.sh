# --schedule: windows at the job's training steps, as torch.profiler's
# schedule (skip_first, wait, warmup, active, repeat).  test-capture-app
# makes steps of known length (mstxStep at the top of each, mstxStepEnd
# after the last) full of marks it counts itself.  For each window: its
# own PROF dir whose sample.json names its active steps, the exported
# outputs hold exactly those steps' marks (every one of them, none of any
# other step) and its OS runtime calls (the job's sleeps), and every
# timeline event, timed CSV row and database row lies within those steps
# (steps-window.py), host samples included.  Two ranks with steps
# of different lengths share one window, which stays open until the
# slower one's last active step is done; with two cycles, the faster
# rank's request for the next window waits until the slower closes the
# first.  Without a warm-up the window
# opens a step ahead, so the first active step is whole.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/capture-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
APP=$HELPERS/test-capture-app
[ -x "$APP" ] || t_skip "test-capture-app not built (no mstx library)"
W=$T_WORK
CHECK=$SRCDIR/tests/helpers/steps-window.py

# $1 PROF dir, $2 first and $3 last active step, $4 the job's output
check_window() {
	local p=$1 a=$2 b=$3 out=$4 what=$5
	t_grep "$what: sample.json names its steps" "\"step_range\":\"$a-$((b + 1))\"" "$p/host/sample.json"
	t_eq "$what: the marks of steps $a-$b, every one, and no other step's" "$(cap_tx_marks "$p")" \
		"$(cap_job_marks "$out" "$a" "$b")"
	t_eq "$what: step_trace holds steps $a-$b" \
		"$(tail -n +2 "$p"/mindstudio_profiler_output/step_trace_*.csv | cut -d, -f2 | tr '\n' ' ')" \
		"$(seq -s ' ' "$a" "$b") "
	t_check "$what: every timeline event and CSV row lies in steps $a-$b" python3 "$CHECK" "$p" "$a" "$b"
}

# --- one process, two cycles ------------------------------------------------------------
# steps: 0 skipped, 1 waited, 2 warm-up, 3-4 kept; 5 waited, 6 warm-up, 7-8 kept; 9-11 none
mkdir -p "$W/one"
t_msprof --msproftx=on --output="$W/one" --host-sys=cpu,mem,osrt --host-sys-freq=100 \
	--schedule=skip_first=1,wait=1,warmup=1,active=2,repeat=2 "$APP" steps 12 </dev/null \
	>"$W/one.out" 2>&1
t_eq "one process: exit 0" $? 0 || cat "$W/one.out" >&2
t_grep "... it says the collection starts closed" "The collection starts closed: the application's steps" "$W/one.out"
t_grep "... and which steps each window keeps" "asked to start the collection (--schedule: steps 7-9)" "$W/one.out"
mapfile -t DIRS < <(find "$W/one" -maxdepth 1 -type d -name 'PROF_*' | sort)
t_eq "one process: repeat=2 gives two windows" "${#DIRS[@]}" 2
[ -n "${DIRS[0]:-}" ] && check_window "${DIRS[0]}" 3 4 "$W/one.out" "window 1"
[ -n "${DIRS[1]:-}" ] && check_window "${DIRS[1]}" 7 8 "$W/one.out" "window 2"
# the OS runtime calls of the chosen steps, every one: the job sleeps 10 ms
# after each mark (nanosleep), so a window holds one per mark of its steps
for w in 0 1; do
	d=${DIRS[$w]:-}
	[ -n "$d" ] || continue
	a=$((3 + 4 * w))
	t_eq "window $((w + 1)): one nanosleep per mark of steps $a-$((a + 1)), no other" \
		"$(t_sql "$(ls "$d"/msprof_*.db)" "SELECT count(*) FROM OSRT_API o JOIN STRING_IDS s ON s.id = o.name
			WHERE s.value LIKE '%nanosleep%'")" \
		"$(( $(sed -n "s/^marks s$a \([0-9]*\)$/\1/p" "$W/one.out") + $(sed -n "s/^marks s$((a + 1)) \([0-9]*\)$/\1/p" "$W/one.out") ))"
done

# --- no warm-up: the window opens a step ahead ------------------------------------------
mkdir -p "$W/ahead"
t_msprof --msproftx=on --schedule=skip_first=2,active=2,repeat=1 --output="$W/ahead" "$APP" steps 6 </dev/null \
	>"$W/ahead.out" 2>&1
t_eq "no warm-up: exit 0" $? 0 || cat "$W/ahead.out" >&2
if P=$(t_prof_dir "$W/ahead"); then
	check_window "$P" 2 3 "$W/ahead.out" "no warm-up"
fi

# --- two ranks, steps of 100 and 150 ms: one window for both ----------------------------
mkdir -p "$W/ranks"
t_msprof --msproftx=on --schedule=wait=2,warmup=1,active=2,repeat=1 --output="$W/ranks" \
	sh -c "RANK=0 '$APP' steps 8 100 >'$W/r0.out' & RANK=1 '$APP' steps 8 150 >'$W/r1.out'; wait" </dev/null \
	>"$W/ranks.out" 2>&1
t_eq "two ranks: exit 0" $? 0 || cat "$W/ranks.out" >&2
t_eq "two ranks: each asked for the window" "$(grep -c 'asked to start the collection (--schedule: steps 3-5)' \
	"$W/ranks.out")" 2
t_grep "two ranks: the window waits for the slower rank" "stays open until 1 other process(es)" "$W/ranks.out"
t_eq "two ranks: one window" "$(grep -c 'dynamic profiling start success' "$W/ranks.out")" 1
for r in 0 1; do
	P=$(grep -o "Rank $r (pid [0-9]*): PROF_[0-9A-Z_]*" "$W/ranks.out" | sed 's/.*: //')
	if [ -n "$P" ] && [ -d "$W/ranks/$P" ]; then
		check_window "$W/ranks/$P" 3 4 "$W/r$r.out" "rank $r"
	else
		t_check "rank $r: a PROF dir" false
	fi
done

# --- two ranks, two cycles: the faster asks for the next window while the slower keeps ----
# --- the first open; it opens as the first closes, in time for both -----------------------
# Rank 0 (300 ms steps) asks for steps 6-7 as its warm-up step 5 begins
# (1500 ms), rank 1 (410 ms steps) closes steps 2-3 as its step 4 begins
# (1640 ms), and the second window must be open before rank 0's step 6
# (1800 ms): 140 ms and 160 ms of margin for a loaded machine and an ASan
# build (with steps of 100 and 130 ms, 20 and 80 ms: an ASan build under
# CI's load once took 85 ms to close one window and open the next).
mkdir -p "$W/cycles"
t_msprof --msproftx=on --schedule=wait=1,warmup=1,active=2,repeat=2 --output="$W/cycles" \
	sh -c "RANK=0 '$APP' steps 10 300 >'$W/c0.out' & RANK=1 '$APP' steps 10 410 >'$W/c1.out'; wait" </dev/null \
	>"$W/cycles.out" 2>&1
t_eq "two cycles: exit 0" $? 0 || cat "$W/cycles.out" >&2
t_grep "two cycles: the next window waits for the open one" \
	"the window of steps 6-8 opens when the open one (steps 2-4) closes" "$W/cycles.out"
t_eq "two cycles: two windows" "$(grep -c 'dynamic profiling start success' "$W/cycles.out")" 2
for r in 0 1; do
	mapfile -t RD < <(grep -l "\"rank_id\":$r[,}]" "$W"/cycles/PROF_*/host/info.json | xargs -n1 dirname | xargs -n1 dirname |
		sort)
	t_eq "two cycles, rank $r: a PROF dir per window" "${#RD[@]}" 2
	[ -n "${RD[0]:-}" ] && check_window "${RD[0]}" 2 3 "$W/c$r.out" "cycle 1, rank $r"
	[ -n "${RD[1]:-}" ] && check_window "${RD[1]}" 6 7 "$W/c$r.out" "cycle 2, rank $r"
done

# export cluster on the first window's PROF dirs merges that window alone: steps 2 and 3 of
# both ranks
mkdir -p "$W/cw1"
for d in "$W"/cycles/PROF_*; do
	grep -q '"step_range":"2-4"' "$d/host/sample.json" && cp -r "$d" "$W/cw1/"
done
"$MSPROF" export cluster -dir "$W/cw1" >"$W/cw1.out" 2>&1
t_eq "export cluster of one window: exit 0" $? 0 || cat "$W/cw1.out" >&2
t_eq "export cluster of one window: its steps alone, of both ranks" \
	"$(tail -n +2 "$W"/cw1/msprof_cluster_output/cluster_step_trace_*.csv | cut -d, -f1,3 | tr '\n' ' ')" \
	"2,Rank 0 2,Rank 1 3,Rank 0 3,Rank 1 "

# --- attached: a job started with the agent by hand, armed by msprof --pid -------------
# start_step counts by the steps' own numbers: whatever step the job has
# reached when msprof attaches, the window holds steps 12 and 13
AGENT=$(dirname "$MSPROF")/../collectors/agent/libmsprof_agent.so
if [ -f "$AGENT" ]; then
	mkdir -p "$W/att"
	mkfifo "$W/att.in"
	exec 8<>"$W/att.in"
	LD_PRELOAD=${T_ASAN_LIB:+$T_ASAN_LIB:}$AGENT "$APP" steps 20 100 >"$W/att-job.out" 2>&1 &
	JOB=$!
	T_PIDS+=("$JOB")
	t_msprof --dynamic=on --pid="$JOB" --msproftx=on --schedule=start_step=12,active=2,repeat=1 \
		--output="$W/att" <"$W/att.in" >"$W/att.out" 2>&1
	t_eq "attached: msprof exits 0 with the job" $? 0 || cat "$W/att.out" >&2
	exec 8>&-
	wait "$JOB"
	t_grep "attached: the job asked for its window" "asked to start the collection (--schedule: steps 12-14)" \
		"$W/att.out"
	if P=$(t_prof_dir "$W/att"); then
		check_window "$P" 12 13 "$W/att-job.out" "attached"
	fi
fi

# --- from Python: mstx.schedule() under --dynamic=on ------------------------------------
# wait 1, warmup 1, active 2: steps 2 and 3 of the job's 6 are kept; bad
# numbers are refused by Python or by msprof, and without msprof -ENOTCONN
if [ -n "${MSTX_PYTHON:-}" ] && [ -z "$T_ASAN_LIB" ]; then
	cat >"$W/sched.py" <<'PY'
import errno, time, mstx
print("bad", mstx.schedule(active=0) == -errno.EINVAL, flush=True)
try:
    mstx.schedule(wait=-1)
    print("negative taken", flush=True)
except ValueError:
    print("negative refused", flush=True)
print("schedule", mstx.schedule(wait=1, warmup=1, active=2, repeat=1), flush=True)
for i in range(6):
    mstx.step(i)
    n = 0
    for j in range(12):
        mstx.mark("s%d-%d" % (i, j))
        n += 1
        time.sleep(0.01)
    print("marks s%d %d" % (i, n), flush=True)
mstx.step_end()
PY
	PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}" "$MSTX_PYTHON" -c \
		'import errno, mstx; print(mstx.schedule(active=2) == -errno.ENOTCONN)' >"$W/sched-none.out" 2>&1
	t_eq "python: without msprof, mstx.schedule() says so" "$(cat "$W/sched-none.out")" "True"
	mkdir -p "$W/py"
	mkfifo "$W/py.in"
	exec 9<>"$W/py.in"
	PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}" t_msprof --dynamic=on --msproftx=on --output="$W/py" \
		"$MSTX_PYTHON" "$W/sched.py" <"$W/py.in" >"$W/sched.out" 2>&1
	t_eq "python: exit 0" $? 0 || cat "$W/sched.out" >&2
	exec 9>&-
	t_grep "python: a schedule msprof does not take is -EINVAL" "bad True" "$W/sched.out"
	t_grep "python: a negative number is refused" "negative refused" "$W/sched.out"
	t_grep "python: mstx.schedule() reached msprof" "schedule 0" "$W/sched.out"
	if P=$(t_prof_dir "$W/py"); then
		check_window "$P" 2 3 "$W/sched.out" "python"
	fi
fi

# --- refused -----------------------------------------------------------------------------
t_expect_rc 1 "--schedule=active=0 is refused" "$MSPROF" --msproftx=on --schedule=active=0 /bin/true
t_expect_rc 1 "--schedule with an unknown key is refused" "$MSPROF" --msproftx=on --schedule=wait=1,activ=2 /bin/true
t_expect_rc 1 "--schedule without --msproftx=on is refused" "$MSPROF" --schedule=active=2 /bin/true
t_expect_rc 1 "--schedule with --step-range is refused" "$MSPROF" --msproftx=on --schedule=active=2 \
	--step-range=1-3 /bin/true
t_expect_rc 1 "--schedule with --capture-range is refused" "$MSPROF" --msproftx=on --schedule=active=2 \
	--capture-range=mstx:x /bin/true
t_done
