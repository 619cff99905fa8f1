#!/bin/bash
# meson test --benchmark: osrt overhead (bench-osrt.c) without the agent,
# with it idle (osrt off) and recording (osrt on, default threshold), as
# ratios to the run without; the aim is <= 1.05 recording.
set -e
bin=$1 agent=$2 n=${3:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
base=$("$bin" "$n")
idle=$(LD_PRELOAD=$agent MSPROF_AGENT_OUTPUT=$dir/idle "$bin" "$n")
rec=$(LD_PRELOAD=$agent MSPROF_AGENT_OUTPUT=$dir/rec MSPROF_AGENT_OSRT=1 "$bin" "$n")
awk -v b="$base" -v i="$idle" -v r="$rec" 'BEGIN {
	printf "read(/dev/zero, 1 byte): %.1f ns without the agent, %.1f idle (x%.3f), %.1f recording osrt (x%.3f)\n", b, i, i / b, r, r / b }'
