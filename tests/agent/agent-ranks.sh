# Distributed jobs end to end: a launcher shaped like torchrun, mpirun or
# srun starts 4 ranks with its environment; msprof gives each rank its own
# PROF dir (collectors/profdir-ranks.c) with the right rank_id, hostUid and
# pid, its steps and only its processes (a data-loader child without a rank
# of its own goes with its rank), and keeps the launcher itself in a
# host-level dir.  Ranks are found through the agent (annotations) and,
# without one, through the host sampler's read of each environment.
# --ranks=0,3 limits all collection to those ranks, without --msproftx.  Two
# "hosts" (two daemons, their own runtime dirs and MSPROF_HOST_UID) write
# their ranks into one output dir without a collision.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/agent/agent-lib.sh"
command -v sqlite3 >/dev/null 2>&1 || t_skip "the sqlite3 command line tool is needed"
APP=$AGENT_BIN/steps-app
N=4

# The job launcher: starts N ranks with the variables of one launcher,
# each rank's pid and rank written to $T_WORK/<name>.pids (the ground truth).
# Rank 0 is a shell that runs the command as its child, beside a worker that
# drops the rank variables (both "child" lines; the worker runs $WORKER).
cat >"$T_WORK/launch.sh" <<'EOF'
#!/bin/bash
# launch.sh KIND NAME N cmd...
kind=$1 name=$2 n=$3; shift 3
: >"$T_WORK/$name.pids"
for ((r = 0; r < n; r++)); do
	case $kind in
	torch) vars=(RANK=$r LOCAL_RANK=$r WORLD_SIZE=$n LOCAL_WORLD_SIZE=$n GROUP_RANK=0) ;;
	mpi) vars=(OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_LOCAL_RANK=$r OMPI_COMM_WORLD_SIZE=$n) ;;
	slurm) vars=(SLURM_PROCID=$r SLURM_LOCALID=$r SLURM_NTASKS=$n) ;;
	pmi) vars=(PMI_RANK=$r PMI_SIZE=$n) ;;
	esac
	if [ "$r" = 0 ]; then
		# rank 0 starts a data-loader-like worker with no rank variable
		env "${vars[@]}" bash -c 'env -u RANK -u LOCAL_RANK -u OMPI_COMM_WORLD_RANK -u SLURM_PROCID \
			-u PMI_RANK -u OMPI_COMM_WORLD_LOCAL_RANK -u SLURM_LOCALID ${WORKER:-sleep 2} & echo "child $!" >>"$0"
			"$@" & echo "child $!" >>"$0"; wait' "$T_WORK/$name.pids" "$@" &
	else
		env "${vars[@]}" "$@" &
	fi
	echo "$r $!" >>"$T_WORK/$name.pids"
done
wait
EOF
chmod +x "$T_WORK/launch.sh"
export T_WORK

