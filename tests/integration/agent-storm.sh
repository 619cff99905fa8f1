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
. "$SRCDIR/tests/integration/crowd-lib.sh"
ROUNDS=${MSPROF_TEST_STORM_ROUNDS:-3}
export MSPROFD_MAX_AGENTS=2 MSPROFD_MAX_CLIENTS=1

for r in $(seq "$ROUNDS"); do
	w="$T_WORK/r$r"
	crowd_run "$w"
	crowd_named "$w"
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
