// expect: this algorithm does not serve this collective
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  cclx::algo::StragglerAware<> policy;
  comm.allreduce(v, cclx::sum, policy);  // fine
#ifdef CCLX_EXPECT_FAIL
  comm.reduce(v, cclx::sum, 0, policy);
#endif
}
