"""PyTorch helpers: a range for every module call and a step per optimizer step.

    import mstx.torch
    mstx.torch.enable()          # before the training loop

Every ``nn.Module`` call becomes a range named after the module's class in
the domain "torch.module" (forward) and, where PyTorch has global backward
hooks (2.0 and later), "torch.backward"; every optimizer step ends a step
(``mstx.step``).  ``enable`` returns a handle whose ``remove()`` switches
them off again.  Without a profiler nothing is installed, so the model runs
as it would without this module.
"""

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


def _wrap_steps(base):
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
                mstx.step()

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
    if modules:
        pre, post = _hooks(mstx.Domain("torch.module"))
        handles.append(hooks.register_module_forward_pre_hook(pre))
        handles.append(hooks.register_module_forward_hook(post))
    if backward and hasattr(hooks, "register_module_full_backward_pre_hook"):
        pre, post = _hooks(mstx.Domain("torch.backward"))
        handles.append(hooks.register_module_full_backward_pre_hook(pre))
        handles.append(hooks.register_module_full_backward_hook(post))
    if steps:
        try:
            from torch.optim.optimizer import register_optimizer_step_post_hook as register
        except ImportError:
            register = None
        if register is not None:
            handles.append(register(lambda *unused: mstx.step()))
        else:
            handles.append(_wrap_steps(torch.optim.Optimizer))
    return _Handles(handles)
