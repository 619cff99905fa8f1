# Shared by agent-crowd.sh and agent-storm.sh: N annotated processes
# (test-mstx-procs, each marking "proc i" once) profiled by msprof at once,
# and what became of each.  Sourced after lib.sh.
APP="$HELPERS/test-mstx-procs"
[ -x "$APP" ] || t_skip "test-mstx-procs not built"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read info.json"
N=300

# crowd_run W: profile the app under msprof into W; its "pid i" lines (the
# ground truth) in W.pids, msprof's other lines in W.log, the "pid i" of
# each "proc i" mark exported in W.marks, the PROF dir in $dir
crowd_run() {
	local w=$1
	t_msprof --output="$w" --msproftx=on "$APP" $N >"$w.out" 2>&1
	t_eq "$(basename "$w"): msprof exits 0" "$?" 0 || cat "$w.out" >&2
	grep -E '^[0-9]+ [0-9]+$' "$w.out" | sort >"$w.pids"
	grep -vE '^[0-9]+ [0-9]+$' "$w.out" >"$w.log"
	t_eq "$(basename "$w"): the app started $N processes" "$(wc -l <"$w.pids")" $N
	dir=$(t_prof_dir "$w")
	t_sql "$(ls "$dir"/msprof_*.db)" "SELECT (m.globalTid >> 32) || ' ' || substr(s.value, 6)
		FROM MSTX_EVENTS m JOIN STRING_IDS s ON m.message = s.id WHERE s.value LIKE 'proc %'" |
		sort >"$w.marks"
}

# crowd_named W: the pids msprof's warning named as turned away in W.named,
# as "pid i" lines of the app's in W.named.pids
crowd_named() {
	local w=$1
	sed -nE 's/.*turned away ([0-9]+) process\(es\).*not recorded: (.*)/\2/p' "$w.log" |
		tr ',' '\n' | sed -nE 's/^ *([0-9]+) \(.*/\1/p' | sort >"$w.named"
	join "$w.pids" "$w.named" >"$w.named.pids"
}
