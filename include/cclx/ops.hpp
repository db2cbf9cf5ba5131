// Reduction operations: tag objects for the call site (cclx::sum, ...), user-defined ops, and the
// type-erased kernel the engine applies to bytes. Templates stop here.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "cclx/types.hpp"

namespace cclx {

/// The reduction operations: the built-in ones, and `user` for a UserOp.
enum class OpId : std::uint8_t { sum, prod, min, max, band, bor, bxor, user };

/// The op's name as the call site spells it: "sum", "prod", ..., "bxor", or "user".
[[nodiscard]] constexpr std::string_view to_string(OpId op) {
  constexpr std::string_view names[] = {"sum", "prod", "min", "max", "band", "bor", "bxor", "user"};
  return names[static_cast<int>(op)];
}

namespace ops {
/// A built-in reduction operation (cclx::sum, prod, min, max, band, bor, bxor).
template <OpId Id>
struct Builtin {
  static constexpr OpId id = Id;             ///< which operation
  static constexpr bool commutative = true;  ///< true: every built-in op is commutative
};
}  // namespace ops

inline constexpr ops::Builtin<OpId::sum> sum{};    ///< a + b
inline constexpr ops::Builtin<OpId::prod> prod{};  ///< a * b
inline constexpr ops::Builtin<OpId::min> min{};    ///< the smaller of a and b
inline constexpr ops::Builtin<OpId::max> max{};    ///< the larger of a and b
inline constexpr ops::Builtin<OpId::band> band{};  ///< a & b (logical and on bool)
inline constexpr ops::Builtin<OpId::bor> bor{};    ///< a | b (logical or on bool)
inline constexpr ops::Builtin<OpId::bxor> bxor{};  ///< a ^ b (a != b on bool)

/// A user-defined op: `f(a, b)` returns a (+) b for one element, a being the contribution of lower
/// ranks. Non-commutative ops are honored only by order-preserving algorithms (others throw).
template <class F>
struct UserOp {
  static constexpr OpId id = OpId::user;  ///< marks a user-defined op
  F f;                                    ///< the function of two elements, called as `f(a, b)`
  /// Whether `f(a, b) == f(b, a)`; false: only order-preserving algorithms run it (others throw).
  bool commutative = false;
};
/// The UserOp of `f`; `commutative` states whether `f(a, b) == f(b, a)`.
template <class F>
UserOp<F> user_op(F f, bool commutative) {
  return {f, commutative};
}

/// Element types: every standard arithmetic type (bool only with min/max/band/bor/bxor).
template <class T>
concept Element = std::is_arithmetic_v<T> && !std::is_const_v<T> && !std::is_volatile_v<T>;

/// Whether op `Id` is defined on element type T: user ops always; bool has no sum or prod, and
/// the bitwise ops need an integral type.
template <class T, OpId Id>
inline constexpr bool op_supported =
    Id == OpId::user ||
    (std::is_same_v<T, bool>
         ? (Id != OpId::sum && Id != OpId::prod)
         : ((Id != OpId::band && Id != OpId::bor && Id != OpId::bxor) || std::is_integral_v<T>));

/// Type-erased reduction over bytes: dst[i] = a[i] (+) b[i] for n elements; dst may alias a or b.
struct ReduceKernel {
  /// The reduction for one element type: `n` elements, with `ctx` passed as the op's state.
  void (*fn)(void* dst, const void* a, const void* b, std::size_t n, const void* ctx) = nullptr;
  const void* ctx = nullptr;     ///< user op state
  std::size_t elem_size = 0;     ///< bytes per element
  OpId op = OpId::sum;           ///< the operation (OpId::user for a UserOp)
  bool commutative = true;       ///< whether operands may be combined in any order
  DataType type = DataType::u8;  ///< the element type (a device backend picks its kernel by it)

  /// dst[i] = a[i] (+) b[i] for `n` elements: `fn` with the kernel's `ctx`.
  void operator()(void* dst, const void* a, const void* b, std::size_t n) const {
    fn(dst, a, b, n, ctx);
  }
};

namespace detail {
template <class T, OpId Id>
void builtin_reduce(void* dst, const void* a, const void* b, std::size_t n, const void*) {
  T* d = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  // Plain loops so the compiler vectorizes them (it checks aliasing at run time).
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (Id == OpId::sum)
      d[i] = static_cast<T>(x[i] + y[i]);
    else if constexpr (Id == OpId::prod)
      d[i] = static_cast<T>(x[i] * y[i]);
    else if constexpr (Id == OpId::min)
      d[i] = y[i] < x[i] ? y[i] : x[i];
    else if constexpr (Id == OpId::max)
      d[i] = x[i] < y[i] ? y[i] : x[i];
    else if constexpr (std::is_same_v<T, bool>) {
      if constexpr (Id == OpId::band)
        d[i] = x[i] && y[i];
      else if constexpr (Id == OpId::bor)
        d[i] = x[i] || y[i];
      else
        d[i] = x[i] != y[i];
    } else if constexpr (Id == OpId::band)
      d[i] = static_cast<T>(x[i] & y[i]);
    else if constexpr (Id == OpId::bor)
      d[i] = static_cast<T>(x[i] | y[i]);
    else if constexpr (Id == OpId::bxor)
      d[i] = static_cast<T>(x[i] ^ y[i]);
  }
}

template <class T, class F>
void user_reduce(void* dst, const void* a, const void* b, std::size_t n, const void* ctx) {
  const F& f = *static_cast<const F*>(ctx);
  T* d = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (std::size_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(x[i], y[i]));
}
}  // namespace detail

/// Whether the kernel's result can depend on the order in which contributions are combined:
/// floating-point sum and product (commutative bit for bit, not associative) and user-defined ops.
/// Integer arithmetic, min, max and the bitwise ops give the same bits in any order.
[[nodiscard]] constexpr bool order_sensitive(const ReduceKernel& k) {
  const bool floating =
      k.type == DataType::f32 || k.type == DataType::f64 || k.type == DataType::f80;
  return k.op == OpId::user || (floating && (k.op == OpId::sum || k.op == OpId::prod));
}

/// The kernel of built-in op `Id` on elements of type T (only where op_supported).
template <Element T, OpId Id>
requires(op_supported<T, Id>&& Id != OpId::user) ReduceKernel make_kernel(ops::Builtin<Id>) {
  return {&detail::builtin_reduce<T, Id>, nullptr, sizeof(T), Id, true, data_type_of<T>()};
}

/// The UserOp must outlive the call that uses the kernel.
template <Element T, class F>
ReduceKernel make_kernel(const UserOp<F>& op) {
  return {&detail::user_reduce<T, F>, &op.f, sizeof(T), OpId::user, op.commutative,
          data_type_of<T>()};
}

template <class Op>
concept ReductionOp = requires {
  Op::id;
};

}  // namespace cclx
