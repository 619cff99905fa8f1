# Faults lose nothing that was written: the job crashing, the launcher
# killed with SIGKILL, the daemon killed mid-run.
. "$SRCDIR/tests/integration/lib.sh"

W=$T_WORK

# Sampling has written something in the PROF dir under a parent.
has_samples() {
	local f
	f=$(ls "$1"/PROF_*/host/data/host_cpu.data.slice_0 2>/dev/null | head -n1)
	[ -n "$f" ] && [ "$(stat -c %s "$f")" -gt 2000 ]
}

rows() { t_sql "$1" "SELECT count(*) FROM $2" 2>/dev/null || echo 0; }

# check_exported WHAT PROF: the timeline and CPU_USAGE rows are there.
check_exported() {
	local db n
	t_check "$1: timeline exported" sh -c "ls '$2/mindstudio_profiler_output' | grep -Eq '^msprof_[0-9]{14}\.json$'"
	db=$(ls "$2"/msprof_*.db | head -n1)
	n=$(rows "$db" CPU_USAGE)
	if [ "$n" -gt 0 ]; then t_ok "$1: $n CPU_USAGE rows"; else t_fail "$1: no CPU_USAGE rows"; fi
}

# --- the job dies of SIGSEGV: full export, exit 128+11 ------------------------
"$MSPROF" --output="$W/segv" --host-sys=cpu,mem "$HELPERS/test-crasher" 600 >"$W/log1" 2>&1; rc=$?
if [ "$rc" -eq 139 ]; then t_ok "SIGSEGV job gives exit 139"; else t_fail "exit $rc, want 139"; cat "$W/log1" >&2; fi
# how the job ended, said before the closing lines
t_grep "how the job ended is said" "[WARNING] The application was killed by signal SIGSEGV (Segmentation fault)" \
	"$W/log1"
t_eq "said before the closing lines" "$(grep -n -e 'The application' -e 'Profiling finished' "$W/log1" |
	cut -d: -f2- | cut -c1-28 | tr '\n' '|')" "[WARNING] The application wa|[INFO] Profiling finished.|"
P=$(t_prof_dir "$W/segv") || t_done
t_check "end_info written after a crash" test -s "$P/host/end_info"
check_exported "after a crash" "$P"

# --- a job that exits 3, and one that succeeds: each said, the status kept --------
"$MSPROF" --output="$W/ex3" sh -c 'exit 3' >"$W/log1b" 2>&1; rc=$?
t_eq "a job exiting 3: msprof exits 3" "$rc" 3
t_grep "a job exiting 3: said" "[WARNING] The application exited with status 3." "$W/log1b"
"$MSPROF" --output="$W/ex0" true >"$W/log1c" 2>&1; rc=$?
t_eq "a job exiting 0: msprof exits 0" "$rc" 0
t_grep "a job exiting 0: said" "[INFO] The application exited with status 0." "$W/log1c"

# --- the launcher is SIGKILLed: the PROF dir can still be exported ------------
"$MSPROF" --output="$W/kill" --host-sys=cpu,mem "$HELPERS/test-burn" 1500 >"$W/log2" 2>&1 &
launcher=$!
# Wait for sampling to have written something, then kill the launcher hard.
t_until 10 has_samples "$W/kill"
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
# The job itself runs on (re-parented); let it finish.
burn_gone() { ! pgrep -f "test-burn 1500" >/dev/null; }
t_until 10 burn_gone
P=$(t_prof_dir "$W/kill") || t_done
t_check "no export was made by the killed launcher" test ! -e "$P/mindstudio_profiler_output"
"$MSPROF" --export=on --output="$P" >"$W/log3" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "export of a killed launcher's PROF dir"; else t_fail "export exit $rc"; cat "$W/log3" >&2; fi
check_exported "the killed run" "$P"

# --- the daemon is killed mid-run: reported, the job runs on unharmed ---------
"$MSPROF" --output="$W/dkill" --host-sys=cpu,mem "$HELPERS/test-burn" 1500 >"$W/log4" 2>&1 &
launcher=$!
t_until 10 has_samples "$W/dkill"
dpid=$(cat "$MSPROF_RUNTIME_DIR/msprofd.pid" 2>/dev/null)
if [ -n "$dpid" ]; then kill -KILL "$dpid"; else t_fail "no daemon pid file"; fi
wait "$launcher"; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "job finished normally after the daemon died"; else t_fail "exit $rc after daemon death"; fi
t_grep "job completed its work" "cpu_ns=" "$W/log4"
t_grep "daemon loss reported" "msprofd" "$W/log4"
P=$(t_prof_dir "$W/dkill") || t_done
db=$(ls "$P"/msprof_*.db 2>/dev/null | head -n1)
if [ -n "$db" ] && [ "$(rows "$db" CPU_USAGE)" -gt 0 ]; then
	t_ok "samples written before the daemon died were exported"
else
	t_fail "nothing exported after the daemon died"
	cat "$W/log4" >&2
fi

# A later run starts a fresh daemon and works.
"$MSPROF" --output="$W/after" --host-sys=cpu "$HELPERS/test-burn" 100 >"$W/log5" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "a new daemon serves the next run"; else t_fail "next run exit $rc"; cat "$W/log5" >&2; fi

# --- the export fails (the job put a file where its output folder goes) --------
# no success line, the raw data kept and the command to retry it said, exit
# non-zero; the job's own status where it failed too; the retry works
mkdir -p "$W/xfail"
"$MSPROF" --output="$W/xfail" --host-sys=cpu bash -c \
	'touch "$(ls -d "$0"/PROF_*)/mindstudio_profiler_output"; exit "$1"' "$W/xfail" 0 >"$W/log6" 2>&1; rc=$?
if [ "$rc" -eq 1 ]; then t_ok "a failed export after a job that succeeded: exit 1"; else t_fail "exit $rc, want 1"; cat "$W/log6" >&2; fi
P=$(t_prof_dir "$W/xfail") || t_done
t_grep "the export's failure is said" "cannot export '$(basename "$P")'" "$W/log6"
t_grep "where the raw data is and how to retry" "The raw data is kept in $P; once the cause is fixed, export it again with: msprof --export=on --output=$P" "$W/log6"
t_grep "profiling is said to have finished with a failed export" "Profiling finished, but the export of 1 of 1 PROF dir(s) failed" "$W/log6"
if grep -qE "Data is saved|^\[INFO\] Profiling finished\.$" "$W/log6"; then
	t_fail "success is claimed after a failed export"; cat "$W/log6" >&2
else
	t_ok "no success line after a failed export"
fi
rm -rf "$W/xfail2" && mkdir -p "$W/xfail2"
"$MSPROF" --output="$W/xfail2" --host-sys=cpu bash -c \
	'touch "$(ls -d "$0"/PROF_*)/mindstudio_profiler_output"; exit "$1"' "$W/xfail2" 3 >"$W/log7" 2>&1; rc=$?
if [ "$rc" -eq 3 ]; then t_ok "a failed export after a job that failed: the job's exit 3"; else
	t_fail "exit $rc, want 3"; cat "$W/log7" >&2; fi
rm -f "$P/mindstudio_profiler_output"
"$MSPROF" --export=on --output="$P" >"$W/log8" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && [ -f "$P/mindstudio_profiler_output/README.txt" ] && ls "$P"/msprof_*.db >/dev/null 2>&1; then
	t_ok "the retry the message names exports it"
else
	t_fail "the retry failed: exit $rc"; cat "$W/log8" >&2
fi

t_done
