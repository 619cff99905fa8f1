"""mstx: msprof's annotation API (mstx) for Python.

Marks, ranges, domains and training steps, recorded by msprof when the
program runs under it (``msprof --msproftx=on python3 train.py``) and
costing one call into C that returns at once when it does not::

    import mstx

    mstx.mark("data loaded")
    with mstx.range("forward"):
        ...
    @mstx.range("optimizer")
    def optimize(): ...
    io = mstx.Domain("io")
    io.mark("checkpoint written")
    for n in range(epochs):
        mstx.step(n)            # at the top: step n starts now, step n-1 ends
        ...
    for n in range(epochs):
        ...
        mstx.step_end(n)        # or at the bottom: step n ends now

Events go where the C API's go (MSTX_EVENTS, msprof_tx, the timeline's
msprof_tx layer); ``mstx.step`` is ``mstxStep`` and ``mstx.step_end``
``mstxStepEnd`` (the STEP table).  A range
object used as a context manager belongs to one thread at a time; as a
decorator it is safe from any thread.  ``mstx.torch`` switches on ranges
for every PyTorch module call and step N for every training iteration N.
"""

import functools as _functools
import os as _os


def _self_enable():
    """MSPROF_OPTIONS or MSPROF_CONFIG set and no agent named: name msprof's
    agent for libms_tools_ext, which loads it as _mstx is imported; the agent
    then starts msprof for this process (a job profiles itself with just the
    variable).  The agent of the build tree this package was built in, else
    the installed one."""
    env = _os.environ
    if env.get("MSTX_INJECTION_PATH") or not (env.get("MSPROF_OPTIONS") or env.get("MSPROF_CONFIG")):
        return
    from mstx import _paths
    here = _os.path.dirname(_os.path.abspath(__file__))
    for path in (_os.path.join(here, "..", "..", "collectors", "agent", _paths.AGENT),
                 _os.path.join(_paths.LIBDIR, _paths.AGENT),
                 _os.path.join(_paths.LIBDIR, "msprof", _paths.AGENT)):
        if _os.path.isfile(path):
            env["MSTX_INJECTION_PATH"] = _os.path.realpath(path)
            return


_self_enable()

from mstx import _mstx  # noqa: E402 (after the agent is named)

__all__ = ["mark", "range", "range_start", "range_end", "Domain", "step", "step_end", "start", "stop", "capture",
           "schedule", "enabled"]


def enabled():
    """Whether a profiler receives the calls (msprof's agent is loaded)."""
    return bool(_mstx.ENABLED)


# The C functions themselves: a domain argument is a Domain or None.
mark = _mstx.mark
# mark(message, domain=None): an instant event, in domain or the default one
range_start = _mstx.range_start   # range_start(message, domain=None) -> id for range_end (0: nothing records)
range_end = _mstx.range_end       # range_end(id, domain=None), on any thread


def _wrap(message, domain, func):
    if not _mstx.ENABLED:
        return func          # nothing records: the function as it is
    start, end = _mstx.range_start, _mstx.range_end

    @_functools.wraps(func)
    def wrapper(*args, **kwargs):
        rid = start(message, domain)
        try:
            return func(*args, **kwargs)
        finally:
            end(rid, domain)

    return wrapper


_mstx._set_wrap(_wrap)


def _name_threads():
    """Under msprof, Python threads carry their threading names in the
    profile (mstxNameOsThreadA, kept whole; the threads' comm is left as
    it is): those running now, each new one as it starts, and a thread
    renamed through Thread.name.  The main thread keeps the process's."""
    import threading
    name_thread, main = _mstx.name_thread, threading.main_thread()

    def name(t):
        if t is not main and t.native_id is not None:
            name_thread(t.native_id, t.name)

    for t in threading.enumerate():
        name(t)
    cls = threading.Thread
    boot, prop = cls._bootstrap_inner, cls.name

    def _bootstrap_inner(self):
        try:
            name_thread(threading.get_native_id(), self.name)
        except Exception:  # never in the way of the thread
            pass
        boot(self)

    def set_name(self, value):
        prop.fset(self, value)
        name(self)

    cls._bootstrap_inner = _bootstrap_inner
    cls.name = property(prop.fget, set_name, prop.fdel, prop.__doc__)


