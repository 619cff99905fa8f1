"""A job annotating through the mstx package (python/mstx): marks, ranges as
context managers and decorators (nested), a domain, steps.  Prints, as
ground truth, whether a profiler was attached and each range's nesting."""
import os
import sys
import threading
import time

import mstx

print("enabled", mstx.enabled(), "pid", os.getpid(), flush=True)

for i in range(5):
    mstx.mark("m%d" % i)


@mstx.range
def inner():
    time.sleep(0.002)
    return 7


@mstx.range("work")
def work(x):
    return x * 2


io = mstx.Domain("io")
for n in range(3):
    mstx.step()                      # steps 0, 1, 2
    with mstx.range("outer"):
        assert inner() == 7
        assert work(n) == 2 * n
        io.mark("checkpoint")
        with io.range("save"):
            time.sleep(0.001)
rid = mstx.range_start("explicit")
threading.Thread(target=lambda: mstx.range_end(rid)).start()   # ended on another thread
time.sleep(0.05)
# threads carry their threading names: one named as it is made, one renamed
# while it runs; each prints its kernel tid and name
def named():
    mstx.mark("named thread")
    time.sleep(0.05)
    print("thread %d %s" % (threading.get_native_id(), threading.current_thread().name), flush=True)
t1 = threading.Thread(target=named, name="loader-prefetch-thread-with-a-long-name")
t2 = threading.Thread(target=named)
t1.start(), t2.start()
t2.name = "renamed-while-running"
t1.join(), t2.join()
# a NUL in a message is refused, not cut
try:
    mstx.mark("a\0b")
    print("nul accepted", flush=True)
except ValueError:
    print("nul refused", flush=True)
print("done", flush=True)
