#!/usr/bin/env python3
"""The tuning suite end to end (benchmarks/tune.sh): measure two collectives at 2 ranks in two
launches each (-r 2), check the table it writes (every size, every candidate measured with the
repetitions of both launches pooled, times their medians, > 0), that a
second run resumes (skips both parts) and merges, that algo::Auto decides from the table
(cclx-tune explain names the table's fastest candidate that clearly beats native, else native:
the native margin of include/cclx/tune/margin.hpp), and that cclx-bench --algos auto with the
table gives native's result.

usage: tune_suite.py SOURCE_DIR BUILD_DIR LAUNCHER...
"""
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=150)
    if r.returncode != 0:
        sys.exit(f"FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout + r.stderr


def main():
    src, build, launcher = sys.argv[1], sys.argv[2], " ".join(sys.argv[3:])
    script = os.path.join(src, "benchmarks", "tune.sh")
    tune = os.path.join(build, "tools", "cclx-tune")
    bench = os.path.join(build, "benchmarks", "cclx-bench")
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "table.json")
        args = [script, "-o", table, "-n", "2", "-c", "allreduce,bcast", "-m", "8:64", "-b",
                build, "-l", launcher, "-a", "ring,recursive_doubling,binomial_tree", "-r", "2", "--",
                "-i", "5", "-x", "1", "--repeat", "2"]
        first = run(args)
        assert "[1/2] allreduce, 2 ranks, sizes 8:64" in first, first
        assert "[2/2] bcast, 2 ranks: launch 2 of 2" in first, first
        t = json.load(open(table))
        assert t["format"] == "cclx-tune-table" and t["machine"] and t["mpi"], t
        want = {"allreduce": {"native", "ring", "recursive_doubling", "binomial_tree"},
                "bcast": {"native", "binomial_tree"}}
        seen = {}
        for e in t["entries"]:
            assert e["nranks"] == 2, e
            got = set(e["times_us"])
            assert got == want[e["collective"]], (e, want)
            assert all(v > 0 for v in e["times_us"].values()), e
            assert set(e["reps_us"]) == got, e
            assert all(len(r) == 4 for r in e["reps_us"].values()), e  # 2 launches x 2
            for c, r in e["reps_us"].items():  # the pooled median
                s = sorted(r)
                assert abs(e["times_us"][c] - (s[1] + s[2]) / 2) < 1e-9 * s[2], (c, e)
            seen.setdefault(e["collective"], []).append(e["bytes"])
        assert seen == {"allreduce": [8, 16, 32, 64], "bcast": [8, 16, 32, 64]}, seen

        second = run(args)
        assert second.count("done before") == 2, second

        # Auto decides from the table: its fastest candidate at that size that beats native by
        # the 3% margin and in every repetition (the sign test's requirement for 4 pairs), else
        # native.
        e = next(e for e in t["entries"] if e["collective"] == "allreduce" and e["bytes"] == 32)
        times, reps = e["times_us"], e["reps_us"]

        def clear(c):
            return c == "native" or (times[c] * 1.03 <= times["native"] and all(
                a < b for a, b in zip(reps[c], reps["native"])))
        best = min((c for c in times if clear(c)), key=times.get)
        env = dict(os.environ, CCLX_TUNE_FILE=table)
        why = run([tune, "explain", "--collective", "allreduce", "--n", "2", "--bytes", "32"], env)
        assert why.startswith(best + " from tuning table"), (best, why)

        # And runs it: cclx-bench checks auto's result against native's before timing it.
        out = run(launcher.split() + ["-n", "2", bench, "allreduce", "-m", "8:64", "-i", "3",
                                      "--repeat", "1", "--algos", "auto", "-t", "int32"], env)
        rows = [line.split() for line in out.splitlines() if line and line[0].isdigit()]
        assert [r[0] for r in rows if r[5] == "auto"] == ["8", "16", "32", "64"], out
    print("tune suite: ok")


if __name__ == "__main__":
    main()
