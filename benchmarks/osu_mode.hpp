// cclx-bench --osu: the output, options and method of OSU Micro-Benchmarks 7.4's blocking
// collective latency tests (docs/osu.md), so that scripts that parse OSU's output read cclx's.
#pragma once

namespace cclx_bench::osu {

// Whether argv asks for OSU mode (an argument "--osu").
[[nodiscard]] bool requested(int argc, char** argv);

// Runs OSU mode on MPI_COMM_WORLD (MPI is initialised and finalised by the caller); returns the
// process exit status (0, or 1 for bad usage or failed validation, as OSU's programs do).
int run(int argc, char** argv);

}  // namespace cclx_bench::osu
