#include "cclx/tune/margin.hpp"

#include <algorithm>
#include <cstdio>

namespace cclx::tune {

std::string unclear_win(double candidate_us, std::span<const double> candidate_reps,
                        double native_us, std::span<const double> native_reps, double margin) {
  char buf[96];
  if (candidate_us * (1 + margin) > native_us) {
    std::snprintf(buf, sizeof buf, "%.1f%% faster than native, under the %.0f%% margin",
                  100 * (native_us / candidate_us - 1), 100 * margin);
    return buf;
  }
  const std::size_t pairs = std::min(candidate_reps.size(), native_reps.size());
  for (std::size_t r = 0; r < pairs; ++r)
    if (candidate_reps[r] >= native_reps[r]) {
      std::snprintf(buf, sizeof buf, "not faster than native in repetition %zu of %zu", r + 1,
                    pairs);
      return buf;
    }
  return {};
}

}  // namespace cclx::tune
