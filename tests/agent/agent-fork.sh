# fork and exec: every annotating process has its own file with its own
# events and rank (RANK first, then LOCAL_RANK, OMPI_COMM_WORLD_RANK,
# SLURM_PROCID); a child that does not annotate writes nothing; a fork
# while another thread records does not hang; an exec continues the pid's
# file set with a new window.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"

APP=$AGENT_BIN/fork-app
dir=$T_WORK/fork
if timeout 60 env LD_PRELOAD="$A_PRELOAD" MSPROF_AGENT_OUTPUT="$dir" "$APP" run >"$T_WORK/out" 2>"$T_WORK/err"; then
	t_ok "fork, exec and fork-while-recording completed"
	# shellcheck disable=SC2046
	t_check "each process's file holds exactly its own events and rank" "$APP" check "$dir/host/data" $(cat "$T_WORK/out")
	n=$("$DUMP" "$dir/host/data" | wc -l)
	if [ "$n" -eq 5 ]; then t_ok "five processes wrote files"; else t_fail "$n processes wrote files"; "$DUMP" "$dir/host/data" >&2; fi
else
	t_fail "fork-app failed or hung"; cat "$T_WORK/err" >&2
fi
t_done
