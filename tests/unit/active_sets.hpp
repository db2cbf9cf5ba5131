// Active sets for the relay-plan tests (relay/schedules.hpp): the set of a bit mask, its printed
// form, and a reproducible sequence of sets for the sweeps beyond exhaustive sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cclx::test {

// active[r] = bit r of mask.
inline std::vector<bool> subset(int n, std::uint64_t mask) {
  std::vector<bool> a(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) a[static_cast<std::size_t>(r)] = (mask >> r) & 1;
  return a;
}

// "1101...": rank 0 first.
inline std::string show(const std::vector<bool>& a) {
  std::string s;
  for (bool b : a) s += b ? '1' : '0';
  return s;
}

// xorshift64*: the same numbers on every machine.
class Xorshift {
 public:
  explicit Xorshift(std::uint64_t seed) : x_(seed) {}
  std::uint64_t next() {
    x_ ^= x_ >> 12;
    x_ ^= x_ << 25;
    x_ ^= x_ >> 27;
    return x_ * 0x2545f4914f6cdd1dull;
  }
  // A rank in [0, n).
  int rank(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t x_;
};

// Sweep set k of n ranks, around a rank drawn from `rng`: k = 0 that rank alone active, k = 1
// all but that rank, else each rank active with probability 2/3 (that rank always when
// `keep_one` is set: for plans that need an active rank).
inline std::vector<bool> sweep_set(Xorshift& rng, int n, int k, bool keep_one = false) {
  const int only = rng.rank(n);
  std::vector<bool> a(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    a[static_cast<std::size_t>(r)] = k == 0 ? r == only
                                     : k == 1
                                         ? r != only
                                         : (rng.next() >> 40) % 3 != 0 || (keep_one && r == only);
  return a;
}

}  // namespace cclx::test
