"""msprof's bootstrap for Python programs.

msprof --msproftx=on puts this folder first on the PYTHONPATH of the job
it launches, so that a PyTorch job's communication is recorded with no
code in the job: once the job's init_process_group returns, every
torch.distributed collective and point-to-point call and every
DistributedDataParallel gradient allreduce becomes an operation of the
profile (mstx.torch, comm=True; steps and module ranges stay with
mstx.torch.enable()).  MSPROF_TORCH_COMM=0 in the job's environment leaves
that out.  Then it runs the sitecustomize this file hides, if the path has
one further on (Debian's, a virtual environment's), as if it were first.
Nothing here may fail the job: any error leaves it unprofiled.
"""
import os
import sys


def _hook():
    if os.environ.get("MSPROF_TORCH_COMM", "1") == "0":
        return
    try:
        import mstx
        if not mstx.enabled():
            return
        from mstx import torch as mstx_torch
        mstx_torch._comm_at_init()
    except Exception:
        pass


def _chain():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_hook()
_chain()
