// torch's element types and reduce ops mapped onto cclx's: which cclx element type and op serve a
// (dtype, ReduceOp) pair. Data movement needs no element type (it moves bytes); reductions do.
//
//   float32/64, int8..int64, uint8   cclx's built-in ops
//   bool                             SUM is logical or, PRODUCT logical and (as NCCL maps them)
//   float16, bfloat16                user ops on the 16-bit patterns: each combination is done in
//                                    float and rounded once to the 16-bit type, as Gloo does
//   complex64/128                    viewed as pairs of reals (SUM and AVG only)
//   AVG                              SUM, then a division by the group size (floating types only)
#pragma once

#include <ATen/ATen.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <string>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <type_traits>

#include "cclx/error.hpp"
#include "cclx/ops.hpp"

namespace cclx::torch_backend {

/// "ReduceOp.SUM", ... for messages.
[[nodiscard]] std::string op_name(c10d::ReduceOp::RedOpType op);
/// "torch.float32", ... for messages: the dtype as Python spells it.
[[nodiscard]] std::string dtype_name(at::ScalarType type);

/// A 16-bit floating type (c10::Half, c10::BFloat16) reduced through float: each combination
/// converts both operands, combines them in float and rounds the result once.
template <class H>
struct Float16 {
  /// The value of the bit pattern `bits`.
  static float value(std::uint16_t bits) { return static_cast<float>(H(bits, H::from_bits())); }
  /// The bit pattern of `v` rounded to H.
  static std::uint16_t bits(float v) { return H(v).x; }
  // The ops on the bit patterns, for cclx user ops (commutative, like the built-in ones).
  static constexpr auto sum = [](std::uint16_t a, std::uint16_t b) {
    return bits(value(a) + value(b));
  };
  static constexpr auto prod = [](std::uint16_t a, std::uint16_t b) {
    return bits(value(a) * value(b));
  };
  static constexpr auto min = [](std::uint16_t a, std::uint16_t b) {  // NaN wins, as in torch
    const float x = value(a), y = value(b);
    if (x != x) return a;
    if (y != y) return b;
    return y < x ? b : a;
  };
  static constexpr auto max = [](std::uint16_t a, std::uint16_t b) {  // NaN wins, as in torch
    const float x = value(a), y = value(b);
    if (x != x) return a;
    if (y != y) return b;
    return y > x ? b : a;
  };
};

/// Calls `f(static_cast<T*>(nullptr), op)` with the cclx element type T and op that reduce a
/// tensor of `type` under `op` (AVG as SUM: the caller divides), or throws cclx::Error naming the
/// dtype and the op. `type` is never complex: complex tensors are passed as their real view.
template <class F>
decltype(auto) with_reduction(at::ScalarType type, c10d::ReduceOp::RedOpType op, int rank, F&& f);

namespace detail {

[[noreturn]] inline void unsupported(at::ScalarType type, c10d::ReduceOp::RedOpType op, int rank,
                                     const char* why) {
  throw Error(rank, op_name(op) + " on " + dtype_name(type) + " tensors: " + why);
}

template <class T, class F>
decltype(auto) with_op(at::ScalarType type, c10d::ReduceOp::RedOpType op, int rank, F&& f) {
  using R = c10d::ReduceOp;
  T* const tag = nullptr;
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case R::SUM:
      case R::MAX:
      case R::BOR:
        return f(tag, cclx::bor);
      case R::PRODUCT:
      case R::MIN:
      case R::BAND:
        return f(tag, cclx::band);
      case R::BXOR:
        return f(tag, cclx::bxor);
      default:
        unsupported(type, op, rank, "not defined on bool");
    }
  } else {
    switch (op) {
      case R::SUM:
      case R::AVG:
        return f(tag, cclx::sum);
      case R::PRODUCT:
        return f(tag, cclx::prod);
      case R::MIN:
        return f(tag, cclx::min);
      case R::MAX:
        return f(tag, cclx::max);
      case R::BAND:
      case R::BOR:
      case R::BXOR:
        if constexpr (std::is_integral_v<T>) {
          if (op == R::BAND) return f(tag, cclx::band);
          if (op == R::BOR) return f(tag, cclx::bor);
          return f(tag, cclx::bxor);
        } else {
          unsupported(type, op, rank, "bitwise ops need integer or bool tensors");
        }
      default:
        unsupported(type, op, rank, "cclx serves SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR");
    }
  }
}

template <class H, class F>
decltype(auto) with_float16_op(at::ScalarType type, c10d::ReduceOp::RedOpType op, int rank, F&& f) {
  using R = c10d::ReduceOp;
  using O = Float16<H>;
  std::uint16_t* const tag = nullptr;
  static constexpr UserOp<decltype(O::sum)> sum{O::sum, true};
  static constexpr UserOp<decltype(O::prod)> prod{O::prod, true};
  static constexpr UserOp<decltype(O::min)> min{O::min, true};
  static constexpr UserOp<decltype(O::max)> max{O::max, true};
  switch (op) {
    case R::SUM:
    case R::AVG:
      return f(tag, sum);
    case R::PRODUCT:
      return f(tag, prod);
    case R::MIN:
      return f(tag, min);
    case R::MAX:
      return f(tag, max);
    default:
      unsupported(type, op, rank, "16-bit floating tensors take SUM, AVG, PRODUCT, MIN, MAX");
  }
}

}  // namespace detail

template <class F>
decltype(auto) with_reduction(at::ScalarType type, c10d::ReduceOp::RedOpType op, int rank, F&& f) {
  switch (type) {
    case at::kFloat:
      return detail::with_op<float>(type, op, rank, f);
    case at::kDouble:
      return detail::with_op<double>(type, op, rank, f);
    case at::kChar:
      return detail::with_op<std::int8_t>(type, op, rank, f);
    case at::kByte:
      return detail::with_op<std::uint8_t>(type, op, rank, f);
    case at::kShort:
      return detail::with_op<std::int16_t>(type, op, rank, f);
    case at::kInt:
      return detail::with_op<std::int32_t>(type, op, rank, f);
    case at::kLong:
      return detail::with_op<std::int64_t>(type, op, rank, f);
    case at::kBool:
      return detail::with_op<bool>(type, op, rank, f);
    case at::kHalf:
      return detail::with_float16_op<c10::Half>(type, op, rank, f);
    case at::kBFloat16:
      return detail::with_float16_op<c10::BFloat16>(type, op, rank, f);
    default:
      detail::unsupported(type, op, rank,
                          "cclx reduces float, double, half, bfloat16, "
                          "complex, int8..int64, uint8 and bool tensors");
  }
}

}  // namespace cclx::torch_backend
