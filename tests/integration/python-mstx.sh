#!/bin/bash
# The mstx package for Python (python/mstx): without a profiler every call
# returns and the job runs; under msprof --msproftx=on the job's marks,
# ranges (context managers and decorators, nested, one ended on another
# thread), domain and steps are in MSTX_EVENTS, msprof_tx and STEP with
# their names, domains and nesting.  With PyTorch (Debian's python3-torch)
# where it imports: a range per module call, and step N spanning the job's
# iteration N as the job timed it, none after the last.
. "$SRCDIR/tests/integration/lib.sh"
[ -n "$MSTX_PYTHON" ] || t_skip "the mstx package was not built (Python headers missing: python3-dev)"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
export PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}"
JOB="$SRCDIR/tests/python/mstx-job.py"
# Python itself, with the ASan runtime first where the package is sanitized
# (the interpreter is not; its leaks at exit are not ours)
py() {
	(
		[ -n "$T_ASAN_LIB" ] && export LD_PRELOAD=$T_ASAN_LIB ASAN_OPTIONS=detect_leaks=0
		exec "$MSTX_PYTHON" "$@"
	)
}

# --- no profiler: a no-op ---------------------------------------------------------
py "$JOB" >"$T_WORK/plain.out" 2>&1
t_eq "without a profiler: the job exits 0" $? 0 || cat "$T_WORK/plain.out" >&2
t_grep "without a profiler: not enabled" "enabled False" "$T_WORK/plain.out"
t_grep "without a profiler: the job ran to its end" "done" "$T_WORK/plain.out"

# --- under msprof ---------------------------------------------------------------------
mkdir -p "$T_WORK/out"
t_msprof --output="$T_WORK/out" --msproftx=on "$MSTX_PYTHON" "$JOB" >"$T_WORK/run.out" 2>&1
t_eq "under msprof: exit 0" $? 0 || cat "$T_WORK/run.out" >&2
t_grep "under msprof: enabled" "enabled True" "$T_WORK/run.out"
t_grep "a NUL in a message is refused" "nul refused" "$T_WORK/run.out"
P=$(t_prof_dir "$T_WORK/out") || t_done
DB=$(ls "$P"/msprof_*.db)
q() { t_sql "$DB" "$1"; }
EV="FROM MSTX_EVENTS e JOIN STRING_IDS m ON m.id = e.message JOIN STRING_IDS d ON d.id = e.domainId"
t_eq "five marks m0..m4 in the default domain" \
	"$(q "SELECT group_concat(v) FROM (SELECT m.value AS v $EV WHERE d.value = 'default' AND e.startNs = e.endNs AND m.value LIKE 'm_' ORDER BY e.startNs)")" \
	"m0,m1,m2,m3,m4"
t_eq "three outer ranges" "$(q "SELECT count(*) $EV WHERE m.value = 'outer' AND e.endNs > e.startNs")" 3
t_eq "three decorator ranges named after the function" "$(q "SELECT count(*) $EV WHERE m.value = 'inner'")" 3
t_eq "three decorator ranges with a name" "$(q "SELECT count(*) $EV WHERE m.value = 'work'")" 3
t_eq "marks and ranges in the io domain" \
	"$(q "SELECT count(*) $EV WHERE d.value = 'io' AND m.value IN ('checkpoint', 'save')")" 6
# nesting: every inner, work, checkpoint and save inside an outer range
t_eq "every inner event inside an outer range" "$(q "SELECT count(*) $EV WHERE m.value IN ('inner', 'work', 'checkpoint', 'save')
	AND EXISTS (SELECT 1 FROM MSTX_EVENTS o JOIN STRING_IDS om ON om.id = o.message
		WHERE om.value = 'outer' AND o.startNs <= e.startNs AND e.endNs <= o.endNs)")" 12
t_eq "the range ended on another thread" \
	"$(q "SELECT count(*) $EV WHERE m.value = 'explicit' AND e.endGlobalTid <> e.globalTid AND e.endNs > e.startNs")" 1
