// The median of a sample (the mean of the middle two for an even count): what cclx-bench reports
// over repetitions, what the profiler fits, what a pooled tuning table records.
#pragma once

#include <algorithm>
#include <vector>

namespace cclx::detail {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace cclx::detail
