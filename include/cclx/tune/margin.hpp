// The native margin: native MPI is algo::Auto's safe default, so a measured advantage of another
// candidate counts only when it is clear. A tuning table or the online tuner may choose a
// non-native candidate over native only when (1) its time is at least `margin` (3%) below
// native's, and (2) where both have recorded repetitions, it was faster than native in enough
// repetition pairs (cclx-bench runs repetition r of every candidate in the same round) that two
// equally fast candidates would do so with probability at most 1/32: a one-sided sign test,
// which with up to 5 pairs means every pair. Giving up a win under 3% costs at most 3% against
// the best candidate, within the 0.97x goal; a "win" that the pairs do not bear out is noise on
// this kind of machine, or a property of one launch (tables pooled over launches: tune.sh -r).
// docs/tuning.md, "Native margin".
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace cclx::tune {

/// The fraction (3%) by which a candidate must beat native's time to replace it; the sign test
/// must agree too (required_wins()).
inline constexpr double kNativeMargin = 0.03;
/// The sign test's level: 1/32, every one of 5 pairs.
inline constexpr double kSignTestLevel = 1.0 / 32;

/// The fewest wins out of `pairs` repetition pairs that pass the sign test: the smallest k with
/// P(X >= k) <= kSignTestLevel for X ~ Binomial(pairs, 1/2), and never more than `pairs` (so 1
/// to 5 pairs need every pair; 9 need 8, 15 need 12).
[[nodiscard]] std::size_t required_wins(std::size_t pairs);

/// Empty when `candidate_us` (with its repetitions) clearly beats `native_us` under the rule above;
/// otherwise why not, for explanations ("2.1% faster, under the 3% margin").
[[nodiscard]] std::string unclear_win(double candidate_us, std::span<const double> candidate_reps,
                                      double native_us, std::span<const double> native_reps,
                                      double margin = kNativeMargin);

}  // namespace cclx::tune
