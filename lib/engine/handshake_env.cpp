#include "cclx/engine/execution.hpp"
#include "cclx/settings.hpp"

namespace cclx::engine {

std::size_t handshake_bytes_from_env() {
  return settings::get<std::size_t>(settings::Id::handshake_bytes);
}

}  // namespace cclx::engine
