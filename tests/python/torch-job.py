"""A PyTorch job with mstx.torch's hooks: a two-layer model, 3 optimizer
steps of one forward and backward each."""
import mstx
import mstx.torch
import torch

handle = mstx.torch.enable()
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for _ in range(3):
    opt.zero_grad()
    loss = model(torch.randn(4, 8)).sum()
    loss.backward()
    opt.step()
handle.remove()
model(torch.randn(4, 8))            # after remove(): no range
print("torch", torch.__version__, flush=True)
