// expect: persistent collectives on device buffers are not supported
#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <span>

void f(cclx::Communicator<cclx::CudaBackend>& comm, std::span<double> device_buf) {
  comm.bcast(device_buf, 0);  // fine (native)
#ifdef CCLX_EXPECT_FAIL
  cclx::PersistentRequest p = comm.bcast_init(device_buf, 0, cclx::algo::BinomialTree{});
#endif
}
