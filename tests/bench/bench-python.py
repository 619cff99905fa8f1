"""What the mstx package's calls cost (python/mstx), against the cheapest
call of a C function from Python (len), in the same process: run without a
profiler, then under msprof --msproftx=on (bench-python.sh)."""
import time

import mstx

N = 1000000


def per_call(body):
    best = None
    for _ in range(3):
        t = time.perf_counter()
        body()
        ns = (time.perf_counter() - t) * 1e9 / N
        best = ns if best is None else min(best, ns)
    return best


def c_call():
    f = len
    for _ in range(N):
        f("m")


def mark():
    f = mstx.mark
    for _ in range(N):
        f("m")


def with_range():
    r = mstx.range
    for _ in range(N):
        with r("r"):
            pass


@mstx.range
def decorated():
    pass


def decorator():
    for _ in range(N):
        decorated()


base = per_call(c_call)
where = "under msprof" if mstx.enabled() else "no profiler"
for name, body in (("mstx.mark", mark), ("with mstx.range", with_range), ("@mstx.range call", decorator)):
    ns = per_call(body)
    print(f"{where:13s} {name:17s} {ns:7.1f} ns/call  {ns / base:5.2f}x an empty C call ({base:.1f} ns)")
