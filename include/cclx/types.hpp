// Runtime description of element types, so that everything below the API edge works on bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace cclx {

/// The element types below the API edge, by size and signedness (f80: a long double wider than
/// double).
enum class DataType : std::uint8_t { i8, u8, i16, u16, i32, u32, i64, u64, f32, f64, f80, boolean };

/// A readable name: "int8", "uint8", ..., "float", "double", "long double", "bool".
[[nodiscard]] constexpr std::string_view to_string(DataType t) {
  constexpr std::string_view names[] = {"int8",  "uint8",  "int16",       "uint16",
                                        "int32", "uint32", "int64",       "uint64",
                                        "float", "double", "long double", "bool"};
  return names[static_cast<int>(t)];
}

/// Every standard arithmetic type maps to one of the above by size and signedness (so `long`,
/// `char`, `char32_t`, ... all work).
template <class T>
constexpr DataType data_type_of() {
  static_assert(std::is_arithmetic_v<T>, "cclx: element types must be arithmetic");
  if constexpr (std::is_same_v<T, bool>)
    return DataType::boolean;
  else if constexpr (std::is_floating_point_v<T>) {
    if constexpr (sizeof(T) == 4)
      return DataType::f32;
    else if constexpr (sizeof(T) == 8)
      return DataType::f64;
    else
      return DataType::f80;
  } else {
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1)
      return s ? DataType::i8 : DataType::u8;
    else if constexpr (sizeof(T) == 2)
      return s ? DataType::i16 : DataType::u16;
    else if constexpr (sizeof(T) == 4)
      return s ? DataType::i32 : DataType::u32;
    else
      return s ? DataType::i64 : DataType::u64;
  }
}

}  // namespace cclx
