#include "mpi_map.hpp"

#include <cstdint>
#include <vector>

namespace cclx::shim {

namespace {

struct TypeEntry {
  MPI_Datatype handle;
  TypeInfo info;
};

// An entry for a predefined type whose C type is T, if this MPI has it with T's size.
template <class T>
void add(std::vector<TypeEntry>& t, MPI_Datatype h, TypeClass cls) {
  int size = 0;
  if (h == MPI_DATATYPE_NULL || MPI_Type_size(h, &size) != MPI_SUCCESS) return;
  if (static_cast<std::size_t>(size) != sizeof(T)) return;
  t.push_back({h, {cls, data_type_of<T>(), sizeof(T)}});
}

// A type moved as bytes only (no cclx element type): its size, if it is contiguous.
void add_moved(std::vector<TypeEntry>& t, MPI_Datatype h) {
  int size = 0;
  MPI_Aint lb = 0, extent = 0;
  if (h == MPI_DATATYPE_NULL || MPI_Type_size(h, &size) != MPI_SUCCESS ||
      MPI_Type_get_extent(h, &lb, &extent) != MPI_SUCCESS)
    return;
  if (size <= 0 || lb != 0 || extent != size) return;
  t.push_back({h, {TypeClass::moved, DataType::u8, static_cast<std::size_t>(size)}});
}

// Most used first: the lookup is a linear scan (handles are pointers in Open MPI, so no switch).
std::vector<TypeEntry> build_table() {
  using C = TypeClass;
  std::vector<TypeEntry> t;
  add<double>(t, MPI_DOUBLE, C::floating);
  add<float>(t, MPI_FLOAT, C::floating);
  add<int>(t, MPI_INT, C::integer);
  add<long>(t, MPI_LONG, C::integer);
  add<long long>(t, MPI_LONG_LONG, C::integer);
  add<unsigned>(t, MPI_UNSIGNED, C::integer);
  add<unsigned long>(t, MPI_UNSIGNED_LONG, C::integer);
  add<unsigned long long>(t, MPI_UNSIGNED_LONG_LONG, C::integer);
  add<std::uint8_t>(t, MPI_BYTE, C::byte);
  add<std::int8_t>(t, MPI_INT8_T, C::integer);
  add<std::uint8_t>(t, MPI_UINT8_T, C::integer);
  add<std::int16_t>(t, MPI_INT16_T, C::integer);
  add<std::uint16_t>(t, MPI_UINT16_T, C::integer);
  add<std::int32_t>(t, MPI_INT32_T, C::integer);
  add<std::uint32_t>(t, MPI_UINT32_T, C::integer);
  add<std::int64_t>(t, MPI_INT64_T, C::integer);
  add<std::uint64_t>(t, MPI_UINT64_T, C::integer);
  add<short>(t, MPI_SHORT, C::integer);
  add<unsigned short>(t, MPI_UNSIGNED_SHORT, C::integer);
  add<signed char>(t, MPI_SIGNED_CHAR, C::integer);
  add<unsigned char>(t, MPI_UNSIGNED_CHAR, C::integer);
  add<long double>(t, MPI_LONG_DOUBLE, C::floating);
  add<bool>(t, MPI_C_BOOL, C::logical);
  add<MPI_Aint>(t, MPI_AINT, C::integer);
  add<MPI_Offset>(t, MPI_OFFSET, C::integer);
  add<MPI_Count>(t, MPI_COUNT, C::integer);
  // MPI defines no reduction on these (MPI_CHAR is a character type, not an integer).
  add_moved(t, MPI_CHAR);
  add_moved(t, MPI_WCHAR);
  add_moved(t, MPI_PACKED);
  add_moved(t, MPI_C_FLOAT_COMPLEX);
  add_moved(t, MPI_C_DOUBLE_COMPLEX);
  add_moved(t, MPI_C_LONG_DOUBLE_COMPLEX);
  return t;
}

struct OpEntry {
  MPI_Op handle;
  OpId op;
  bool logical;  // MPI_LAND/LOR/LXOR: cclx's band/bor/bxor on bool only
};

const std::vector<OpEntry>& op_table() {
  static const std::vector<OpEntry> t = {
      {MPI_SUM, OpId::sum, false},   {MPI_MAX, OpId::max, false},   {MPI_MIN, OpId::min, false},
      {MPI_PROD, OpId::prod, false}, {MPI_BAND, OpId::band, false}, {MPI_BOR, OpId::bor, false},
      {MPI_BXOR, OpId::bxor, false}, {MPI_LAND, OpId::band, true},  {MPI_LOR, OpId::bor, true},
      {MPI_LXOR, OpId::bxor, true}};
  return t;
}

template <class T>
ReduceKernel kernel_of(OpId op) {
  const auto make = [&]<OpId Id>() -> ReduceKernel {
    if constexpr (op_supported<T, Id>)
      return make_kernel<T>(ops::Builtin<Id>{});
    else
      return {};
  };
  switch (op) {
    case OpId::sum:
      return make.template operator()<OpId::sum>();
    case OpId::prod:
      return make.template operator()<OpId::prod>();
    case OpId::min:
      return make.template operator()<OpId::min>();
    case OpId::max:
      return make.template operator()<OpId::max>();
    case OpId::band:
      return make.template operator()<OpId::band>();
    case OpId::bor:
      return make.template operator()<OpId::bor>();
    case OpId::bxor:
      return make.template operator()<OpId::bxor>();
    case OpId::user:
      break;
  }
  return {};
}

}  // namespace

const TypeInfo* predefined_type(MPI_Datatype t) {
  static const std::vector<TypeEntry> table = build_table();
  for (const TypeEntry& e : table)
    if (e.handle == t) return &e.info;
  return nullptr;
}

bool is_predefined_op(MPI_Op op) {
  for (const OpEntry& e : op_table())
    if (e.handle == op) return true;
  return op == MPI_MAXLOC || op == MPI_MINLOC || op == MPI_REPLACE || op == MPI_NO_OP;
}

std::optional<OpId> builtin_op(MPI_Op op, TypeClass cls, const char** why) {
  const auto no = [&](const char* reason) -> std::optional<OpId> {
    *why = reason;
    return std::nullopt;
  };
  if (op == MPI_MAXLOC || op == MPI_MINLOC) return no("MPI_MAXLOC/MPI_MINLOC (pair types)");
  const OpEntry* e = nullptr;
  for (const OpEntry& x : op_table())
    if (x.handle == op) e = &x;
  if (!e) return no("not a reduction op (MPI reports the error)");
  const bool arithmetic = e->op == OpId::sum || e->op == OpId::prod;
  const bool minmax = e->op == OpId::min || e->op == OpId::max;
  switch (cls) {
    case TypeClass::integer:
      if (e->logical) return no("logical op on an integer type (cclx has no logical ops)");
      return e->op;
    case TypeClass::floating:
      if (arithmetic || minmax) return e->op;
      break;
    case TypeClass::logical:
      if (e->logical) return e->op;
      break;
    case TypeClass::byte:
      if (!e->logical && !arithmetic && !minmax) return e->op;
      break;
    case TypeClass::moved:
      return no("no cclx reduction on this type (char, complex, ...)");
  }
  return no("op not defined on this type by MPI (MPI reports the error)");
}

ReduceKernel builtin_kernel(DataType t, OpId op) {
  switch (t) {
    case DataType::i8:
      return kernel_of<std::int8_t>(op);
    case DataType::u8:
      return kernel_of<std::uint8_t>(op);
    case DataType::i16:
      return kernel_of<std::int16_t>(op);
    case DataType::u16:
      return kernel_of<std::uint16_t>(op);
    case DataType::i32:
      return kernel_of<std::int32_t>(op);
    case DataType::u32:
      return kernel_of<std::uint32_t>(op);
    case DataType::i64:
      return kernel_of<std::int64_t>(op);
    case DataType::u64:
      return kernel_of<std::uint64_t>(op);
    case DataType::f32:
      return kernel_of<float>(op);
    case DataType::f64:
      return kernel_of<double>(op);
    case DataType::f80:
      return kernel_of<long double>(op);
    case DataType::boolean:
      return kernel_of<bool>(op);
  }
  return {};
}

}  // namespace cclx::shim
