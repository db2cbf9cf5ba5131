// expect: a nonblocking or persistent call uses its buffers after it returns
#include <cclx/cclx.hpp>
#include <span>
#include <vector>

void f(cclx::Communicator<>& comm) {
  std::vector<float> v(4);
  comm.iallreduce(v, cclx::sum).wait();             // fine: the vector outlives the request
  comm.iallreduce(std::span(v), cclx::sum).wait();  // fine: a view of it
#ifdef CCLX_EXPECT_FAIL
  auto p = comm.allreduce_init(std::vector<float>(4), cclx::sum);  // gone before any start()
#endif
}