# info FILE KEY: KEY of the JSON object in FILE ("None" when absent), a list
# joined with commas.  The checks ask for over a hundred values, and
# Python's start takes a good part of a second on a loaded machine: one
# Python reads FILE and every other info.json of the PROF dirs beside its
# own, once, and writes each key's value to a file of its own (under
# $T_WORK/info/, named after the file it is of).
info() {
	local d=$T_WORK/info/${1//\//%}
	[ -d "$d" ] || python3 -c 'import glob, json, os, sys
top, want = sys.argv[1], sys.argv[2]
case = os.path.dirname(os.path.dirname(os.path.dirname(want)))
for path in [want] + glob.glob(case + "/PROF_*/host/info.json") + glob.glob(case + "/PROF_*/host/info.json.[0-9]*"):
    d = os.path.join(top, path.replace("/", "%"))
    if os.path.isdir(d):
        continue
    j = json.load(open(path))
    os.makedirs(d + ".tmp")
    for k, v in j.items():
        if "/" not in k and k not in (".", ".."):
            with open(os.path.join(d + ".tmp", k), "w") as f:
                print(v if not isinstance(v, list) else ",".join(map(str, v)), file=f)
    os.rename(d + ".tmp", d)' "$T_WORK/info" "$1" || return
	cat "$d/$2" 2>/dev/null || echo None
}

# check NAME KIND: one PROF dir per rank and one host-level dir, each right
check() {
	local name=$1 kind=$2 d
	local dirs=("$T_WORK/$name"/PROF_*)
	t_eq "$kind: one PROF dir per rank and one for the launcher" "${#dirs[@]}" $((N + 1))
	local seen=()
	for d in "${dirs[@]}"; do
		local rank pid
		rank=$(info "$d/host/info.json" rank_id)
		pid=$(info "$d/host/info.json" pid)
		t_eq "$kind: $(basename "$d") has this machine's hostUid" "$(info "$d/host/info.json" hostUid)" \
			"$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id)"
		if [ "$rank" = -1 ]; then
			t_eq "$kind: the host-level dir is the launcher's" "$(info "$d/host/info.json" pid_name)" launch.sh
			continue
		fi
		seen+=("$rank")
		t_eq "$kind: rank $rank's dir is named by its rank and pid" \
			"$(basename "$d" | cut -d_ -f2,4 | cut -c1-15)" "$(printf '%06d_%08d' $((rank + 1)) "$pid")"
		t_eq "$kind: rank $rank's main process is the one started as rank $rank" \
			"$pid" "$(awk -v r="$rank" '$1 == r { print $2 }' "$T_WORK/$name.pids")"
		local n=$rank
		[ "$kind" = pmi ] && n=0 # PMI gives no local rank
		t_eq "$kind: rank $rank's host/info.json.$n (its local rank) carries the rank" \
			"$(info "$d/host/info.json.$n" rank_id)" "$rank"
		local want_procs=$pid
		if [ "$rank" = 0 ]; then
			want_procs=$(printf '%s\n' "$pid" $(awk '$1 == "child" { print $2 }' "$T_WORK/$name.pids") |
				sort -n | paste -sd,)
		fi
		t_eq "$kind: rank $rank's dir holds its processes (rank 0: with its children)" \
			"$(info "$d/host/info.json" processes | tr ',' '\n' | sort -n | paste -sd,)" "$want_procs"
		local db
		db=$(ls "$d"/msprof_*.db | head -n1)
		t_eq "$kind: rank $rank's processes are its own only" \
			"$(t_sql "$db" "SELECT COUNT(*) FROM PROCESS_INFO WHERE isTarget = 1 AND pid NOT IN ($want_procs)")" 0
		if [ "$name" = torch ]; then
			t_eq "$kind: rank $rank's steps, of one of its processes" \
				"$(t_sql "$db" "SELECT COUNT(*), COUNT(DISTINCT pid), MIN(pid) IN ($want_procs) FROM STEP")" "3|1|1"
			t_eq "$kind: rank $rank's step_trace has its 3 steps" \
				"$(tail -n +2 "$d"/mindstudio_profiler_output/step_trace_*.csv | wc -l)" 3
			t_eq "$kind: rank $rank's agent files are of its processes only" \
				"$(ls "$d/host/data" | sed -n 's/^agent_\([0-9]*\)\..*/\1/p' | sort -un |
				   grep -cvxF "$(printf '%s\n' ${want_procs//,/ })")" 0
		fi
	done
	t_eq "$kind: ranks 0 to $((N - 1)), each once" "$(printf '%s\n' "${seen[@]}" | sort -n | paste -sd,)" "0,1,2,3"
}

# The cases below are independent (each its own job, output dir and
# session of the test's msprofd; the two "hosts" their own daemons) and
# mostly wait on their jobs' seconds: they run 4 at a time (t_each).

