// expect: algo::Adaptive is persistent only
#include <cclx/cclx.hpp>
#include <cclx/relay/adaptive.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  auto p = comm.allreduce_init(v, cclx::sum, cclx::algo::Adaptive{});  // fine
#ifdef CCLX_EXPECT_FAIL
  comm.allreduce(v, cclx::sum, cclx::algo::Adaptive{});
#endif
}
