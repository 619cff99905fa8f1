# A job starts and stops its own collection (msprof/control.h, mstx.start,
# mstx.stop, mstx.capture): under msprof --dynamic=on, each msprofStart /
# msprofStop opens and closes a window as the prompt's start and stop do,
# each its own PROF dir holding exactly the marks the job made inside it
# (test-capture-app counts them itself), none of those outside; every
# call returns 0 there and -ENOTCONN without msprof, where the job runs
# on.  The same from Python, with `with mstx.capture():`.  Then
# --capture-range: a named mstx range, and the job's cudaProfilerStart /
# cudaProfilerStop through the fake CUPTI.
. "$SRCDIR/tests/integration/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
APP=$HELPERS/test-capture-app
[ -x "$APP" ] || t_skip "test-capture-app not built (no mstx library)"
W=$T_WORK

"$APP" >"$W/plain.out" 2>&1
t_eq "without msprof: the job runs, each call says no msprof is reachable" \
	"$(grep -E '^(start|stop) ' "$W/plain.out" | sort | uniq -c | awk '{ print $1, $2, $3 }' | tr '\n' ' ')" \
	"2 start -107 2 stop -107 "

# the prompt's input: a FIFO this shell holds open (EOF there would quit)
mkfifo "$W/in"
exec 7<>"$W/in"
mkdir -p "$W/out"
t_msprof --dynamic=on --msproftx=on --output="$W/out" "$APP" <"$W/in" >"$W/run.out" 2>&1
t_eq "under msprof: exit 0" $? 0 || cat "$W/run.out" >&2
t_eq "under msprof: every call reached msprof" \
	"$(grep -cE '^(\(msprof\) )?(start|stop) 0$' "$W/run.out")" 4
t_grep "msprof says who asked" "asked to start the collection (msprofStart)" "$W/run.out"
mapfile -t DIRS < <(find "$W/out" -maxdepth 1 -type d -name 'PROF_*' | sort)
t_eq "two windows, two PROF dirs" "${#DIRS[@]}" 2
for w in 1 2; do
	d=${DIRS[$((w - 1))]:-}
	[ -n "$d" ] || continue
	want=$(sed -n "s/^.*marks in$w \([0-9]*\)$/\1/p" "$W/run.out")
	t_eq "window $w: the $want marks the job made inside it, nothing else" \
		"$(t_sql "$(ls "$d"/msprof_*.db)" "SELECT group_concat(k || ':' || n) FROM (SELECT substr(s.value, 1, 3) AS k,
			count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message GROUP BY 1)")" "in$w:$want"
done

# --- --capture-range=mstx:NAME, --capture-range-end=repeat:2 ---------------------------
# 4 iterations, each a range "train": the first 2 are windows, each holding
# the 20 marks made inside its range alone; the last 2 none
mkdir -p "$W/cr"
t_msprof --dynamic=on --msproftx=on --capture-range=mstx:train --capture-range-end=repeat:2 --output="$W/cr" \
	"$APP" range train 4 <"$W/in" >"$W/cr.out" 2>&1
t_eq "capture range: exit 0" $? 0 || cat "$W/cr.out" >&2
mapfile -t DIRS < <(find "$W/cr" -maxdepth 1 -type d -name 'PROF_*' | sort)
t_eq "capture range: repeat:2 gives two windows" "${#DIRS[@]}" 2
for w in 0 1; do
	d=${DIRS[$w]:-}
	[ -n "$d" ] || continue
	t_eq "capture range $w: the marks of its range alone" \
		"$(t_sql "$(ls "$d"/msprof_*.db)" "SELECT group_concat(k || ':' || n) FROM (SELECT substr(s.value, 1, 3) AS k,
			count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message GROUP BY 1)")" \
		"in$w:$(sed -n "s/^.*marks in$w \([0-9]*\)$/\1/p" "$W/cr.out")"
done
# plain launch mode: the collection starts closed, no prompt; stop: the first range alone
mkdir -p "$W/crl"
t_msprof --msproftx=on --capture-range=mstx:train --output="$W/crl" "$APP" range train 3 </dev/null >"$W/crl.out" 2>&1
t_eq "launch mode's capture range: exit 0" $? 0 || cat "$W/crl.out" >&2
t_grep "... it says the collection starts closed" "The collection starts closed: each range 'train'" "$W/crl.out"
t_eq "... no prompt" "$(grep -c '(msprof)' "$W/crl.out")" 0
if P=$(t_prof_dir "$W/crl"); then
	t_eq "... stop: one window, the first range's marks alone" \
		"$(t_sql "$(ls "$P"/msprof_*.db)" "SELECT group_concat(k || ':' || n) FROM (SELECT substr(s.value, 1, 3) AS k,
			count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message GROUP BY 1)")" \
		"in0:$(sed -n 's/^.*marks in0 \([0-9]*\)$/\1/p' "$W/crl.out")"
