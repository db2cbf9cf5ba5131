#include "cclx/tune/margin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cclx::tune {

std::size_t required_wins(std::size_t pairs) {
  // Upper tail of Binomial(pairs, 1/2), summed from k = pairs down: P(X >= k).
  double tail = 0;
  const double all = std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(pairs, 1000)));
  double choose = 1;  // C(pairs, k), starting at k = pairs
  for (std::size_t k = pairs; k > 0; --k) {
    tail += choose * all;
    if (tail > kSignTestLevel) return std::min(pairs, k + 1);
    choose = choose * static_cast<double>(k) / static_cast<double>(pairs - k + 1);
  }
  return pairs;
}

std::string unclear_win(double candidate_us, std::span<const double> candidate_reps,
                        double native_us, std::span<const double> native_reps, double margin) {
  char buf[96];
  if (candidate_us * (1 + margin) > native_us) {
    std::snprintf(buf, sizeof buf, "%.1f%% faster than native, under the %.0f%% margin",
                  100 * (native_us / candidate_us - 1), 100 * margin);
    return buf;
  }
  const std::size_t pairs = std::min(candidate_reps.size(), native_reps.size());
  std::size_t wins = 0, first_loss = 0;
  for (std::size_t r = 0; r < pairs; ++r) {
    if (candidate_reps[r] < native_reps[r])
      ++wins;
    else if (!first_loss)
      first_loss = r + 1;
  }
  const std::size_t need = required_wins(pairs);
  if (wins >= need) return {};
  if (need == pairs)
    std::snprintf(buf, sizeof buf, "not faster than native in repetition %zu of %zu", first_loss,
                  pairs);
  else
    std::snprintf(buf, sizeof buf, "faster than native in %zu of %zu repetitions, under %zu", wins,
                  pairs, need);
  return buf;
}

}  // namespace cclx::tune
