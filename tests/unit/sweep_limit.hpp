// How far the schedule sweeps go. They run the generators and the verifier over every rank count
// up to 64 (and samples beyond); under ASan that is most of the unit tests' time for no new code
// path, so the asan test preset sets CCLX_TEST_SWEEP_MAX_N=12 and the sweeps stop there (powers of
// two to 8, odd and even others; the release stage sweeps everything).
#pragma once

#include <climits>
#include <cstdlib>

namespace cclx::test {

// The largest rank count a sweep visits: CCLX_TEST_SWEEP_MAX_N, or no limit.
inline int sweep_max_n() {
  static const int limit = [] {
    const char* e = std::getenv("CCLX_TEST_SWEEP_MAX_N");
    const int v = e ? std::atoi(e) : 0;
    return v > 0 ? v : INT_MAX;
  }();
  return limit;
}

}  // namespace cclx::test