fi
# --capture-range=cudaProfilerApi: the job's cudaProfilerStart/Stop, seen
# through CUPTI's callbacks (the fake CUPTI calls them as CUDA does, the
# driver's cuProfilerStart/Stop nested in the runtime's); repeat:2 of 3
# iterations: two windows, each with its iteration's marks alone and the
# device tasks CUPTI handed over as it closed
FAKE="$HELPERS/libfake-cupti.so"
if [ -f "$FAKE" ]; then
	mkdir -p "$W/cuda"
	MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 t_msprof --msproftx=on --capture-range=cudaProfilerApi \
		--capture-range-end=repeat:2 --output="$W/cuda" "$APP" cuda 3 </dev/null >"$W/cuda.out" 2>&1
	t_eq "cudaProfilerApi: exit 0" $? 0 || cat "$W/cuda.out" >&2
	t_grep "... it says the collection starts closed" "the application's cudaProfilerStart opens a window" \
		"$W/cuda.out"
	t_grep "... and who asked" "asked to start the collection (cudaProfilerStart or msprofStart)" "$W/cuda.out"
	mapfile -t DIRS < <(find "$W/cuda" -maxdepth 1 -type d -name 'PROF_*' | sort)
	t_eq "cudaProfilerApi: repeat:2 gives two windows" "${#DIRS[@]}" 2
	for w in 0 1; do
		d=${DIRS[$w]:-}
		[ -n "$d" ] || continue
		db=$(ls "$d"/msprof_*.db)
		t_eq "cudaProfilerApi window $w: the marks of its iteration alone" \
			"$(t_sql "$db" "SELECT group_concat(k || ':' || n) FROM (SELECT substr(s.value, 1, 3) AS k,
				count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message GROUP BY 1)")" \
			"in$w:$(sed -n "s/^.*marks in$w \([0-9]*\)$/\1/p" "$W/cuda.out")"
		t_eq "cudaProfilerApi window $w: the 3 kernels CUPTI handed over" \
			"$(t_sql "$db" "SELECT count(*) FROM COMPUTE_TASK_INFO")" 3
	done
else
	echo "# cudaProfilerApi not tested: built without the CUDA toolkit headers (no fake CUPTI)"
fi
t_expect_rc 1 "--capture-range=cudaProfilerAPI (a wrong name) is refused" "$MSPROF" --capture-range=cudaProfilerAPI \
	/bin/true
t_expect_rc 1 "--capture-range with --duration is refused" "$MSPROF" --capture-range=mstx:x --duration=5 /bin/true
t_expect_rc 1 "--capture-range with --pid is refused" "$MSPROF" --dynamic=on --pid=$$ --capture-range=mstx:x
t_expect_rc 1 "--capture-range-end alone is refused" "$MSPROF" --dynamic=on --capture-range-end=stop /bin/true

# --- Python ---------------------------------------------------------------------------
if [ -n "${MSTX_PYTHON:-}" ] && [ -z "$T_ASAN_LIB" ]; then
	export PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}"
	cat >"$W/job.py" <<'PY'
import time, mstx
mstx.mark("out")
with mstx.capture() as c:
    print("capture", c.started, flush=True)
    time.sleep(0.6)
    for i in range(20):
        mstx.mark("inside")
        time.sleep(0.01)
time.sleep(0.6)
mstx.mark("out")
PY
	mkdir -p "$W/py"
	t_msprof --dynamic=on --msproftx=on --output="$W/py" "$MSTX_PYTHON" "$W/job.py" <"$W/in" >"$W/py.out" 2>&1
	t_eq "python: exit 0" $? 0 || cat "$W/py.out" >&2
	t_grep "python: mstx.capture() reached msprof" "capture 0" "$W/py.out"
	if P=$(t_prof_dir "$W/py"); then
		t_eq "python: the window holds the 20 marks made inside the block alone" \
			"$(t_sql "$(ls "$P"/msprof_*.db)" "SELECT group_concat(v || ':' || n) FROM (SELECT s.value AS v,
				count(*) AS n FROM MSTX_EVENTS e JOIN STRING_IDS s ON s.id = e.message GROUP BY 1)")" "inside:20"
	fi
fi
exec 7>&-
t_done
