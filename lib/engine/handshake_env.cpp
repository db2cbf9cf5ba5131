#include <cstdlib>
#include <string>

#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"

namespace cclx::engine {

std::size_t handshake_bytes_from_env() {
  const char* v = std::getenv("CCLX_HANDSHAKE_BYTES");
  if (!v || !*v) return 0;
  const std::string s(v);
  std::size_t pos = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(s, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  const std::string suffix = s.substr(pos);
  unsigned shift = 0;
  if (suffix == "K" || suffix == "k" || suffix == "KiB")
    shift = 10;
  else if (suffix == "M" || suffix == "m" || suffix == "MiB")
    shift = 20;
  else if (suffix == "G" || suffix == "g" || suffix == "GiB")
    shift = 30;
  else if (!suffix.empty())
    pos = 0;
  if (pos == 0 || s[0] == '-')
    throw Error("CCLX_HANDSHAKE_BYTES='" + s + "' is not a byte count such as 0, 65536 or 1M");
  return static_cast<std::size_t>(n) << shift;
}

}  // namespace cclx::engine
