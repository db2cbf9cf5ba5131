// Byte sizes as people write them, one grammar for every tool, benchmark and setting.
//
//   size   := number [unit]          surrounding blanks are ignored
//   number := digits [ "." digits ]  a fraction only where the result is a whole number of bytes
//   unit   := B | K | M | G | T      powers of 1024, case-insensitive, optionally followed by
//             "B" or "iB" (K, KB, KiB and kib all mean 1024 bytes)
//
// "8" = "8B" = 8, "64K" = "64KiB" = "64KB" = 65536, "1.5M" = 1572864, "0.5K" = 512. Not sizes:
// "", "-1", "1.3B" (not whole bytes), "12X", "1e3", values above SIZE_MAX. Where a range may be
// open ("64K-inf" in CCLX_ALGO), "inf" is SIZE_MAX.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cclx {

/// Whether parse_byte_size() accepts "inf" (as SIZE_MAX), for ranges that may be open.
enum class AllowInf : bool { no, yes };

/// The size `text` names, or nullopt when it is not one (see above).
[[nodiscard]] std::optional<std::size_t> parse_byte_size(std::string_view text,
                                                         AllowInf inf = AllowInf::no);

/// The shortest exact form that parse_byte_size() reads back: 65536 -> "64K", 1536 -> "1536",
/// 3 << 30 -> "3G"; SIZE_MAX -> "inf".
[[nodiscard]] std::string format_byte_size(std::size_t bytes);

}  // namespace cclx
