# 2026-11-28 22:47:37 UTC, load 1.75 3.36 3.56, cclx commit d6f6730 (build/, Release)
$ mpiexec -n 2 build/benchmarks/cclx-bench allreduce -m 1M:256M --algos native,ring,rhd,stragglar,straggler_aware --straggler 1 --delay-ms 10 --repeat 3 --target-ms 100 --json
