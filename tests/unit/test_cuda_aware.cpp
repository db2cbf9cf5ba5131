// The CUDA-aware decision (device/cuda_aware.hpp): CCLX_CUDA_AWARE overrides the MPI's report.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "cclx/device/cuda_aware.hpp"
#include "cclx/error.hpp"

TEST_CASE("cuda-aware: the MPI's report decides unless CCLX_CUDA_AWARE says otherwise") {
  using cclx::device::decide_cuda_aware;
  CHECK(decide_cuda_aware(true, nullptr, 0));
  CHECK_FALSE(decide_cuda_aware(false, nullptr, 0));
  CHECK_FALSE(decide_cuda_aware(std::nullopt, nullptr, 0));  // no query: stage
  CHECK(decide_cuda_aware(std::nullopt, "1", 0));
  CHECK(decide_cuda_aware(false, "1", 0));
  CHECK_FALSE(decide_cuda_aware(true, "0", 0));
  try {
    (void)decide_cuda_aware(true, "yes", 3);
    FAIL("a bad CCLX_CUDA_AWARE must throw");
  } catch (const cclx::Error& e) {
    CHECK(e.rank() == 3);
    CHECK(std::string(e.what()).find("CCLX_CUDA_AWARE='yes': expected 0 or 1") !=
          std::string::npos);
  }
}
