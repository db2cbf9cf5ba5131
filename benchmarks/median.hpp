// The median of a benchmark's repetitions (the mean of the middle two for an even count).
#pragma once

#include <algorithm>
#include <vector>

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
