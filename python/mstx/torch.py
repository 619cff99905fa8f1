"""PyTorch helpers: a range for every module call and a step per training iteration.

    import mstx.torch
    mstx.torch.enable()          # before the training loop

Every ``nn.Module`` call becomes a range named after the module's class in
the domain "torch.module" (forward) and, where PyTorch has global backward
hooks (2.0 and later), "torch.backward".  Every training iteration becomes
step N, a range named "step N" (N from 0): it starts with the iteration's
first batch fetched from a DataLoader or its first module call with
gradients on, and ends when its optimizer step returns, so step 0 is the
first iteration and nothing after the last optimizer step is a step.  An
iteration begun that never steps the optimizer ends at ``remove()`` or at
exit.  ``enable`` returns a handle whose ``remove()`` switches them off
again.  Without a profiler nothing is installed, so the model runs as it
would without this module.
"""

import atexit
import threading

import mstx

__all__ = ["enable"]


class _Handles:
    def __init__(self, handles):
        self._handles = handles

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []


class _Stack(threading.local):
    def __init__(self):
        self.open = []   # (module id, range id), innermost last


def _hooks(domain):
    """A pre hook and a post hook that open and close one range per call,
    nested per thread; the post hook of an inner call that raised never
    came, so its range is closed with the outer one."""
    stack = _Stack()
    start, end, handle = mstx.range_start, mstx.range_end, domain

    def pre(module, *unused):
        stack.open.append((id(module), start(type(module).__name__, handle)))

    def post(module, *unused):
        key, opened = id(module), stack.open
        while opened:
            k, rid = opened.pop()
            end(rid, handle)
            if k == key:
                break

    return pre, post


class _Steps:
    """The training iterations as "step N" ranges: begun by the first
    batch fetch or module call with gradients on after the previous
    optimizer step (or enable()), ended by the optimizer step."""

    def __init__(self):
        self.n = 0
        self.open = None     # the range id of the iteration under way
        self.lock = threading.Lock()

    def begin(self, *unused):
        if self.open is None:
            with self.lock:
                if self.open is None:
                    self.open = mstx.range_start("step %d" % self.n)

    def end(self, *unused):
        with self.lock:
            if self.open is not None:
                mstx.range_end(self.open)
                self.open = None
                self.n += 1

    def forward(self, *unused):
        import torch
        if self.open is None and torch.is_grad_enabled():
            self.begin()

    def remove(self):
        self.end()


def _wrap_fetch(begin):
    """A DataLoader's batch fetch begins an iteration: its iterators'
    __next__ (torch.utils.data.dataloader._BaseDataLoaderIter, from 1.x
    on); nothing where the class is not there."""
    try:
        from torch.utils.data.dataloader import _BaseDataLoaderIter as cls
    except ImportError:
        return None
    original = cls.__dict__.get("__next__")
    if original is None:
        return None

    def fetch(self, *args, **kwargs):
        begin()
        return original(self, *args, **kwargs)

    cls.__next__ = fetch

    class _Restore:
        def remove(self):
            cls.__next__ = original

    return _Restore()


def _wrap_steps(base, end):
    """Before PyTorch 2.0 (no global optimizer hook): wrap the step method
    of every optimizer class there is, the subclasses' own included."""
    wrapped = []

    def classes(c):
        yield c
        for sub in c.__subclasses__():
            yield from classes(sub)

    for cls in set(classes(base)):
        original = cls.__dict__.get("step")
        if original is None:
            continue

        def step(self, *args, _original=original, **kwargs):
            try:
                return _original(self, *args, **kwargs)
            finally:
                end()

        setattr(cls, "step", step)
        wrapped.append((cls, original))

    class _Restore:
        def remove(self):
            for cls, original in wrapped:
                setattr(cls, "step", original)

    return _Restore()


def enable(modules=True, backward=True, steps=True):
    """Switch the hooks on; returns a handle with remove()."""
    import torch

    handles = []
    if not mstx.enabled():
        return _Handles(handles)
    hooks = torch.nn.modules.module
    # the steps' hooks first: an iteration begins before its first
    # module's range
    iterations = _Steps() if steps else None
    if iterations is not None:
        handles.append(hooks.register_module_forward_pre_hook(iterations.forward))
        fetch = _wrap_fetch(iterations.begin)
        if fetch is not None:
            handles.append(fetch)
        try:
            from torch.optim.optimizer import register_optimizer_step_post_hook as register
        except ImportError:
            register = None
        if register is not None:
            handles.append(register(iterations.end))
        else:
            handles.append(_wrap_steps(torch.optim.Optimizer, iterations.end))
        atexit.register(iterations.end)
    if modules:
        pre, post = _hooks(mstx.Domain("torch.module"))
        handles.append(hooks.register_module_forward_pre_hook(pre))
        handles.append(hooks.register_module_forward_hook(post))
    if backward and hasattr(hooks, "register_module_full_backward_pre_hook"):
        pre, post = _hooks(mstx.Domain("torch.backward"))
        handles.append(hooks.register_module_full_backward_pre_hook(pre))
        handles.append(hooks.register_module_full_backward_hook(post))
    if iterations is not None:
        # last, so that remove() ends an iteration under way after the
        # hooks that could begin another are gone
        handles.append(iterations)
    return _Handles(handles)