t_eq "three steps (mstx.step)" "$(q "SELECT group_concat(stepId) FROM (SELECT stepId FROM STEP ORDER BY stepId)")" "0,1,2"
t_check "msprof_tx names the ranges" grep -q "outer" $(ls "$P"/mindstudio_profiler_output/msprof_tx_*.csv)
# the threads' threading names, whole, on their tracks
while read -r _ tid name; do
	t_check "thread $tid is named '$name ($tid)' in the timeline" grep -qF "\"tid\":$tid,\"ph\":\"M\",\"args\":{\"name\":\"$name ($tid)\"}" \
		$(ls "$P"/mindstudio_profiler_output/msprof_tx_*.json)
done < <(grep '^thread ' "$T_WORK/run.out")
t_eq "two named threads" "$(grep -c '^thread ' "$T_WORK/run.out")" 2

# --- steps at the bottom of a loop, and at the top with the last ended -------------------
# (tests/python/steps-job.py: the times each process read around its calls)
mkdir -p "$T_WORK/steps"
t_msprof --output="$T_WORK/steps" --msproftx=on "$MSTX_PYTHON" "$SRCDIR/tests/python/steps-job.py" 4 \
	>"$T_WORK/steps.out" 2>&1
t_eq "steps: exit 0" $? 0 || cat "$T_WORK/steps.out" >&2
if P=$(t_prof_dir "$T_WORK/steps"); then
	SDB=$(ls "$P"/msprof_*.db)
	t_check "steps: the rows agree with the job's clock reads" python3 - "$SDB" "$T_WORK/steps.out" <<'PY'
import sqlite3, sys
db, out = sys.argv[1], sys.argv[2]
reads = {}
for line in open(out):
    f = line.split()
    if len(f) >= 3 and f[-1].isdigit():
        reads[" ".join(f[:-2])] = (int(f[-2]), int(f[-1]))
rows = sqlite3.connect(db).execute("SELECT pid, stepId, startNs, endNs FROM STEP ORDER BY pid, startNs").fetchall()
by = {}
for pid, step, s, e in rows:
    by.setdefault(pid, []).append((step, s, e))
bad = []
def within(t, key):
    lo, hi = reads[key]
    return lo <= t <= hi
if len(by) != 2:
    bad.append("%d processes with steps, want 2" % len(by))
for pid, steps in by.items():
    top = "top 0" in reads and any(within(s, "top 0") for (n, s, e) in steps if n == 0)
    if [n for (n, _, _) in steps] != [0, 1, 2, 3]:
        bad.append("pid %d: steps %s, want 0..3 once each" % (pid, [n for (n, _, _) in steps]))
        continue
    for n, s, e in steps:
        if top:
            start_ok = within(s, "top %d" % n)
            end_ok = within(e, "top %d" % (n + 1)) if n < 3 else within(e, "top-end 3")
        else:
            start_ok = within(s, "bottom %d" % (n - 1)) if n else within(s, "loop")
            end_ok = within(e, "bottom %d" % n)
        if not (start_ok and end_ok):
            bad.append("pid %d (%s): step %d %d..%d" % (pid, "top" if top else "bottom", n, s, e))
        if e - s < 20_000_000:
            bad.append("pid %d: step %d shorter than its 20 ms of work" % (pid, n))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
fi
mkdir -p "$T_WORK/gate"
t_msprof --output="$T_WORK/gate" --msproftx=on --step-range=1-3 --host-sys=cpu,mem --host-sys-freq=100 "$MSTX_PYTHON" \
	"$SRCDIR/tests/python/steps-job.py" 4 >"$T_WORK/gate.out" 2>&1
