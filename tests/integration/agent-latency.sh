#!/bin/bash
# How fast the agent switches on and off: test-mstx-workload (agent
# preloaded) marks "spin" every ~5 µs on one thread while its main thread
# runs five sessions on itself through msprofd, 200 ms each, noting
# CLOCK_REALTIME when it sent session_start / session_stop.  The export gives
# the first and last recorded mark of each session, so
#   on  = first mark - session_start sent
#   off = last mark  - session_stop sent
# measure the whole path (request, daemon, agent_start, the agent's state
# flip), to within the 5 µs between marks.  msprofd logs its own view (the
# request's arrival to agent_started / agent_stop to agent_stopped).  The
# figures are printed, not asserted (tests never assert a wall-clock time);
# what is asserted is their order: no mark before the request, none after
# the stop reply, and every mark the agent counted in the database.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
RUN=$MSPROF_RUNTIME_DIR
N=5

t_expect_rc 0 "msprofd starts" "$MSPROFD" --idle-timeout=0
dirs=()
for i in $(seq 1 $N); do dirs+=("$(w_prof "$i")"); done
MSPROFD=$MSPROFD LD_PRELOAD=$W_PRELOAD "$WORKLOAD" latency "${dirs[@]}" >"$T_WORK/times" 2>"$T_WORK/err"
t_check "the workload ran $N sessions" test "$(wc -l <"$T_WORK/times")" -eq $N

i=0
ons=() offs=()
while read -r start_sent start_reply stop_sent stop_reply; do
	p=${dirs[$i]}
	i=$((i + 1))
	w_export "$p" >/dev/null
	read -r n first last counted <<<"$(t_sql "$DB" "SELECT COUNT(*), MIN(m.startNs), MAX(m.startNs),
		(SELECT SUM(events) FROM AGENT_COUNTERS) FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message
		WHERE s.value = 'spin'" | tr '|' ' ')"
	if [ "${n:-0}" -gt 0 ] && [ "$n" = "$counted" ]; then t_ok "session $i: $n marks, all the agent counted"; else t_fail "session $i: $n marks, agent counted $counted"; fi
	if [ "$first" -gt "$start_sent" ] && [ "$last" -lt "$stop_reply" ]; then
		t_ok "session $i: marks lie between session_start sent and session_stopped received"
	else
		t_fail "session $i: first $first last $last, start sent $start_sent, stop reply $stop_reply"
	fi
	on=$(awk -v a="$first" -v b="$start_sent" 'BEGIN { printf "%.3f", (a - b) / 1e6 }')
	off=$(awk -v a="$last" -v b="$stop_sent" 'BEGIN { printf "%.3f", (a - b) / 1e6 }')
	ons+=("$on")
	offs+=("$off")
	echo "# session $i: on $on ms after session_start was sent, off $off ms after session_stop was sent"
done <"$T_WORK/times"

echo "# switch-on (first mark - request sent), ms: ${ons[*]}"
echo "# switch-off (last mark - request sent), ms: ${offs[*]}"
awk -v on="${ons[*]}" -v off="${offs[*]}" 'BEGIN {
	n = split(on, a, " "); split(off, b, " "); mo = 0; mf = -1e9
	for (i = 1; i <= n; i++) { if (a[i] > mo) mo = a[i]; if (b[i] > mf) mf = b[i] }
	printf "# worst of %d: on %.3f ms, off %.3f ms (target: 10 ms)\n", n, mo, mf }'
echo "# msprofd's view:"
grep -E 'agent of pid [0-9]+ (started|stopped)' "$RUN/msprofd.log" | sed -E 's/^.*msprofd\[[0-9]+\]: /#   /'
t_done
