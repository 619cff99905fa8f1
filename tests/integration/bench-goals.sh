#!/bin/bash
# scripts/bench.sh in its short form (BENCH_SHORT=1), as CI runs it: every
# benchmark of meson's suite 'goals' (read from the build's introspection,
# not from a list here) runs to the end, exits 0 and prints well-formed
# `goal:` lines, and the script's table holds each of them; the agent's six
# goals are among them.  Completion and format only: no figure is judged.
. "$SRCDIR/tests/integration/lib.sh"
: "${BUILDDIR:?}"

# Sanitized builds run the agent's benchmarks through ASan's runtime
# ordering rules (tests/integration/lib.sh); the figures are the plain
# build's business.
[ -n "$T_ASAN_LIB" ] && t_skip "sanitized build: the benchmarks run in the plain build"

# The suite's benchmarks, by name (meson names the suite 'msprof:goals').
mapfile -t names < <(python3 -c '
import json, sys
for b in json.load(open(sys.argv[1])):
    if any(s.split(":")[-1] == "goals" for s in b["suite"]):
        print(b["name"])' "$BUILDDIR/meson-info/intro-benchmarks.json")
if [ ${#names[@]} -eq 0 ]; then
	t_fail "no benchmark in suite 'goals'"
	t_done
fi
t_ok "suite 'goals': ${names[*]}"

rm -f "$BUILDDIR/meson-logs/goals-bench.json"
BENCH_SHORT=1 BENCH_NO_BUILD=1 "$SRCDIR/scripts/bench.sh" "$BUILDDIR" >"$T_WORK/out" 2>&1
rc=$?
if ! t_eq "scripts/bench.sh exit status" "$rc" 0; then
	tail -40 "$T_WORK/out" >&2
fi

# Each benchmark's own output, from meson's log of this run: its result and
# its goal lines, checked here apart from bench.sh's parsing.
python3 - "$BUILDDIR/meson-logs/goals-bench.json" "$T_WORK/out" "${names[@]}" <<'EOF' >"$T_WORK/check" 2>&1
import json, re, sys
log, out, names = sys.argv[1], open(sys.argv[2], encoding="utf-8").read(), sys.argv[3:]
runs = {}
for l in open(log, encoding="utf-8"):
    if l.strip():
        r = json.loads(l)
        runs[r["name"].split(" / ")[-1]] = r
fails = 0
def check(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok
line_re = re.compile(r"^goal: ([^|]+)\|([^|]+)\|([^|]*)\|([^|]*)\|([^|]+)$")
table = [l for l in out.splitlines() if l.count(" | ") >= 5]
for n in names:
    r = runs.get(n)
    check(r is not None, f"{n} ran")
    if r is None:
        continue
    check(r["result"] == "OK", f"{n} completed (result {r['result']}, exit {r['returncode']})")
    lines = [l.strip() for l in (r.get("stdout") or "").splitlines() if l.startswith("goal:")]
    check(len(lines) > 0, f"{n} printed goal lines ({len(lines)})")
    for l in lines:
        m = line_re.match(l)
        check(m is not None, f"{n}: five fields: {l}")
        if m:
            fig = m.group(1).strip()
            check(any(row.split(" | ")[0].strip() == n and row.split(" | ")[1].strip() == fig for row in table),
                  f"bench.sh's table has {n}: {fig}")
# the agent's goals, which agent-overhead measures
if "agent-overhead" in names:
    agent = [l for l in (runs.get("agent-overhead", {}).get("stdout") or "").splitlines() if l.startswith("goal:")]
    for key in ["NVTX push/pop", "mstx mark", "mstx range", "events recorded of a 1.1M-event burst",
                "one thread at full speed", "16 threads"]:
        check(sum(l.startswith("goal: " + key) for l in agent) == 1, f"agent-overhead: one goal line for '{key}'")
sys.exit(1 if fails else 0)
EOF
rc=$?
cat "$T_WORK/check"
[ "$rc" -eq 0 ] || t_fail "goal lines (above)"
[ "$T_FAILS" -eq 0 ] || cat "$T_WORK/out" >&2
t_done
