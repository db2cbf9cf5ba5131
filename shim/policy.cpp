#include "policy.hpp"

#include <string>

#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/model.hpp"

namespace cclx::shim {

namespace {

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
  c.report_path = settings::get<std::string>(settings::Id::shim_report);
  // What Auto consults below CCLX_ALGO (a bad CCLX_TUNE value fails Auto's agreement instead).
  const settings::Value tune = settings::value(settings::Id::tune);
  c.auto_reason = "algo::Auto: ";
  if (tune.error.empty() && tune.text == "online") c.auto_reason += "online tuning, ";
  if (!settings::get<std::string>(settings::Id::tune_file).empty())
    c.auto_reason += "CCLX_TUNE_FILE, ";
  c.auto_reason += "model";
  try {
    c.log = settings::logs("shim");
    c.validate = settings::get<bool>(settings::Id::validate);
    (void)tune::model_params_from_env();  // CCLX_NET_*: algo::Auto's model reads them later
  } catch (const Error& e) {
    if (c.error.empty()) c.error = e.what();  // fails MPI_Init, as a bad CCLX_ALGO does
  }
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
