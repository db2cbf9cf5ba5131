#!/usr/bin/env python3
"""ctest check of cclx-trainer (examples/trainer, docs/trainer.md) at one N: a few iterations with
native and ring in persistent and nonblocking mode. The ranks' parameter hashes must agree (the
trainer checks it and prints the hash), the loss must decrease, ring must give bit-identical
losses and parameters in both modes (same algorithm, same reduction order), and native and ring
must agree to reduction-order tolerance. Also: a rank made to diverge is caught by the hash
check; straggler_aware asked for persistent runs blocking
and says so; adaptive (relay collectives) with a late rank agrees with native and runs persistent;
on 3 ranks on 2 emulated hosts (CCLX_HOSTS) Auto picks a hierarchical schedule for every bucket;
--reproducible gives bitwise identical losses and parameters across algorithms and modes, and
refuses ring from 3 ranks on; a bad option fails with exit code 2.

usage: check_trainer.py MPIEXEC N TRAINER [MPIEXEC_FLAGS...]"""
import csv
import os
import re
import subprocess
import sys
import tempfile

MPIEXEC, N, TRAINER, FLAGS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
COMMON = ["--iters", "15", "--batch", "32", "--hidden", "128", "--buckets", "4K", "--lr", "0.3"]
TOLERANCE = 1e-4  # relative; float reduction order changes the last bits of the gradients
failures = []


def run(*args, expect_rc=0, env=None):
    cmd = [MPIEXEC, *FLAGS, "-n", N, TRAINER, *COMMON, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=90,
                       env=None if env is None else {**os.environ, **env})
    if p.returncode != expect_rc:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit code {p.returncode}, expected {expect_rc}\n"
                 f"{p.stdout}{p.stderr}")
    return p


def train(algo, mode, tmp, *extra, env=None):
    path = os.path.join(tmp, f"{algo}-{mode}.csv")
    p = run("--algo", algo, "--mode", mode, "--csv", path, "--check-every", "5", *extra, env=env)
    m = re.search(r"parameters identical on all (\d+) ranks: hash ([0-9a-f]{16})", p.stdout)
    if not m or m.group(1) != N:
        sys.exit(f"FAIL: {algo} {mode}: no parameter-hash line for {N} ranks\n{p.stdout}")
    with open(path) as f:
        losses = [float(r["loss"]) for r in csv.DictReader(f)]
    print(f"{algo:>8} {mode:<11} hash {m.group(2)} loss {losses[0]:.6f} -> {losses[-1]:.6f}")
    return losses, m.group(2)


