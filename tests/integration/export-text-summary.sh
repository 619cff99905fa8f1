# The text summary after an export: its numbers agree with the database of
# the same export (steps count/mean/p50/p99/slowest, top ranges
# count/total/mean/max, losses), it fits a screen (at most 40 lines of at
# most 120 columns), --summary=off leaves it out, and `msprof export
# summary -dir P --format=text` prints the same block and writes nothing.
. "$SRCDIR/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the database"
[ -x "$HELPERS/gen-raw" ] || t_skip "gen-raw was not built"
mkdir -p "$T_WORK/p"
P=$T_WORK/p/PROF_000001_20260101000000000_00004242AAAAAAAA
"$HELPERS/gen-raw" --ranges "$P" 20000 10 >/dev/null || t_fail "gen-raw"

"$MSPROF" --export=on --output="$P" >"$T_WORK/on.log" 2>&1 || t_fail "--export=on"
# the block: from "Summary of" up to the closing lines
sed -n '/^Summary of /,/^\[INFO\] Profiling finished\./p' "$T_WORK/on.log" | sed '$d' >"$T_WORK/block"
t_grep "the summary is printed after the export lines" "Summary of $(basename "$P")" "$T_WORK/block"
t_eq "the export lines, the summary, then msprof's closing lines" \
	"$(grep -n 'Export all data in\|^Summary of\|Profiling finished' "$T_WORK/on.log" | cut -d: -f2 | cut -c1-20 | tr '\n' '|')" \
	"[INFO] Export all da|Summary of PROF_0000|[INFO] Profiling fin|"
t_eq "it fits a screen" "$(awk 'length($0) > 120 { w++ } END { print NR <= 40, w + 0 }' "$T_WORK/block")" "1 0"

DB=$(ls "$P"/msprof_*.db)
t_eq "its numbers are the database's" "$(python3 - "$DB" "$T_WORK/block" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
text = open(sys.argv[2]).read()
out = []
# steps: nearest-rank percentiles, as the summary says
d = [r[0] for r in db.execute("SELECT endNs - startNs FROM STEP ORDER BY startNs, pid, stepId")]
rows = db.execute("SELECT stepId, pid, endNs - startNs FROM STEP ORDER BY startNs, pid, stepId").fetchall()
s = sorted(d)
n = len(s)
pr = lambda p: s[max((n * p + 99) // 100, 1) - 1] / 1e6
slow = max(rows, key=lambda r: r[2])  # the first of equals, as the summary takes it
want = "Steps      %d in 1 process(es): mean %.3f ms, p50 %.3f ms, p99 %.3f ms" % (n, sum(d) / n / 1e6, pr(50), pr(99))
out.append("steps " + str(want in text))
want = "slowest: step %d (pid %d) %.3f ms; fastest %.3f ms" % (slow[0], slow[1], slow[2] / 1e6, s[0] / 1e6)
out.append("slowest " + str(want in text))
# top ranges: every line shown against a GROUP BY of the ranges
g = {r[0]: r[1:] for r in db.execute(
    "SELECT s.value, count(*), sum(endNs - startNs), max(endNs - startNs) FROM MSTX_EVENTS m "
    "JOIN STRING_IDS s ON s.id = m.message WHERE eventType IN (1, 2) AND endNs >= startNs GROUP BY m.message, m.domainId")}
shown = re.findall(r"^  (\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", text, re.M)
ok = len(shown) > 0
for name, cnt, tot, mean, mx in shown:
    c, t, m = g[name]
    ok &= (int(cnt), tot, mean, mx) == (c, "%.3f" % (t / 1e6), "%.3f" % (t / c / 1e6), "%.3f" % (m / 1e6))
# the largest totals, none missing above the last shown
tops = sorted((v[1] for k, v in g.items() if not re.match(r"(?i)^step \d+$", k)), reverse=True)
ok &= "%.3f" % (tops[len(shown) - 1] / 1e6) == shown[-1][2]
out.append("ranges " + str(ok))
lost = db.execute("SELECT total(dropped) + total(badCalls) + total(openAtEnd) FROM AGENT_COUNTERS").fetchone()[0] or 0
out.append("losses " + str((lost == 0) == ("Losses     none" in text)))
print(" ".join(out))
PY
)" "steps True slowest True ranges True losses True"

"$MSPROF" export summary -dir "$P" --format=text >"$T_WORK/text" 2>&1 || t_fail "export summary --format=text"
t_eq "export summary --format=text prints the same block" "$(diff "$T_WORK/block" "$T_WORK/text" && echo same)" same
before=$(ls -l --time-style=+%s.%N "$P/mindstudio_profiler_output" | md5sum)
"$MSPROF" export summary -dir "$P" --format=text >/dev/null 2>&1
t_eq "and writes nothing" "$(ls -l --time-style=+%s.%N "$P/mindstudio_profiler_output" | md5sum)" "$before"
t_expect_rc 2 "--format=text with a step selection is refused" "$MSPROF" export summary -dir "$P" --format=text \
	--model-id 4294967295 --iteration-id 1

"$MSPROF" --export=on --output="$P" --summary=off >"$T_WORK/off.log" 2>&1 || t_fail "--summary=off"
t_eq "--summary=off: no summary" "$(grep -c '^Summary of\|^Steps ' "$T_WORK/off.log")" 0
t_grep "--summary=off: msprof's lines stay" "Process profiling data complete" "$T_WORK/off.log"
t_expect_rc 1 "--summary=maybe is refused" "$MSPROF" --export=on --output="$P" --summary=maybe
t_done
