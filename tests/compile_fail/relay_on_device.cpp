// expect: relay collectives. does not serve device buffers
#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <cclx/relay/adaptive.hpp>
#include <span>

// The relay runtime (algo::Adaptive) moves host memory on its progress thread: no device buffers.
void f(cclx::Communicator<cclx::CudaBackend>& comm, std::span<float> device_buf) {
  cclx::PersistentRequest p = comm.allreduce_init(device_buf, cclx::sum);  // fine
#ifdef CCLX_EXPECT_FAIL
  cclx::PersistentRequest q = comm.allreduce_init(device_buf, cclx::sum, cclx::algo::Adaptive{});
#endif
}
