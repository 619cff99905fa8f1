"""A PyTorch job with mstx.torch's hooks: a two-layer model fed by a
DataLoader, 3 iterations of one forward, 50 ms of work, a backward and an
optimizer step, then trailing work (a checkpoint kept in memory, 50 ms)
and an evaluation without gradients, neither of them an iteration.  It
writes down each iteration's start, before its batch is fetched, and its
end, after its optimizer step returns: "iteration N START END", Unix ns."""
import io
import time

import mstx
import mstx.torch
import torch

handle = mstx.torch.enable()
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(12, 8)), batch_size=4)
batches = iter(loader)
times = []
for n in range(3):
    start = time.time_ns()
    (x,) = next(batches)
    opt.zero_grad()
    loss = model(x).sum()
    time.sleep(0.05)  # the iteration's own work: a step shifted by one iteration shows
    loss.backward()
    opt.step()
    times.append((n, start, time.time_ns()))
torch.save(model.state_dict(), io.BytesIO())
time.sleep(0.05)
with torch.no_grad():
    model(torch.randn(4, 8))
handle.remove()
model(torch.randn(4, 8))            # after remove(): no range
for n, start, end in times:
    print("iteration", n, start, end)
print("torch", torch.__version__, flush=True)
