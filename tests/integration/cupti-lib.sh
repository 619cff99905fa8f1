# Shared by the device-cupti*.sh tests, sourced after lib.sh: the fake
# CUPTI (tests/helpers/fake-cupti.c), the program that brings it up as the
# CUDA driver would (test-cuda-app), and a run in which CUPTI fails the
# agent.
FAKE="$HELPERS/libfake-cupti.so"
[ -f "$FAKE" ] || t_skip "built without the CUDA toolkit headers (-Dcupti): no CUPTI part to test"
APP="$HELPERS/test-cuda-app"

# cupti_trouble NAME WHAT MESSAGE ONCE VAR=VALUE...: the program runs 100 ms
# under msprof --msproftx=on with the variables set, and CUPTI fails the
# agent: msprof exits 0, MESSAGE is in $T_WORK/NAME.log and ONCE on one line
# of it only, and the host data is exported all the same.  P: the PROF dir.
cupti_trouble() {
	local name=$1 what=$2 msg=$3 once=$4 rc
	shift 4
	mkdir -p "$T_WORK/$name"
	(
		export "$@"
		t_msprof --output="$T_WORK/$name" --msproftx=on "$APP" "$T_WORK/$name.pid" 100
	) >"$T_WORK/$name.log" 2>&1
	rc=$?
	t_check "$what: msprof exits 0" test $rc -eq 0
	t_grep "$what: one clear message" "$msg" "$T_WORK/$name.log"
	t_check "$what: said once" test "$(grep -cF -- "$once" "$T_WORK/$name.log")" -eq 1
	P=$(t_prof_dir "$T_WORK/$name") || return 1
	t_check "$what: host data exported" \
		test -n "$(ls "$P"/mindstudio_profiler_output/host_cpu_usage_*.csv 2>/dev/null)"
}
