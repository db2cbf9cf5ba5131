// The native margin: native MPI is algo::Auto's safe default, so a measured advantage of another
// candidate counts only when it is clear. A tuning table or the online tuner may choose a
// non-native candidate over native only when (1) its time is at least `margin` (3%) below
// native's, and (2) where both have recorded repetitions, it was faster than native in every
// repetition pair (cclx-bench runs repetition r of every candidate in the same round). Giving up a
// win under 3% costs at most 3% against the best candidate, within the 0.97x goal; a "win" that
// one repetition contradicts is noise on this kind of machine. docs/tuning.md, "Native margin".
#pragma once

#include <span>
#include <string>

namespace cclx::tune {

inline constexpr double kNativeMargin = 0.03;

// Empty when `candidate_us` (with its repetitions) clearly beats `native_us` under the rule above;
// otherwise why not, for explanations ("2.1% faster, under the 3% margin").
[[nodiscard]] std::string unclear_win(double candidate_us, std::span<const double> candidate_reps,
                                      double native_us, std::span<const double> native_reps,
                                      double margin = kNativeMargin);

}  // namespace cclx::tune
