#!/bin/bash
# Where the agent finds CUPTI when MSPROF_CUPTI_LIBRARY is not set: the
# copy the job has loaded already (PyTorch's), then the one beside the
# job's libcudart (a toolkit's lib dir; pip's nvidia/cuda_cupti/lib beside
# nvidia/cuda_runtime/lib), before the loader's path, where a library
# named libcupti.so that is no CUPTI (the decoy) waits on LD_LIBRARY_PATH.
# Each right choice records the fake CUPTI's 3 kernels; the decoy would
# record none.  A MSPROF_CUPTI_LIBRARY that does not load is named in one
# line, and the rest of the profile goes on.
. "$SRCDIR/tests/integration/lib.sh"
. "$SRCDIR/tests/integration/cupti-lib.sh"
DUMMY="$HELPERS/libfake-nvml.so"   # any library that is not CUPTI

mkdir -p "$T_WORK/decoy"
for n in libcupti.so libcupti.so.12 libcupti.so.13 libcupti.so.14; do
	cp "$DUMMY" "$T_WORK/decoy/$n"
done

# $1 case name; CUDA_APP_DLOPEN says what the job has loaded.  GOT: the
# kernels recorded
kernels_of() {
	local name=$1 rc p
	mkdir -p "$T_WORK/$name"
	(
		unset MSPROF_CUPTI_LIBRARY
		export LD_LIBRARY_PATH="$T_WORK/decoy" FAKE_CUPTI_KERNELS=3
		t_msprof --output="$T_WORK/$name" --msproftx=on "$APP" "$T_WORK/$name.pid" 100
	) >"$T_WORK/$name.log" 2>&1
	rc=$?
	t_check "$name: msprof exits 0" test $rc -eq 0
	t_check "$name: no message about loading CUPTI" \
		bash -c "! grep -E 'cannot load CUPTI|lacks the activity API' '$T_WORK/$name.log'"
	p=$(t_prof_dir "$T_WORK/$name") || return 1
	GOT=$(sqlite3 "$p"/msprof_*.db "SELECT count(*) FROM GPU_TASK WHERE kind = 1" 2>/dev/null)
}

# PyTorch's libcupti, loaded by the job before cuInit (a path of its own)
mkdir -p "$T_WORK/torch/lib"
cp "$FAKE" "$T_WORK/torch/lib/libcupti.so.13"
CUDA_APP_DLOPEN="$T_WORK/torch/lib/libcupti.so.13" kernels_of loaded
t_check "the copy the job loaded is used, not the loader's (3 kernels, got '$GOT')" test "$GOT" = 3

# a toolkit's lib dir: libcupti beside the libcudart the job loaded
mkdir -p "$T_WORK/toolkit/lib64"
cp "$DUMMY" "$T_WORK/toolkit/lib64/libcudart.so.13"
cp "$FAKE" "$T_WORK/toolkit/lib64/libcupti.so"
CUDA_APP_DLOPEN="$T_WORK/toolkit/lib64/libcudart.so.13" kernels_of toolkit
t_check "the libcupti beside the job's libcudart is used (3 kernels, got '$GOT')" test "$GOT" = 3

# pip's layout: nvidia/cuda_runtime/lib and nvidia/cuda_cupti/lib
mkdir -p "$T_WORK/site/nvidia/cuda_runtime/lib" "$T_WORK/site/nvidia/cuda_cupti/lib"
cp "$DUMMY" "$T_WORK/site/nvidia/cuda_runtime/lib/libcudart.so.13"
cp "$FAKE" "$T_WORK/site/nvidia/cuda_cupti/lib/libcupti.so"
CUDA_APP_DLOPEN="$T_WORK/site/nvidia/cuda_runtime/lib/libcudart.so.13" kernels_of pip
t_check "pip's nvidia/cuda_cupti beside nvidia/cuda_runtime is used (3 kernels, got '$GOT')" test "$GOT" = 3

# a MSPROF_CUPTI_LIBRARY that does not load: one line naming it, exit 0,
# host data still exported
cupti_trouble bad "bad MSPROF_CUPTI_LIBRARY" \
	"msprof agent: cannot load CUPTI (MSPROF_CUPTI_LIBRARY: $T_WORK/no-such-libcupti.so: cannot open shared object file: No such file or directory): device tasks are not recorded; set MSPROF_CUPTI_LIBRARY to the libcupti.so of the job's CUDA" \
	"cannot load CUPTI" MSPROF_CUPTI_LIBRARY="$T_WORK/no-such-libcupti.so" || exit 1
t_check "no sanitizer report from the agent" bash -c "! grep -E 'runtime error|Sanitizer' '$T_WORK'/*.log"
exit $((T_FAILS > 0))
