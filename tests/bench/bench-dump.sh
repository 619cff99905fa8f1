# How fast a flight recorder's dump is, and what it costs the job: a busy
# rank (bench-steploop: 21 ms steps of arithmetic, BENCH_MARKS marks each,
# default 2000, about 95,000 a second) under --flight-recorder=60s,512MB,
# left to fill the ring for BENCH_FILL_S (default 62) seconds, then dumped
# BENCH_DUMPS times (default 3) from another shell (msprof --dump), 4 s
# apart.  Prints each dump's raw data on disk (msprof's "written in" line:
# from the copy's start to its end, after the 0.2 s the dump waits for the
# writers) and its rate, and the job's step times: the median and spread
# (5th to 95th percentile) of the steps that began away from any dump,
# against the median and worst of those that began within 1 s after a
# dump was asked for.
#
#   meson test -C build --benchmark flight-dump -v
# Prints figures; never fails on time.
set -u
: "${MSPROF:?run under meson test}" "${STEPLOOP:?}"
FILL=${BENCH_FILL_S:-62}
DUMPS=${BENCH_DUMPS:-3}
MARKS=${BENCH_MARKS:-2000}
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-dump.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$W"' EXIT
export MSPROF_RUNTIME_DIR=$W/run
mkdir -p "$W/out"
# steps enough for the fill, the dumps and 4 s more
STEPS=$(((FILL + 4 * DUMPS + 4) * 1000 / 21))
"$MSPROF" --output="$W/out" --flight-recorder=60s,512MB "$STEPLOOP" "$STEPS" 20000 "$MARKS" >"$W/job.out" 2>&1 &
L=$!
for ((i = 0; i < 100; i++)); do
	P=$(pgrep -nx bench-steploop) && break
	sleep 0.1
done
[ -n "${P:-}" ] || { echo "FAIL: the job did not start"; cat "$W/job.out"; exit 1; }
sleep "$FILL"
: >"$W/asked"
for ((d = 0; d < DUMPS; d++)); do
	date +%s%N >>"$W/asked"
	"$MSPROF" --dump --pid="$P" >/dev/null 2>&1 || { echo "FAIL: msprof --dump"; exit 1; }
	sleep 4
done
wait "$L"
echo "# a busy rank ($MARKS marks a step of 21 ms) under --flight-recorder=60s,512MB, the ring filled for $FILL s"
printf "%-6s %10s %10s %10s\n" dump MB ms MB/s
sed -n 's/.*dump (command) of [0-9]* file(s), \([0-9.]*\) MB written in \([0-9]*\) ms.*/\1 \2/p' "$W/job.out" |
	awk '{ printf "%-6d %10.1f %10d %10.0f\n", NR, $1, $2, ($2 > 0 ? $1 / ($2 / 1000) : 0) }'
# steps: "start_ns step_ns"; near a dump: began within 1 s after one was asked
awk 'NR == FNR { asked[++na] = $1; next }
	NF == 2 {
		near = 0
		for (i = 1; i <= na; i++) if ($1 >= asked[i] && $1 < asked[i] + 1e9) near = 1
		if (near) nv[++nn] = $2; else fv[++nf] = $2
	}
	function sortv(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } }
	END {
		sortv(fv, nf); sortv(nv, nn)
		printf "steps away from dumps: %d, median %.3f ms, 5th-95th percentile %.3f-%.3f ms\n", nf,
			fv[int((nf + 1) / 2)] / 1e6, fv[int(nf * 0.05) + 1] / 1e6, fv[int(nf * 0.95)] / 1e6
		if (nn)
			printf "steps within 1 s of a dump: %d, median %.3f ms, worst %.3f ms (%.3fx the median away)\n", nn,
				nv[int((nn + 1) / 2)] / 1e6, nv[nn] / 1e6, nv[nn] / fv[int((nf + 1) / 2)]
	}' "$W/asked" "$W/job.out"
