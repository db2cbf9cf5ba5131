#include <cmath>
#include <sstream>
#include <string>

#include "cclx/engine/execution.hpp"
#include "cclx/settings.hpp"

namespace cclx::engine {

double timeout_from_env() {
  return settings::get<double>(settings::Id::timeout);
}

std::string format_seconds(double s) {
  std::ostringstream o;
  o.precision(12);
  o << std::round(s * 100) / 100 << " s";
  return o.str();
}

}  // namespace cclx::engine
