"""DDP on backend "cclx" against DDP on Gloo, in one run: the same model, data and steps.

    mpiexec -n 3 /usr/bin/python3 tests/torch/test_ddp.py
    CCLX_REPRODUCIBLE=1 mpiexec -n 3 /usr/bin/python3 tests/torch/test_ddp.py --reproducible

An MLP on synthetic data trains 50 steps under each backend (the cclx group is a new_group over
every rank beside Gloo's default group). The parameters must match Gloo's: bitwise on 2 ranks (a
sum of two gradients has one order), within reduction tolerance on more (each backend sums in its
own order). With --reproducible (and CCLX_REPRODUCIBLE=1), an allreduce on cclx must also have
the bits of the sum in the canonical order, computed here. Every rank must end with bitwise identical parameters. A second
model with a parameter that gets no gradient runs with find_unused_parameters (DDP's int32
allreduce of the used-parameter map).
"""

import copy
import datetime
import os
import sys

import cclx_torch_path  # noqa: F401  (sys.path)
import cclx_torch  # noqa: F401  (registers "cclx")
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

timeout = datetime.timedelta(seconds=120)
dist.init_process_group("gloo", timeout=timeout)
cclx_group = dist.new_group(backend="cclx", timeout=timeout)
RANK, N = dist.get_rank(), dist.get_world_size()
STEPS = 50


class Mlp(torch.nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                       torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                       torch.nn.Linear(64, 10))
        self.unused = torch.nn.Linear(4, 4) if unused else None

    def forward(self, x):
        return self.net(x)


def batch(step):
    g = torch.Generator().manual_seed(10_000 * RANK + step)
    return torch.randn(16, 32, generator=g), torch.randint(0, 10, (16,), generator=g)


def train(model, group, **ddp_args):
    ddp = DDP(model, process_group=group, **ddp_args)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    for step in range(STEPS):
        x, y = batch(step)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def same_on_every_rank(params, what):
    flat = torch.cat([p.reshape(-1) for p in params]).view(torch.int32)
    mine = flat.to(torch.int64).sum().reshape(1)  # a checksum of the bits
    every = [torch.empty_like(mine) for _ in range(N)]
    dist.all_gather(every, mine)
    if any(not torch.equal(e, every[0]) for e in every):
        fail(f"{what}: the ranks' parameters differ ({[e.item() for e in every]})")


def fail(msg):
    print(f"rank {RANK}: {msg}", flush=True)
    sys.exit(1)


for unused in (False, True):
    torch.manual_seed(1)
    model = Mlp(unused)
    extra = {"find_unused_parameters": True} if unused else {}
    gloo = train(copy.deepcopy(model), None, **extra)
    cclx = train(copy.deepcopy(model), cclx_group, **extra)
    what = "DDP find_unused_parameters" if unused else "DDP"
    same_on_every_rank(cclx, what + " on cclx")
    for g, c in zip(gloo, cclx):
        if N == 2 and not torch.equal(g, c):
            fail(f"{what}: cclx's parameters differ from Gloo's bits on 2 ranks "
                 f"(max difference {(g - c).abs().max().item():.3g})")
        if not torch.allclose(g, c, rtol=1e-4, atol=1e-5):
            fail(f"{what}: cclx's parameters differ from Gloo's "
                 f"(max difference {(g - c).abs().max().item():.3g})")
    if RANK == 0:
        diff = max((g - c).abs().max().item() for g, c in zip(gloo, cclx))
        print(f"{what}: {STEPS} steps on {N} ranks, cclx vs gloo max |difference| {diff:.3g}",
              flush=True)


def canonical_sum(parts):
    """The canonical order (docs/reproducibility.md): ranks [0, m) + ranks [m, n), m the largest
    power of two below n."""
    if len(parts) == 1:
        return parts[0]
    m = 1
    while 2 * m < len(parts):
        m *= 2
    return canonical_sum(parts[:m]) + canonical_sum(parts[m:])


if "--reproducible" in sys.argv:
    if os.environ.get("CCLX_REPRODUCIBLE") != "1":
        fail("--reproducible needs CCLX_REPRODUCIBLE=1")
    parts = []  # every rank's input: values over a wide range of exponents
    for r in range(N):
        g = torch.Generator().manual_seed(r)
        parts.append(torch.ldexp(torch.rand(1 << 16, generator=g) * 2 - 1,
                                 torch.randint(-20, 21, (1 << 16,), generator=g)))
    got = parts[RANK].clone()
    dist.all_reduce(got, group=cclx_group)
    if not torch.equal(got, canonical_sum(parts)):
        fail("CCLX_REPRODUCIBLE=1: the allreduce is not the canonical sum bit for bit")
    if RANK == 0:
        print("CCLX_REPRODUCIBLE=1: allreduce equals the canonical sum bit for bit", flush=True)

dist.barrier()
dist.destroy_process_group()
print(f"rank {RANK}: DDP ok", flush=True)
