# Shared by the dynamic-*.sh tests, sourced after lib.sh: drive the
# (msprof) prompt through a pipe or a pseudo-terminal, a workload that idles
# until told to burst CPU, and checks on the PROF dirs of the windows.
#
# Waiting is bounded polling on what msprof prints or writes, never a sleep
# that has to be long enough.

# Polls for up to DYN_WAIT_S seconds (slow machines, sanitizer builds).
DYN_WAIT_S=${DYN_WAIT_S:-60}

# dyn_until CMD...: poll until CMD succeeds; 1 after DYN_WAIT_S seconds.
dyn_until() { t_until "$DYN_WAIT_S" "$@"; }

# How many lines of FILE hold the fixed string PATTERN.
dyn_count() { local n; n=$(grep -cF -- "$2" "$1" 2>/dev/null); echo "${n:-0}"; }
dyn_has_n() { [ "$(dyn_count "$3" "$2")" -ge "$1" ]; }

# dyn_wait N PATTERN FILE "what": until PATTERN is on N lines of FILE.
dyn_wait() {
	if dyn_until dyn_has_n "$1" "$2" "$3"; then
		t_ok "$4"
	else
		t_fail "$4: '$2' not seen $1 time(s) in $3"
		echo "--- $3:" >&2
		cat "$3" >&2
		return 1
	fi
}

# dyn_open NAME: a FIFO $T_WORK/NAME held open for writing on fd 7 (so the
# reader never sees EOF until dyn_close), the prompt's input.
dyn_open() {
	DYN_IN=$T_WORK/$1
	rm -f "$DYN_IN"
	mkfifo "$DYN_IN"
	exec 7<>"$DYN_IN"
}
dyn_send() { printf '%s\n' "$*" >&7; }
dyn_close() { exec 7>&-; }

# A sanitized build's ASan runtime and options (lib.sh's t_msprof).
DYN_ASAN_LIB=$T_ASAN_LIB
DYN_ASAN_ENV=("${T_ASAN_ENV[@]}")
dyn_msprof() { t_msprof "$@"; }

# dyn_run_pipe LOG ARGS...: msprof ARGS reading the FIFO, in the background;
# DYN_PID is msprof's own pid.  dyn_run_pty: the same on a pseudo-terminal
# (pty-run; DYN_PID is pty-run's).  Neither inherits fd 7, or closing it
# would not be an EOF.
dyn_run_pipe() {
	local log=$1; shift
	(
		[ -n "$DYN_ASAN_LIB" ] && export LD_PRELOAD=$DYN_ASAN_LIB
		exec "$MSPROF" "${DYN_ASAN_ENV[@]}" "$@"
	) <"$DYN_IN" >"$log" 2>&1 7>&- &
	DYN_PID=$!
}
dyn_run_pty() {
	local log=$1; shift
	local pre=()
	[ -n "$DYN_ASAN_LIB" ] && pre=(env LD_PRELOAD="$DYN_ASAN_LIB")
	"$HELPERS/pty-run" -t 200 -- "${pre[@]}" "$MSPROF" "${DYN_ASAN_ENV[@]}" "$@" <"$DYN_IN" >"$log" 2>&1 7>&- &
	DYN_PID=$!
}

# The phased workload: idles (blocked opening a FIFO, no CPU at all) until
# told; "N" burns N ms of CPU in a child (test-burn) then appends a line to
# the mark file; "exit N" exits with N.
#   dyn_workload NAME -> $T_WORK/NAME.ctl, $T_WORK/NAME.mark, script path in WORK_SH
dyn_workload() {
	local name=$1
	rm -f "$T_WORK/$name.ctl" "$T_WORK/$name.mark"
	mkfifo "$T_WORK/$name.ctl"
	: >"$T_WORK/$name.mark"
	WORK_SH=$T_WORK/work.sh
	cat >"$WORK_SH" <<'EOF'
#!/bin/sh
ctl=$1 burn=$2 mark=$3
while :; do
	read -r cmd <"$ctl" || continue
	case $cmd in
	exit*) exit "${cmd#exit }" ;;
	*) "$burn" "$cmd" >/dev/null; echo burned >>"$mark" ;;
	esac
done
EOF
	chmod +x "$WORK_SH"
}
# dyn_outside NAME VAR: the workload NAME started by the test itself (for
# msprof to attach to), ended with the test at the latest; its pid in VAR.
dyn_outside() {
	dyn_workload "$1"
	"$WORK_SH" "$T_WORK/$1.ctl" "$HELPERS/test-burn" "$T_WORK/$1.mark" 7>&- &
	printf -v "$2" %s "$!"
	T_PIDS+=("$!")
}
# dyn_launch pipe|pty NAME LOG OUT [OPTION...]: the workload NAME started by
# msprof --dynamic=on --output=OUT [OPTION...] in the background, its prompt
# reading the FIFO $T_WORK/in-NAME (dyn_send), its output in LOG.
dyn_launch() {
	local how=$1 name=$2 log=$3 out=$4
	shift 4
	dyn_workload "$name"
	dyn_open "in-$name"
	"dyn_run_$how" "$log" --dynamic=on --output="$out" "$@" \
		"$WORK_SH" "$T_WORK/$name.ctl" "$HELPERS/test-burn" "$T_WORK/$name.mark"
}

