# Launch mode end to end: the job runs as it would without msprof (argv,
# environment, working directory, terminal, exit status) and leaves msprof's
# layout behind.
. "$SRCDIR/tests/integration/lib.sh"

W=$T_WORK

# --- the whole journey, every host switch -----------------------------------
"$MSPROF" --output="$W/out" --host-sys=cpu,mem,disk,network --host-sys-usage=cpu,mem \
	"$HELPERS/test-burn" 400 >"$W/log" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "burn job under msprof"; else t_fail "msprof exit $rc"; cat "$W/log" >&2; fi
t_grep "progress line" "Start profiling" "$W/log"
t_grep "burn output reached the terminal" "cpu_ns=" "$W/log"
t_grep "where the data is" "Data is saved in $W/out" "$W/log"
P=$(t_prof_dir "$W/out") || t_done
name=$(basename "$P")
if echo "$name" | grep -Eq '^PROF_[0-9]{6}_[0-9]{17}_[0-9]{8}[A-R]{8}$'; then t_ok "PROF dir name $name"; else t_fail "PROF dir name $name"; fi
for f in host/info.json host/start_info host/end_info host/sample.json; do
	t_check "$f exists" test -s "$P/$f"
done
for s in host_cpu host_mem host_disk host_network host_usage_cpu host_usage_mem; do
	t_check "raw $s slice" test -s "$P/host/data/$s.data.slice_0"
done
db=$(ls "$P"/msprof_*.db 2>/dev/null | head -n1)
t_check "msprof_{ts}.db" sh -c "basename '$db' | grep -Eq '^msprof_[0-9]{14}\.db$'"
O="$P/mindstudio_profiler_output"
t_check "timeline json" sh -c "ls '$O' | grep -Eq '^msprof_[0-9]{14}\.json$'"
t_check "README.txt" test -s "$O/README.txt"
for c in host_cpu_usage host_mem_usage host_disk_usage host_network_usage cpu_usage sys_mem process_cpu_usage process_mem; do
	t_check "$c csv" sh -c "ls '$O' | grep -Eq '^${c}_[0-9]{14}\.csv$'"
done
t_check "no temporary files left" sh -c "! find '$P' -name '*.tmp*' | grep -q ."

# --- only the CSVs the switches ask for --------------------------------------
"$MSPROF" --output="$W/cpuonly" --host-sys=cpu "$HELPERS/test-burn" 200 >"$W/log2" 2>&1
P2=$(t_prof_dir "$W/cpuonly") || t_done
t_check "cpu switch gives host_cpu_usage" sh -c "ls '$P2/mindstudio_profiler_output' | grep -q '^host_cpu_usage_'"
t_check "no mem csv without mem switch" sh -c "! ls '$P2/mindstudio_profiler_output' | grep -q '^host_mem_usage_'"
t_check "no usage csv without --host-sys-usage" sh -c "! ls '$P2/mindstudio_profiler_output' | grep -q '^cpu_usage_'"

# --- the job's own argv, environment, cwd ------------------------------------
mkdir -p "$W/cwd"
(cd "$W/cwd" && MSPROF_TEST_VAR="from env" "$MSPROF" --output="$W/o3" --host-sys=cpu \
	--environment="EXTRA_A=1;EXTRA_B=two" \
	/bin/sh -c 'printf "argv=[%s][%s]\n" "$1" "$2"; echo "pwd=$(pwd)"; echo "var=$MSPROF_TEST_VAR"; echo "extra=$EXTRA_A,$EXTRA_B"' \
	sh "a b" '--output=x') >"$W/log3" 2>&1
t_grep "argv passed intact (including --options after the app)" "argv=[a b][--output=x]" "$W/log3"
t_grep "working directory kept" "pwd=$W/cwd" "$W/log3"
t_grep "environment inherited" "var=from env" "$W/log3"
t_grep "--environment pairs added" "extra=1,two" "$W/log3"

# --- exit status -------------------------------------------------------------
"$MSPROF" --output="$W/o4" --host-sys=cpu /bin/sh -c 'exit 7' >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 7 ]; then t_ok "exit 7 passed through"; else t_fail "exit status $rc, want 7"; fi
"$MSPROF" --output="$W/o5" --host-sys=cpu /bin/sh -c 'kill -TERM $$' >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 143 ]; then t_ok "death by SIGTERM gives 128+15"; else t_fail "exit status $rc, want 143"; fi

# --- the older --application form ----------------------------------------------
"$MSPROF" --output="$W/o6" --host-sys=cpu --application="$HELPERS/test-burn 100" >"$W/log6" 2>&1; rc=$?
if [ "$rc" -eq 0 ]; then t_ok "--application form runs"; else t_fail "--application exit $rc"; cat "$W/log6" >&2; fi
t_grep "--application args split" "cpu_ns=" "$W/log6"

# --- --type=db: only the database ------------------------------------------------
"$MSPROF" --output="$W/o7" --type=db --host-sys=cpu,mem "$HELPERS/test-burn" 200 >"$W/log7" 2>&1
P7=$(t_prof_dir "$W/o7") || t_done
t_check "--type=db writes the db" sh -c "ls '$P7' | grep -Eq '^msprof_[0-9]{14}\.db$'"
t_check "--type=db writes no mindstudio_profiler_output" test ! -e "$P7/mindstudio_profiler_output"

# --- the job keeps msprof's terminal ------------------------------------------------
if command -v script >/dev/null 2>&1; then
	script -qec "'$MSPROF' --output='$W/o8' --host-sys=cpu /bin/sh -c 'test -t 0 && test -t 1 && echo job-has-a-tty'" /dev/null >"$W/log8" 2>&1 </dev/null
	t_grep "job runs on msprof's terminal" "job-has-a-tty" "$W/log8"
else
	echo "# script(1) missing: terminal check not run"
fi

t_done
