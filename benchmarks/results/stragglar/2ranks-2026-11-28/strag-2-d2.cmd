# 2026-11-28 22:46:32 UTC, load 1.46 3.68 3.67, cclx commit d6f6730 (build/, Release)
$ mpiexec -n 2 build/benchmarks/cclx-bench allreduce -m 1M:256M --algos native,ring,rhd,stragglar,straggler_aware --straggler 1 --delay-ms 2 --repeat 3 --target-ms 100 --json
