#!/bin/bash
# Dynamic mode keeps the disk off its replies (issue 14): start and stop
# answer before any fsync, and what they left unsynced -- host/info.json,
# sample.json, start_info, end_info, device_<N>/'s files, the directories
# that name them -- is fsynced before the window is declared complete,
# i.e. before the export reads the PROF dir.  The ground truth is the
# system calls themselves (strace -f -y: every fsync with its path, the
# prompt's reads and writes), and the files' contents, read back.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/dynamic-lib.sh"
command -v strace >/dev/null 2>&1 || t_skip "strace is needed to see the fsyncs"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is needed to read the trace"
strace -f -o /dev/null true 2>/dev/null || t_skip "strace cannot trace here"
# ASan under strace -f is slower than the prompt's timeouts allow; the
# order of the system calls checked here is the plain build's as well
[ -n "$T_ASAN_LIB" ] && t_skip "sanitized build: the system-call order is checked in the plain build"

W=$T_WORK
OUT=$W/out
LOG=$W/log
TRACE=$W/trace
mkdir -p "$OUT"
# devices too, when the fake NVML is built: their files are the daemon's
FAKE="$HELPERS/libfake-nvml.so"
[ -f "$FAKE" ] && export MSPROF_NVML_LIBRARY="$FAKE"

dyn_open in
# msprof, the msprofd it starts and the job, all traced
strace -f -y -tt -s 64 -e trace=read,write,fsync,fdatasync,sync,syncfs,openat,renameat2 -o "$TRACE" \
	"$MSPROF" --dynamic=on --output="$OUT" --sys-hardware-mem=on sleep 1000 <"$DYN_IN" >"$LOG" 2>&1 7>&- &
DYN_PID=$!
T_PIDS+=("$DYN_PID")

dyn_wait 1 "(msprof) " "$LOG" "the prompt" || t_done
for i in 1 2; do
	dyn_send start
	dyn_wait "$i" "dynamic profiling start success......" "$LOG" "window $i: start"
	dyn_until dyn_has_samples "$OUT" 200 || t_fail "window $i: no samples"
	dyn_send stop
	dyn_wait "$i" "dynamic profiling stop success......" "$LOG" "window $i: stop"
	dyn_wait "$i" "done." "$LOG" "window $i: exported"
done
dyn_send quit
dyn_wait 1 "dynamic profiling quit success......" "$LOG" "quit"
dyn_close
mapfile -t dirs < <(dyn_prof_dirs "$OUT")
# the job, whose pid info.json gives: launch mode waits for it after quit
job=$(dyn_info_pid "${dirs[0]}")
[ -n "$job" ] && kill "$job"
dyn_until dyn_has_n 1 "Process profiling data complete" "$LOG" || t_fail "msprof did not end"
t_stop_daemon   # strace follows msprofd too: it ends when msprofd does
wait "$DYN_PID"

t_check "two windows, two PROF dirs" test "${#dirs[@]}" -eq 2
t_check "no spare PROF dir is left" test -z "$(ls -A "$OUT" | grep -v '^PROF_')"

python3 - "$TRACE" "$OUT" "${dirs[@]}" <<'PY' || t_fail "see above"
import json, os, re, sys
trace, out, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = []
def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " " + detail), file=sys.stdout if ok else sys.stderr)
    if not ok:
        bad.append(what)

# pid time call(args) = ret, unfinished calls joined with their resumption
line_re = re.compile(r'^(\d+)\s+(\S+)\s+(.*)$')
calls, pending = [], {}
for raw in open(trace, errors="replace"):
    m = line_re.match(raw.rstrip("\n"))
    if not m:
        continue
    pid, t, rest = m.groups()
    if rest.endswith("<unfinished ...>"):
        pending[pid] = (t, rest[:-len("<unfinished ...>")])
        continue
    r = re.match(r'^<\.\.\. (\w+) resumed>(.*)$', rest)
    if r and pid in pending:
        t0, head = pending.pop(pid)
        calls.append((pid, t0, head + r.group(2)))
        continue
    calls.append((pid, t, rest))

def secs(t):
    h, m, s = t.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)
calls = [(p, secs(t), c) for p, t, c in calls]
syncs = [(t, c) for p, t, c in calls if re.match(r'^(fsync|fdatasync|syncfs|sync)\(', c)]
check("something was fsynced", len(syncs) > 0)

# 1. no fsync, by anyone, while a start or stop waits for its reply
for cmd, reply in (("start", "dynamic profiling start success"), ("stop", "dynamic profiling stop success")):
    asks = [t for p, t, c in calls if c.startswith('read(0') and f'"{cmd}\\n"' in c]
    answers = [t for p, t, c in calls if c.startswith('write(1') and reply in c]
    check(f"{cmd}: two asked, two answered", len(asks) == 2 and len(answers) == 2, f"({asks}, {answers})")
    for a, b in zip(asks, answers):
        inside = [c for t, c in syncs if a <= t <= b]
        check(f"{cmd}: no fsync before the reply ({(b - a) * 1e3:.3f} ms under strace)", not inside, repr(inside[:3]))

# 2. each window's small files and directories fsynced before its export opened its database
for d in dirs:
    name = os.path.basename(d)
    first_db = min((t for p, t, c in calls if c.startswith("openat(") and name + "/" in c and "msprof_" in c
                    and ".db" in c), default=None)
    check(f"{name}: the export opened a database", first_db is not None)
    want = ["host/info.json", "host/sample.json", "host/start_info", "host/end_info", "host"]
    want += [os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs
             if re.match(r'^(info\.json|start_info|end_info)\.\d+$', f)]
    want += [os.path.relpath(os.path.join(d, e), d) for e in os.listdir(d) if e.startswith("device_")]
    check(f"{name}: device files (fake NVML)", not os.environ.get("MSPROF_NVML_LIBRARY") or
          any(w.startswith("device_0/info.json") for w in want), repr(want))
    for w in want:
        path = os.path.join(os.path.realpath(d), w)
        when = [t for t, c in syncs if f"<{path}>" in c]
        check(f"{name}: {w} fsynced before the export read it",
              when and first_db is not None and min(when) < first_db, f"(fsync {when}, database {first_db})")
    when = [t for t, c in syncs if f"<{os.path.realpath(d)}>" in c]
    check(f"{name}: the PROF dir fsynced", bool(when))

# 3. the files are whole and agree with one another
prev_end = 0
for d in dirs:
    name = os.path.basename(d)
    j = {f: json.load(open(os.path.join(d, "host", f))) for f in ("info.json", "sample.json", "start_info", "end_info")}
    check(f"{name}: info.json names the job", j["info.json"]["pid"] == name[-16:-8].lstrip("0"), repr(j["info.json"]["pid"]))
    check(f"{name}: sample.json says dynamic", j["sample.json"].get("dynamic") == "on")
    b, e = int(j["start_info"]["collectionTimeBegin"]), int(j["end_info"]["collectionTimeEnd"])
    mb, me = int(j["start_info"]["clockMonotonicRaw"]), int(j["end_info"]["clockMonotonicRaw"])
    check(f"{name}: begins before it ends, after the last window", prev_end <= b < e and mb < me, f"({prev_end} {b} {e})")
    prev_end = e
    left = [f for r, _, fs in os.walk(d) for f in fs if ".tmp." in f]
    check(f"{name}: no temporary file left", not left, repr(left))
sys.exit(1 if bad else 0)
PY
t_done
