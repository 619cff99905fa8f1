"""A 2-rank PyTorch DistributedDataParallel job on CPU (gloo), started as
torchrun starts one: this process starts the ranks with RANK, WORLD_SIZE,
MASTER_ADDR and MASTER_PORT set (env://) and waits for them.

Each rank calls mstx.torch.enable() and nothing else of ours, then makes
explicit collectives of known sizes (3 all_reduce of 1000 float32, one of
them async_op=True and waited on; a broadcast of 500 float64 from rank 0;
a barrier; rank 0 sends 64 int32 to rank 1, which receives them) and
trains a small model for 4 iterations, each a forward, a backward (DDP's
bucket allreduces) and an optimizer step.  It writes down what it did:

    rank R expect OPNAME COUNT DTYPE      one line per explicit operation
    rank R ddp ITERATIONS BUCKET_BYTES    DDP's buckets as torch reports them

  ddp-job.py [PORT] [plain]

With "plain" the ranks import nothing of ours and call no enable(): the
job as its authors wrote it, for msprof's bootstrap to record.
"""
import os
import subprocess
import sys


def rank_main(rank):
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo")
    if os.environ.get("DDP_JOB_PLAIN") != "1":
        import mstx.torch
        mstx.torch.enable()
    out = []

    def expect(op, count, dtype):
        out.append("rank %d expect %s %d %s" % (rank, op, count, dtype))

    t = torch.ones(1000)
    for i in range(3):
        if i == 1:
            dist.all_reduce(t, async_op=True).wait()
        else:
            dist.all_reduce(t)
        expect("hcom_allReduce_", 1000, "FP32")
    b = torch.zeros(500, dtype=torch.float64)
    dist.broadcast(b, 0)
    expect("hcom_broadcast_", 500, "FP64")
    dist.barrier()
    expect("hcom_barrier_", 0, "N/A")
    p = torch.arange(64, dtype=torch.int32)
    if rank == 0:
        dist.send(p, 1)
        expect("hcom_send_", 64, "INT32")
    else:
        dist.recv(p, 0)
        expect("hcom_receive_", 64, "INT32")

    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    iterations = 4
    for _ in range(iterations):
        opt.zero_grad()
        model(torch.randn(8, 16)).sum().backward()
        opt.step()
    buckets = model._get_ddp_logging_data().get("bucket_sizes", "")
    out.append("rank %d ddp %d %s" % (rank, iterations, buckets.replace(" ", "")))
    dist.destroy_process_group()
    # one write, under PIPE_BUF: the two ranks' lines do not interleave
    os.write(1, ("\n".join(out) + "\n").encode())
    # Past here only the interpreter's teardown, where PyTorch 1.13 on
    # gloo may deadlock when a job used a Python comm hook (as
    # mstx.torch registers one): the DDP model's reducer, freed with the
    # GIL held, joins a gloo thread that waits for the GIL (seen in 1 of
    # 12 runs on a loaded 2-core machine).  The atexit handlers (the
    # agent's flush among them) run; then the rank leaves.
    import atexit
    atexit._run_exitfuncs()
    os._exit(0)


def main():
    if "RANK" in os.environ:
        rank_main(int(os.environ["RANK"]))
        return
    port = sys.argv[1] if len(sys.argv) > 1 else "29511"
    plain = "1" if sys.argv[2:3] == ["plain"] else "0"
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=port, DDP_JOB_PLAIN=plain)
        procs.append(subprocess.Popen([sys.executable, __file__], env=env))
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    main()
