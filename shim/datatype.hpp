// MPI datatypes as the library serves them. MPI lets ranks describe the same data differently:
// only the type signatures (the sequences of basic types) must match, not the datatypes. So a
// data-movement collective never decides anything from a rank's datatype
// (docs/preload-decisions.md): it moves the signature's bytes, packed in type-map order, and a
// buffer that is not laid out as its packed bytes (a vector, an indexed type, gaps, a lower bound)
// is packed and unpacked locally with MPI_Pack/MPI_Unpack.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>

#include "mpi_map.hpp"

namespace cclx::shim {

// What the library needs to know of a datatype.
struct TypeShape {
  std::size_t size = 0;  // bytes of data per element (MPI_Type_size)
  MPI_Aint extent = 0;   // MPI_Type_get_extent: the stride between elements of a buffer
  // The buffer is its packed bytes: no gaps, lower bound 0, type map in memory order (so no
  // packing is needed). Decided conservatively: false means "pack", never a wrong copy.
  bool plain = false;
  bool predefined = false;          // a named type (cannot be freed)
  const TypeInfo* basic = nullptr;  // the table's entry for a predefined type it maps
};

// The shape of `t`; nullopt for MPI_DATATYPE_NULL or a handle MPI rejects (the MPI library then
// reports the error itself). Predefined types cost a table lookup.
[[nodiscard]] std::optional<TypeShape> shape_of(MPI_Datatype t);

// Packs `count` elements of `t` at `user` into `count * shape.size` bytes at `packed`, and back.
// Throws cclx::Error where MPI fails or would not produce exactly the signature's bytes.
void pack(const void* user, std::size_t count, MPI_Datatype t, const TypeShape& shape,
          std::byte* packed);
void unpack(const std::byte* packed, std::size_t count, MPI_Datatype t, const TypeShape& shape,
            void* user);

// A datatype handle that stays valid for as long as a pending call needs it, whatever the
// application frees meanwhile (MPI allows MPI_Type_free right after MPI_Ibcast): a derived type is
// duplicated (MPI_Type_dup keeps its own reference), a predefined one is used as it is.
class TypeRef {
 public:
  TypeRef() = default;
  TypeRef(MPI_Datatype t, const TypeShape& shape, bool keep);
  ~TypeRef();
  TypeRef(TypeRef&& o) noexcept;
  TypeRef& operator=(TypeRef&& o) noexcept;
  TypeRef(const TypeRef&) = delete;
  TypeRef& operator=(const TypeRef&) = delete;
  [[nodiscard]] MPI_Datatype get() const { return t_; }

 private:
  MPI_Datatype t_ = MPI_DATATYPE_NULL;
  bool owned_ = false;
};

}  // namespace cclx::shim
