# Faults lose nothing that was written: the job crashing, the launcher
# killed with SIGKILL, the daemon killed mid-run.
. "$SRCDIR/tests/integration/lib.sh"

W=$T_WORK

# Wait (bounded) until a file exists and is non-empty.
wait_for_file() { # path timeout_s
	local i=0
	while [ $i -lt $(($2 * 20)) ]; do
		[ -s "$1" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

rows() { t_sql "$1" "SELECT count(*) FROM $2" 2>/dev/null || echo 0; }

# --- the job dies of SIGSEGV: full export, exit 128+11 ------------------------
"$MSPROF" --output="$W/segv" --host-sys=cpu,mem "$HELPERS/test-crasher" 600 >"$W/log1" 2>&1; rc=$?
if [ "$rc" -eq 139 ]; then t_ok "SIGSEGV job gives exit 139"; else t_fail "exit $rc, want 139"; cat "$W/log1" >&2; fi
P=$(t_prof_dir "$W/segv") || t_done
t_check "end_info written after a crash" test -s "$P/host/end_info"
t_check "timeline exported after a crash" sh -c "ls '$P/mindstudio_profiler_output' | grep -Eq '^msprof_[0-9]{14}\.json$'"
db=$(ls "$P"/msprof_*.db | head -n1)
n=$(rows "$db" CPU_USAGE)
if [ "$n" -gt 0 ]; then t_ok "crash run has $n CPU_USAGE rows"; else t_fail "no CPU_USAGE rows after a crash"; fi

# --- the launcher is SIGKILLed: the PROF dir can still be exported ------------
"$MSPROF" --output="$W/kill" --host-sys=cpu,mem "$HELPERS/test-burn" 1500 >"$W/log2" 2>&1 &
launcher=$!
# Wait for sampling to have written something, then kill the launcher hard.
for i in $(seq 1 200); do
	f=$(ls "$W"/kill/PROF_*/host/data/host_cpu.data.slice_0 2>/dev/null | head -n1)
	[ -n "$f" ] && [ "$(stat -c %s "$f")" -gt 2000 ] && break
	sleep 0.05
done
kill -KILL "$launcher"
wait "$launcher" 2>/dev/null
# The job itself runs on (re-parented); let it finish.
for i in $(seq 1 100); do pgrep -f "test-burn 1500" >/dev/null || break; sleep 0.1; done
P=$(t_prof_dir "$W/kill") || t_done
t_check "no export was made by the killed launcher" test ! -e "$P/mindstudio_profiler_output"
"$MSPROF" --export=on --output="$P" >"$W/log3" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "export of a killed launcher's PROF dir"; else t_fail "export exit $rc"; cat "$W/log3" >&2; fi
t_check "timeline from the killed run" sh -c "ls '$P/mindstudio_profiler_output' | grep -Eq '^msprof_[0-9]{14}\.json$'"
db=$(ls "$P"/msprof_*.db | head -n1)
n=$(rows "$db" CPU_USAGE)
if [ "$n" -gt 0 ]; then t_ok "killed run kept $n CPU_USAGE rows"; else t_fail "no CPU_USAGE rows from the killed run"; fi

# --- the daemon is killed mid-run: reported, the job runs on unharmed ---------
"$MSPROF" --output="$W/dkill" --host-sys=cpu,mem "$HELPERS/test-burn" 1500 >"$W/log4" 2>&1 &
launcher=$!
for i in $(seq 1 200); do
	f=$(ls "$W"/dkill/PROF_*/host/data/host_cpu.data.slice_0 2>/dev/null | head -n1)
	[ -n "$f" ] && [ "$(stat -c %s "$f")" -gt 2000 ] && break
	sleep 0.05
done
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
