#!/bin/bash
# 300 annotated processes connecting at once to an msprofd with tiny limits
# (2 agents, 1 client: 3 connections may wait for their hello to be read).
# msprofd turns most connections away unheard ("no_hello", try again) and
# most agents away at its agent limit; every process the app started must
# still be either exported (its mark in the database) or named by msprof
# as turned away, never both and never neither.  An agent whose hello
# msprofd closed before it was sent (EPIPE) used to give up without a word:
# 5 to 16 of 300 processes per run were neither.  Three rounds, since the
# race is one of timing.
. "$SRCDIR/tests/integration/lib.sh"
APP="$HELPERS/test-mstx-procs"
[ -x "$APP" ] || t_skip "test-mstx-procs not built"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read info.json"
N=300
ROUNDS=${MSPROF_TEST_STORM_ROUNDS:-3}
export MSPROFD_MAX_AGENTS=2 MSPROFD_MAX_CLIENTS=1

for r in $(seq "$ROUNDS"); do
	w="$T_WORK/r$r"
	t_msprof --output="$w" --msproftx=on "$APP" $N >"$w.out" 2>&1
	t_eq "round $r: msprof exits 0" "$?" 0 || cat "$w.out" >&2
	# the ground truth: the app's "pid i" lines
	grep -E '^[0-9]+ [0-9]+$' "$w.out" | sort >"$w.pids"
	grep -vE '^[0-9]+ [0-9]+$' "$w.out" >"$w.log"
	t_eq "round $r: the app started $N processes" "$(wc -l <"$w.pids")" $N
	dir=$(t_prof_dir "$w")
	# "pid i" of each "proc i" mark exported
	t_sql "$(ls "$dir"/msprof_*.db)" "SELECT (m.globalTid >> 32) || ' ' || substr(s.value, 6)
		FROM MSTX_EVENTS m JOIN STRING_IDS s ON m.message = s.id WHERE s.value LIKE 'proc %'" |
		sort >"$w.marks"
	# "pid i" of each process msprof named as turned away
	sed -nE 's/.*turned away ([0-9]+) process\(es\).*not recorded: (.*)/\2/p' "$w.log" |
		tr ',' '\n' | sed -nE 's/^ *([0-9]+) \(.*/\1/p' | sort >"$w.named"
	join "$w.pids" "$w.named" >"$w.named.pids"
	sort -m "$w.marks" "$w.named.pids" | sort -u >"$w.accounted"
	comm -23 "$w.pids" "$w.accounted" >"$w.missing"
	n_marks=$(wc -l <"$w.marks")
	n_named=$(wc -l <"$w.named.pids")
	if [ -s "$w.missing" ]; then
		t_fail "round $r: $(wc -l <"$w.missing") of $N processes neither exported nor named" \
			"($n_marks exported, $n_named named), e.g. pid $(head -1 "$w.missing" | cut -d' ' -f1)"
	else
		t_ok "round $r: each of $N processes is exported ($n_marks) or named ($n_named)"
	fi
	t_eq "round $r: ... never both" "$(sort "$w.marks" "$w.named.pids" | uniq -d | wc -l)" 0
	t_eq "round $r: ... and msprof names no other pid" "$(wc -l <"$w.named")" "$n_named"
	total=$(sed -nE 's/.*turned away ([0-9]+) process\(es\).*/\1/p' "$w.log" | head -1)
	t_eq "round $r: msprof's count is the pids it names" "${total:-0}" "$n_named"
	info=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1])).get("agentsRefused", {"count": 0})
print(a["count"])' "$dir/host/info.json")
	t_eq "round $r: info.json counts them as msprof did" "$info" "${total:-0}"
	t_grep "round $r: the export's report counts them" \
		"agent: ${total:-0} process(es) turned away by msprofd at its agent limit" "$w.log"
	t_stop_daemon
done
t_done
