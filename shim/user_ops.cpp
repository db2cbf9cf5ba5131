#include "user_ops.hpp"

#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <vector>

namespace cclx::shim {

namespace {

struct Registry {
  std::shared_mutex mu;
  std::map<MPI_Op, UserOp> ops;
};

Registry& registry() {
  static Registry r;
  return r;
}

// inout[i] = in[i] (+) inout[i] for n elements, in chunks MPI's int length can express.
void apply(const UserOpContext& c, const std::byte* in, std::byte* inout, std::size_t n,
           std::size_t es) {
  MPI_Datatype t = c.type;
  while (n > 0) {
    const std::size_t k = n < static_cast<std::size_t>(INT_MAX) ? n : INT_MAX;
    int len = static_cast<int>(k);
    // MPI's signature takes a non-const invec; the function only reads it.
    c.op.fn(const_cast<std::byte*>(in), inout, &len, &t);
    in += k * es;
    inout += k * es;
    n -= k;
  }
}

thread_local std::vector<std::byte> staging;

void user_reduce(void* dst, const void* a, const void* b, std::size_t n, const void* ctx) {
  const auto& c = *static_cast<const UserOpContext*>(ctx);
  const std::size_t es = c.elem_size;
  const auto* x = static_cast<const std::byte*>(a);
  auto* d = static_cast<std::byte*>(dst);
  if (dst == b) {
    apply(c, x, d, n, es);
  } else if (dst != a) {
    std::memmove(d, b, n * es);
    apply(c, x, d, n, es);
  } else {  // dst aliases a, which the function reads: compute into staging, then copy
    staging.resize(n * es);
    std::memcpy(staging.data(), b, n * es);
    apply(c, x, staging.data(), n, es);
    std::memcpy(d, staging.data(), n * es);
  }
}

}  // namespace

void remember_user_op(MPI_Op op, MPI_User_function* fn, bool commutative) {
  Registry& r = registry();
  std::unique_lock lock(r.mu);
  r.ops[op] = {fn, commutative};
}

void forget_user_op(MPI_Op op) {
  Registry& r = registry();
  std::unique_lock lock(r.mu);
  r.ops.erase(op);
}

std::optional<UserOp> find_user_op(MPI_Op op) {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  const auto it = r.ops.find(op);
  if (it == r.ops.end()) return std::nullopt;
  return it->second;
}

ReduceKernel user_kernel(const UserOpContext& ctx) {
  ReduceKernel k;
  k.fn = &user_reduce;
  k.ctx = &ctx;
  k.elem_size = ctx.elem_size;
  k.op = OpId::user;
  k.commutative = ctx.op.commutative;
  return k;
}

}  // namespace cclx::shim
