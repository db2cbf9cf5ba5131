// expect: this algorithm does not serve this collective
#include <cclx/cclx.hpp>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  comm.bcast(v, 0, cclx::algo::BinomialTree{});  // fine
#ifdef CCLX_EXPECT_FAIL
  comm.bcast(v, 0, cclx::algo::Ring{});
#endif
}
