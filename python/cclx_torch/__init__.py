"""cclx as a torch.distributed backend.

    import cclx_torch                      # under mpiexec: fills RANK, WORLD_SIZE, MASTER_ADDR, ...
    import torch.distributed as dist
    dist.init_process_group("cclx")        # every collective runs on cclx, algo::Auto choosing

Importing initializes MPI (MPI_THREAD_MULTIPLE) unless the program already did, registers the
backend "cclx" with torch.distributed, and - when the launcher did not set them - sets the
environment variables of torch's env:// rendezvous from MPI. That last step is collective over
MPI_COMM_WORLD: every rank imports cclx_torch. See docs/torch.md.
"""

import atexit
import os

import torch.distributed as dist

from . import _C

__all__ = ["explain_allreduce"]

_LAUNCH_KEYS = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                "MASTER_PORT")


def _fill_launch_environment():
    env = _C.launch_environment()  # collective: every rank calls it, whatever it keeps
    for key in _LAUNCH_KEYS:
        os.environ.setdefault(key, str(env[key]))


def _create(options, _pg_options):
    return _C.create(options.group_rank, options.group_size, options.timeout,
                     list(options.global_ranks_in_group), options.group_id)


def explain_allreduce(count, group=None):
    """What algo::Auto runs for a float32 allreduce of `count` elements on `group`, and why."""
    pg = group if group is not None else dist.distributed_c10d._get_default_group()
    return _C.explain_allreduce(pg, count)


_fill_launch_environment()
dist.Backend.register_backend("cclx", _create, extended_api=True)
atexit.register(_C.finalize)