# torchrun: ranks found by their agents (annotations on)
case_torch() {
	env "${PRE[@]}" timeout 60 "$MSPROF" --msproftx=on --host-sys=cpu --output="$T_WORK/torch" \
		"$T_WORK/launch.sh" torch torch $N "$APP" ranges 3 >"$T_WORK/torch.log" 2>&1 || t_fail "msprof torch job"
	check torch torch
	t_grep "the console names each rank's dir" "Rank 3 (pid" "$T_WORK/torch.log"
	# every rank's report.html lists all N ranks, the first exported too
	# (written again once every rank is exported); the host-level dir has none
	local pages=0 page got
	for page in "$T_WORK"/torch/PROF_*/mindstudio_profiler_output/report.html; do
		[ -f "$page" ] || continue
		got=$(python3 "$SRCDIR/tests/helpers/report-data.py" "$page" | python3 -c 'import json, sys
d = json.load(sys.stdin)
if d["meta"]["rank"] >= 0:
    print(sorted({r["rank"] for r in d.get("ranks") or []}))')
		[ -n "$got" ] || continue
		pages=$((pages + 1))
		t_eq "$(basename "$(dirname "$(dirname "$page")")"): the report's rank table" "$got" "[0, 1, 2, 3]"
	done
	t_eq "a report page per rank" "$pages" "$N"
}

# mpirun, srun, PMI: no annotations, host sampling only (ranks from environ)
case_environ() { # case_environ mpi|slurm|pmi
	local kind=$1
	env "${PRE[@]}" timeout 60 "$MSPROF" --host-sys=cpu --output="$T_WORK/$kind" \
		"$T_WORK/launch.sh" $kind $kind $N sleep 2 >"$T_WORK/$kind.log" 2>&1 || t_fail "msprof $kind job"
	check "$kind" "$kind"
}

# attach (dynamic mode): --pid of the job's launcher gives the same layout,
# as does --pid of the ranks themselves (each its own dir, no launcher's)
attach() { # attach NAME PIDS: one start/stop window
	(echo start; sleep 2; echo stop; sleep 1; echo quit) |
		timeout 60 "$MSPROF" --dynamic=on --pid="$2" --host-sys=cpu --output="$T_WORK/$1" >"$T_WORK/$1.log" 2>&1 ||
		t_fail "msprof --dynamic=on --pid=$2"
}
case_attach() {
	local L
	"$T_WORK/launch.sh" torch attach $N sleep 5 &
	L=$!
	t_wait "the job's $N ranks started" eval '[ "$(grep -c "^[0-9]" "$T_WORK/attach.pids" 2>/dev/null)" = $N ]'
	attach attach "$L"
	check attach torch
	wait "$L"
}
case_attach2() {
	local L got
	"$T_WORK/launch.sh" torch attach2 $N sleep 5 &
	L=$!
	t_wait "the job's $N ranks started" eval '[ "$(grep -c "^[0-9]" "$T_WORK/attach2.pids" 2>/dev/null)" = $N ]'
	attach attach2 "$(awk '$1 ~ /^[0-9]+$/ { print $2 }' "$T_WORK/attach2.pids" | paste -sd,)"
	got=$(for d in "$T_WORK"/attach2/PROF_*; do info "$d/host/info.json" rank_id; done | sort -n | paste -sd,)
	t_eq "attach to the $N ranks: a PROF dir each, with its rank" "$got" "0,1,2,3"
	wait "$L"
}

# --ranks=0,3 without --msproftx: only those ranks are profiled
case_some() {
	local got d db
	env "${PRE[@]}" timeout 60 "$MSPROF" --ranks=0,3 --host-sys=cpu --output="$T_WORK/some" \
		"$T_WORK/launch.sh" torch some $N sleep 2 >"$T_WORK/some.log" 2>&1 || t_fail "msprof --ranks=0,3"
	got=$(for d in "$T_WORK"/some/PROF_*; do info "$d/host/info.json" rank_id; done | sort -n | paste -sd,)
	t_eq "--ranks=0,3: PROF dirs of ranks 0 and 3 only (the launcher is no rank: not profiled)" "$got" "0,3"
	for d in "$T_WORK"/some/PROF_*; do
		db=$(ls "$d"/msprof_*.db | head -n1)
		t_eq "--ranks=0,3: no process of ranks 1 and 2 in $(basename "$d")" \
			"$(t_sql "$db" "SELECT COUNT(*) FROM PROCESS_INFO WHERE pid IN
			   ($(awk '$1 == 1 || $1 == 2 { print $2 }' "$T_WORK/some.pids" | paste -sd,))")" 0
	done
}

# --ranks=0 with annotations: rank 0's worker, started without a rank
# variable, is of rank 0 (its parent's) and records; the other ranks do not
case_tx0() {
	local dirs d db
	WORKER="$APP ranges 2" env "${PRE[@]}" timeout 60 "$MSPROF" --ranks=0 --msproftx=on --output="$T_WORK/tx0" \
		"$T_WORK/launch.sh" torch tx0 $N "$APP" ranges 3 >"$T_WORK/tx0.log" 2>&1 ||
		t_fail "msprof --ranks=0 --msproftx=on"
	dirs=("$T_WORK"/tx0/PROF_*)
	t_eq "--ranks=0 --msproftx=on: one PROF dir, rank 0's" \
		"$(for d in "${dirs[@]}"; do info "$d/host/info.json" rank_id; done | paste -sd,)" 0
	db=$(ls "${dirs[0]}"/msprof_*.db | head -n1)
	t_eq "--ranks=0: rank 0's steps, 3 of its main process and 2 of its rankless worker" \
		"$(t_sql "$db" 'SELECT COUNT(*), COUNT(DISTINCT pid) FROM STEP')" "5|2"
}

# two hosts, one shared output dir: each its own daemon and host id
case_hosts() {
	local h pid_a pid_b got d
	mkdir -p "$T_WORK/shared"
	for h in a b; do
		mkdir -m 0700 -p "$T_WORK/run-$h"
		MSPROF_RUNTIME_DIR="$T_WORK/run-$h" MSPROF_HOST_UID="host-$h" env "${PRE[@]}" timeout 60 "$MSPROF" \
			--host-sys=cpu --output="$T_WORK/shared" "$T_WORK/launch.sh" torch "host-$h" 2 sleep 2 \
			>"$T_WORK/host-$h.log" 2>&1 &
		eval "pid_$h=\$!"
	done
	wait "$pid_a" || t_fail "host a's msprof"
	wait "$pid_b" || t_fail "host b's msprof"
	for h in a b; do MSPROF_RUNTIME_DIR="$T_WORK/run-$h" t_stop_daemon; done
	got=$(for d in "$T_WORK"/shared/PROF_*; do echo "$(info "$d/host/info.json" hostUid):$(info "$d/host/info.json" rank_id)"; done |
		sort | paste -sd' ')
	t_eq "two hosts in one output dir: each host's ranks and launcher, none lost" "$got" \
		"host-a:-1 host-a:0 host-a:1 host-b:-1 host-b:0 host-b:1"
}

run_case() {
	case $1 in
	mpi | slurm | pmi) case_environ "$1" ;;
	*) "case_$1" ;;
	esac
}
t_each 4 run_case torch attach attach2 mpi slurm pmi some tx0 hosts
t_done
