// expect: adaptive policies \(StragglerAware\) cannot be persistent
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  cclx::algo::StragglerAware<> policy;
  comm.allreduce(v, cclx::sum, policy);  // fine
  auto p = comm.allreduce_init(v, cclx::sum, cclx::algo::Ring{});
#ifdef CCLX_EXPECT_FAIL
  auto q = comm.allreduce_init(v, cclx::sum, policy);
#endif
}
