#include "cclx/byte_size.hpp"

#include <cctype>
#include <limits>

#include "text.hpp"

namespace cclx {

namespace {

constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();

using cclx::detail::trim;

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// The power of 1024 a unit names (0 for bytes), or -1.
int unit_shift(std::string_view u) {
  if (u.empty()) return 0;
  int shift = 0;
  switch (std::tolower(static_cast<unsigned char>(u.front()))) {
    case 'b':
      return u.size() == 1 ? 0 : -1;
    case 'k':
      shift = 1;
      break;
    case 'm':
      shift = 2;
      break;
    case 'g':
      shift = 3;
      break;
    case 't':
      shift = 4;
      break;
    default:
      return -1;
  }
  u.remove_prefix(1);
  const auto lower = [](std::string_view s, std::string_view want) {
    if (s.size() != want.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(s[i])) != want[i]) return false;
    return true;
  };
  return u.empty() || lower(u, "b") || lower(u, "ib") ? shift : -1;
}

}  // namespace

std::optional<std::size_t> parse_byte_size(std::string_view text, AllowInf inf) {
  text = trim(text);
  if (inf == AllowInf::yes && text == "inf") return kMax;
  std::size_t i = 0;
  std::size_t whole = 0;
  for (; i < text.size() && digit(text[i]); ++i) {
    const auto d = static_cast<std::size_t>(text[i] - '0');
    if (whole > (kMax - d) / 10) return std::nullopt;
    whole = whole * 10 + d;
  }
  if (i == 0) return std::nullopt;
  // The fraction as numerator / 10^k, kept exact (at most 18 digits).
  std::size_t frac = 0, scale = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t first = i;
    for (; i < text.size() && digit(text[i]); ++i) {
      if (i - first >= 18) return std::nullopt;
      frac = frac * 10 + static_cast<std::size_t>(text[i] - '0');
      scale *= 10;
    }
    if (i == first) return std::nullopt;
  }
  const int shift = unit_shift(text.substr(i));
  if (shift < 0) return std::nullopt;
  const unsigned bits = 10U * static_cast<unsigned>(shift);
  if (bits && whole > (kMax >> bits)) return std::nullopt;
  std::size_t bytes = whole << bits;
  if (frac != 0) {
    // frac * 2^bits / scale must be whole: 2^bits / scale reduced by their common factors of 2.
    std::size_t f = frac;
    unsigned b = bits;
    std::size_t s = scale;
    while (b > 0 && s % 2 == 0) {
      s /= 2;
      --b;
    }
    if (f % s != 0) return std::nullopt;
    f /= s;
    if (b && f > (kMax >> b)) return std::nullopt;
    f <<= b;
    if (bytes > kMax - f) return std::nullopt;
    bytes += f;
  }
  return bytes;
}

std::string format_byte_size(std::size_t bytes) {
  if (bytes == kMax) return "inf";
  static constexpr char kUnits[] = "KMGT";
  int unit = -1;
  while (unit < 3 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  std::string s = std::to_string(bytes);
  if (unit >= 0) s += kUnits[unit];
  return s;
}

}  // namespace cclx
