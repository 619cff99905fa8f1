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
P=$(t_prof_dir "$W/segv") || t_done
t_check "end_info written after a crash" test -s "$P/host/end_info"
check_exported "after a crash" "$P"

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

t_done