# dyn_burst NAME MS N: tell the workload to burn MS ms, wait for its Nth mark.
dyn_burst() {
	echo "$2" >"$T_WORK/$1.ctl"
	dyn_until dyn_has_n "$3" burned "$T_WORK/$1.mark"
}
dyn_tell() { echo "$2" >"$T_WORK/$1.ctl"; }

# The two windows the dynamic tests open at the prompt, msprof's replies
# checked.  dyn_idle_window LOG OUT: window 1 over the idle workload, with
# host samples in OUT, then stopped.  dyn_burst_window NAME LOG: window 2
# opened and workload NAME bursting inside it (left open).
dyn_idle_window() {
	dyn_send start
	dyn_wait 1 "dynamic profiling start success......" "$1" "start: msprof's reply"
	dyn_until dyn_has_samples "$2" 3000 || t_fail "no samples in the idle window"
	dyn_send stop
	dyn_wait 1 "dynamic profiling stop success......" "$1" "stop: msprof's reply"
}
dyn_burst_window() {
	dyn_send start
	dyn_wait 2 "dynamic profiling start success......" "$2" "second start"
	if dyn_burst "$1" 600 1; then t_ok "$1 burst inside window 2"; else t_fail "$1 did not burst"; fi
}

# The PROF dirs under a parent, oldest first (their names sort by time).
dyn_prof_dirs() {
	local d
	for d in "$1"/PROF_*; do
		[ -d "$d" ] && echo "$(basename "$d" | cut -d_ -f3) $d"
	done | sort | cut -d' ' -f2-
}

# The newest PROF dir under a parent has at least BYTES of host CPU samples.
dyn_has_samples() {
	local d f
	d=$(dyn_prof_dirs "$1" | tail -n1)
	[ -n "$d" ] || return 1
	f=$(ls "$d"/host/data/host_cpu.data.slice_* 2>/dev/null | head -n1)
	[ -n "$f" ] && [ "$(stat -c %s "$f")" -gt "$2" ]
}

# Every PROF dir under a parent has at least BYTES of host CPU samples.
dyn_all_have_samples() {
	local d f n=0
	while read -r d; do
		f=$(ls "$d"/host/data/host_cpu.data.slice_* 2>/dev/null | head -n1)
		[ -n "$f" ] && [ "$(stat -c %s "$f")" -gt "$2" ] || return 1
		n=$((n + 1))
	done < <(dyn_prof_dirs "$1")
	[ "$n" -gt 0 ]
}

# The bytes of a PROF dir's raw files (host/data, device_N/data slices).
dyn_raw_bytes() {
	find "$1" -path "$1/host/data/*" -name '*.slice_*' -type f -printf '%s\n' -o \
		-path "$1/device_*/data/*" -name '*.slice_*' -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}

dyn_db() { ls "$1"/msprof_*.db 2>/dev/null | head -n1; }

# dyn_check_window DIR "what": exported, and every sample lies inside the
# window (SESSION_TIME_INFO, from start_info and end_info).
dyn_check_window() {
	local db outside n
	db=$(dyn_db "$1")
	if [ -z "$db" ]; then t_fail "$2: no database in $1"; return 1; fi
	t_check "$2: end_info written" test -s "$1/host/end_info"
	t_check "$2: timeline exported" sh -c "ls '$1/mindstudio_profiler_output' | grep -Eq '^msprof_[0-9]{14}\.json$'"
	n=$(t_sql "$db" "SELECT count(*) FROM TARGET_THREAD_CPU_USAGE")
	if [ "${n:-0}" -gt 0 ]; then t_ok "$2: $n thread CPU samples"; else t_fail "$2: no thread CPU samples"; fi
	outside=$(t_sql "$db" "SELECT count(*) FROM TARGET_THREAD_CPU_USAGE, SESSION_TIME_INFO
		WHERE timestampNs < startTimeNs OR timestampNs > endTimeNs")
	if [ "$outside" = 0 ]; then t_ok "$2: every sample inside its window"; else t_fail "$2: $outside samples outside the window"; fi
}

# Largest per-thread CPU use (% of one CPU) in a window, as an integer.
dyn_max_cpu() { t_sql "$(dyn_db "$1")" "SELECT CAST(COALESCE(max(usage), 0) AS INTEGER) FROM TARGET_THREAD_CPU_USAGE"; }
# Processes of a given name seen in a window.
dyn_procs() {
	t_sql "$(dyn_db "$1")" "SELECT count(*) FROM PROCESS_INFO p JOIN STRING_IDS s ON p.name = s.id WHERE s.value = '$2'"
}
dyn_window_start() { t_sql "$(dyn_db "$1")" "SELECT startTimeNs FROM SESSION_TIME_INFO"; }
dyn_window_end() { t_sql "$(dyn_db "$1")" "SELECT endTimeNs FROM SESSION_TIME_INFO"; }
# The "pid" of host/info.json.
dyn_info_pid() { sed -n 's/.*"pid":"\{0,1\}\([0-9]*\).*/\1/p' "$1/host/info.json"; }
