"""Steps marked at the bottom of a loop (mstx.step_end) and at the top with
the last one ended explicitly (mstx.step, then mstx.step_end), in two
processes, each printing the times it read itself (time.time_ns, the
clock msprof's rows are in):

    bottom N BEFORE AFTER   the read before and after step_end(N)
    top N BEFORE AFTER      the same around step(N), and around the last
                            step_end (as "top-end")
    loop BEFORE AFTER       around the mark "loop" just before the first
                            bottom iteration

Each iteration sleeps 20 ms and marks "work N".  Without a profiler the
calls return at once.  steps-job.py [ITERATIONS]
"""
import os
import sys
import time

import mstx

n_iter = int(sys.argv[1]) if len(sys.argv) > 1 else 4


def timed(what, call, *args):
    before = time.time_ns()
    call(*args)
    after = time.time_ns()
    print(what, before, after, flush=True)


pid = os.fork()
if pid == 0:
    # top: step(n) starts each iteration, step_end ends the last
    time.sleep(0.01)
    for n in range(n_iter):
        timed("top %d" % n, mstx.step, n)
        mstx.mark("work %d" % n)
        time.sleep(0.02)
    timed("top-end %d" % (n_iter - 1), mstx.step_end)
    time.sleep(0.03)      # after the loop: not a step
    mstx.mark("after the loop")
    os._exit(0)
# bottom: step_end(n) ends each iteration
timed("loop", mstx.mark, "loop")
for n in range(n_iter):
    mstx.mark("work %d" % n)
    time.sleep(0.02)
    timed("bottom %d" % n, mstx.step_end, n)
time.sleep(0.03)
mstx.mark("after the loop")
os.waitpid(pid, 0)
