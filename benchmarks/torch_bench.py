"""torch.distributed on backend "cclx" against Gloo, side by side in one run (docs/torch.md).

    mpiexec -n 2 /usr/bin/python3 benchmarks/torch_bench.py busbw     [--sizes 1K:64M] [--rounds 7]
    mpiexec -n 2 /usr/bin/python3 benchmarks/torch_bench.py ddp       [--model small|large]
    CCLX_ALGO='allreduce:*=stragglar' mpiexec -n 3 /usr/bin/python3 benchmarks/torch_bench.py \\
        straggler --delay-ms 20

The default group is Gloo's and a new_group over every rank is cclx's; each round times one
backend then the other (in alternating order), and rank 0 prints the medians over rounds and the
median of the rounds' paired ratios (gloo time / cclx time: above 1, cclx is faster), as CSV.
  busbw      dist.all_reduce of float32 tensors, 1 KiB to 64 MiB: time per call and bus bandwidth
             2(n-1)/n * bytes / time.
  ddp        one DDP iteration (forward, backward with DDP's bucket allreduces, SGD step) of an MLP:
             small (32-64-64-10) or large (1024-4096-4096-1024, 25 M parameters: four of DDP's
             default 25 MB buckets); --batch samples per rank. Also the step without DDP
             (compute alone) and one allreduce of all gradients on cclx (communication alone):
             a DDP step below their sum overlaps backward with its bucket allreduces.
  straggler  dist.all_reduce of 16 MiB where the last rank enters --delay-ms late every call: the
             time every rank spends in the call, and the time the other ranks need after the
             late one arrived (its own time in the call).
Every process uses one torch thread (--threads), so that ranks do not fight for the cores.
"""

import argparse
import datetime
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "torch"))
import cclx_torch_path  # noqa: F401,E402  (sys.path)
import cclx_torch  # noqa: F401,E402  (registers "cclx")
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def size_list(spec):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}

    def parse(s):
        return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)

    lo, hi = (parse(x) for x in spec.split(":"))
    sizes = []
    while lo <= hi:
        sizes.append(lo)
        lo *= 4
    return sizes


def label(nbytes):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= div and nbytes % div == 0:
            return f"{nbytes // div}{unit}"
    return str(nbytes)


def timed(fn, iters, group):
    dist.barrier(group=group)
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - start) / iters


def max_over_ranks(seconds, group):
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return t.item()


def compare(rounds, run):
    """run(backend) -> seconds; returns medians per backend and the median paired ratio."""
    times = {"gloo": [], "cclx": []}
    ratios = []
    for r in range(rounds):
        order = ("gloo", "cclx") if r % 2 == 0 else ("cclx", "gloo")
        got = {b: run(b) for b in order}
        for b in order:
            times[b].append(got[b])
        ratios.append(got["gloo"] / got["cclx"])
    return statistics.median(times["gloo"]), statistics.median(times["cclx"]), \
        statistics.median(ratios)


