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
  // What Auto consults below CCLX_ALGO (a bad CCLX_TUNE value fails Auto's agreement instead).
  const char* table = std::getenv("CCLX_TUNE_FILE");
  const char* tune = std::getenv("CCLX_TUNE");
  c.auto_reason = "algo::Auto: ";
  if (tune && std::string_view(tune) == "online") c.auto_reason += "online tuning, ";
  if (table && *table) c.auto_reason += "CCLX_TUNE_FILE, ";
  c.auto_reason += "model";
  c.log = log_from_env();
  const char* validate = std::getenv("CCLX_VALIDATE");  // as the Communicator reads it
  c.validate = validate && *validate && std::string_view(validate) != "0";
  return c;
}

}  // namespace

const Config& config() {
  static const Config c = load();
  return c;
}

const tune::SizeRule* rule_for(const tune::Workload& w) {
  return config().overrides.find(w.collective, w.bytes);
}

std::string_view algorithm_name(const tune::Candidate* c) {
  if (!c) return "native";
  // One entry: a program repeats its calls, and to_string() allocates.
  thread_local tune::Candidate last;
  thread_local std::string text = "native";
  if (!(*c == last)) {
    last = *c;
    text = tune::to_string(*c);
  }
  return text;
}

void set_auto_reason(const tune::Workload& w, Decision& d) {
  const Config& cfg = config();
  const tune::SizeRule* r = rule_for(w);
  if (!r) {
    d.rule = cfg.auto_reason;
    return;
  }
  const auto i = static_cast<std::size_t>(r - cfg.overrides.rules().data());
  if (cfg.rule_algorithms[i] == d.algorithm) {
    d.rule = r->text;
    return;
  }
  // Auto skips a rule whose algorithm cannot serve the call (docs/tuning.md).
  d.owned = cfg.auto_reason + " (" + r->text + " cannot serve the call)";
  d.rule = d.owned;
}

}  // namespace cclx::shim
