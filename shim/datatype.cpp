#include "datatype.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "cclx/error.hpp"

namespace cclx::shim {

namespace {

// The arguments a derived datatype was made with (MPI_Type_get_contents); the derived types it
// returns are freed with it.
struct Contents {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Datatype> types;

  explicit Contents(MPI_Datatype t) {
    int ni = 0, na = 0, nt = 0;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) != MPI_SUCCESS)
      throw Error("libcclx-mpi: MPI_Type_get_envelope failed");
    if (combiner == MPI_COMBINER_NAMED) return;
    ints.resize(static_cast<std::size_t>(ni));
    addrs.resize(static_cast<std::size_t>(na));
    types.resize(static_cast<std::size_t>(nt));
    if (PMPI_Type_get_contents(t, ni, na, nt, ints.data(), addrs.data(), types.data()) !=
        MPI_SUCCESS)
      throw Error("libcclx-mpi: MPI_Type_get_contents failed");
  }
  ~Contents() {
    for (MPI_Datatype& t : types) {
      int ni = 0, na = 0, nt = 0, c = MPI_COMBINER_NAMED;
      if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &c) == MPI_SUCCESS && c != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
    }
  }
  Contents(const Contents&) = delete;
  Contents& operator=(const Contents&) = delete;
};

std::size_t size_of(MPI_Datatype t) {
  int s = 0;
  PMPI_Type_size(t, &s);
  return s > 0 ? static_cast<std::size_t>(s) : 0;
}

bool dense(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  return extent >= 0 && static_cast<std::size_t>(extent) == size_of(t);
}

// Whether `t`'s type map lists its bytes in memory order without gaps (for the kinds of types
// that are cheap to check; every other kind is packed).
bool in_order(MPI_Datatype t) {
  const Contents c(t);
  switch (c.combiner) {
    case MPI_COMBINER_NAMED:
      return true;
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // the caller checks the new bounds
      return in_order(c.types[0]);
    case MPI_COMBINER_CONTIGUOUS:
      return dense(c.types[0]) && in_order(c.types[0]);
    case MPI_COMBINER_VECTOR:  // count, blocklength, stride (in elements)
      return (c.ints[0] <= 1 || c.ints[1] == c.ints[2]) && dense(c.types[0]) &&
             in_order(c.types[0]);
    case MPI_COMBINER_HVECTOR: {  // count, blocklength; stride in bytes
      MPI_Aint lb = 0, extent = 0;
      PMPI_Type_get_extent(c.types[0], &lb, &extent);
      return (c.ints[0] <= 1 || c.addrs[0] == c.ints[1] * extent) && dense(c.types[0]) &&
             in_order(c.types[0]);
    }
    default:
      return false;
  }
}

[[noreturn]] void mpi_failed(const char* what, int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(rc, text, &len);
  throw Error(std::string("libcclx-mpi: ") + what +
              " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

// Elements per MPI_Pack/MPI_Unpack call: their counts and sizes are ints.
std::size_t per_call(const TypeShape& s) {
  if (s.size > static_cast<std::size_t>(INT_MAX))
    throw Error("libcclx-mpi: a datatype of more than INT_MAX bytes per element cannot be packed");
  return std::max<std::size_t>(1, static_cast<std::size_t>(INT_MAX) / s.size);
}

}  // namespace

std::optional<TypeShape> shape_of(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return std::nullopt;
  TypeShape s;
  if (const TypeInfo* p = predefined_type(t)) {
    s.size = p->size;
    s.extent = static_cast<MPI_Aint>(p->size);
    s.plain = s.predefined = true;
    s.basic = p;
    return s;
  }
  int size = 0, ni = 0, na = 0, nt = 0, combiner = 0;
  MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
  if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size == MPI_UNDEFINED ||
      PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS ||
      PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) != MPI_SUCCESS)
    return std::nullopt;
  s.size = static_cast<std::size_t>(size);
  s.extent = extent;
  s.predefined = combiner == MPI_COMBINER_NAMED;
  const auto sz = static_cast<MPI_Aint>(size);
  s.plain = size == 0 || (lb == 0 && extent == sz && tlb == 0 && textent == sz && in_order(t));
  return s;
}

void pack(const void* user, std::size_t count, MPI_Datatype t, const TypeShape& shape,
          std::byte* packed) {
  if (count == 0 || shape.size == 0) return;
  if (shape.plain) return void(std::memcpy(packed, user, count * shape.size));
  const std::size_t per = per_call(shape);
  const auto* from = static_cast<const std::byte*>(user);
  while (count > 0) {
    const std::size_t k = std::min(count, per);
    const auto bytes = static_cast<int>(k * shape.size);
    int at = 0;
    if (const int rc = PMPI_Pack(from, static_cast<int>(k), t, packed, bytes, &at, MPI_COMM_SELF);
        rc != MPI_SUCCESS)
      mpi_failed("MPI_Pack", rc);
    if (at != bytes)
      throw Error("libcclx-mpi: MPI_Pack wrote " + std::to_string(at) + " bytes for " +
                  std::to_string(bytes) + " bytes of data (a heterogeneous MPI cannot be served)");
    from += static_cast<MPI_Aint>(k) * shape.extent;
    packed += bytes;
    count -= k;
  }
}

void unpack(const std::byte* packed, std::size_t count, MPI_Datatype t, const TypeShape& shape,
            void* user) {
  if (count == 0 || shape.size == 0) return;
  if (shape.plain) return void(std::memcpy(user, packed, count * shape.size));
  const std::size_t per = per_call(shape);
  auto* to = static_cast<std::byte*>(user);
  while (count > 0) {
    const std::size_t k = std::min(count, per);
    const auto bytes = static_cast<int>(k * shape.size);
    int at = 0;
    if (const int rc = PMPI_Unpack(packed, bytes, &at, to, static_cast<int>(k), t, MPI_COMM_SELF);
        rc != MPI_SUCCESS)
      mpi_failed("MPI_Unpack", rc);
    to += static_cast<MPI_Aint>(k) * shape.extent;
    packed += bytes;
    count -= k;
  }
}

TypeRef::TypeRef(MPI_Datatype t, const TypeShape& shape, bool keep) : t_(t) {
  if (!keep || shape.predefined) return;
  if (const int rc = PMPI_Type_dup(t, &t_); rc != MPI_SUCCESS) {
    t_ = MPI_DATATYPE_NULL;
    mpi_failed("MPI_Type_dup", rc);
  }
  owned_ = true;
}

TypeRef::~TypeRef() {
  if (owned_) PMPI_Type_free(&t_);
}

TypeRef::TypeRef(TypeRef&& o) noexcept : t_(o.t_), owned_(o.owned_) {
  o.owned_ = false;
}

TypeRef& TypeRef::operator=(TypeRef&& o) noexcept {
  if (this != &o) {
    if (owned_) PMPI_Type_free(&t_);
    t_ = o.t_;
    owned_ = o.owned_;
    o.owned_ = false;
  }
  return *this;
}

}  // namespace cclx::shim
