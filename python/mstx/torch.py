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
exit.  Every torch.distributed collective and point-to-point call
(all_reduce, broadcast, all_gather, reduce_scatter, all_to_all, barrier,
send, recv, ...) and every gradient allreduce of DistributedDataParallel
becomes a range in the domain "communication" whose message describes
the operation as torch_npu's markers do (opName, groupName, dataType,
count, rankSize, srcRank/destRank), from the call to the completion of
its work; the export makes COMMUNICATION_OP of them (with the group's
backend and global ranks).  ``enable`` returns a handle whose ``remove()``
switches them off again.  Without a profiler nothing is installed, so the
model runs as it would without this module.  Under ``msprof --msproftx=on``
the communication part switches on by itself as the job's
init_process_group returns (msprof's bootstrap, mstx/_boot), with no
enable() in the job.
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


class _Patches:
    """Attributes this module replaced, each put back by remove()."""

    def __init__(self):
        self._saved = []

    def replace(self, obj, name, original, new):
        setattr(obj, name, new)
        self._saved.append((obj, name, original))

    def remove(self):
        for obj, name, original in reversed(self._saved):
            setattr(obj, name, original)
        self._saved = []


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

    patches = _Patches()
    patches.replace(cls, "__next__", original, fetch)
    return patches


def _wrap_steps(base, end):
    """Before PyTorch 2.0 (no global optimizer hook): wrap the step method
    of every optimizer class there is, the subclasses' own included."""
    patches = _Patches()

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

        patches.replace(cls, "step", original, step)
    return patches


# torch.distributed's functions and what each is as a communication
# operation: msprof's name (as torch_npu's HCCL markers give it), the
# argument whose tensor(s) its count and type come from, and, for a
# point-to-point operation, the argument naming the peer and whether this
# rank sends.
_COLLECTIVES = {
    "all_reduce": ("HcclAllreduce", 0, None),
    "all_reduce_coalesced": ("HcclAllreduce", 0, None),
    "broadcast": ("HcclBroadcast", 0, None),
    "reduce": ("HcclReduce", 0, None),
    "all_gather": ("HcclAllgather", 1, None),
    "all_gather_into_tensor": ("HcclAllgather", 1, None),
    "_all_gather_base": ("HcclAllgather", 1, None),
    "reduce_scatter": ("HcclReduceScatter", 0, None),
    "reduce_scatter_tensor": ("HcclReduceScatter", 0, None),
    "_reduce_scatter_base": ("HcclReduceScatter", 0, None),
    "all_to_all": ("HcclAlltoAll", 1, None),
    "all_to_all_single": ("HcclAlltoAll", 1, None),
    "gather": ("HcclGather", 0, None),
    "scatter": ("HcclScatter", 0, None),
    "barrier": ("HcclBarrier", None, None),
    "send": ("HcclSend", 0, (1, True)),
    "isend": ("HcclSend", 0, (1, True)),
    "recv": ("HcclReceive", 0, (1, False)),
    "irecv": ("HcclReceive", 0, (1, False)),
}

_DTYPES = {
    "float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64", "int8": "int8",
    "uint8": "uint8", "int16": "int16", "int32": "int32", "int64": "int64",
}


def _tensors(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _tensors(y)
    elif hasattr(x, "numel") and hasattr(x, "dtype"):
        yield x


def _ranks_text(ranks):
    """Global ranks as runs: "0-3,8", "0-1016:8" (first-last:step, a step
    of 1 left out), so a large group's list stays short."""
    ranks, out, i = sorted(ranks), [], 0
    while i < len(ranks):
        j = i + 1
        step = ranks[j] - ranks[i] if j < len(ranks) else 1
        while j + 1 < len(ranks) and ranks[j + 1] - ranks[j] == step:
            j += 1
        if j - i >= 2 and step > 0:
            out.append("%d-%d%s" % (ranks[i], ranks[j], "" if step == 1 else ":%d" % step))
            i = j + 1
        else:
            out.append("%d" % ranks[i])
            i += 1
    return ",".join(out)


_group_ranks = {}


def _ranks_of(dist, pg):
    """The group's global ranks as _ranks_text gives them, once per group;
    "" where torch does not say."""
    text = _group_ranks.get(pg)
    if text is None:
        try:
            if hasattr(dist, "get_process_group_ranks"):
                ranks = dist.get_process_group_ranks(pg)
            else:   # 1.13: global rank -> group rank
                ranks = list(dist.distributed_c10d._pg_group_ranks[pg].keys())
            text = _ranks_text(ranks)
        except Exception:
            text = ""
        _group_ranks[pg] = text
    return text


def _message(dist, name, tensors, group, peer=None, sends=True):
    """The operation as torch_npu's markers describe one: a flat dict the
    export reads into COMMUNICATION_OP (opName, groupName, dataType,
    count, rankSize, srcRank/destRank), with the group's backend and its
    global ranks (COMMUNICATION_GROUP)."""
    tensors = list(tensors)
    try:
        pg = group if group is not None else dist.distributed_c10d._get_default_group()
        group_name = getattr(dist.distributed_c10d, "_pg_names", {}).get(pg) or "default_pg"
        size, rank = dist.get_world_size(group), dist.get_rank(group)
        backend = str(dist.get_backend(group))
        ranks = _ranks_of(dist, pg)
    except Exception:
        group_name, size, rank, backend, ranks = "default_pg", -1, -1, "", ""
    fields = [("opName", name), ("groupName", group_name)]
    if backend:
        # on NCCL the export keeps NCCL's own records where it has them
        fields.append(("backend", backend))
    if ranks:
        fields.append(("groupRanks", ranks))
    if tensors:
        fields.append(("dataType", _DTYPES.get(str(tensors[0].dtype).replace("torch.", ""), "N/A")))
        fields.append(("count", sum(int(t.numel()) for t in tensors)))
    fields.append(("rankSize", size))
    if peer is not None:
        fields += [("srcRank", rank if sends else peer), ("destRank", peer if sends else rank)]
    return "{" + ", ".join('"%s": "%s"' % (k, v) for k, v in fields) + "}"


class _Pending:
    """The completion callbacks this module hung on torch's futures, not
    yet run.  They run on the backend's threads and need the GIL; at exit,
    a job's last DistributedDataParallel model is destroyed with the GIL
    held while its process group joins those threads, so one still to run
    or to be freed there would wait for ever (gloo, PyTorch 1.13: a rank
    hung at exit in 1 run of 6 on a loaded machine).  drain(), at exit
    before the interpreter tears down, lets them finish."""

    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def add(self):
        with self.lock:
            self.n += 1

    def done(self):
        with self.lock:
            self.n -= 1

    def drain(self, timeout_s=5.0):
        import time
        deadline = time.monotonic() + timeout_s
        while self.n > 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        # and the callbacks' own objects, freed on those threads after them
        time.sleep(0.05)


_pending = _Pending()


def _timed(start, end, message, call):
    """call() inside a range: ended when the operation completes, through
    its Work's future when it returns one (async_op=True, isend, irecv),
    else when it returns."""
    rid = start(message)
    try:
        work = call()
    except BaseException:
        end(rid)
        raise
    future = None
    if work is not None and hasattr(work, "get_future"):
        try:
            future = work.get_future()
        except Exception:   # a backend without futures: the call's return
            future = None
    if future is None:
        end(rid)
    else:
        def done(unused):
            end(rid)
            _pending.done()

        _pending.add()
        future.then(done)
    return work


class _Inside(threading.local):
    """Set while a DDP bucket's range is open on this thread: the
    torch.distributed calls its hook makes are that range's operation,
    not more of them."""
    ddp_hook = False


_inside = _Inside()


def _wrap_collectives(domain):
    """torch.distributed's collective and point-to-point functions, each
    call a range in the domain "communication" (where the export looks
    for them: COMMUNICATION_OP).  Callers that imported a function by name
    before enable() keep the unwrapped one."""
    import torch.distributed as dist

    start = lambda msg: mstx.range_start(msg, domain)
    end = lambda rid: mstx.range_end(rid, domain)
    patches = _Patches()
    for fname, (op, arg, p2p) in _COLLECTIVES.items():
        original = getattr(dist, fname, None)
        if original is None:
            continue

        def call(*args, _original=original, _op=op, _arg=arg, _p2p=p2p, **kwargs):
            if _inside.ddp_hook:
                return _original(*args, **kwargs)
            tensors = _tensors(args[_arg] if _arg is not None and len(args) > _arg else
                               kwargs.get("tensor", kwargs.get("input", kwargs.get("input_tensor", ()))))
            peer = None
            if _p2p is not None:
                peer = args[_p2p[0]] if len(args) > _p2p[0] else kwargs.get("dst" if _p2p[1] else "src")
            msg = _message(dist, _op, tensors, kwargs.get("group"), peer, _p2p[1] if _p2p else True)
            return _timed(start, end, msg, lambda: _original(*args, **kwargs))

        patches.replace(dist, fname, original, call)
    return patches


class _Ddp:
    """DistributedDataParallel's gradient allreduces, which it issues from
    C++: at a DDP model's first call, unless the job registered a comm
    hook of its own, the default allreduce hook (the same sum divided by
    the world size) inside a range per bucket.  A job's own hook is left
    as it is: what it calls through torch.distributed is recorded there."""

    def __init__(self, domain):
        from torch.nn.parallel import DistributedDataParallel as ddp
        self.cls, self.domain, self.patches = ddp, domain, _Patches()
        self.register = ddp.__dict__.get("register_comm_hook")
        for name in ("register_comm_hook", "_register_builtin_comm_hook"):
            original = ddp.__dict__.get(name)
            if original is None:
                continue

            def register(model, *args, _original=original, **kwargs):
                model._mstx_hooked = True
                return _original(model, *args, **kwargs)

            self.patches.replace(ddp, name, original, register)

    def forward(self, module, *unused):
        if not isinstance(module, self.cls) or getattr(module, "_mstx_hooked", False):
            return
        module._mstx_hooked = True
        try:
            from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
            import torch.distributed as dist
        except ImportError:
            return
        domain = self.domain

        def hook(process_group, bucket):
            buffer = bucket.buffer() if hasattr(bucket, "buffer") else bucket.get_tensor()
            rid = mstx.range_start(_message(dist, "HcclAllreduce", [buffer], process_group), domain)
            _inside.ddp_hook = True
            try:
                future = default_hooks.allreduce_hook(process_group, bucket)
            except BaseException:
                mstx.range_end(rid, domain)
                raise
            finally:
                _inside.ddp_hook = False

            def done(f):
                mstx.range_end(rid, domain)
                _pending.done()
                return f.value()

            _pending.add()
            return future.then(done)

        if self.register is not None:
            self.register(module, module.process_group, hook)

    def remove(self):
        self.patches.remove()


class _CommOn:
    """The communication hooks are installed once per process, by
    whichever enable() came first (msprof's bootstrap's or the job's)."""
    on = False

    def remove(self):
        self.on = False


_comm = _CommOn()


def _wrap_init(dist):
    """msprof's bootstrap (mstx/_boot/sitecustomize.py), as the job imports
    torch.distributed in a process the agent records with --msproftx=on:
    init_process_group (torch.distributed's and distributed_c10d's, the one
    object) is followed by the communication hooks, with no enable() in the
    job."""
    if not mstx.enabled() or not dist.is_available():
        return
    import functools
    c10d = dist.distributed_c10d
    original = c10d.init_process_group

    @functools.wraps(original)
    def init_process_group(*args, **kwargs):
        result = original(*args, **kwargs)
        try:
            enable(modules=False, backward=False, steps=False, comm=True)
        except Exception:   # the job goes on unrecorded rather than fail
            pass
        return result

    c10d.init_process_group = init_process_group
    if getattr(dist, "init_process_group", None) is original:
        dist.init_process_group = init_process_group


def enable(modules=True, backward=True, steps=True, comm=True):
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
    if comm and not _comm.on:
        import torch.distributed as dist
        if dist.is_available():
            domain = mstx.Domain("communication")
            handles.append(_wrap_collectives(domain))
            ddp = _Ddp(domain)
            handles.append(hooks.register_module_forward_pre_hook(ddp.forward))
            handles.append(ddp)
            handles.append(_comm)
            _comm.on = True
            atexit.register(_pending.drain)
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
