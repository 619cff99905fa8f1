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
	done
}
under_msprof enable
under_msprof plain plain
t_done
