// Least-squares fit of the α-β model t(s) = α + β·s to timings, with Eigen.
//
// Errors are weighted by 1/t (relative error): small messages take microseconds and large ones
// milliseconds, and an unweighted fit would let the large ones decide α alone. A fit that would
// make α or β negative is redone with that parameter pinned to 0.
#pragma once

#include <cstddef>
#include <span>

namespace cclx::topo {

/// One measured transfer: its size and time.
struct TimingSample {
  double bytes = 0;    ///< message size in bytes (>= 0)
  double seconds = 0;  ///< one-way time of one message of `bytes`
};

/// The α-β model t(s) = α + β·s fitted to timing samples.
struct AlphaBetaFit {
  double alpha = 0;         ///< seconds
  double beta = 0;          ///< seconds per byte
  double rms_residual = 0;  ///< seconds, sqrt(mean((t - fit)^2))
  double rel_residual = 0;  ///< sqrt(mean(((t - fit) / t)^2))
  std::size_t samples = 0;  ///< how many samples the residuals are over
  /// 1 / beta in bytes per second; 0 when beta is 0 (no bandwidth limit was measured).
  [[nodiscard]] double bandwidth() const { return beta > 0 ? 1.0 / beta : 0.0; }
};

/// Needs at least two distinct sizes and positive times; throws cclx::Error otherwise.
[[nodiscard]] AlphaBetaFit fit_alpha_beta(std::span<const TimingSample> samples);

/// For links that are not linear over the probed sizes (a token-bucket shaper lets small messages
/// through at line rate; an MPI switches protocol at some size): β from the two largest sizes (the
/// slope between their median times, what large transfers see), α from the smallest size's median
/// time minus β times its size; both at least 0. Residuals are over all samples, as above. Same
/// input requirements as fit_alpha_beta.
[[nodiscard]] AlphaBetaFit fit_alpha_beta_anchored(std::span<const TimingSample> samples);

/// fit_alpha_beta, unless its line misses the median time of the largest size by more than
/// `tolerance` (relative), in which case fit_alpha_beta_anchored: the profiler's choice.
[[nodiscard]] AlphaBetaFit fit_link(std::span<const TimingSample> samples, double tolerance = 0.1);

}  // namespace cclx::topo
