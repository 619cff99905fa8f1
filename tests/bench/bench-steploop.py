"""bench-steploop.py STEPS [enable]: a PyTorch CPU training loop (an MLP on
random batches, one thread) for bench-steploop.sh; with "enable",
mstx.torch.enable() (a range per module call, a step per iteration).
Prints each step's time in ns, one a line, after the loop."""
import sys
import time

import torch

steps = int(sys.argv[1])
torch.set_num_threads(1)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                            torch.nn.ReLU(), torch.nn.Linear(1024, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
if len(sys.argv) > 2 and sys.argv[2] == "enable":
    import mstx.torch
    mstx.torch.enable()
x = torch.randn(256, 512)
y = torch.randint(0, 10, (256,))
times = []
for s in range(steps):
    t0 = time.perf_counter_ns()
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    times.append(time.perf_counter_ns() - t0)
print("\n".join(str(t) for t in times))