t_eq "--step-range: exit 0" $? 0 || cat "$T_WORK/gate.out" >&2
if P=$(t_prof_dir "$T_WORK/gate"); then
	GDB=$(ls "$P"/msprof_*.db)
	t_eq "--step-range=1-3 with steps ended at the bottom (and the top): only steps 1 and 2's work, in each process" \
		"$(t_sql "$GDB" "SELECT group_concat(v, ' ') FROM (SELECT s.value AS v FROM MSTX_EVENTS e JOIN STRING_IDS s
			ON s.id = e.message WHERE s.value LIKE 'work %' ORDER BY 1)")" "work 1 work 1 work 2 work 2"
	# every kind of data: the text outputs hold only steps 1 and 2 (the host
	# samples between the first one's start and the last one's end)
	t_check "--step-range: every timeline event and CSV row lies in steps 1-2" \
		python3 "$SRCDIR/tests/helpers/steps-window.py" "$P" 1 2
	t_grep "--step-range: the report says the export kept the window" "only what lies in steps 1 to 2 is kept" "$T_WORK/gate.out"
fi

# --- msprof's bootstrap keeps the job's own sitecustomize -----------------------------
mkdir -p "$T_WORK/usersite"
echo 'import os; open(os.environ["SITE_MARK"], "w").write("ran")' >"$T_WORK/usersite/sitecustomize.py"
SITE_MARK="$T_WORK/site.mark" PYTHONPATH="$T_WORK/usersite:$PYTHONPATH" t_msprof --output="$T_WORK/site" \
	--msproftx=on "$MSTX_PYTHON" -c 'import sys; print("path", sys.path[1].endswith("mstx/_boot"))' >"$T_WORK/site.out" 2>&1
t_grep "the bootstrap is first on the job's path" "path True" "$T_WORK/site.out"
t_eq "the job's own sitecustomize still runs" "$(cat "$T_WORK/site.mark" 2>/dev/null)" "ran"

# --- PyTorch, where Debian's python3-torch is installed ------------------------------
if [ -z "$T_ASAN_LIB" ] && py -c "import torch" 2>/dev/null; then
	mkdir -p "$T_WORK/torch"
	t_msprof --output="$T_WORK/torch" --msproftx=on "$MSTX_PYTHON" "$SRCDIR/tests/python/torch-job.py" \
		>"$T_WORK/torch.out" 2>&1
	t_eq "torch: exit 0" $? 0 || cat "$T_WORK/torch.out" >&2
	if P=$(t_prof_dir "$T_WORK/torch"); then
		DB=$(ls "$P"/msprof_*.db)
		# 3 training forwards and one evaluation of Sequential(Linear, ReLU,
		# Linear): 4 module calls each
		t_eq "torch: a range per module call" \
			"$(q "SELECT count(*) $EV WHERE d.value = 'torch.module' AND e.endNs > e.startNs")" 16
		t_eq "torch: the Linear calls" "$(q "SELECT count(*) $EV WHERE d.value = 'torch.module' AND m.value = 'Linear'")" 8
		t_eq "torch: a step per iteration, none after the last" "$(q "SELECT count(*) FROM STEP")" 3
		# step N is iteration N as the job timed it: it starts with the
		# batch fetch (within 10 ms of the job's clock read before it) and
		# ends with the optimizer step (by the job's read after it), so it
		# holds the iteration's 50 ms of work
		grep '^iteration ' "$T_WORK/torch.out" | while read -r _ n start end; do
			row=$(q "SELECT startNs, endNs FROM STEP WHERE stepId = $n")
			s=${row%%|*} e=${row##*|}
			if [ -z "$row" ] || [ "$s" -lt $((start - 2000000)) ] || [ "$s" -gt $((start + 10000000)) ] ||
				[ "$e" -gt $((end + 2000000)) ] || [ "$e" -lt $((start + 50000000)) ]; then
				echo "step $n: STEP ${row:-none}, the job's iteration $start..$end"
			fi
		done >"$T_WORK/steps.bad"
		t_eq "torch: step N spans iteration N (the job's own times)" "$(cat "$T_WORK/steps.bad")" ""
	fi
else
	echo "# PyTorch does not import here (Debian's python3-torch), or this build is sanitized: its part is not run"
fi
t_done
