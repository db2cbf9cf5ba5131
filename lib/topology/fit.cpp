#include "cclx/topology/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "cclx/error.hpp"

namespace cclx::topo {

namespace {

void residuals(std::span<const TimingSample> samples, AlphaBetaFit& f) {
  double sq = 0, rel = 0;
  for (const auto& s : samples) {
    const double r = s.seconds - (f.alpha + f.beta * s.bytes);
    sq += r * r;
    rel += (r / s.seconds) * (r / s.seconds);
  }
  const auto m = static_cast<double>(samples.size());
  f.rms_residual = std::sqrt(sq / m);
  f.rel_residual = std::sqrt(rel / m);
  f.samples = samples.size();
}

// Median time per distinct size, by increasing size.
std::vector<std::pair<double, double>> medians_by_size(std::span<const TimingSample> samples) {
  std::map<double, std::vector<double>> by;
  for (const auto& s : samples) by[s.bytes].push_back(s.seconds);
  std::vector<std::pair<double, double>> out;
  for (auto& [bytes, ts] : by) {
    std::sort(ts.begin(), ts.end());
    const std::size_t n = ts.size();
    out.emplace_back(bytes, n % 2 ? ts[n / 2] : (ts[n / 2 - 1] + ts[n / 2]) / 2);
  }
  return out;
}

}  // namespace

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
  residuals(samples, f);
  return f;
}

AlphaBetaFit fit_alpha_beta_anchored(std::span<const TimingSample> samples) {
  (void)fit_alpha_beta(samples);  // the same input checks
  const auto med = medians_by_size(samples);
  const auto& [s_hi, t_hi] = med.back();
  const auto& [s_lo2, t_lo2] = med[med.size() - 2];
  AlphaBetaFit f;
  f.beta = std::max(0.0, (t_hi - t_lo2) / (s_hi - s_lo2));
  f.alpha = std::max(0.0, med.front().second - f.beta * med.front().first);
  residuals(samples, f);
  return f;
}

AlphaBetaFit fit_link(std::span<const TimingSample> samples, double tolerance) {
  const AlphaBetaFit f = fit_alpha_beta(samples);
  // A copy: binding a reference to back() of the temporary vector dangled (found by ASan).
  const auto [s_hi, t_hi] = medians_by_size(samples).back();
  if (std::abs(f.alpha + f.beta * s_hi - t_hi) <= tolerance * t_hi) return f;
  return fit_alpha_beta_anchored(samples);
}

}  // namespace cclx::topo