if _mstx.ENABLED:
    _name_threads()

# range(message, domain=None): ``with mstx.range("name"):``,
# ``@mstx.range("name")``, or ``@mstx.range`` alone, named after the
# function it decorates (the type is C: entering and leaving are C calls)
range = _mstx.Range


class Domain:
    """A named domain: msprof's --mstx-domain-include/--mstx-domain-exclude
    select domains by this name."""

    __slots__ = ("name", "_handle")

    def __init__(self, name):
        self.name = name
        self._handle = _mstx.domain_create(name) or None

    def mark(self, message):
        _mstx.mark(message, self._handle)

    def range(self, message):
        return range(message, self)

    def range_start(self, message):
        return _mstx.range_start(message, self._handle)

    def range_end(self, range_id):
        _mstx.range_end(range_id, self._handle)

    def __repr__(self):
        return "mstx.Domain(%r)" % self.name


def start():
    """Ask msprof to open a collection window now (msprofStart): 0 when the
    request went to msprof, a negative errno when none is reachable
    (-errno.ENOTCONN without msprof); the program goes on either way."""
    return _mstx.start()


def stop():
    """Ask msprof to close and export the window (msprofStop); as start()."""
    return _mstx.stop()


def schedule(skip_first=0, wait=0, warmup=0, active=1, repeat=0, start_step=None, deadline=None):
    """Windows at this process's training steps, as torch.profiler.schedule
    (msprof's --schedule, msprofSchedule): after skip_first steps, cycles
    of wait steps (nothing), warmup steps (collected, not kept) and active
    steps (kept, one PROF directory a cycle), repeat cycles (0: until the
    job ends); start_step counts from that step number instead of from the
    first step; deadline (seconds) closes a window open that long.  Steps
    are mstx.step(), ranges named "step N" and mstx.torch.enable()'s.  0
    when msprof took it, a negative errno otherwise (-errno.ENOTCONN without
    msprof, -errno.EINVAL for numbers msprof does not take); the windows need
    an msprof that follows the job's requests (--dynamic=on, MSPROF_CONFIG,
    an attach: plain launch mode records the whole run)."""
    keys = [("skip_first", skip_first), ("wait", wait), ("warmup", warmup), ("active", active),
            ("repeat", repeat)]
    if start_step is not None:
        keys.append(("start_step", start_step))
    if deadline is not None:
        keys.append(("deadline", deadline))
    for k, v in keys:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError("mstx.schedule: %s must be an int from 0, not %r" % (k, v))
    return _mstx.schedule(",".join("%s=%d" % kv for kv in keys))


class capture:
    """``with mstx.capture():`` the block is one window, its own PROF
    directory (start() on entry, stop() on exit)."""

    def __enter__(self):
        self.started = start()
        return self

    def __exit__(self, *unused):
        stop()
        return False


_steps = {"current": None, "next": 0}


def step(n=None):
    """At the top of a loop: step n starts now and this process's previous
    step ends (mstxStep); without n, the step after the last one given
    (from 0)."""
    if n is None:
        n = _steps["next"]
    _steps["current"], _steps["next"] = n, n + 1
    _mstx.step(n)


def step_end(n=None):
    """At the bottom of a loop: step n ends now (mstxStepEnd); it began
    where this process's previous step ended, the first at the process's
    first annotation.  Without n, the step under way (the last step(n)
    started), else the one after the last ended (from 0)."""
    if n is None:
        n = _steps["current"] if _steps["current"] is not None else _steps["next"]
    _steps["current"], _steps["next"] = None, n + 1
    _mstx.step_end(n)
