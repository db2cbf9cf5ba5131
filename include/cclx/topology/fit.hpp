// Least-squares fit of the α-β model t(s) = α + β·s to timings, with Eigen.
//
// Errors are weighted by 1/t (relative error): small messages take microseconds and large ones
// milliseconds, and an unweighted fit would let the large ones decide α alone. A fit that would
// make α or β negative is redone with that parameter pinned to 0.
#pragma once

#include <cstddef>
#include <span>

namespace cclx::topo {

struct TimingSample {
  double bytes = 0;
  double seconds = 0;  // one-way time of one message of `bytes`
};

struct AlphaBetaFit {
  double alpha = 0;         // seconds
  double beta = 0;          // seconds per byte
  double rms_residual = 0;  // seconds, sqrt(mean((t - fit)^2))
  double rel_residual = 0;  // sqrt(mean(((t - fit) / t)^2))
  std::size_t samples = 0;
  [[nodiscard]] double bandwidth() const { return beta > 0 ? 1.0 / beta : 0.0; }
};

// Needs at least two distinct sizes and positive times; throws cclx::Error otherwise.
[[nodiscard]] AlphaBetaFit fit_alpha_beta(std::span<const TimingSample> samples);

}  // namespace cclx::topo
