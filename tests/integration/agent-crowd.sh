#!/bin/bash
# More annotated processes than msprofd's old agent table held (256) in one
# session: 300 processes connected at once, each marking once, and every
# mark is in the export.  Past a lowered limit (MSPROFD_MAX_AGENTS=100),
# every process turned away is named -- in msprof's output, in
# host/info.json and in the export's report -- and every other one's mark
# is exported: none is lost without a word.
. "$SRCDIR/tests/integration/lib.sh"
APP="$HELPERS/test-mstx-procs"
[ -x "$APP" ] || t_skip "test-mstx-procs not built"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read info.json"
N=300

# run NAME: profile the app under msprof; its "pid i" lines in NAME.pids,
# msprof's other lines in NAME.log, the PROF dir in $dir
run() {
	t_msprof --output="$T_WORK/$1" --msproftx=on "$APP" $N >"$T_WORK/$1.out" 2>&1
	t_eq "$1: msprof exits 0" "$?" 0 || cat "$T_WORK/$1.out" >&2
	grep -E '^[0-9]+ [0-9]+$' "$T_WORK/$1.out" | sort >"$T_WORK/$1.pids"
	grep -vE '^[0-9]+ [0-9]+$' "$T_WORK/$1.out" >"$T_WORK/$1.log"
	t_eq "$1: the app started $N processes" "$(wc -l <"$T_WORK/$1.pids")" $N
	dir=$(t_prof_dir "$T_WORK/$1")
	# "pid i" of each "proc i" mark exported
	t_sql "$(ls "$dir"/msprof_*.db)" "SELECT (m.globalTid >> 32) || ' ' || substr(s.value, 6)
		FROM MSTX_EVENTS m JOIN STRING_IDS s ON m.message = s.id WHERE s.value LIKE 'proc %'" |
		sort >"$T_WORK/$1.marks"
}

run all
t_check "all $N processes' marks are exported, each by its own process" cmp "$T_WORK/all.pids" "$T_WORK/all.marks"
t_check "nothing is turned away" bash -c "! grep -q 'turned away' '$T_WORK/all.log'"

t_stop_daemon
export MSPROFD_MAX_AGENTS=100
run limited
unset MSPROFD_MAX_AGENTS
# the processes msprof named, from its warning, as "pid i" lines
sed -nE 's/.*turned away ([0-9]+) process\(es\).*not recorded: (.*)/\2/p' "$T_WORK/limited.log" |
	tr ',' '\n' | sed -nE 's/^ *([0-9]+) \(.*/\1/p' | sort >"$T_WORK/named"
join "$T_WORK/limited.pids" "$T_WORK/named" >"$T_WORK/named.pids"
n_marks=$(wc -l <"$T_WORK/limited.marks")
n_named=$(wc -l <"$T_WORK/named.pids")
[ "$n_marks" -ge 1 ] && [ "$n_marks" -lt 100 ] && t_ok "under the limit: $n_marks marks exported" ||
	t_fail "marks exported under a limit of 100: $n_marks"
t_eq "every process is either exported or named by msprof" "$((n_marks + n_named))" $N
t_eq "... never both" "$(sort "$T_WORK/limited.marks" "$T_WORK/named.pids" | uniq -d | wc -l)" 0
t_check "... and each exported mark is its own process's" bash -c \
	"sort -m '$T_WORK/limited.marks' '$T_WORK/named.pids' | cmp - '$T_WORK/limited.pids'"
total=$(sed -nE 's/.*turned away ([0-9]+) process\(es\).*/\1/p' "$T_WORK/limited.log" | head -1)
t_grep "msprof says what raises the limit" "at its agent limit (MSPROFD_MAX_AGENTS raises it): their annotations are not recorded" "$T_WORK/limited.log"
info=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["agentsRefused"]
print(a["count"], " ".join(str(p["pid"]) for p in a["processes"]), sep="|")' "$dir/host/info.json")
t_eq "info.json counts them as msprof did" "${info%%|*}" "$total"
for p in $(cut -d' ' -f1 "$T_WORK/named.pids"); do
	[[ " ${info#*|} " == *" $p "* ]] || { t_fail "pid $p is not in info.json's agentsRefused"; break; }
done
t_grep "the export's report counts them" "agent: $total process(es) turned away by msprofd at its agent limit, their annotations missing: " "$T_WORK/limited.log"
first=$(sed -nE 's/.*not recorded: ([0-9]+) .*/\1/p' "$T_WORK/limited.log")
t_grep "... and names them, the first as msprof did" "their annotations missing: $first (test-mstx-pro" "$T_WORK/limited.log"
t_grep "msprofd's log names each one" "the agent of pid $first ('test-mstx-pro" "$MSPROF_RUNTIME_DIR/msprofd.log"
t_done
