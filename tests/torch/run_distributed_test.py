"""Runs torch's own distributed test suite (torch/testing/_internal/distributed/distributed_test.py,
the tests torch holds its Gloo, NCCL and MPI backends to) against backend "cclx", one test after
the other on every mpiexec rank:

    mpiexec -n 2 /usr/bin/python3 tests/torch/run_distributed_test.py [--filter SUBSTRING]
            [--tests A,B] [--timeout S] [--list FILE] [--verbose]

torch's harness spawns its own processes per test; here every rank of the MPI job runs each test
method in process, as the harness's child would (TestDistBackend._run): a fresh process group
through a file store in a directory of the test's own, the test, then the group destroyed. A test
skips as in torch (unittest.skipIf, unittest.SkipTest, or exiting with one of TEST_SKIPS's codes:
torch gates many tests to "gloo" and "nccl" by name, and every GPU test needs CUDA). The ranks'
verdicts are merged through the file system; rank 0 prints one line per test (passed, skipped with
the reason, FAILED with the error) and the counts, and the job fails if any test failed on any
rank.
"""

import argparse
import json
import os
import pathlib
import shutil
import sys
import time
import traceback
import unittest
from datetime import timedelta

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "stand_ins"))  # expecttest
import cclx_torch_path  # noqa: F401,E402  (sys.path)
import cclx_torch  # noqa: F401,E402  (registers "cclx"; MASTER_PORT, RANK, WORLD_SIZE from MPI)

RANK, N = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
os.environ["BACKEND"] = "cclx"
ROOT = pathlib.Path(f"/tmp/cclx-distributed-test-{os.environ['MASTER_PORT']}")  # one per job

import logging  # noqa: E402

import torch.distributed as dist  # noqa: E402
from torch.testing._internal.common_distributed import TEST_SKIPS, DistTestCases  # noqa: E402

# The suite gates features by backend name, at import: cclx declares the ones it has, as a backend
# registered with torch must ("plugin": it is one), so that their tests run instead of skipping.
DistTestCases.backend_feature["ddp"].add("cclx")
DistTestCases.backend_feature["plugin"].add("cclx")
from torch.testing._internal.distributed import distributed_test as dt  # noqa: E402

logging.getLogger("torch.distributed").setLevel(logging.WARNING)  # one line per test, not five
SKIP_REASONS = {s.exit_code: s.message for s in TEST_SKIPS.values()}


class Suite(dt.TestDistBackend, dt.DistributedTest._DistTestBase):
    pass


def file_barrier(directory, name, timeout):
    """Every rank creates its file, then waits for the others' (no process group needed)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.{RANK}").touch()
    deadline = time.monotonic() + timeout
    while sum(1 for r in range(N) if (directory / f"{name}.{r}").exists()) < N:
        if time.monotonic() > deadline:
            raise RuntimeError(f"file barrier {name}: not every rank arrived in {timeout} s")
        time.sleep(0.02)


def run(name, index, timeout):
    """One test on this rank: ("passed" | "skipped" | "failed", detail)."""
    method = getattr(Suite, name)
    if getattr(method, "__unittest_skip__", False):  # unittest.skipIf: the runner's to honor
        return "skipped", getattr(method, "__unittest_skip_why__", "")
    temp = ROOT / f"{index:03d}"
    for sub in ("barrier", "test_dir", "init_dir"):
        (temp / sub).mkdir(parents=True, exist_ok=True)
    os.environ["TEMP_DIR"] = str(temp)
    dt.Barrier.barrier_id = 0  # a fresh directory: no files to clear (clearing would race)
    test = Suite(name)
    test.rank = RANK
    test.file_name = str(temp / "init_dir" / "store")
    try:
        dist.init_process_group(init_method=test.init_method, backend="cclx", world_size=N,
                                rank=RANK, timeout=timedelta(seconds=timeout))
        try:
            test._barrier()
            getattr(test, name)()
            test._barrier()
        finally:
            dist.destroy_process_group()
        return "passed", ""
    except unittest.SkipTest as e:
        return "skipped", str(e)
    except SystemExit as e:
        if e.code in (0, None):
            return "passed", ""
        return ("skipped", SKIP_REASONS[e.code]) if e.code in SKIP_REASONS else \
            ("failed", f"exit code {e.code}")
    except Exception:  # noqa: BLE001 (every error is the test's verdict)
        return "failed", traceback.format_exc(limit=6).strip().splitlines()[-1]
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", default="", help="only tests whose name contains this")
    parser.add_argument("--tests", default="", help="only these tests (comma-separated names)")
    parser.add_argument("--timeout", type=float, default=60, help="each group's timeout (s)")
    parser.add_argument("--list", help="write rank 0's table here too")
    parser.add_argument("--verbose", action="store_true", help="each rank names each test it starts")
    args = parser.parse_args()
    names = sorted(n for n in dir(Suite) if n.startswith("test_") and args.filter in n)
    if args.tests:
        names = [n for n in names if n in args.tests.split(",")]
    verdicts = {}
    for i, name in enumerate(names):
        if args.verbose:
            print(f"rank {RANK}: {i} {name}", file=sys.stderr, flush=True)
        start = time.monotonic()
        verdict, detail = run(name, i, args.timeout)
        verdicts[name] = (verdict, detail, round(time.monotonic() - start, 2))
        file_barrier(ROOT / "done", str(i), 600)  # the ranks start each test together
    (ROOT / f"verdicts.{RANK}.json").write_text(json.dumps(verdicts))
    file_barrier(ROOT / "done", "all", 600)
    failed = 0
    if RANK == 0:
        every = [json.loads((ROOT / f"verdicts.{r}.json").read_text()) for r in range(N)]
        lines, counts = [], {"passed": 0, "skipped": 0, "failed": 0}
        for name in names:
            per_rank = [v[name] for v in every]
            kinds = {v[0] for v in per_rank}
            kind = "failed" if "failed" in kinds else ("skipped" if kinds == {"skipped"} else
                                                       "passed" if kinds == {"passed"} else "failed")
            detail = next((v[1] for v in per_rank if v[0] == kind and v[1]), "")
            if kind == "failed" and not detail:
                detail = f"ranks disagree: {[v[0] for v in per_rank]}"
            counts[kind] += 1
            lines.append(f"{kind:8} {name} ({max(v[2] for v in per_rank):.1f} s)"
                         + (f": {detail}" if detail else ""))
        summary = (f"torch distributed_test.py on backend cclx, {N} ranks: {counts['passed']} "
                   f"passed, {counts['skipped']} skipped, {counts['failed']} failed")
        print("\n".join(lines + [summary]), flush=True)
        if args.list:
            pathlib.Path(args.list).write_text("\n".join(lines + [summary]) + "\n")
        failed = counts["failed"]
    # Every rank is done with the files once a barrier passes (a file barrier cannot tell when
    # the last rank saw the others' files, so removing them would race).
    dist.init_process_group(init_method=f"file://{ROOT}/final-store", backend="cclx",
                            world_size=N, rank=RANK)
    dist.barrier()
    dist.destroy_process_group()
    if RANK == 0:
        shutil.rmtree(ROOT, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
