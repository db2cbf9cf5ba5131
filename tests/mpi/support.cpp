// The non-template helpers of support.hpp.
#include "support.hpp"

#include <cstdlib>

#include "cclx/settings.hpp"

namespace cclx_test {

std::uint64_t content_hash(const void* data, std::size_t bytes) {
  constexpr std::uint64_t prime = 0x100000001b3ull;  // FNV's, odd: multiplying loses no bit
  std::uint64_t lane[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull,
                           0xc2b2ae3d27d4eb4full};
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * prime;
      lane[k] ^= lane[k] >> 29;  // carries the high bits down, so later words mix with them
    }
  std::uint64_t h = bytes;
  for (std::uint64_t l : lane) h = (h ^ l) * prime;
  for (; i < bytes; ++i) h = (h ^ p[i]) * prime;
  return h;
}

void expect_error(const std::string& label, int rank, Thunk f,
                  std::initializer_list<std::string> needles) {
  bool threw = false;
  std::string msg;
  try {
    f();
  } catch (const cclx::Error& e) {
    threw = true;
    msg = e.what();
    CHECK_MESSAGE(e.rank() == rank, label << ": error attributed to rank " << e.rank());
  } catch (const std::exception& e) {
    CHECK_MESSAGE(false, label << ": threw a non-cclx exception: " << std::string(e.what()));
    return;
  }
  CHECK_MESSAGE(threw, label << ": expected a cclx::Error, nothing was thrown");
  if (!threw) return;
  const std::string me = "rank " + std::to_string(rank);
  CHECK_MESSAGE(msg.find(me) != std::string::npos,
                label << ": message does not name '" << me << "': " << msg);
  for (const auto& n : needles)
    CHECK_MESSAGE(msg.find(n) != std::string::npos,
                  label << ": message lacks '" << n << "': " << msg);
}

bool no_throw(const std::string& label, Thunk f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    static std::vector<std::string> seen;
    std::string key = e.what();
    for (auto pos = key.find("rank "); pos != std::string::npos; pos = key.find("rank ", pos + 5))
      for (std::size_t i = pos + 5;
           i < key.size() && std::isdigit(static_cast<unsigned char>(key[i])); ++i)
        key[i] = '#';
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      CHECK_MESSAGE(false, label << ": unexpected exception (further identical errors are not "
                                    "reported): "
                                 << std::string(e.what()));
    }
    return false;
  }
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  cclx::settings::reload();
}

ScopedEnv::~ScopedEnv() {
  if (old_)
    setenv(name_, old_->c_str(), 1);
  else
    unsetenv(name_);
  cclx::settings::reload();
}

}  // namespace cclx_test
