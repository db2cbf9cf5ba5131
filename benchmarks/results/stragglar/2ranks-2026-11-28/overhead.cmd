# 2026-11-28 22:50:05 UTC, load 1.63 2.69 3.27, cclx commit d6f6730 (build/, Release)
$ mpiexec -n 2 build/benchmarks/cclx-bench allreduce -m 1M:16M --algos native,ring,straggler_aware --repeat 9 --target-ms 200 --json
