#!/bin/bash
# More annotated processes than msprofd's old agent table held (256) in one
# session: 300 processes connected at once, each marking once, and every
# mark is in the export.  Past a lowered limit (MSPROFD_MAX_AGENTS=100),
# every process turned away is named -- in msprof's output, in
# host/info.json and in the export's report -- and every other one's mark
# is exported: none is lost without a word.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/crowd-lib.sh"

crowd_run "$T_WORK/all"
t_check "all $N processes' marks are exported, each by its own process" cmp "$T_WORK/all.pids" "$T_WORK/all.marks"
t_check "nothing is turned away" bash -c "! grep -q 'turned away' '$T_WORK/all.log'"

t_stop_daemon
export MSPROFD_MAX_AGENTS=100
crowd_run "$T_WORK/limited"
unset MSPROFD_MAX_AGENTS
crowd_named "$T_WORK/limited"
n_marks=$(wc -l <"$T_WORK/limited.marks")
n_named=$(wc -l <"$T_WORK/limited.named.pids")
[ "$n_marks" -ge 1 ] && [ "$n_marks" -lt 100 ] && t_ok "under the limit: $n_marks marks exported" ||
	t_fail "marks exported under a limit of 100: $n_marks"
t_eq "every process is either exported or named by msprof" "$((n_marks + n_named))" $N
t_eq "... never both" "$(sort "$T_WORK/limited.marks" "$T_WORK/limited.named.pids" | uniq -d | wc -l)" 0
t_check "... and each exported mark is its own process's" bash -c \
	"sort -m '$T_WORK/limited.marks' '$T_WORK/limited.named.pids' | cmp - '$T_WORK/limited.pids'"
total=$(sed -nE 's/.*turned away ([0-9]+) process\(es\).*/\1/p' "$T_WORK/limited.log" | head -1)
t_grep "msprof says what raises the limit" "at its agent limit (MSPROFD_MAX_AGENTS raises it): their annotations are not recorded" "$T_WORK/limited.log"
info=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["agentsRefused"]
print(a["count"], " ".join(str(p["pid"]) for p in a["processes"]), sep="|")' "$dir/host/info.json")
t_eq "info.json counts them as msprof did" "${info%%|*}" "$total"
for p in $(cut -d' ' -f1 "$T_WORK/limited.named.pids"); do
	[[ " ${info#*|} " == *" $p "* ]] || { t_fail "pid $p is not in info.json's agentsRefused"; break; }
done
t_grep "the export's report counts them" "agent: $total process(es) turned away by msprofd at its agent limit, their annotations missing: " "$T_WORK/limited.log"
first=$(sed -nE 's/.*not recorded: ([0-9]+) .*/\1/p' "$T_WORK/limited.log")
t_grep "... and names them, the first as msprof did" "their annotations missing: $first (test-mstx-pro" "$T_WORK/limited.log"
t_grep "msprofd's log names each one" "the agent of pid $first ('test-mstx-pro" "$MSPROF_RUNTIME_DIR/msprofd.log"
t_done
