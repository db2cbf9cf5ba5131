#include "cclx/schedule/canonical_order.hpp"

#include <bit>

#include "cclx/error.hpp"

namespace cclx::sched {

int canonical_split(int lo, int hi) {
  if (hi - lo < 2)
    throw Error("canonical_split: [" + std::to_string(lo) + ", " + std::to_string(hi) +
                ") has fewer than two ranks");
  const auto size = static_cast<unsigned>(hi - lo);
  return lo + static_cast<int>(std::bit_floor(size - 1));
}

namespace {

void append(std::string& s, int lo, int hi, bool nested) {
  if (hi - lo == 1) {
    s += std::to_string(lo);
    return;
  }
  const int m = canonical_split(lo, hi);
  if (nested) s += '(';
  append(s, lo, m, true);
  s += '+';
  append(s, m, hi, true);
  if (nested) s += ')';
}

}  // namespace

std::string canonical_expression(int n) {
  if (n < 1) throw Error("canonical_expression: n must be >= 1, got " + std::to_string(n));
  std::string s;
  append(s, 0, n, false);
  return s;
}

}  // namespace cclx::sched
