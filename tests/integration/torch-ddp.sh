#!/bin/bash
# A real 2-rank PyTorch DDP job on CPU (gloo, Debian's python3-torch; the
# ranks started with env:// as torchrun starts them) whose ranks call
# mstx.torch.enable() and write no communication code of ours, and again
# with ranks that import nothing of ours (msprof's Python bootstrap,
# python/mstx/_boot, records them; tests/python/ddp-job.py): each rank's COMMUNICATION_OP holds every
# collective and point-to-point operation the rank counted itself (its
# explicit torch.distributed calls with their op, element count and type)
# and DDP's bucket allreduces (iterations x the buckets torch reports, each
# of the bucket's elements), nothing else; analyze's communication.json
# names them.  The job also runs without msprof: the same operations, exit
# 0.  Skips where torch does not import, and in the sanitized build (the
# interpreter is not sanitized).
. "$SRCDIR/tests/integration/lib.sh"
[ -n "$MSTX_PYTHON" ] || t_skip "the mstx package was not built (Python headers missing: python3-dev)"
[ -z "$T_ASAN_LIB" ] || t_skip "the sanitized build: the interpreter and PyTorch are not sanitized"
command -v sqlite3 >/dev/null 2>&1 || t_skip "sqlite3 is needed to read the database"
export PYTHONPATH="$MSTX_PYTHONPATH${PYTHONPATH:+:$PYTHONPATH}"
"$MSTX_PYTHON" -c "import torch.distributed as d; assert d.is_available()" 2>/dev/null ||
	t_skip "PyTorch with torch.distributed does not import here (Debian's python3-torch)"
