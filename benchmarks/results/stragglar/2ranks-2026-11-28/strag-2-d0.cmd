# 2026-11-28 22:45:57 UTC, load 0.85 3.91 3.74, cclx commit d6f6730 (build/, Release)
$ mpiexec -n 2 build/benchmarks/cclx-bench allreduce -m 1M:256M --algos native,ring,rhd,stragglar,straggler_aware --straggler 1 --delay-ms 0 --repeat 3 --target-ms 100 --json
