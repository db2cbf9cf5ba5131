"""A rank that never joins: every other rank's collective fails within the group's timeout with a
Python RuntimeError carrying cclx's message, which names the missing rank; nothing hangs.

    mpiexec -n 3 /usr/bin/python3 tests/torch/test_timeout.py

The last rank sleeps through the allreduce (3 s against a 1 s timeout). The others must raise
within the timeout plus the roll call's window and scheduling slack, naming that rank; the group
then refuses further calls with the same error, and the process ends normally.
"""

import datetime
import os
import sys
import time

import cclx_torch_path  # noqa: F401  (sys.path)
import cclx_torch  # noqa: F401  (registers "cclx")
import torch
import torch.distributed as dist

TIMEOUT_S = 1.0
# The rendezvous store gets a timeout of its own: env:// would connect with the group's 1 s, which
# rank 0's start-up (importing torch) can exceed on a loaded machine before the test even begins.
RANK, N = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), N, RANK == 0,
                      timeout=datetime.timedelta(seconds=60))
dist.init_process_group("cclx", store=store, rank=RANK, world_size=N,
                        timeout=datetime.timedelta(seconds=TIMEOUT_S))
LATE = N - 1


def fail(msg):
    print(f"rank {RANK}: {msg}", flush=True)
    sys.exit(1)


t = torch.ones(1 << 10)
dist.all_reduce(t)  # every rank joins this one
if RANK == LATE:
    time.sleep(3 * TIMEOUT_S)
    print(f"rank {RANK}: woke up", flush=True)
else:
    start = time.monotonic()
    try:
        dist.all_reduce(t)
        fail("the allreduce completed without the late rank")
    except RuntimeError as e:
        took = time.monotonic() - start
        text = str(e)
    if f"cclx: rank {RANK}: " not in text or f"missing: rank {LATE} (" not in text:
        fail(f"the error does not name rank {LATE} as missing: {text!r}")
    # the timeout, the roll call's window (at most half the timeout) and a loaded machine's slack
    if took > TIMEOUT_S + 0.5 * TIMEOUT_S + 5.0:
        fail(f"the error came after {took:.2f} s")
    try:
        dist.broadcast(t, src=0)
        fail("the failed group accepted another call")
    except RuntimeError as e:
        if f"missing: rank {LATE} (" not in str(e):
            fail(f"a later call fails with another error: {e}")
    print(f"rank {RANK}: timed out after {took:.2f} s: {text}", flush=True)
print(f"rank {RANK}: ok", flush=True)
