// Internal to the library: text functions its parsers share (byte sizes, CCLX_ALGO, candidates).
#pragma once

#include <cctype>
#include <string_view>

namespace cclx::detail {

/// `s` without leading and trailing white space.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace cclx::detail
