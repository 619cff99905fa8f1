#!/bin/sh
# scripts/fuzz.sh [SECONDS [TARGET...]]: the fuzz targets of tests/fuzz run
# for a long time (default 3600 s each; every target when none is named),
# one after another, each on all the machine's cores (libFuzzer's -fork),
# in build-fuzz (clang, ASan+UBSan, -Dfuzz=enabled; made when missing).
# Each keeps its corpus in fuzz-corpus/TARGET, so a run goes on from the
# last; what it finds lands in fuzz-corpus/TARGET-findings/ and stops that
# target.  docs/FUZZING.md says what to do with a finding.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-3600}
[ $# -gt 0 ] && shift
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=enabled >/dev/null
fi
ninja -C build-fuzz >/dev/null
# the seeds, made by the smoke runs (tests/fuzz/fuzz-smoke.sh)
[ -d build-fuzz/tests/fuzz/seeds ] ||
	MSPROF_FUZZ_SECONDS=1 meson test -C build-fuzz --suite fuzz --num-processes 2 >/dev/null
targets=${*:-$(cd build-fuzz/tests/fuzz && ls -d fuzz-* | grep -v '\.')}
jobs=$(nproc 2>/dev/null || echo 1)
rc=0
for t in $targets; do
	mkdir -p "fuzz-corpus/$t" "fuzz-corpus/$t-findings"
	regress=tests/fuzz/regress/$t
	[ -d "$regress" ] || regress=
	echo "$t: $secs s on $jobs core(s), corpus fuzz-corpus/$t"
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		"build-fuzz/tests/fuzz/$t" -fork="$jobs" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="fuzz-corpus/$t-findings/" "fuzz-corpus/$t" \
		"build-fuzz/tests/fuzz/seeds/$t" $regress 2>"fuzz-corpus/$t.log" || rc=1
	# the runs done, their rate and what was found: fork mode's last line
	grep -E '^#[0-9]+: cov' "fuzz-corpus/$t.log" | tail -n 1 | sed "s/^/$t: /" || true
	grep -E 'Test unit written|ERROR: ' "fuzz-corpus/$t.log" | sed "s/^/$t: /" || true
done
exit $rc
