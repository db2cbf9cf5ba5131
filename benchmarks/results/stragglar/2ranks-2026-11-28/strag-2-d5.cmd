# 2026-11-28 22:47:05 UTC, load 1.67 3.52 3.61, cclx commit d6f6730 (build/, Release)
$ mpiexec -n 2 build/benchmarks/cclx-bench allreduce -m 1M:256M --algos native,ring,rhd,stragglar,straggler_aware --straggler 1 --delay-ms 5 --repeat 3 --target-ms 100 --json
