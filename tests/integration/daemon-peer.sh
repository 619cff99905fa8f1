#!/bin/bash
# Who may talk to msprofd: a paranoid runtime directory (0700, ours, not a
# symlink) and, behind it, SO_PEERCRED on every connection.  Also the
# ownership checks of session_start, from a daemon run as another user.
. "$SRCDIR/tests/integration/lib.sh"
PROBE="$HELPERS/ipc-probe"
[ -x "$PROBE" ] || t_skip "ipc-probe not built"
[ "$(id -u)" -eq 0 ] || t_skip "needs root to act as another user"
command -v setpriv >/dev/null || t_skip "setpriv is missing"
id nobody >/dev/null 2>&1 || t_skip "no user 'nobody'"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
RUN=$MSPROF_RUNTIME_DIR
quiet() { "$@" >/dev/null; }
LOG=$RUN/msprofd.log

# Copies nobody can execute wherever the build tree is.
chmod 711 "$T_WORK"
mkdir -m 755 "$T_WORK/bin"
cp "$PROBE" "$MSPROFD" "$T_WORK/bin/"
chmod 755 "$T_WORK"/bin/*
NPROBE="$T_WORK/bin/ipc-probe"
NDAEMON="$T_WORK/bin/$(basename "$MSPROFD")"

# --- another uid on root's socket ---------------------------------------------
t_expect_rc 0 "msprofd (root) starts" "$MSPROFD" --idle-timeout=0
pid=$(cat "$RUN/msprofd.pid")
# Open the way as a careless admin would: only SO_PEERCRED is left.
chmod 755 "$RUN"
chmod 777 "$RUN/msprofd.sock"
out=$(as_nobody "$NPROBE" --socket="$RUN/msprofd.sock" --no-hello read eof)
rc=$?
t_check "uid nobody is refused with a reason" grep -q '"code":"denied","message":"uid 65534 may not use the msprofd of uid 0"' <<<"$out"
t_check "... and closed" grep -q '{"probe":"eof"}' <<<"$out"
[ "$rc" -eq 3 ] && t_ok "refused probe exits 3" || t_fail "exit $rc"
out=$(as_nobody "$NPROBE" --socket="$RUN/msprofd.sock" req:status)
t_check "nobody's hello is refused too" grep -q 'may not use' <<<"$out"
t_grep "refusal is logged" "refused a connection from uid 65534" "$LOG"
chmod 700 "$RUN"
chmod 700 "$RUN/msprofd.sock"
t_check "daemon still alive" kill -0 "$pid"
t_check "root is still served" quiet "$PROBE" req:status

# --- unsafe runtime directories -------------------------------------------------
refused() { # what dir expected-why
	local out rc
	out=$(MSPROF_RUNTIME_DIR=$2 "$PROBE" --spawn req:status 2>&1)
	rc=$?
	if [ "$rc" -eq 2 ] && [[ $out == *"cannot use runtime directory '$2': $3"* ]]; then
		t_ok "client refuses $1"
	else
		t_fail "client with $1: exit $rc: $out"
	fi
	out=$(MSPROF_RUNTIME_DIR=$2 "$MSPROFD" 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && [[ $out == *"cannot use runtime directory '$2': $3"* ]]; then
		t_ok "msprofd refuses $1"
	else
		t_fail "msprofd with $1: exit $rc: $out"
	fi
	t_check "no socket made in $1" test ! -e "$2/msprofd.sock"
}
mkdir -m 755 "$T_WORK/loose"
refused "a 0755 directory" "$T_WORK/loose" "it has group or other permissions"
mkdir -m 700 "$T_WORK/real"
ln -s "$T_WORK/real" "$T_WORK/link"
refused "a symlink" "$T_WORK/link" "it is a symbolic link"
mkdir -m 700 "$T_WORK/theirs"
chown nobody:nogroup "$T_WORK/theirs"
refused "another user's directory" "$T_WORK/theirs" "it is not owned by the current user"
touch "$T_WORK/file"
refused "a plain file" "$T_WORK/file" "it is not a directory"
out=$(MSPROF_RUNTIME_DIR=relative/dir "$PROBE" --spawn req:status 2>&1)
t_check "a relative MSPROF_RUNTIME_DIR is refused" grep -q 'MSPROF_RUNTIME_DIR is not an absolute path' <<<"$out"

# --- session_start checks ownership, from a daemon run as nobody -------------------
NB="$T_WORK/nb"
mkdir -m 700 "$NB"
chown nobody:nogroup "$NB"
mkdir -p "$NB/prof/PROF_1/host/data" "$T_WORK/rootprof/PROF_2/host/data"
chown -R nobody:nogroup "$NB/prof"
nrun="$NB/run"
t_expect_rc 0 "msprofd as nobody starts" as_nobody env MSPROF_RUNTIME_DIR="$nrun" "$NDAEMON" --idle-timeout=0
npid=$(cat "$nrun/msprofd.pid")
trap 'rc=$?; t_main || exit $rc; kill "$npid" ${ntarget:-} 2>/dev/null; (exit $rc); t_cleanup' EXIT
nprobe() { as_nobody env MSPROF_RUNTIME_DIR="$nrun" "$NPROBE" "$@"; }
# Not through the function: $! must be the sleeping process itself.
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 1000 </dev/null >/dev/null 2>&1 &
ntarget=$!
out=$(nprobe "req:session_start:{\"prof_dir\":\"$NB/prof/PROF_1\",\"pids\":[1],\"host_sys\":\"cpu\"}")
t_check "another user's pid is refused" grep -q '"code":"bad_request","message":"process 1 belongs to uid 0, not to uid 65534"' <<<"$out"
out=$(nprobe "req:session_start:{\"prof_dir\":\"$T_WORK/rootprof/PROF_2\",\"pids\":[$ntarget],\"host_sys\":\"cpu\"}")
t_check "another user's PROF dir is refused" grep -q "'$T_WORK/rootprof/PROF_2' belongs to uid 0, not to uid 65534" <<<"$out"
out=$(nprobe "req:session_start:{\"prof_dir\":\"$NB/prof/PROF_1\",\"pids\":[$ntarget],\"host_sys\":\"cpu\"}" 'req:session_stop:{"session":1}')
t_check "own pid and dir: a session" grep -q '"type":"session_stopped","id":3,"session":1' <<<"$out"
t_check "... its files belong to nobody" test "$(stat -c %U "$NB/prof/PROF_1/host/data/host_cpu.data.slice_0")" = nobody
nprobe req:shutdown >/dev/null
t_until 10 t_gone "$npid"
t_check "nobody's daemon exited" bash -c "! kill -0 $npid 2>/dev/null"
kill "$ntarget"
t_done
