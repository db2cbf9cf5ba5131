#include "policy.hpp"

#include <cstdlib>

#include "cclx/error.hpp"

namespace cclx::shim {

namespace {

bool log_from_env() {
  const char* v = std::getenv("CCLX_LOG");
  if (!v) return false;
  std::string_view s(v);
  while (!s.empty()) {
    const auto comma = s.find(',');
    const std::string_view word = s.substr(0, comma);
    if (word == "shim" || word == "all") return true;
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
  }
  return false;
}

Config load() {
  Config c;
  try {
    c.overrides = tune::Overrides::from_env();
    for (const auto& r : c.overrides.rules())
      c.rule_algorithms.push_back(tune::to_string(r.choice));
  } catch (const Error& e) {
    c.overrides = {};
    c.rule_algorithms.clear();
    c.error = e.what();
  }
  if (const char* p = std::getenv("CCLX_SHIM_REPORT"); p && *p) c.report_path = p;
  c.log = log_from_env();
  return c;
}

}  // namespace

const Config& config() {
  static const Config c = load();
  return c;
}

const tune::Candidate* choose(const tune::Workload& w, Decision& d) {
  const Config& cfg = config();
  const tune::SizeRule* r = cfg.overrides.find(w.collective, w.bytes);
  if (!r) return nullptr;
  const auto i = static_cast<std::size_t>(r - cfg.overrides.rules().data());
  d.rule = r->text;
  d.algorithm = cfg.rule_algorithms[i];
  return r->choice.native() ? nullptr : &r->choice;
}

}  // namespace cclx::shim
