#!/usr/bin/env python3
"""Checks `cclx-bench --osu` output line by line against OSU Micro-Benchmarks 7.4's printf formats
(c/util/osu_util_mpi.c: print_preamble, print_only_header, print_stats, print_stats_validate;
docs/osu.md), and that bad options fail with OSU's message.

usage: osu_format.py MPIEXEC NPROCS BENCH CORRUPT_LIB [MPIEXEC_FLAGS...]
CORRUPT_LIB: tests/bench/corrupt_allreduce.cpp built, preloaded to check that -c reports Fail.
"""
import re
import subprocess
import sys

MPIEXEC, N, BENCH, CORRUPT = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
FLAGS = sys.argv[5:]
OPENMPI = "openmpi" in MPIEXEC or "--oversubscribe" in FLAGS
FIELD_WIDTH = 20
TITLES = {"allreduce": "Allreduce", "reduce": "Reduce", "bcast": "Broadcast",
          "reduce_scatter": "Reduce_scatter", "allgather": "Allgather",
          "alltoall": "All-to-All Personalized Exchange", "gather": "Gather",
          "scatter": "Scatter", "barrier": "Barrier", "gatherv": "Gatherv",
          "scatterv": "Scatterv", "allgatherv": "Allgatherv",
          "alltoallv": "All-to-Allv Personalized Exchange"}
TYPE_BYTES = {"MPI_CHAR": 1, "MPI_INT": 4, "MPI_FLOAT": 4}
failures = []


