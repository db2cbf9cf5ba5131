// expect: this algorithm does not serve this collective
#include <cclx/cclx.hpp>
#include <vector>

// A v-collective is served only by the algorithms that list it (the ring's pairwise shift serves
// alltoallv; the binomial tree does not).
void f(cclx::Communicator<>& comm) {
  std::vector<float> in(3), out(3);
  std::vector<int> counts{1, 1, 1};
  comm.alltoallv(in, counts, out, counts, cclx::algo::Ring{});  // fine
#ifdef CCLX_EXPECT_FAIL
  comm.alltoallv(in, counts, out, counts, cclx::algo::BinomialTree{});
#endif
}
