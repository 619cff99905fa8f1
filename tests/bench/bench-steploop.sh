# What leaving msprof on costs a training loop, per mode: the median step
# time of runs under msprof over that of plain runs, the runs alternating
# (a plain run, then one of each mode, round after round) so that a slow
# spell of the machine hits them all alike.  Each run's figure is the median
# of its steps after the first tenth (warm-up); a mode's line is the median
# of its rounds' ratios to the plain run of the same round, and their
# spread (lowest, highest).  Modes:
#   host       msprof with its default host sampling (cpu, mem)
#   host-all   every --host-sys metric at 100 Hz and --host-sys-usage at 50 (its most)
#   tx         --msproftx=on (the C loop's ranges and marks; in the
#              PyTorch loop mstx.torch.enable()'s ranges per module call)
#   osrt       --host-sys=osrt (the OS runtime calls)
#   fr         --flight-recorder=60s with its defaults (host sampling and
#              the annotations into the ring; the steps watched)
# The C loop (bench-steploop.c): 20 ms steps of arithmetic, 20 marks, 20
# writes and a 1 ms sleep each.  The PyTorch loop (bench-steploop.py, where
# Debian's python3-torch imports): an MLP, one thread.
#
#   meson test -C build --benchmark steploop -v     (BENCH_ROUNDS=5, BENCH_STEPS=100)
# Prints figures; never fails on time.
set -u
: "${MSPROF:?run under meson test}" "${STEPLOOP:?}"
ROUNDS=${BENCH_ROUNDS:-5}
STEPS=${BENCH_STEPS:-100}
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-steploop.XXXXXX")
trap 'rm -rf "$W"' EXIT
export MSPROF_RUNTIME_DIR=$W/run
MODES=(host host-all tx osrt fr)
opts_of() {
	case $1 in
	host) echo "" ;;
	host-all) echo "--host-sys=cpu,mem,disk,network --host-sys-freq=100 --host-sys-usage=cpu,mem --host-sys-usage-freq=50" ;;
	tx) echo "--msproftx=on" ;;
	osrt) echo "--host-sys=osrt" ;;
	fr) echo "--flight-recorder=60s" ;;
	esac
}
# median of the steps after the first tenth, from a file of ns lines
run_median() {
	grep -E '^[0-9]+$' "$1" | tail -n +$((STEPS / 10 + 1)) | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
# one loop: $1 name (c | torch), $2 mode or plain
run_one() {
	local loop=$1 mode=$2 out=$W/$1-$2.out cmd
	if [ "$loop" = c ]; then cmd=("$STEPLOOP" "$STEPS" 20000); else
		cmd=("$MSTX_PYTHON" "$(dirname "$0")/bench-steploop.py" "$STEPS"); fi
	[ "$loop" = torch ] && { [ "$mode" = tx ] || [ "$mode" = fr ]; } && cmd+=(enable)
	if [ "$mode" = plain ]; then
		PYTHONPATH="${MSTX_PYTHONPATH:-}" "${cmd[@]}" >"$out" 2>"$W/err" || { echo "FAIL: $loop plain"; cat "$W/err"; exit 1; }
	else
		rm -rf "$W/prof"; mkdir -p "$W/prof"
		# shellcheck disable=SC2046
		PYTHONPATH="${MSTX_PYTHONPATH:-}" "$MSPROF" --output="$W/prof" $(opts_of "$mode") "${cmd[@]}" >"$W/msprof.out" 2>&1 ||
			{ echo "FAIL: $loop $mode"; tail -5 "$W/msprof.out"; exit 1; }
		grep -E '^[0-9]+$' "$W/msprof.out" >"$out"
	fi
	run_median "$out"
}
bench_loop() {
	local loop=$1 r m p v
	: >"$W/ratios"
	for ((r = 1; r <= ROUNDS; r++)); do
		p=$(run_one "$loop" plain)
		case $p in '' | *[!0-9]*) echo "$p"; exit 1 ;; esac
		echo "plain $p" >>"$W/ratios"
		for m in "${MODES[@]}"; do
			v=$(run_one "$loop" "$m")
			case $v in '' | *[!0-9]*) echo "$v"; exit 1 ;; esac
			awk -v m="$m" -v v="$v" -v p="$p" 'BEGIN { printf "%s %.4f %s\n", m, (p > 0 ? v / p : 0), v }' >>"$W/ratios"
		done
	done
	awk -v loop="$loop" -v modes="${MODES[*]}" '
		$1 == "plain" { base[++np] = $2; next }
		{ r[$1, ++n[$1]] = $2; ms[$1, n[$1]] = $3 }
		function med(a, key, cnt,   i, j, x, b) {
			for (i = 1; i <= cnt; i++) b[i] = a[key, i]
			for (i = 2; i <= cnt; i++) { x = b[i]; for (j = i - 1; j > 0 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
			lo = b[1]; hi = b[cnt]; return b[int((cnt + 1) / 2)]
		}
		END {
			for (i = 1; i <= np; i++) pb["p", i] = base[i]
			printf "%-6s %-9s %6s %12s %10s %10s %10s\n", "loop", "mode", "rounds", "step_ms", "ratio", "lowest", "highest"
			printf "%-6s %-9s %6d %12.3f %10s %10s %10s\n", loop, "plain", np, med(pb, "p", np) / 1e6, "1", "", ""
			nm = split(modes, order, " ")
			for (k = 1; k <= nm; k++) {
				m = order[k]
				if (!n[m]) continue
				for (i = 1; i <= n[m]; i++) sm["s", i] = ms[m, i]
				s = med(sm, "s", n[m])
				x = med(r, m, n[m])
				printf "%-6s %-9s %6d %12.3f %10.3f %10.3f %10.3f\n", loop, m, n[m], s / 1e6, x, lo, hi
			}
		}' "$W/ratios"
}
echo "# step time under msprof / plain, the median of $ROUNDS alternating rounds of $STEPS steps, and its spread"
bench_loop c
if [ -n "${MSTX_PYTHON:-}" ] && PYTHONPATH="${MSTX_PYTHONPATH:-}" "$MSTX_PYTHON" -c "import torch, mstx.torch" 2>/dev/null; then
	bench_loop torch
else
	echo "# PyTorch loop not run: Debian's python3-torch does not import here"
fi
