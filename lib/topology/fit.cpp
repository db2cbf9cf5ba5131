#include "cclx/topology/fit.hpp"

#include <Eigen/Dense>
#include <cmath>

#include "cclx/error.hpp"

namespace cclx::topo {

AlphaBetaFit fit_alpha_beta(std::span<const TimingSample> samples) {
  const auto m = static_cast<Eigen::Index>(samples.size());
  bool distinct = false;
  for (const auto& s : samples) {
    if (!(s.seconds > 0) || !(s.bytes >= 0))
      throw Error("fit_alpha_beta: times must be positive and sizes non-negative");
    distinct = distinct || s.bytes != samples.front().bytes;
  }
  if (!distinct) throw Error("fit_alpha_beta: need samples of at least two message sizes");

  Eigen::MatrixXd a(m, 2);
  Eigen::VectorXd b(m);
  for (Eigen::Index i = 0; i < m; ++i) {
    const auto& s = samples[static_cast<std::size_t>(i)];
    const double w = 1.0 / s.seconds;
    a(i, 0) = w;
    a(i, 1) = w * s.bytes;
    b(i) = 1.0;  // w * t
  }
  Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  if (x(0) < 0) {  // α pinned to 0: one-column least squares for β
    const Eigen::VectorXd c = a.col(1);
    x = {0.0, c.dot(b) / c.dot(c)};
  } else if (x(1) < 0) {  // β pinned to 0: weighted mean of t
    const Eigen::VectorXd c = a.col(0);
    x = {c.dot(b) / c.dot(c), 0.0};
  }

  AlphaBetaFit f;
  f.alpha = x(0);
  f.beta = x(1);
  f.samples = samples.size();
  double sq = 0, rel = 0;
  for (const auto& s : samples) {
    const double r = s.seconds - (f.alpha + f.beta * s.bytes);
    sq += r * r;
    rel += (r / s.seconds) * (r / s.seconds);
  }
  f.rms_residual = std::sqrt(sq / static_cast<double>(m));
  f.rel_residual = std::sqrt(rel / static_cast<double>(m));
  return f;
}

}  // namespace cclx::topo
