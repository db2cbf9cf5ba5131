// expect: input and output element types differ
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> in(4), out(4);
  comm.allreduce(in, out, cclx::sum);  // fine
#ifdef CCLX_EXPECT_FAIL
  std::vector<double> wrong(4);
  comm.allreduce(in, wrong, cclx::sum);
#endif
}
