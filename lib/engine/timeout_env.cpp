#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"

namespace cclx::engine {

double timeout_from_env() {
  const char* v = std::getenv("CCLX_TIMEOUT");
  if (!v || !*v) return 0;
  const std::string s(v);
  if (s == "off" || s == "none") return 0;
  std::size_t pos = 0;
  double t = -1;
  try {
    t = std::stod(s, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  const std::string suffix = s.substr(pos);
  if (pos == 0 || !(suffix.empty() || suffix == "s") || !std::isfinite(t) || t < 0)
    throw Error("CCLX_TIMEOUT='" + s +
                "' is not a number of seconds such as 30 or 0.5 (0, off or none: no timeout)");
  return t;
}

std::string format_seconds(double s) {
  std::ostringstream o;
  o.precision(12);
  o << std::round(s * 100) / 100 << " s";
  return o.str();
}

}  // namespace cclx::engine
