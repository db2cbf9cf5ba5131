"""Every torch.distributed operation on backend "cclx" against a reference computed locally.

    mpiexec -n 3 /usr/bin/python3 tests/torch/test_ops.py

Each rank's input is a function of its rank, so every rank computes every rank's input and the
expected result itself; integer results must be equal, floating ones within reduction tolerance
(the reference reduces in rank order, cclx's algorithm in its own). Exits 1 on the first failure,
naming the operation, dtype and op.
"""

import datetime
import warnings
import functools
import operator
import sys

import cclx_torch_path  # noqa: F401  (sys.path)
import cclx_torch
import torch
import torch.distributed as dist

warnings.filterwarnings("ignore", message=".*will be deprecated")
dist.init_process_group("cclx", timeout=datetime.timedelta(seconds=60))
RANK, N = dist.get_rank(), dist.get_world_size()
R = dist.ReduceOp

INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
ALL = FLOATS + INTS + [torch.bool, torch.complex64, torch.complex128]


def data(rank, dtype, count=37, salt=0):
    """Rank `rank`'s input: small values, so that sums and products stay exact in every dtype."""
    g = torch.Generator().manual_seed(1000 * rank + 17 * count + salt)
    if dtype == torch.bool:
        return torch.randint(0, 2, (count,), generator=g).bool()
    if dtype.is_complex:
        real = torch.randint(-3, 4, (count, 2), generator=g).to(torch.float64)
        return torch.view_as_complex(real).to(dtype)
    low = 0 if dtype == torch.uint8 else -3
    return torch.randint(low, 4, (count,), generator=g).to(dtype)


def combine(op, a, b):
    if op in (R.SUM, R.AVG):
        return torch.logical_or(a, b) if a.dtype == torch.bool else a + b
    if op == R.PRODUCT:
        return torch.logical_and(a, b) if a.dtype == torch.bool else a * b
    if op == R.MIN:
        return torch.minimum(a, b)
    if op == R.MAX:
        return torch.maximum(a, b)
    if op == R.BAND:
        return a & b
    if op == R.BOR:
        return a | b
    return a ^ b


def reference(op, inputs):
    out = functools.reduce(lambda a, b: combine(op, a, b), inputs)
    return out / len(inputs) if op == R.AVG else out


def check(name, got, want):
    exact = not (got.is_floating_point() or got.is_complex())
    ok = torch.equal(got, want) if exact else torch.allclose(got, want, rtol=1e-2, atol=1e-2)
    if not ok:
        print(f"rank {RANK}: {name}: got {got.tolist()}, want {want.tolist()}", flush=True)
        sys.exit(1)


def ops_for(dtype):
    if dtype == torch.bool:
        return [R.SUM, R.PRODUCT, R.MIN, R.MAX, R.BAND, R.BOR, R.BXOR]
    if dtype.is_complex:
        return [R.SUM, R.AVG]
    if dtype.is_floating_point:
        return [R.SUM, R.AVG, R.PRODUCT, R.MIN, R.MAX]
    return [R.SUM, R.PRODUCT, R.MIN, R.MAX, R.BAND, R.BOR, R.BXOR]


def test_all_reduce():
    for dtype in ALL:
        for op in ops_for(dtype):
            t = data(RANK, dtype)
            dist.all_reduce(t, op=op)
            check(f"all_reduce {dtype} {op}", t, reference(op, [data(r, dtype) for r in range(N)]))
    # non-contiguous: every other element of a larger tensor
    base = torch.zeros(37, 2, dtype=torch.int32)
    base[:, 0] = data(RANK, torch.int32)
    view = base[:, 0]
    assert not view.is_contiguous()
    dist.all_reduce(view)
    check("all_reduce non-contiguous", base[:, 0], reference(R.SUM, [data(r, torch.int32) for r in range(N)]))
    check("all_reduce non-contiguous leaves the rest", base[:, 1], torch.zeros(37, dtype=torch.int32))
    # async, the future, and sizes from empty to a few MiB
    for count in (0, 1, 1000, 1 << 20):
        t = data(RANK, torch.int64, count)
        fut = dist.all_reduce(t, async_op=True).get_future()
        got = fut.wait()[0]
        check(f"all_reduce future count={count}", got,
              reference(R.SUM, [data(r, torch.int64, count) for r in range(N)]))


