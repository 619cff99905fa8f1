#!/bin/bash
# On a machine with an NVIDIA GPU and PyTorch: msprof's device tasks
# against torch.profiler (scripts/gpu-validate.py: kernel count equal,
# total kernel time within 2 %, step-time overhead printed).  Skipped (77)
# elsewhere, saying why; the fake NVML and fake CUPTI tests cover the same
# code paths without a GPU.
. "$SRCDIR/tests/integration/lib.sh"
[ -e /dev/nvidiactl ] || t_skip "no NVIDIA GPU here (/dev/nvidiactl is missing)"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is missing"
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
	t_skip "PyTorch with CUDA is not installed"
BUILD=$(dirname "$(dirname "$MSPROF")")
t_check "msprof's kernels and kernel time agree with torch.profiler's" \
	python3 "$SRCDIR/scripts/gpu-validate.py" check --build "$BUILD" --steps 50
exit $((T_FAILS > 0))
