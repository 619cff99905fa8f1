#!/bin/bash
# The mstx package's calls, without a profiler and under msprof --msproftx=on,
# each as ns per call and as a ratio to an empty C call from Python in the
# same process (bench-python.py).
set -u
export PYTHONPATH="$MSTX_PYTHONPATH"
"$MSTX_PYTHON" "$(dirname "$0")/bench-python.py" || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$MSPROF" --output="$out" --msproftx=on "$MSTX_PYTHON" "$(dirname "$0")/bench-python.py" | grep -v '^\[' || exit 1
