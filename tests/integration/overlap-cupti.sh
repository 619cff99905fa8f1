#!/bin/bash
# The overlap analysis of device tasks without a GPU: the fake CUPTI
# (tests/helpers/fake-cupti.c) with FAKE_CUPTI_NCCL=1 delivers, beside each
# of its kernels, an NCCL kernel (communication) that overlaps half of it.
# The Overlap Analysis layer ("NPU 0"), STEP_TRACE_TIME and
# overlap_analysis_{ts}.csv must hold what overlap-check.py computes from
# the database's kernels and from the fake's own pattern (MSPROF_NVIDIA_CTL:
# the agent injected as where an NVIDIA driver is, see device-cupti.sh).
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/cupti-lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the outputs"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"

mkdir -p "$T_WORK/nccl"
MSPROF_NVIDIA_CTL=/dev/null MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=4 FAKE_CUPTI_NCCL=1 t_msprof --output="$T_WORK/nccl" \
	"$APP" "$T_WORK/nccl.pid" 200 >"$T_WORK/nccl.log" 2>&1
rc=$?
t_check "msprof exits 0" test $rc -eq 0
P=$(t_prof_dir "$T_WORK/nccl") || exit 1
if python3 "$SRCDIR/tests/integration/overlap-check.py" "$P" device 4; then
	t_ok "Overlap Analysis, STEP_TRACE_TIME and overlap_analysis csv hold the kernels' overlap"
else
	t_fail "overlap analysis differs from the kernels (see above)"
fi

# without NCCL kernels: all computing, no communication, the rest Free
mkdir -p "$T_WORK/plain"
MSPROF_NVIDIA_CTL=/dev/null MSPROF_CUPTI_LIBRARY="$FAKE" FAKE_CUPTI_KERNELS=3 t_msprof --output="$T_WORK/plain" \
	"$APP" "$T_WORK/plain.pid" 100 >"$T_WORK/plain.log" 2>&1
P2=$(t_prof_dir "$T_WORK/plain") || exit 1
t_eq "no NCCL kernel: computing = the 3 kernels, no communication, Free = the rest of the collection" \
	"$(sqlite3 "$P2"/msprof_*.db "SELECT computing || ',' || communication || ',' ||
	   (free = (endNs - startNs) - computing) FROM STEP_TRACE_TIME")" "1500,0,1"
exit $((T_FAILS > 0))
