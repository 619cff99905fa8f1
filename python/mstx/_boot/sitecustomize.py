"""msprof's bootstrap for Python programs.

msprof --msproftx=on puts this folder first on the PYTHONPATH of the job
it launches, so that a PyTorch job's communication is recorded with no
code in the job: when the job imports torch.distributed, its
init_process_group is wrapped, and once it returns every
torch.distributed collective and point-to-point call and every
DistributedDataParallel gradient allreduce becomes an operation of the
profile (mstx.torch, comm=True; steps and module ranges stay with
mstx.torch.enable()).  Until then nothing is imported: a Python process
that never imports torch.distributed pays for this file alone.
MSPROF_TORCH_COMM=0 in the job's environment leaves it out.  Then it runs
the sitecustomize this file hides, if the path has one further on
(Debian's, a virtual environment's), as if it were first.  Nothing here
may fail the job: any error leaves it unprofiled.
"""
import os
import sys


class _Finder:
    """Finds nothing itself: at torch.distributed's import it takes the
    spec the other finders give and runs mstx.torch's wrapper after the
    module's own code."""

    def find_spec(self, name, path, target=None):
        if name != "torch.distributed":
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            try:
                from mstx import torch as mstx_torch
                mstx_torch._wrap_init(module)
            except Exception:   # never in the way of the job's import
                pass

        loader.exec_module = exec_module
        return spec


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


if os.environ.get("MSPROF_TORCH_COMM", "1") != "0":
    sys.meta_path.insert(0, _Finder())
_chain()