JOB="$SRCDIR/tests/python/ddp-job.py"
# a free port for the ranks' rendezvous
port() { "$MSTX_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- without msprof --------------------------------------------------------------------
timeout 200 "$MSTX_PYTHON" "$JOB" "$(port)" >"$T_WORK/plain.out" 2>&1
t_eq "without msprof: the job exits 0" $? 0 || cat "$T_WORK/plain.out" >&2
t_eq "without msprof: both ranks ran their operations" "$(grep -c ' expect ' "$T_WORK/plain.out")" 12

# --- under msprof: the ranks call mstx.torch.enable(), or nothing of ours ----------------
# ("plain": msprof's bootstrap, python/mstx/_boot, records them)
under_msprof() {
	local how=$1 W="$T_WORK/$1"
	mkdir -p "$W/out"
	t_msprof --output="$W/out" --msproftx=on timeout 200 "$MSTX_PYTHON" "$JOB" "$(port)" ${2:-} >"$W/run.out" 2>&1
	t_eq "$how: exit 0" $? 0 || cat "$W/run.out" >&2
	for r in 0 1; do
		P=""
		for d in "$W"/out/PROF_*; do
			db=$(ls "$d"/msprof_*.db 2>/dev/null | head -n1)
			# (the launcher's own PROF dir has no agent process)
			[ -n "$db" ] && [ "$(t_sql "$db" "SELECT MAX(rank) FROM AGENT_PROCESS" 2>/dev/null)" = "$r" ] && P=$d
		done
		[ -n "$P" ] || { t_fail "$how, rank $r: no PROF dir of its own"; continue; }
		DB=$(ls "$P"/msprof_*.db | head -n1)
		# what the rank did: its explicit operations, then DDP's buckets
		# (torch's bucket_sizes, bytes of float32) for each iteration
		{
			grep "^rank $r expect " "$W/run.out" | awk '{ print $4, $5, $6 }'
			grep "^rank $r ddp " "$W/run.out" | while read -r _ _ _ it sizes; do
				for b in ${sizes//,/ }; do
					for _ in $(seq "$it"); do echo "hcom_allReduce_ $((b / 4)) FP32"; done
				done
			done
		} | sort >"$W/want$r"
		t_sql "$DB" "SELECT t.value, COALESCE(o.count, 0), e.name FROM COMMUNICATION_OP o
			JOIN STRING_IDS t ON t.id = o.opType JOIN ENUM_HCCL_DATA_TYPE e ON e.id = o.dataType" |
			tr '|' ' ' | sort >"$W/got$r"
		t_eq "$how, rank $r: COMMUNICATION_OP holds every operation the job counted, nothing else" \
			"$(diff "$W/want$r" "$W/got$r")" ""
		t_eq "$how, rank $r: $(wc -l <"$W/want$r") operations, DDP's among them" \
			"$(grep -c "^hcom_allReduce_ $(grep "^rank $r ddp " "$W/run.out" | awk '{ print int($5 / 4) }') " \
				"$W/got$r")" "$(grep "^rank $r ddp " "$W/run.out" | awk '{ print $4 }')"
		t_eq "$how, rank $r: the group and its global ranks" \
			"$(t_sql "$DB" "SELECT COUNT(*) || ' ' || group_concat(ranks) FROM COMMUNICATION_GROUP")" "1 0,1"
		t_eq "$how, rank $r: each operation ends after it starts, within the session" \
			"$(t_sql "$DB" "SELECT COUNT(*) FROM COMMUNICATION_OP o, SESSION_TIME_INFO s
				WHERE o.endNs < o.startNs OR o.startNs < s.startTimeNs")" 0
		# the run analyzed its export: what msprof-analyze's cluster reads
		t_grep "$how, rank $r: the run says it analyzed" "Analyze all data in $(basename "$P") done ($(wc -l <"$W/want$r") communication operation(s))" "$W/run.out"
		t_eq "$how, rank $r: analyze/communication_analyzer.db has a CommAnalyzerTime row per operation" \
			"$(t_sql "$P/analyze/communication_analyzer.db" "SELECT COUNT(*) FROM CommAnalyzerTime")" "$(wc -l <"$W/want$r")"
		t_check "$how, rank $r: and communication_matrix.json" test -s "$P/analyze/communication_matrix.json"
		rm -r "$P/analyze"
		t_msprof --analyze=on --output="$P" >"$W/an$r.log" 2>&1
		t_eq "$how, rank $r: msprof --analyze=on exits 0" $? 0 || cat "$W/an$r.log" >&2
		t_grep "$how, rank $r: communication.json names the allreduces" "hcom_allReduce_" "$P/analyze/communication.json"
		# the summary and report.html: the same operations by kind
		python3 "$SRCDIR/tests/helpers/report-data.py" "$P/mindstudio_profiler_output/report.html" >"$W/data$r.json"
		t_eq "$how, rank $r: report.html's communication, by kind, is the job's" \
			"$(python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["communication"]
print(c["ops"], " ".join(sorted("%s:%d" % (t["type"], t["count"]) for t in c["top"])))' "$W/data$r.json")" \
			"$(wc -l <"$W/want$r") $(awk '{ print $1 }' "$W/want$r" | sort | uniq -c | awk '{ printf "%s%s:%d", (NR > 1 ? " " : ""), $2, $1 }')"
		t_check "$how, rank $r: communication within the steps' time, the part not overlapped within it" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["communication"]["share"]
sys.exit(not (0 <= s["exposed"] <= s["comm"] <= s["span"] and s["comm"] > 0))' "$W/data$r.json"
		t_grep "$how, rank $r: the end-of-run summary counts them" "Communication $(wc -l <"$W/want$r") operation(s)" "$W/run.out"
		[ -n "$REPORT" ] || REPORT=$P/mindstudio_profiler_output/report.html
	done
}
REPORT=
under_msprof enable
under_msprof plain plain

# --- the communication section of report.html in a browser ------------------------------
CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { CHROME=$c; break; }
done
R=$REPORT   # rank 0's
if [ -n "$CHROME" ] && [ -n "$R" ]; then
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T_WORK/chrome" \
		--enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom "file://$R" >"$T_WORK/dom.html" 2>"$T_WORK/chrome.err"
	t_check "report.html: no console message while it loads" bash -c "! grep -a ':CONSOLE' '$T_WORK/chrome.err'"
	t_grep "report.html: the script finished" 'data-report="ok"' "$T_WORK/dom.html"
	for c in comm-ops comm-steps; do
		t_grep "report.html: the chart '$c'" "data-chart=\"$c\"" "$T_WORK/dom.html"
	done
	t_grep "report.html: the operations' table" '<td class="l">hcom_allReduce_</td>' "$T_WORK/dom.html"
else
	echo "# no chromium: the browser checks are skipped"
fi
t_done
