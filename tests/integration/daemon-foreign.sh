#!/bin/bash
# msprof speaks only to a msprofd of its own user: a server of another uid
# on its socket path (a root-made or loosened runtime directory) is refused
# with a message naming it, before anything is sent to it.  The other user
# is made for the test and removed after it.
. "$SRCDIR/tests/integration/lib.sh"
[ "$(id -u)" -eq 0 ] || t_skip "needs root to create a second user"
command -v useradd >/dev/null && command -v userdel >/dev/null || t_skip "useradd/userdel are missing"
command -v setpriv >/dev/null || t_skip "setpriv is missing"

U=msprof-t$$
useradd --system --no-create-home --shell /usr/sbin/nologin "$U" 2>"$T_WORK/useradd.err" ||
	t_skip "cannot create a user: $(cat "$T_WORK/useradd.err")"
FPID=
cleanup_user() {
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	userdel "$U" 2>/dev/null
}
trap '_rc=$?; cleanup_user; (exit $_rc); t_cleanup' EXIT
uid=$(id -u "$U")

# The other user's server: it answers hello as msprofd would and keeps
# every byte it is sent.  Its socket is then moved into our runtime
# directory, as a careless admin or a user with write access to it could.
FRUN=$T_WORK/foreign
chmod 711 "$T_WORK"
mkdir -m 700 "$FRUN"
chown "$U" "$FRUN"
cat >"$T_WORK/server.py" <<'PY'
import json, os, socket, struct, sys
d = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(d + "/msprofd.sock")
s.listen(8)
open(d + "/ready", "w").close()
while True:
    c, _ = s.accept()
    with open(d + "/got", "ab") as f:
        while True:
            b = c.recv(65536)
            if not b:
                break
            f.write(b)
            f.flush()
            if len(b) >= 4:
                m = json.loads(b[4:4 + struct.unpack(">I", b[:4])[0]])
                r = json.dumps({"v": 1, "type": "hello", "id": m.get("id", 0), "ok": True,
                                "daemon_pid": os.getpid(), "version": "0"}).encode()
                c.sendall(struct.pack(">I", len(r)) + r)
    c.close()
PY
chmod 644 "$T_WORK/server.py"
as_u() { setpriv --reuid="$U" --regid="$(id -g "$U")" --clear-groups "$@"; }
PY=
for p in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
	as_u "$p" -c '' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || t_skip "no python3 the other user can run"
setpriv --reuid="$U" --regid="$(id -g "$U")" --clear-groups "$PY" "$T_WORK/server.py" "$FRUN" &
FPID=$!
for _ in $(seq 100); do [ -e "$FRUN/ready" ] && break; sleep 0.05; done
[ -e "$FRUN/ready" ] || { t_fail "the other user's server does not start"; exit 1; }
mkdir -m 700 "$MSPROF_RUNTIME_DIR"
mv "$FRUN/msprofd.sock" "$MSPROF_RUNTIME_DIR/msprofd.sock"

out=$(t_msprof --output="$T_WORK/out" true 2>&1)
rc=$?
[ "$rc" -ne 0 ] && t_ok "msprof fails (exit $rc)" || t_fail "msprof exits 0 on another user's server"
t_check "the message names the server's uid and what to do" grep -qF \
	"the server on '$MSPROF_RUNTIME_DIR/msprofd.sock' (pid $FPID) runs as uid $uid, not as uid 0: refusing to use it" <<<"$out"
t_check "msprof started no daemon of its own" test ! -e "$MSPROF_RUNTIME_DIR/msprofd.pid"
t_check "the socket is left alone" test -S "$MSPROF_RUNTIME_DIR/msprofd.sock"
t_check "no PROF dir was made" test -z "$(ls "$T_WORK/out" 2>/dev/null)"
t_check "the other server was sent nothing" test ! -s "$FRUN/got"

kill "$FPID"
wait "$FPID" 2>/dev/null
FPID=
t_check "the other user is removed" userdel "$U"
[ "$T_FAILS" -eq 0 ]