def run(args, preload=None):
    env = [] if preload is None else \
        (["-x", f"LD_PRELOAD={preload}"] if OPENMPI else ["-genv", "LD_PRELOAD", preload])
    cmd = [MPIEXEC, *FLAGS, "-n", str(N), *env, BENCH, "--osu", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    return cmd, p


def fail(cmd, msg, out=""):
    failures.append(f"{' '.join(cmd)}: {msg}\n{out}")


def header(show_size, full, validate):
    h = "%-*s%*s" % (10, "# Size", FIELD_WIDTH, "Avg Latency(us)") if show_size \
        else "# Avg Latency(us)"
    if full:
        h += "%*s%*s%*s" % (FIELD_WIDTH, "Min Latency(us)", FIELD_WIDTH, "Max Latency(us)", 12,
                            "Iterations")
    if validate:
        h += "%*s" % (FIELD_WIDTH, "Validation")
    return h


def row(show_size, full, validate, size, avg, mn, mx, iters, status):
    r = "%-*d%*.*f" % (10, size, FIELD_WIDTH, 2, avg) if show_size else "%*.*f" % (17, 2, avg)
    if full:
        r += "%*.*f%*.*f%*d" % (FIELD_WIDTH, 2, mn, FIELD_WIDTH, 2, mx, 12, iters)
    if validate:
        r += "%*s" % (FIELD_WIDTH, status)
    return r


NUM = r"\s*(-?\d+\.\d\d)"


def parse_row(line, show_size, full, validate):
    """The fields of a data row, or None if the line is not one."""
    pat = (r"^(\d+)\s*" if show_size else r"^") + NUM
    if full:
        pat += NUM + NUM + r"\s*(\d+)"
    if validate:
        pat += r"\s*(Pass|Fail)"
    m = re.match(pat + "$", line)
    if not m:
        return None
    g = list(m.groups())
    size = int(g.pop(0)) if show_size else 0
    avg = float(g.pop(0))
    mn = float(g.pop(0)) if full else 0
    mx = float(g.pop(0)) if full else 0
    iters = int(g.pop(0)) if full else 0
    status = g.pop(0) if validate else ""
    return size, avg, mn, mx, iters, status


def check(coll, args, algo="native", full=False, validate=False, types=("MPI_CHAR",),
          sizes=(1, 1 << 20), iters=None):
    cmd, p = run([coll, *args])
    out = p.stdout
    if p.returncode != 0:
        return fail(cmd, f"exit status {p.returncode}: {p.stderr}", out)
    lines = out.split("\n")
    if lines[-1] != "":
        return fail(cmd, "output does not end with a newline", out)
    lines = lines[:-1]
    expect_title = f"# OSU MPI-CCLX-{algo} {TITLES[coll]} Latency Test v7.4"
    if lines[0] != "" or lines[1] != expect_title:
        return fail(cmd, f"preamble: want ['', {expect_title!r}], got {lines[:2]!r}", out)
    i = 2
    barrier = coll == "barrier"
    for t in ([None] if barrier else types):
        if not barrier:
            if lines[i] != f"# Datatype: {t}.":
                return fail(cmd, f"line {i}: want '# Datatype: {t}.', got {lines[i]!r}", out)
            i += 1
        want = header(not barrier, full, validate)
        if lines[i] != want:
            return fail(cmd, f"line {i}: header\nwant {want!r}\ngot  {lines[i]!r}", out)
        i += 1
        # The sizes OSU prints: powers of two from min to max with at least one element
        # (reduce_scatter here: at least one element per rank).
        per = TYPE_BYTES.get(t, 1) * (N if coll == "reduce_scatter" else 1)
        want_sizes = [0] if barrier else \
            [s for s in (sizes[0] << k for k in range(64)) if s <= sizes[1] and s >= per]
        for s in want_sizes:
            f = parse_row(lines[i], not barrier, full, validate) if i < len(lines) else None
            if f is None:
                return fail(cmd, f"line {i}: not a data row: {lines[i] if i < len(lines) else 'EOF'!r}", out)
            if f[0] != s:
                return fail(cmd, f"line {i}: size {f[0]}, want {s}", out)
            # Byte-exact: the row re-printed with OSU's formats from its own values.
            if row(not barrier, full, validate, *f) != lines[i]:
                return fail(cmd, f"line {i}: widths differ from OSU's: {lines[i]!r}", out)
            if full and iters is not None and f[4] != iters:
                return fail(cmd, f"line {i}: iterations {f[4]}, want {iters}", out)
            if full and not (f[2] <= f[1] + 0.01 and f[1] <= f[3] + 0.01):
                return fail(cmd, f"line {i}: not min <= avg <= max", out)
            if validate and f[5] != "Pass":
                return fail(cmd, f"line {i}: validation {f[5]}", out)
            i += 1
    if i != len(lines):
        return fail(cmd, f"unexpected lines after the table: {lines[i:]!r}", out)


def check_bad(args, message):
    cmd, p = run(args)
    if p.returncode == 0 or message not in p.stderr:
        fail(cmd, f"want a failure naming {message!r}; status {p.returncode}, stderr {p.stderr!r}")


# Default columns; -f and -c; every type; -l; a cclx algorithm; the large-message iteration rule.
check("allreduce", ["-m", "1:64", "-i", "5", "-x", "1"], sizes=(1, 64))
check("allreduce", ["-m", "1:64", "-i", "5", "-x", "1", "-f", "-c", "-T", "all"], full=True,
      validate=True, types=("MPI_CHAR", "MPI_INT", "MPI_FLOAT"), sizes=(1, 64), iters=5)
check("allreduce", ["-m", "8:32", "-i", "4", "-x", "1", "-f", "-c", "-l", "-T", "mpi_float",
                    "--algo", "ring"], algo="ring", full=True, validate=True,
      types=("MPI_FLOAT",), sizes=(8, 32), iters=4)
check("reduce_scatter", ["-m", "4:64", "-i", "3", "-x", "0", "-c", "-T", "mpi_int", "--algo",
                         "ring"], algo="ring", validate=True, types=("MPI_INT",), sizes=(4, 64))
check("alltoall", ["-m", "2:16", "-i", "3", "-x", "0", "-c", "-f", "-l"], full=True, validate=True,
      sizes=(2, 16), iters=3)
check("gather", ["-m", "1:8", "-i", "3", "-x", "0", "-c", "--algo", "binomial_tree"],
      algo="binomial_tree", validate=True, sizes=(1, 8))
check("bcast", ["-m", "16384:16384", "-x", "0", "-f", "-c", "-T", "mpi_int"], full=True,
      validate=True, types=("MPI_INT",), sizes=(16384, 16384), iters=100)  # OSU: 100 above 8K
check("allgatherv", ["-m", "4:16", "-i", "3", "-x", "0", "-c", "-f", "-T", "mpi_int", "--algo",
                     "ring"], algo="ring", full=True, validate=True, types=("MPI_INT",),
      sizes=(4, 16), iters=3)
check("scatterv", ["-m", "1:4", "-i", "3", "-x", "0", "-c"], validate=True, sizes=(1, 4))
check("barrier", ["-i", "10", "-x", "2", "-f"], full=True, iters=10)

if N == 2:  # bad usage: OSU's messages ("message [-o arg]"), exit status 1
    check_bad(["allreduce", "-q"], "Invalid option [-q]")
    check_bad(["allreduce", "-m", "0:8"], "Invalid Message Size [-m 0:8]")
    check_bad(["allreduce", "-i", "0"], "Invalid Number of Iterations [-i 0]")
    check_bad(["allreduce", "-x", "-1"], "Invalid Number of Warmup Iterations [-x -1]")
    check_bad(["allreduce", "-T", "mpi_double"], "Invalid Data Type")
    check_bad(["allreduce", "-i"], "Option Missing Required Argument [-i]")
    check_bad(["bcast", "-l"], "Invalid option [-l]")
    check_bad(["bcast", "--algo", "ring"], "does not serve bcast")
    check_bad(["allreduce", "--algo", "nonesuch"], "unknown algorithm")
    check_bad(["allreducee"], "Unknown collective 'allreducee'")
    check_bad(["allreduce", "--full"], "Invalid option --full")

# -c really validates: with MPI_Allreduce made wrong on rank 1, the first row fails, the run stops
# there and ends as OSU's does (the DATA VALIDATION ERROR line, exit status 1).
cmd, p = run(["allreduce", "-m", "4:16", "-i", "2", "-x", "0", "-c", "-T", "mpi_float"], CORRUPT)
want_tail = ["# Size         Avg Latency(us)          Validation"]
lines = p.stdout.split("\n")
if p.returncode != 1 or len(lines) != 7 or not re.match(r"^4 {9}\s*\d+\.\d\d {16}Fail$", lines[4]) \
        or lines[3] != want_tail[0] \
        or not lines[5].startswith("DATA VALIDATION ERROR: ") \
        or not lines[5].endswith(" exited with status 1 on message size 4."):
    fail(cmd, f"want one Fail row and OSU's validation error; status {p.returncode}", p.stdout)

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print(f"cclx-bench --osu output matches OSU 7.4's formats at {N} ranks")
