// The map from cclx's element types and ops to MPI's builtin ones, and the workaround for MPI
// libraries whose MPI_MAX/MPI_MIN are wrong on unsigned types (docs/architecture.md).
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
      return MPI_SUM;
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
