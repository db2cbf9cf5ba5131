// The engine's local ops (a schedule's copies and reductions) on memory the host cannot touch
// directly, e.g. a GPU's: a device transport supplies them (Transport::local_ops()). They may be
// asynchronous (queued on a stream) as long as the transport's channel orders its transfers after
// them (a send reads what they wrote, a receive may overwrite what they read).
#pragma once

#include <cstddef>

#include "cclx/ops.hpp"

namespace cclx::engine {

/// The engine's copies and reductions on memory the host cannot touch directly (device memory).
class LocalOps {
 public:
  virtual ~LocalOps() = default;
  /// Like memmove: dst and src may overlap.
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  /// dst[i] = a[i] (op) b[i] for n elements of kernel.type with kernel.op; dst may alias a or b.
  virtual void reduce(const ReduceKernel& kernel, void* dst, const void* a, const void* b,
                      std::size_t n) = 0;
};

}  // namespace cclx::engine
