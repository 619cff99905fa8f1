#!/bin/bash
# fuzz-smoke.sh TARGET: one fuzz target of tests/fuzz run for a few seconds
# (MSPROF_FUZZ_SECONDS, default 5) from its seed corpus and its regression
# inputs (tests/fuzz/regress/TARGET: each input that once found a defect),
# under the build's ASan and UBSan, halting at the first error.  It passes
# when libFuzzer finds no crash, leak, hang or out-of-memory, and prints the
# runs done and their rate.
#
# The seeds are made here, once per build dir (the first target to run
# makes them, the others wait): a real run of this build's msprof on its
# steps-app (the agent's, the host samplers' raw files and the host/
# descriptions of a PROF dir, and its exported database cut to a few rows
# per table for the cluster reader), and the messages and options the
# targets write with the project's own encoders (FUZZ_SEEDS).
. "$SRCDIR/tests/integration/lib.sh"
TARGET=${1:?usage: fuzz-smoke.sh TARGET}
BIN=$FUZZ_BIN_DIR/$TARGET
SECONDS_RUN=${MSPROF_FUZZ_SECONDS:-5}
SEEDS=$FUZZ_BIN_DIR/seeds
[ -x "$BIN" ] || t_fail "no fuzz target '$BIN'"

make_seeds() {
	local run=$SEEDS.run
	rm -rf "$run" "$SEEDS"
	mkdir -p "$run" "$SEEDS.new"/{fuzz-raw,fuzz-raw-reader,fuzz-info,fuzz-cluster} || return 1
	t_msprof --output="$run" --msproftx=on --host-sys=cpu,mem,disk,network,osrt --host-sys-usage=cpu,mem \
		"$STEPS_APP" ranges 6 >"$run/msprof.log" 2>&1 || { cat "$run/msprof.log" >&2; return 1; }
	local p
	p=$(ls -d "$run"/PROF_*) || return 1
	# a raw file: the byte fuzz-raw.h's targets read first (its index
	# among fuzz-raw.c's files, with the checksum flag), then the file
	local i=0 f
	for f in host_cpu host_mem host_disk host_network host_usage_cpu host_usage_mem agent; do
		for s in "$p"/host/data/"$f"*.slice_*; do
			[ -f "$s" ] || continue
			for d in fuzz-raw fuzz-raw-reader; do
				{ printf "\\$(printf %03o $((i | 128)))"; cat "$s"; } >"$SEEDS.new/$d/$(basename "$s")"
			done
		done
		i=$((i + 1))
	done
	{ cat "$p/host/info.json"; printf '\0'; cat "$p/host/sample.json"; printf '\0'; cat "$p/host/start_info"
	  printf '\0'; cat "$p/host/end_info"; } >"$SEEDS.new/fuzz-info/run"
	python3 - "$p" >"$SEEDS.new/fuzz-cluster/rank" <<'PY' || return 1
import glob, re, sqlite3, sys
p = sys.argv[1]
out = sys.stdout
out.write(open(p + "/host/info.json").read() + "\0" + open(p + "/host/start_info").read() + "\0")
rows = {}
for line in sqlite3.connect(glob.glob(p + "/msprof_*.db")[0]).iterdump():
    m = re.match(r'INSERT INTO "?(\w+)"?', line)
    if m:
        rows[m.group(1)] = rows.get(m.group(1), 0) + 1
        if rows[m.group(1)] > 8:
            continue
    out.write(line + "\n")
PY
	for d in fuzz-ipc fuzz-options; do
		mkdir -p "$SEEDS.new/$d" && FUZZ_SEEDS="$SEEDS.new/$d" "$FUZZ_BIN_DIR/$d" >/dev/null 2>&1 || return 1
	done
	mv "$SEEDS.new" "$SEEDS"
}

(
	flock 9
	[ -d "$SEEDS" ] || make_seeds || { rm -rf "$SEEDS.new"; exit 1; }
) 9>"$FUZZ_BIN_DIR/seeds.lock" || t_fail "the seed corpus could not be made"
n_seeds=$(ls "$SEEDS/$TARGET" 2>/dev/null | wc -l)
if [ "$n_seeds" -gt 0 ]; then t_ok "$TARGET: $n_seeds seed(s)"; else t_fail "$TARGET: no seeds in $SEEDS/$TARGET"; fi

REGRESS=$SRCDIR/tests/fuzz/regress/$TARGET
dirs=("$SEEDS/$TARGET")
[ -d "$REGRESS" ] && dirs+=("$REGRESS")
mkdir -p "$T_WORK/corpus"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	"$BIN" -max_total_time="$SECONDS_RUN" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$T_WORK/" "$T_WORK/corpus" "${dirs[@]}" >"$T_WORK/fuzz.log" 2>&1
rc=$?
runs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$T_WORK/fuzz.log")
rate=$(awk '/stat::average_exec_per_sec:/ { print $2 }' "$T_WORK/fuzz.log")
from="$n_seeds seed(s)"
[ -d "$REGRESS" ] && from="$from and $(ls "$REGRESS" | wc -l) regression input(s)"
if [ "$rc" -eq 0 ] && [ -n "$runs" ]; then
	t_ok "$TARGET: ${runs} runs in ${SECONDS_RUN} s (${rate} a second), from $from: no crash, leak or hang"
else
	t_fail "$TARGET: libFuzzer exit $rc (its log below; the input is in $T_WORK)"
	tail -n 60 "$T_WORK/fuzz.log" >&2
fi
t_done
