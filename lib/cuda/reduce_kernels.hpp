// The device reduction kernels (reduce_kernels.cu, the one nvcc translation unit): dst[i] =
// a[i] (op) b[i] for n elements, queued on `stream`, with the host engine's semantics
// (cclx/ops.hpp: builtin_reduce). dst may alias a or b exactly.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cclx/types.hpp"

namespace cclx::cuda_detail {

// Op codes as cclx::OpId (sum, prod, min, max, band, bor, bxor); kept apart from cclx/ops.hpp so
// that nvcc compiles as little as possible.
// Returns cudaErrorInvalidValue for a type/op the device does not support (long double, sum or
// prod on bool, bitwise ops on floating types, user ops), else the launch's error.
cudaError_t launch_reduce(DataType type, int op, void* dst, const void* a, const void* b,
                          std::size_t n, cudaStream_t stream);

// dst = src for `bytes` bytes where the ranges may overlap (cudaMemcpyAsync must not overlap).
cudaError_t launch_move(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

}  // namespace cclx::cuda_detail
