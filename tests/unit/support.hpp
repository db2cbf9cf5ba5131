// What the unit tests share: substring checks, the message of a cclx::Error, a verifier
// report's errors, and the integer logarithms that step counts are stated in.
#pragma once

#include <string>

#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"

namespace cclx::test {

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The message of the cclx::Error that f() throws; empty when it throws none.
std::string error_of(auto&& f) {
  try {
    f();
  } catch (const cclx::Error& e) {
    return e.what();
  }
  return "";
}

// A verifier report's errors, one per line (for INFO and failure messages).
inline std::string all_errors(const cclx::sched::VerifyReport& rep) {
  std::string s;
  for (const auto& e : rep.errors) s += e + "\n";
  return s;
}

// Smallest k with 2^k >= n, and largest k with 2^k <= n (n >= 1).
inline int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}
inline int floor_log2(int n) {
  int k = 0;
  while ((2 << k) <= n) ++k;
  return k;
}

}  // namespace cclx::test
