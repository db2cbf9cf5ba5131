// expect: algo::Adaptive is persistent only
#include <cclx/cclx.hpp>
#include <cclx/relay/adaptive.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<int> v(4);
  auto p = comm.reduce_init(v, cclx::sum, 0, cclx::algo::Adaptive{});  // fine
#ifdef CCLX_EXPECT_FAIL
  auto r = comm.ibcast(v, 0, cclx::algo::Adaptive{});
#endif
}
