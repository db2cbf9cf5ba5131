// The map from cclx's element types and ops to MPI's builtin ones, and the workarounds for MPI
// libraries whose builtin ops are wrong: MPI_MAX/MPI_MIN on unsigned types (MPICH 4.0.2), MPI_SUM
// on 8- and 16-bit integers (Open MPI 4.1.4's op/avx) (docs/architecture.md).
#include <algorithm>
#include <cstdint>
#include <limits>

#include "cclx/backend/mpi.hpp"
#include "cclx/error.hpp"
#include "mpi_check.hpp"

namespace cclx {

namespace {

// MPICH 4.0.2 (Debian) computes MPI_MAX and MPI_MIN on every unsigned integer type as if the type
// were signed (max(200, 100) on uint8 is 100), in every collective and in MPI_Reduce_local. The
// probe asks the linked library itself, once per process and per (type, op), with
// MPI_Reduce_local on two elements whose order differs between the signed and the unsigned
// reading; it is local and costs microseconds. A version check would have to know every affected
// build (the bug is in Debian's package, not necessarily in every 4.0.2) and would keep the
// fallback after a fixed library is installed under the same version.
template <class T>
bool minmax_wrong(MPI_Datatype dt, bool max) {
  constexpr T big = std::numeric_limits<T>::max() - 1;  // top bit set
  constexpr T small = 1;
  T in[2] = {big, small};
  T inout[2] = {small, big};
  if (MPI_Reduce_local(in, inout, 2, dt, max ? MPI_MAX : MPI_MIN) != MPI_SUCCESS) return true;
  const T want = max ? big : small;
  return inout[0] != want || inout[1] != want;
}

// The replacement ops: commutative user-defined MPI_Ops with a fixed function per (type, op), so
// no per-call state (unlike the user-op trampoline) and nonblocking collectives may call them
// during later progress.
template <class T, bool Max>
void minmax_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = Max ? std::max(a[i], b[i]) : std::min(a[i], b[i]);
}

template <class T>
struct UnsignedMinMax {
  MPI_Op max = MPI_OP_NULL, min = MPI_OP_NULL;  // MPI_OP_NULL: the builtin one is right
  explicit UnsignedMinMax(MPI_Datatype dt) {
    // Never freed: MPI releases them at MPI_Finalize; they live as long as the process's MPI.
    if (minmax_wrong<T>(dt, true))
      detail::mpi_check(MPI_Op_create(&minmax_fn<T, true>, 1, &max), -1, "MPI_Op_create");
    if (minmax_wrong<T>(dt, false))
      detail::mpi_check(MPI_Op_create(&minmax_fn<T, false>, 1, &min), -1, "MPI_Op_create");
  }
};

template <class T>
MPI_Op unsigned_minmax(MPI_Datatype dt, OpId op) {
  static const UnsignedMinMax<T> ops(dt);  // probed once per process (thread-safe static init)
  const MPI_Op fixed = op == OpId::max ? ops.max : ops.min;
  return fixed != MPI_OP_NULL ? fixed : (op == OpId::max ? MPI_MAX : MPI_MIN);
}

// Open MPI 4.1.4 (Debian) adds 8- and 16-bit integers with saturating vector instructions in its
// op/avx component from 32 elements on (uint8: 200 + 100 = 255), where C and every cclx algorithm
// wrap around (44). Probed like the min/max bug, on 64 elements so the vector path is taken; the
// fallback is a fixed user-defined op that wraps.
template <class T>
bool sum_wrong(MPI_Datatype dt) {
  constexpr int kElems = 64;
  constexpr T a = std::numeric_limits<T>::max(), b = 2;
  T in[kElems], inout[kElems];
  std::fill(in, in + kElems, a);
  std::fill(inout, inout + kElems, b);
  if (MPI_Reduce_local(in, inout, kElems, dt, MPI_SUM) != MPI_SUCCESS) return true;
  const T want = static_cast<T>(a + b);  // modulo 2^bits (C++20 conversion)
  return std::any_of(inout, inout + kElems, [&](T x) { return x != want; });
}

template <class T>
void wrapping_sum_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = static_cast<T>(a[i] + b[i]);
}

template <class T>
MPI_Op small_int_sum(MPI_Datatype dt) {
  static const MPI_Op op = [&] {  // probed once per process; never freed (see UnsignedMinMax)
    MPI_Op fixed = MPI_SUM;
    if (sum_wrong<T>(dt))
      detail::mpi_check(MPI_Op_create(&wrapping_sum_fn<T>, 1, &fixed), -1, "MPI_Op_create");
    return fixed;
  }();
  return op;
}

}  // namespace

namespace detail {
bool mpi_unsigned_minmax_workaround(DataType t, OpId op) {
  return mpi_op(op, t) != (op == OpId::max ? MPI_MAX : MPI_MIN);
}
}  // namespace detail

MPI_Datatype mpi_datatype(DataType t) {
  switch (t) {
    case DataType::i8:
      return MPI_INT8_T;
    case DataType::u8:
      return MPI_UINT8_T;
    case DataType::i16:
      return MPI_INT16_T;
    case DataType::u16:
      return MPI_UINT16_T;
    case DataType::i32:
      return MPI_INT32_T;
    case DataType::u32:
      return MPI_UINT32_T;
    case DataType::i64:
      return MPI_INT64_T;
    case DataType::u64:
      return MPI_UINT64_T;
    case DataType::f32:
      return MPI_FLOAT;
    case DataType::f64:
      return MPI_DOUBLE;
    case DataType::f80:
      return MPI_LONG_DOUBLE;
    case DataType::boolean:
      return MPI_C_BOOL;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(OpId op, DataType t) {
  const bool logical = t == DataType::boolean;  // MPI defines only logical ops on C bool
  switch (op) {
    case OpId::sum:
      switch (t) {
        case DataType::i8:
          return small_int_sum<std::int8_t>(MPI_INT8_T);
        case DataType::u8:
          return small_int_sum<std::uint8_t>(MPI_UINT8_T);
        case DataType::i16:
          return small_int_sum<std::int16_t>(MPI_INT16_T);
        case DataType::u16:
          return small_int_sum<std::uint16_t>(MPI_UINT16_T);
        default:
          return MPI_SUM;
      }
    case OpId::prod:
      return MPI_PROD;
    case OpId::min:
    case OpId::max:
      switch (t) {
        case DataType::boolean:
          return op == OpId::min ? MPI_LAND : MPI_LOR;
        case DataType::u8:
          return unsigned_minmax<std::uint8_t>(MPI_UINT8_T, op);
        case DataType::u16:
          return unsigned_minmax<std::uint16_t>(MPI_UINT16_T, op);
        case DataType::u32:
          return unsigned_minmax<std::uint32_t>(MPI_UINT32_T, op);
        case DataType::u64:
          return unsigned_minmax<std::uint64_t>(MPI_UINT64_T, op);
        default:
          return op == OpId::min ? MPI_MIN : MPI_MAX;
      }
    case OpId::band:
      return logical ? MPI_LAND : MPI_BAND;
    case OpId::bor:
      return logical ? MPI_LOR : MPI_BOR;
    case OpId::bxor:
      return logical ? MPI_LXOR : MPI_BXOR;
    case OpId::user:
      break;
  }
  throw Error("mpi_op: user-defined ops have no builtin MPI_Op");
}

}  // namespace cclx
