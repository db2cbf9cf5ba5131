// The CUDA-aware decision (device/cuda_aware.hpp): CCLX_CUDA_AWARE overrides the MPI's report.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "cclx/device/cuda_aware.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"

TEST_CASE("cuda-aware: the MPI's report decides unless CCLX_CUDA_AWARE says otherwise") {
  using cclx::device::decide_cuda_aware;
  CHECK(decide_cuda_aware(true, std::nullopt));
  CHECK_FALSE(decide_cuda_aware(false, std::nullopt));
  CHECK_FALSE(decide_cuda_aware(std::nullopt, std::nullopt));  // no query: stage
  CHECK(decide_cuda_aware(std::nullopt, true));
  CHECK(decide_cuda_aware(false, true));
  CHECK_FALSE(decide_cuda_aware(true, false));
  try {
    (void)cclx::settings::parse(cclx::settings::Id::cuda_aware, "yes");
    FAIL("a bad CCLX_CUDA_AWARE must throw");
  } catch (const cclx::Error& e) {
    CHECK(std::string(e.what()).find("CCLX_CUDA_AWARE='yes': expected auto, 0 or 1") !=
          std::string::npos);
  }
}
