// expect: adaptive policies \(StragglerAware\) serve blocking calls only
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  cclx::algo::StragglerAware<> policy;
  comm.allreduce(v, cclx::sum, policy);  // fine
  comm.iallreduce(v, cclx::sum, cclx::algo::Ring{}).wait();
#ifdef CCLX_EXPECT_FAIL
  comm.iallreduce(v, cclx::sum, policy).wait();
#endif
}
