// The map from cclx's element types and ops to MPI's builtin ones.
#include "cclx/backend/mpi.hpp"
#include "cclx/error.hpp"

namespace cclx {

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
      return logical ? MPI_LAND : MPI_MIN;
    case OpId::max:
      return logical ? MPI_LOR : MPI_MAX;
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
