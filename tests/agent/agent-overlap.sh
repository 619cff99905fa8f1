#!/bin/bash
# The overlap analysis of a host-only profile, through msprof --msproftx=on:
# overlap-app runs 3 steps of computing ("forward") and communication (ranges
# in the mstx domain "communication", one overlapping the computing on
# another thread, one receive "HcclRecv" after it) and prints each range as it
# measured it.  The Overlap Analysis layer (labelled "NPU"), STEP_TRACE_TIME
# and overlap_analysis_{ts}.csv must hold what overlap-check.py computes
# from the recorded ranges, which must be the ones the program printed.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"

if env "${PRE[@]}" timeout 60 "$MSPROF" --msproftx=on --output="$T_WORK/prof" "$AGENT_BIN/overlap-app" 3 \
	>"$T_WORK/app.out" 2>"$T_WORK/app.err"; then
	t_ok "msprof --msproftx=on overlap-app 3"
else
	t_fail "msprof --msproftx=on overlap-app 3"; cat "$T_WORK/app.err" >&2
fi
# msprof's own lines go to stdout too: the program's are the ones it prints
grep -E '^(step|compute|comm) ' "$T_WORK/app.out" >"$T_WORK/truth"
t_eq "the program printed 3 steps, 3 computing and 6 communication ranges" \
	"$(cut -d' ' -f1 "$T_WORK/truth" | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')" "comm=6 compute=3 step=3 "
P=$(t_prof_dir "$T_WORK/prof") || exit 1
if python3 "$SRCDIR/tests/integration/overlap-check.py" "$P" host "$T_WORK/truth"; then
	t_ok "Overlap Analysis, STEP_TRACE_TIME and overlap_analysis csv hold the ranges' overlap, per step"
else
	t_fail "overlap analysis differs from the ranges (see above)"
fi
exit $((T_FAILS > 0))
