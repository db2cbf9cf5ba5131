#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <optional>
#include <string>

#include "cclx/byte_size.hpp"

using cclx::AllowInf;
using cclx::format_byte_size;
using cclx::parse_byte_size;

TEST_CASE("byte sizes: the documented grammar") {
  CHECK(parse_byte_size("8") == 8u);
  CHECK(parse_byte_size("8B") == 8u);
  CHECK(parse_byte_size(" 8b ") == 8u);
  for (const char* k : {"64K", "64k", "64KB", "64KiB", "64kib", "64Kb"})
    CHECK_MESSAGE(parse_byte_size(k) == 65536u, k);
  CHECK(parse_byte_size("1M") == std::size_t{1} << 20);
  CHECK(parse_byte_size("1MiB") == std::size_t{1} << 20);
  CHECK(parse_byte_size("3G") == std::size_t{3} << 30);
  CHECK(parse_byte_size("2T") == std::size_t{2} << 40);
  CHECK(parse_byte_size("1.5M") == std::size_t{3} << 19);
  CHECK(parse_byte_size("0.5K") == 512u);
  CHECK(parse_byte_size("0.25") == std::nullopt);  // not whole bytes
  CHECK(parse_byte_size("1.3B") == std::nullopt);
  CHECK(parse_byte_size("1.0") == 1u);
  CHECK(parse_byte_size("0") == 0u);
  for (const char* bad :
       {"", " ", "-1", "+1", "K", "12X", "1e3", "1..5", "1.", ".5", "8KBB", "8 K", "0x10", "inf"})
    CHECK_MESSAGE(parse_byte_size(bad) == std::nullopt, bad);
  CHECK(parse_byte_size("inf", AllowInf::yes) == std::numeric_limits<std::size_t>::max());
}

TEST_CASE("byte sizes: overflow is not a size") {
  CHECK(parse_byte_size("18446744073709551615") == std::numeric_limits<std::size_t>::max());
  CHECK(parse_byte_size("18446744073709551616") == std::nullopt);
  CHECK(parse_byte_size("16777216T") == std::nullopt);  // 2^64
  CHECK(parse_byte_size("16777215T") == std::size_t{16777215} << 40);
}

TEST_CASE("byte sizes: format reads back exactly") {
  CHECK(format_byte_size(0) == "0");
  CHECK(format_byte_size(1536) == "1536");
  CHECK(format_byte_size(65536) == "64K");
  CHECK(format_byte_size(std::size_t{3} << 30) == "3G");
  CHECK(format_byte_size(std::size_t{5} << 40) == "5T");
  CHECK(format_byte_size(std::size_t{1} << 50) == "1024T");
  CHECK(format_byte_size(std::numeric_limits<std::size_t>::max()) == "inf");
  for (std::size_t b : {std::size_t{1}, std::size_t{1000}, std::size_t{4096}, std::size_t{3} << 20,
                        (std::size_t{7} << 30) + 1024})
    CHECK(parse_byte_size(format_byte_size(b)) == b);
}
