#!/usr/bin/env python3
"""GPU validation of msprof's device tasks against torch.profiler (needs a GPU).

    scripts/gpu-validate.py run  --mode plain|torch|msprof [--steps N] [--out DIR]
    scripts/gpu-validate.py check --build BUILD [--steps N]

`run` trains a small MLP for --steps steps after 5 warm-up steps (cudnn
benchmark off, fixed seed, so every run launches the same kernels) and
prints one JSON line: mean step time (ms) and, with --mode torch, the
kernel count and total kernel time torch.profiler saw over the measured
steps (its CUPTI).  `check` runs it three times -- plain, under
torch.profiler, and under `BUILD/launcher/msprof --output=DIR` -- reads the
TASK table of msprof's database (kernels between the first and last
"step" NVTX ranges) and prints the comparison: kernel count equal, total
kernel time within 2 %, and msprof's step-time overhead against the plain
run.  Exit status 0 when count and time agree."""
import argparse, glob, json, os, sqlite3, subprocess, sys, tempfile, time


def train(mode, steps, out):
    import torch
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 1024, device=dev)

    def step(i):
        torch.cuda.nvtx.range_push(f"step {i}")
        opt.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    for i in range(5):
        step(-1 - i)
    prof = None
    if mode == "torch":
        from torch.profiler import ProfilerActivity, profile
        prof = profile(activities=[ProfilerActivity.CUDA])
        prof.__enter__()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    dt = (time.perf_counter() - t0) / steps * 1e3
    res = {"mode": mode, "step_ms": dt}
    if prof:
        prof.__exit__(None, None, None)
        kernels = [e for e in prof.events() if e.device_type.name == "CUDA" and not e.name.startswith("Memcpy")
                   and not e.name.startswith("Memset")]
        res["kernels"] = len(kernels)
        res["kernel_us"] = sum(e.time_range.elapsed_us() for e in kernels)
    print(json.dumps(res), flush=True)


def msprof_kernels(prof_dir):
    db = sqlite3.connect(glob.glob(os.path.join(prof_dir, "msprof_*.db"))[0])
    # the measured steps: NVTX ranges "step 0" .. "step N-1" (MSTX_EVENTS)
    lo, hi = db.execute("SELECT min(e.startNs), max(e.endNs) FROM MSTX_EVENTS e JOIN STRING_IDS s ON "
                        "s.id = e.message WHERE s.value LIKE 'step %' AND s.value NOT LIKE 'step -%'").fetchone()
    if lo is None:
        sys.exit("no 'step N' NVTX ranges in MSTX_EVENTS: cannot tell the measured steps from the warm-up")
    n, ns = db.execute("SELECT count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN STRING_IDS s ON s.id = "
                       "t.taskType WHERE s.value = 'KERNEL' AND t.startNs >= ? AND t.endNs <= ?", (lo, hi)).fetchone()
    return n, (ns or 0) / 1e3


def check(build, steps):
    me = os.path.abspath(__file__)
    runs = {}
    for mode in ("plain", "torch"):
        out = subprocess.run([sys.executable, me, "run", "--mode", mode, "--steps", str(steps)],
                             check=True, capture_output=True, text=True).stdout
        runs[mode] = json.loads(out.strip().splitlines()[-1])
    outdir = tempfile.mkdtemp(prefix="msprof-gpu-")
    out = subprocess.run([os.path.join(build, "launcher", "msprof"), f"--output={outdir}", "--msproftx=on",
                          sys.executable, me, "run", "--mode", "msprof", "--steps", str(steps)],
                         check=True, capture_output=True, text=True).stdout
    runs["msprof"] = json.loads([l for l in out.splitlines() if l.startswith("{")][-1])
    prof = glob.glob(os.path.join(outdir, "PROF_*"))[0]
    n, us = msprof_kernels(prof)
    t = runs["torch"]
    same_count = n == t["kernels"]
    time_ok = t["kernel_us"] > 0 and abs(us - t["kernel_us"]) / t["kernel_us"] <= 0.02
    overhead = runs["msprof"]["step_ms"] / runs["plain"]["step_ms"] - 1
    print(f"kernels: msprof {n}, torch.profiler {t['kernels']} -> {'equal' if same_count else 'DIFFERENT'}")
    print(f"kernel time: msprof {us:.1f} us, torch.profiler {t['kernel_us']:.1f} us -> "
          f"{'within 2%' if time_ok else 'OFF BY MORE THAN 2%'}")
    print(f"step time: plain {runs['plain']['step_ms']:.3f} ms, msprof {runs['msprof']['step_ms']:.3f} ms "
          f"({overhead * 100:+.1f} %), torch.profiler {t['step_ms']:.3f} ms")
    print(f"PROF dir: {prof}")
    return 0 if same_count and time_ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["run", "check"])
    ap.add_argument("--mode", default="plain", choices=["plain", "torch", "msprof"])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.what == "run":
        train(a.mode, a.steps, a.out)
        return 0
    return check(a.build, a.steps)


if __name__ == "__main__":
    sys.exit(main())