def test_all_reduce_coalesced():
    ts = [data(RANK, torch.float64, c, salt=c) for c in (3, 10, 1)]
    dist.all_reduce_coalesced(ts, op=R.MAX)
    for t, c in zip(ts, (3, 10, 1)):
        check("all_reduce_coalesced", t, reference(R.MAX, [data(r, torch.float64, c, salt=c) for r in range(N)]))


def test_broadcast_and_reduce():
    for root in range(N):
        for dtype in ALL:
            t = data(RANK, dtype)
            dist.broadcast(t, src=root)
            check(f"broadcast root={root} {dtype}", t, data(root, dtype))
        for op in (R.SUM, R.MAX, R.BXOR):
            t = data(RANK, torch.int16)
            dist.reduce(t, dst=root, op=op)
            if RANK == root:
                check(f"reduce root={root} {op}", t, reference(op, [data(r, torch.int16) for r in range(N)]))
            else:
                check(f"reduce root={root} leaves non-roots' input", t, data(RANK, torch.int16))


def test_all_gather():
    for dtype in (torch.float32, torch.int64, torch.bool, torch.complex64, torch.bfloat16):
        out = [torch.empty(37, dtype=dtype) for _ in range(N)]
        dist.all_gather(out, data(RANK, dtype))
        for r in range(N):
            check(f"all_gather {dtype} block {r}", out[r], data(r, dtype))
    flat = torch.empty(N * 37, dtype=torch.int32)
    dist.all_gather_into_tensor(flat, data(RANK, torch.int32))
    check("all_gather_into_tensor", flat, torch.cat([data(r, torch.int32) for r in range(N)]))
    ins = [data(RANK, torch.int32, 5), data(RANK, torch.int32, 3, salt=1)]
    outs = [[torch.empty(5, dtype=torch.int32), torch.empty(3, dtype=torch.int32)] for _ in range(N)]
    dist.all_gather_coalesced(outs, ins)
    for r in range(N):
        check(f"all_gather_coalesced block {r}", outs[r][0], data(r, torch.int32, 5))
        check(f"all_gather_coalesced block {r}", outs[r][1], data(r, torch.int32, 3, salt=1))


def test_gather_scatter():
    for root in range(N):
        out = [torch.empty(37, dtype=torch.int64) for _ in range(N)] if RANK == root else None
        dist.gather(data(RANK, torch.int64), out, dst=root)
        if RANK == root:
            for r in range(N):
                check(f"gather root={root} block {r}", out[r], data(r, torch.int64))
        got = torch.empty(37, dtype=torch.float32)
        blocks = [data(r, torch.float32, salt=root) for r in range(N)] if RANK == root else None
        dist.scatter(got, blocks, src=root)
        check(f"scatter root={root}", got, data(RANK, torch.float32, salt=root))


def test_reduce_scatter():
    for op in (R.SUM, R.MIN, R.BOR):
        ins = [data(RANK, torch.int32, 11, salt=b) for b in range(N)]
        out = torch.empty(11, dtype=torch.int32)
        dist.reduce_scatter(out, ins, op=op)
        check(f"reduce_scatter {op}", out, reference(op, [data(r, torch.int32, 11, salt=RANK) for r in range(N)]))
    # unequal blocks: block b has b + 2 elements
    ins = [data(RANK, torch.int64, b + 2, salt=b) for b in range(N)]
    out = torch.empty(RANK + 2, dtype=torch.int64)
    dist.reduce_scatter(out, ins)
    check("reduce_scatter unequal blocks", out,
          reference(R.SUM, [data(r, torch.int64, RANK + 2, salt=RANK) for r in range(N)]))
    full = [data(r, torch.float64, 4 * N) for r in range(N)]
    out = torch.empty(4, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, full[RANK], op=R.AVG)
    check("reduce_scatter_tensor AVG", out, reference(R.AVG, full)[4 * RANK:4 * RANK + 4])