def busbw(args, groups, rank, n):
    if rank == 0:
        print("bytes,gloo_us,cclx_us,gloo_busbw_GBps,cclx_busbw_GBps,speedup_median_paired")
    for nbytes in size_list(args.sizes):
        t = torch.ones(nbytes // 4)
        iters = max(3, min(200, (32 << 20) // nbytes))

        def run(backend):
            g = groups[backend]
            timed(lambda: dist.all_reduce(t, group=g), 2, g)  # warm-up (Auto's first decision)
            return max_over_ranks(timed(lambda: dist.all_reduce(t, group=g), iters, g), g)

        gloo, cclx, speedup = compare(args.rounds, run)
        factor = 2 * (n - 1) / n * nbytes / 1e9
        if rank == 0:
            print(f"{label(nbytes)},{gloo * 1e6:.1f},{cclx * 1e6:.1f},{factor / gloo:.3f},"
                  f"{factor / cclx:.3f},{speedup:.2f}", flush=True)


def mlp(model):
    widths = (32, 64, 64, 10) if model == "small" else (1024, 4096, 4096, 1024)
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1]), widths[0], widths[-1]


def ddp(args, groups, rank, n):
    torch.manual_seed(0)
    net, width_in, width_out = mlp(args.model)
    models = {}
    for b in ("gloo", "cclx"):
        copy, _, _ = mlp(args.model)
        copy.load_state_dict(net.state_dict())
        models[b] = DDP(copy, process_group=groups[b])
    opts = {b: torch.optim.SGD(models[b].parameters(), lr=0.01) for b in models}
    x = torch.randn(args.batch, width_in)
    y = torch.randn(args.batch, width_out)

    def step(b):
        opts[b].zero_grad()
        torch.nn.functional.mse_loss(models[b](x), y).backward()
        opts[b].step()

    def run(b):
        timed(lambda: step(b), 1, groups[b])  # warm-up
        return max_over_ranks(timed(lambda: step(b), args.iters, groups[b]), groups[b])

    gloo, cclx, speedup = compare(args.rounds, run)
    # What overlap saves: the same step without DDP (compute alone) and the gradients' allreduce
    # alone, on cclx; a DDP step shorter than their sum overlapped them.
    local = net
    local_opt = torch.optim.SGD(local.parameters(), lr=0.01)

    def compute():
        local_opt.zero_grad()
        torch.nn.functional.mse_loss(local(x), y).backward()
        local_opt.step()

    grads = torch.zeros(sum(p.numel() for p in net.parameters()))
    compute_s = statistics.median(
        max_over_ranks(timed(compute, args.iters, groups["cclx"]), groups["cclx"])
        for _ in range(args.rounds))
    comm_s = statistics.median(
        max_over_ranks(timed(lambda: dist.all_reduce(grads, group=groups["cclx"]), args.iters,
                             groups["cclx"]), groups["cclx"]) for _ in range(args.rounds))
    params = grads.numel()
    if rank == 0:
        print("model,parameters,batch,ranks,gloo_ms,cclx_ms,speedup_median_paired,"
              "compute_alone_ms,cclx_allreduce_alone_ms")
        print(f"{args.model},{params},{args.batch},{n},{gloo * 1e3:.2f},{cclx * 1e3:.2f},"
              f"{speedup:.2f},{compute_s * 1e3:.2f},{comm_s * 1e3:.2f}", flush=True)


def straggler(args, groups, rank, n):
    late = n - 1
    t = torch.ones(args.bytes // 4)

    def run(b):
        g = groups[b]
        spent = []
        for _ in range(args.iters):
            dist.barrier(group=g)
            if rank == late:
                time.sleep(args.delay_ms / 1e3)
            start = time.perf_counter()
            dist.all_reduce(t, group=g)
            spent.append(time.perf_counter() - start)
        mine = statistics.median(spent)
        # every rank's median time in the call; the late rank's is what remains after it arrives
        every = torch.zeros(n, dtype=torch.float64)
        every[rank] = mine
        dist.all_reduce(every, group=g)
        run.after[b].append(every[late].item())
        return max(every[r].item() for r in range(n) if r != late)

    run.after = {"gloo": [], "cclx": []}
    gloo, cclx, speedup = compare(args.rounds, run)
    if rank == 0:
        print("bytes,ranks,delay_ms,gloo_ms,cclx_ms,speedup_median_paired,"
              "gloo_after_arrival_ms,cclx_after_arrival_ms")
        print(f"{label(args.bytes)},{n},{args.delay_ms},{gloo * 1e3:.2f},{cclx * 1e3:.2f},"
              f"{speedup:.2f},{statistics.median(run.after['gloo']) * 1e3:.2f},"
              f"{statistics.median(run.after['cclx']) * 1e3:.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("busbw", "ddp", "straggler"))
    parser.add_argument("--sizes", default="1K:64M", help="busbw: LO:HI, powers of 4 apart")
    parser.add_argument("--rounds", type=int, default=7, help="paired rounds")
    parser.add_argument("--model", choices=("small", "large"), default="small")
    parser.add_argument("--iters", type=int, default=10, help="ddp, straggler: calls per round")
    parser.add_argument("--batch", type=int, default=32, help="ddp: samples per rank and step")
    parser.add_argument("--bytes", type=int, default=16 << 20, help="straggler: message size")
    parser.add_argument("--delay-ms", type=float, default=20.0, help="straggler: the lateness")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    timeout = datetime.timedelta(seconds=300)
    dist.init_process_group("gloo", timeout=timeout)
    groups = {"gloo": None, "cclx": dist.new_group(backend="cclx", timeout=timeout)}
    groups["gloo"] = dist.group.WORLD
    {"busbw": busbw, "ddp": ddp, "straggler": straggler}[args.what](
        args, groups, dist.get_rank(), dist.get_world_size())
    dist.destroy_process_group()


main()
