#!/bin/bash
# Issue 14's goals in one command: builds BUILD_DIR (default: build), runs
# every benchmark of meson's suite 'goals', then prints one table of the
# `goal:` lines they printed and names the issue's goals nobody measured.
#
#   scripts/bench.sh [BUILD_DIR]
#   BENCH_SHORT=1 scripts/bench.sh       small sizes (CI: it completes, not how fast)
#
# A benchmark that measures a goal prints, besides its own table, one line
# per goal:
#   goal: <figure> | <measured> | <baseline> | <ratio> | <goal>
# Exit status: 0 when every benchmark of the suite ran, exited 0 and printed
# at least one well-formed goal line; 1 otherwise.  Speed never fails it.
# BENCH_NO_BUILD=1: do not build first (the test that runs this script does
# so from inside `meson test`).
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" >/dev/null || exit 1
fi
if [ -z "${BENCH_NO_BUILD:-}" ]; then
	ninja -C "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null || { echo "bench.sh: the build failed" >&2; exit 1; }
fi

# a log of its own: this may run inside another `meson test` of the same
# build dir (tests/integration/bench-goals.sh), whose testlog it must not
# overwrite
meson test -C "$build" --benchmark --suite goals -v --no-rebuild --logbase goals-bench
rc=$?

# The figures of issue 14's table, each with a pattern that finds its goal
# line (benchmarks word their figures their own way) and the goal.
python3 - "$build/meson-logs/goals-bench.json" "$rc" <<'EOF'
import json, re, sys

expected = [
    (r"nvtx push/pop", "NVTX push/pop, agent recording ÷ minimal recording tool", "≤ 1.10×"),
    (r"mstx mark", "mstx mark ÷ the same minimal tool", "≤ 1.2×"),
    (r"mstx range", "mstx range ÷ the same minimal tool", "≤ 1.2×"),
    (r"events recorded of a .*burst", "events recorded of a 1.1M-event burst, default settings", "100%"),
    (r"one thread at full speed", "one thread at full speed, 10M events, default settings", "0 dropped"),
    (r"16 threads", "16 threads in bursts of 20k ranges, 3.2M in 2 s", "≤ 1% dropped"),
    (r"^parse", "parse ÷ C insert floor of the same rows", "≤ 1.3×"),
    (r"^export", "export ÷ sqlite3 -csv dump of the same table, 2M events", "≤ 0.8× always"),
    (r"start", "dynamic start reply ÷ a help round trip, median", "≤ 1 ms"),
    (r"msprofd", "msprofd CPU at 1000 Hz, 100 processes", "≤ 15%"),
]

log, meson_rc = sys.argv[1], int(sys.argv[2])
rows, problems = [], []
try:
    results = [json.loads(l) for l in open(log, encoding="utf-8") if l.strip()]
except (OSError, ValueError) as e:
    print(f"bench.sh: cannot read '{log}': {e}", file=sys.stderr)
    sys.exit(1)
for r in results:
    name = r["name"].split(" / ")[-1]
    lines = [l.strip() for l in (r.get("stdout") or "").splitlines() if l.strip().startswith("goal:")]
    if r.get("result") != "OK":
        problems.append(f"{name}: {r.get('result')} (exit {r.get('returncode')})")
    if not lines:
        problems.append(f"{name}: printed no goal line")
    for l in lines:
        f = [x.strip() for x in l[len("goal:"):].split("|")]
        if len(f) != 5 or not f[0] or not f[1] or not f[4]:
            problems.append(f"{name}: malformed goal line: {l}")
            continue
        rows.append([name] + f)

head = ["benchmark", "figure", "measured", "baseline", "ratio", "goal"]
w = [max(len(x) for x in col) for col in zip(head, *rows)] if rows else [len(h) for h in head]
print()
print("# issue 14 goals" + (" (BENCH_SHORT: small sizes, not the goals' sizes)" if any(
    "BENCH_SHORT" in (r.get("stdout") or "") for r in results) else ""))
for row in [head, ["-" * n for n in w]] + rows:
    print(" | ".join(c.ljust(n) for c, n in zip(row, w)).rstrip())

missing = [(fig, goal) for pat, fig, goal in expected
           if not any(re.search(pat, r[1], re.IGNORECASE) for r in rows)]
if missing:
    print("\n# goals no benchmark printed:")
    for fig, goal in missing:
        print(f"  {fig} ({goal})")
if problems:
    print("\n# problems:")
    for p in problems:
        print(f"  {p}")
sys.exit(1 if problems or meson_rc != 0 or not results else 0)
EOF