def test_all_to_all():
    inp = torch.arange(N * 3, dtype=torch.int32) + 100 * RANK
    out = torch.empty(N * 3, dtype=torch.int32)
    dist.all_to_all_single(out, inp)
    want = torch.cat([torch.arange(RANK * 3, RANK * 3 + 3, dtype=torch.int32) + 100 * r for r in range(N)])
    check("all_to_all_single", out, want)
    # splits: rank r sends i + r + 1 rows of 2 columns to rank i
    send = [i + RANK + 1 for i in range(N)]
    recv = [RANK + r + 1 for r in range(N)]
    inp = torch.cat([torch.full((s, 2), 10 * RANK + i, dtype=torch.float64) for i, s in enumerate(send)])
    out = torch.empty(sum(recv), 2, dtype=torch.float64)
    dist.all_to_all_single(out, inp, output_split_sizes=recv, input_split_sizes=send)
    want = torch.cat([torch.full((s, 2), 10 * r + RANK, dtype=torch.float64) for r, s in enumerate(recv)])
    check("all_to_all_single with splits", out, want)
    outs = [torch.empty(r + 1, dtype=torch.int64) for r in range(N)]
    ins = [torch.full((RANK + 1,), 1000 * RANK + i, dtype=torch.int64) for i in range(N)]
    dist.all_to_all(outs, ins)
    for r in range(N):
        check(f"all_to_all block {r}", outs[r], torch.full((r + 1,), 1000 * r + RANK, dtype=torch.int64))


def test_point_to_point():
    right, left = (RANK + 1) % N, (RANK - 1) % N
    got = torch.empty(1000, dtype=torch.float32)
    reqs = [dist.isend(data(RANK, torch.float32, 1000), right, tag=7), dist.irecv(got, left, tag=7)]
    for r in reqs:
        r.wait()
    check("isend/irecv ring", got, data(left, torch.float32, 1000))
    if N > 1:
        if RANK == 0:
            seen = set()
            for _ in range(N - 1):
                t = torch.empty(1, dtype=torch.int64)
                src = dist.recv(t)  # from any rank
                check("recv from any rank", t, torch.tensor([src]))
                seen.add(src)
            assert seen == set(range(1, N)), seen
        else:
            dist.send(torch.tensor([RANK]), 0)
    dist.barrier()


def test_groups():
    ends = sorted({0, N - 1})
    g = dist.new_group(ends, backend="cclx")
    odd = dist.new_group([r for r in range(N) if r % 2], backend="cclx")
    if RANK in ends:
        t = torch.tensor([RANK + 1])
        dist.all_reduce(t, group=g)
        check("new_group([0, n-1]) all_reduce", t, torch.tensor([sum(r + 1 for r in ends)]))
    if RANK % 2:
        t = torch.tensor([RANK], dtype=torch.int32)
        dist.all_reduce(t, op=R.MAX, group=odd)
        check("new_group(odd) all_reduce", t, torch.tensor([max(r for r in range(N) if r % 2)], dtype=torch.int32))
    dist.barrier()


def test_errors():
    def expect(fn, text):
        try:
            fn()
        except RuntimeError as e:
            if text not in str(e) or f"cclx: rank {RANK}" not in str(e):
                print(f"rank {RANK}: error text {str(e)!r} lacks {text!r}", flush=True)
                sys.exit(1)
            return
        print(f"rank {RANK}: no error for {text!r}", flush=True)
        sys.exit(1)

    expect(lambda: dist.all_reduce(torch.ones(3), op=R.BAND), "ReduceOp.BAND on torch.float32 tensors")
    expect(lambda: dist.all_reduce(torch.ones(3, dtype=torch.int32), op=R.AVG), "AVG needs floating")
    expect(lambda: dist.all_reduce(torch.ones(3, dtype=torch.float16), op=R.BXOR), "16-bit floating tensors take")
    expect(lambda: dist.all_reduce(torch.ones(3).to_sparse()), "sparse tensors")
    expect(lambda: dist.all_to_all_single(torch.empty(N + 1), torch.empty(N + 1)), "multiple of the group size")
    dist.barrier()  # the group goes on after a refused call


for test in (test_all_reduce, test_all_reduce_coalesced, test_broadcast_and_reduce, test_all_gather,
             test_gather_scatter, test_reduce_scatter, test_all_to_all, test_point_to_point,
             test_groups, test_errors):
    test()
    if RANK == 0:
        print(f"{test.__name__}: ok", flush=True)
dist.destroy_process_group()
print(f"rank {RANK}: every operation ok", flush=True)
