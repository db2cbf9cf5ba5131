// MPI's predefined datatypes and reduction ops in cclx's terms: the one table of what the library
// can compute exactly. Everything not in it goes to the MPI library unchanged.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cclx/ops.hpp"
#include "cclx/types.hpp"

namespace cclx::shim {

// What MPI allows a reduction op to do with a type (MPI 4.0, section 6.9.2), and what cclx can.
enum class TypeClass : std::uint8_t {
  integer,   // C and multi-language integers: arithmetic, min/max, bitwise (logical: not in cclx)
  floating,  // float, double, long double: arithmetic, min/max
  logical,   // MPI_C_BOOL: the logical ops, computed as cclx's bitwise ops on bool
  byte,      // MPI_BYTE: bitwise ops on uint8
  moved,     // char, wchar, complex, MPI_PACKED: data movement only
};

struct TypeInfo {
  TypeClass cls = TypeClass::moved;
  DataType type = DataType::u8;  // cclx's element type (reductions); not for `moved`
  std::size_t size = 0;          // bytes per element (MPI_Type_size, equal to its extent)
};

// The table entry of `t`, or null when `t` is not one of the predefined contiguous types above
// (a derived datatype, a pair type such as MPI_2INT, a Fortran type, MPI_DATATYPE_NULL).
// Built on first use (MPI must be initialized); thread-safe.
[[nodiscard]] const TypeInfo* predefined_type(MPI_Datatype t);

// The cclx op that computes MPI's `op` exactly on class `cls`; nullopt with `why` set when there is
// none (the op is not predefined, MPI does not define it on the type, or cclx lacks it).
[[nodiscard]] std::optional<OpId> builtin_op(MPI_Op op, TypeClass cls, const char** why);

// Whether `op` is one of MPI's predefined ops (otherwise it is user-defined or MPI_OP_NULL).
[[nodiscard]] bool is_predefined_op(MPI_Op op);

// cclx's kernel for a builtin op on `t` (the one the typed API makes with make_kernel<T>()).
// Requires that `op` is defined for `t` (builtin_op() said so).
[[nodiscard]] ReduceKernel builtin_kernel(DataType t, OpId op);

}  // namespace cclx::shim
