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

TEST_CASE("cuda-aware: ranks run one decision; a forced one that others cannot follow throws") {
  using cclx::device::combine_cuda_aware;
  constexpr int stage = 0, direct = 1, forced = 2;
  CHECK(combine_cuda_aware({direct}, 0));
  CHECK(combine_cuda_aware({direct, forced, direct}, 1));
  CHECK_FALSE(combine_cuda_aware({stage}, 0));
  CHECK_FALSE(combine_cuda_aware({stage, stage}, 0));
  // Reports that differ: every rank stages, which needs nothing of the MPI.
  CHECK_FALSE(combine_cuda_aware({direct, stage, direct}, 2));
  // CCLX_CUDA_AWARE=1 on ranks 0 and 3, staging on 1 and 2: the same error wherever it is thrown.
  for (int r = 0; r < 4; ++r) {
    try {
      (void)combine_cuda_aware({forced, stage, stage, forced}, r);
      FAIL("a forced direct rank beside staging ones must throw");
    } catch (const cclx::Error& e) {
      CHECK(e.rank() == r);
      CHECK(std::string(e.detail()) ==
            "CCLX_CUDA_AWARE=1 passes device memory to MPI on rank(s) 0, 3, while rank(s) 1, 2 "
            "stage it through host memory and cut each transfer into other messages: set "
            "CCLX_CUDA_AWARE alike on every rank");
    }
  }
}