with tempfile.TemporaryDirectory() as tmp:
    runs = {(a, m): train(a, m, tmp) for a in ("native", "ring") for m in ("persistent", "nonblocking")}
    for (a, m), (losses, _) in runs.items():
        head, tail = sum(losses[:3]) / 3, sum(losses[-3:]) / 3
        if not tail < 0.95 * head:
            failures.append(f"{a} {m}: loss did not decrease ({head:.6f} -> {tail:.6f})")
    if runs["ring", "persistent"] != runs["ring", "nonblocking"]:
        failures.append("ring persistent and nonblocking differ (same algorithm: must be exact)")
    for m in ("persistent", "nonblocking"):
        for i, (x, y) in enumerate(zip(runs["native", m][0], runs["ring", m][0])):
            if abs(x - y) > TOLERANCE * abs(x):
                failures.append(f"{m}: native and ring losses differ at iteration {i + 1}: {x} vs {y}")
                break

    # algo::Auto (the model's choice per bucket): agrees with native within the tolerance.
    auto_losses, _ = train("auto", "persistent", tmp)
    for i, (x, y) in enumerate(zip(runs["native", "persistent"][0], auto_losses)):
        if abs(x - y) > TOLERANCE * abs(x):
            failures.append(f"native and auto losses differ at iteration {i + 1}: {x} vs {y}")
            break

    # On emulated hosts (CCLX_HOSTS) Auto's model prices the hierarchical schedules on the host
    # map and picks one for every bucket: no code change; the same losses as native.
    if int(N) == 3:
        path = os.path.join(tmp, "auto-hosts.csv")
        p = run("--algo", "auto", "--csv", path,
                env={"CCLX_HOSTS": "0,1,0", "CCLX_LOG": "tune"})
        choices = re.findall(r"cclx tune: allreduce \d+ bytes.*?: (\w+) from model", p.stderr)
        if not choices or not all(c.startswith(("multilane_", "leader_")) for c in choices):
            failures.append("auto on 2 emulated hosts chose no hierarchical schedule: " +
                            ", ".join(choices) + "\n" + p.stderr)
        print(f"    auto on hosts 0,1,0 chose: {', '.join(sorted(set(choices)))}")
        with open(path) as f:
            hosts_losses = [float(r["loss"]) for r in csv.DictReader(f)]
        for i, (x, y) in enumerate(zip(runs["native", "persistent"][0], hosts_losses)):
            if abs(x - y) > TOLERANCE * abs(x):
                failures.append(f"native and auto on hosts differ at iteration {i + 1}: {x} vs {y}")
                break

    # algo::Adaptive (relay collectives, persistent only) with a late rank: the result is still
    # the full sum (same losses as native within the tolerance, parameters identical).
    p = run("--algo", "adaptive", "--mode", "nonblocking", "--iters", "3")
    if "mode persistent (asked for nonblocking: relay collectives" not in p.stdout:
        failures.append("adaptive --mode nonblocking did not say it runs persistent:\n" + p.stdout)
    if int(N) > 1:
        adaptive_losses, _ = train("adaptive", "persistent", tmp, "--straggler-rank",
                                   str(int(N) - 1), "--straggler-ms", "3")
        for i, (x, y) in enumerate(zip(runs["native", "persistent"][0], adaptive_losses)):
            if abs(x - y) > TOLERANCE * abs(x):
                failures.append(f"native and adaptive losses differ at iteration {i + 1}: {x} vs {y}")
                break

    # --reproducible: losses and parameters bitwise identical whatever the algorithm and mode;
    # an algorithm that keeps no order is refused by name.
    same = {}
    for algo, mode in (("canonical_halving", "persistent"), ("canonical_halving", "blocking"),
                       ("binomial_tree", "nonblocking"), ("auto", "persistent"),
                       ("canonical_halving(segment_bytes=1K)", "nonblocking")):
        same[algo, mode] = train(algo, mode, tmp, "--reproducible")
    # Auto tuning online (blocking calls are timed): whatever it tries, the same bits.
    same["auto online", "blocking"] = train("auto", "blocking", tmp, "--reproducible",
                                            env={"CCLX_TUNE": "online"})
    if len(set((tuple(l), h) for l, h in same.values())) != 1:
        failures.append("--reproducible runs differ: " +
                        ", ".join(f"{a} {m}: {h}" for (a, m), (_, h) in same.items()))
    if int(N) > 2:
        p = run("--algo", "ring", "--reproducible", "--iters", "2", expect_rc=1)
        if "'ring' does not combine in the canonical order" not in p.stderr:
            failures.append("ring under --reproducible was not refused:\n" + p.stderr)
    else:  # one or two contributions combine alike in every algorithm: ring serves, same bits
        if train("ring", "persistent", tmp, "--reproducible") != next(iter(same.values())):
            failures.append(f"ring under --reproducible on {N} ranks differs from the others")

    p = run("--algo", "straggler_aware", "--mode", "persistent", "--iters", "3")
    if "mode blocking (asked for persistent" not in p.stdout:
        failures.append("straggler_aware --mode persistent did not say it runs blocking:\n" + p.stdout)
    if int(N) > 1:  # one rank cannot disagree with itself
        p = run("--algo", "ring", "--diverge-rank", str(int(N) - 1), "--check-every", "2", expect_rc=1)
        if "parameters differ across ranks after iteration 2" not in p.stderr:
            failures.append("a diverged rank was not reported:\n" + p.stderr)
    p = run("--algo", "ring", "--mode", "sometimes", expect_rc=2)
    if "--mode" not in p.stderr:
        failures.append("a bad --mode did not name the option:\n" + p.stderr)
    p = run("--straggler-rank", N, "--straggler-ms", "1", expect_rc=1)
    if f"there are only {N} ranks" not in p.stderr:
        failures.append("an out-of-range --straggler-rank was not refused:\n" + p.stderr)
    p = run("--algo", "no_such_algorithm", expect_rc=1)
    if "no_such_algorithm" not in p.stderr:
        failures.append("an unknown --algo was not named:\n" + p.stderr)

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
