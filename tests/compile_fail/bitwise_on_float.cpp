// expect: this op is not defined for this element type
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  comm.allreduce(v, cclx::sum);  // fine
#ifdef CCLX_EXPECT_FAIL
  comm.allreduce(v, cclx::bxor);
#endif
}
