"""DDP training on cclx's collectives: an unmodified torch.distributed program, two lines added.

    mpiexec -n 2 /usr/bin/python3 examples/torch/train_ddp.py [--steps 100]

`import cclx_torch` registers the backend "cclx" (and, under mpiexec, sets the rendezvous
variables from MPI); `init_process_group("cclx")` then runs every collective of the program - DDP's
broadcasts at construction, its bucket allreduces during backward - on cclx, algo::Auto choosing
the algorithm per call (CCLX_ALGO and tuning tables apply). docs/torch.md has the details.
"""

import argparse
import pathlib
import sys

try:
    import cclx_torch  # installed, or on PYTHONPATH
except ImportError:  # the build tree of the README's set-up command
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "build" / "python"))
    import cclx_torch
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()

    dist.init_process_group("cclx")
    rank, size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)  # the same initial model everywhere (DDP broadcasts rank 0's anyway)
    model = DDP(torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 1)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    truth = torch.randn(64, 1, generator=torch.Generator().manual_seed(42))
    data = torch.Generator().manual_seed(1000 + rank)  # each rank its own shard of the data

    for step in range(args.steps):
        x = torch.randn(args.batch, 64, generator=data)
        y = x @ truth + 0.01 * torch.randn(args.batch, 1, generator=data)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()  # DDP all-reduces the gradients' buckets on cclx, overlapping backward
        opt.step()
        if step % 20 == 0 or step == args.steps - 1:
            mean = loss.detach().clone()
            dist.all_reduce(mean, op=dist.ReduceOp.AVG)
            if rank == 0:
                print(f"step {step:4d}  loss {mean.item():.5f}", flush=True)

    # every rank must hold the same parameters, bit for bit
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    first = flat.clone()
    dist.broadcast(first, src=0)
    same = torch.tensor([int(torch.equal(flat, first))])
    dist.all_reduce(same, op=dist.ReduceOp.MIN)
    if rank == 0:
        print(f"{size} ranks: parameters identical on every rank: {bool(same.item())}")
        print("Auto for a 1 MiB gradient bucket:", cclx_torch.explain_allreduce(1 << 18))
    dist.destroy_process_group()
    sys.exit(0 if same.item() else 1)


if __name__ == "__main__":
    main()
