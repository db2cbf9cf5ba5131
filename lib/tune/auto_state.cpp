#include "cclx/tune/auto_state.hpp"

#include <string>

#include "cclx/settings.hpp"

namespace cclx::tune {

bool online_from_env() {
  return settings::get<std::string>(settings::Id::tune) == "online";
}

bool log_tune_from_env() {
  return settings::logs("tune");
}

namespace {
// Whether the selector's decision `d` stands, online tuning or not: an override, or a table
// measured at this very size, outranks online tuning; the model and a table's nearest other size
// do not. A workload without a size is not tuned (one tuner would mix every size's times), nor
// one with displacements (native alone serves them).
bool static_decision(const Decision& d, const Workload& w, bool online) {
  return !online || !w.sized || w.displs || d.source == Source::override_env ||
         (d.source == Source::table && d.exact);
}
}  // namespace

AutoState::AutoState(Selector::Config cfg, OnlineOptions o)
    : selector_(std::move(cfg)), options_(o) {}

AutoState::Online& AutoState::online_entry(const Workload& w) {
  auto it = online_.find(w);
  if (it == online_.end()) {
    Online e;
    e.tuner = std::make_unique<OnlineTuner>(w, subspaces_for(w), alpha_beta_model(), options_);
    it = online_.emplace(w, std::move(e)).first;
  }
  return it->second;
}

const Candidate& AutoState::choose(const Workload& w, bool online, Timing& timing) {
  timing = Timing::none;
  Online* e = nullptr;
  if (last_ && online == last_online_flag_ && w == last_w_) {
    if (!last_online_) return *last_;
    e = last_online_;
  } else {
    const Decision& d = selector_.decide(w);
    last_w_ = w;
    last_online_flag_ = online;
    if (static_decision(d, w, online)) {
      last_ = &d.choice;
      last_online_ = nullptr;
      return d.choice;
    }
    e = &online_entry(w);
    last_ = &e->tuner->best();
    last_online_ = e;
  }
  if (!e->tuner->converged()) {
    timing = Timing::tune;
  } else if (++e->calls_since_sample >= sample_every) {
    e->calls_since_sample = 0;
    timing = Timing::sample;
  }
  return e->tuner->next();
}

void AutoState::observe(const Workload& w, double max_seconds) {
  online_entry(w).tuner->observe(max_seconds);
}

bool AutoState::add_sample(const Workload& w, double local_seconds) {
  Online& e = online_entry(w);
  e.samples.push_back(local_seconds);
  return static_cast<int>(e.samples.size()) >= window;
}

double AutoState::window_score(const Workload& w) const {
  const auto it = online_.find(w);
  // The tuner's own statistic: a plain mean let one descheduled call in 16 (+56% for a 10x
  // outlier) pass the drift ratio and restart tuning.
  return it == online_.end() || it->second.samples.empty() ? 0 : robust_score(it->second.samples);
}

void AutoState::check_drift(const Workload& w, double max_score_seconds) {
  Online& e = online_entry(w);
  e.samples.clear();
  e.tuner->check_drift(max_score_seconds);
}

int AutoState::tuning_calls(const Workload& w) const {
  const auto it = online_.find(w);
  return it == online_.end() ? 0 : it->second.tuner->calls();
}

bool AutoState::converged(const Workload& w) const {
  const auto it = online_.find(w);
  return it != online_.end() && it->second.tuner->converged();
}

TuningTable AutoState::learned() const {
  TuningTable t;
  for (const auto& [w, e] : online_) {
    if (!e.tuner->converged()) continue;
    TableEntry entry{w.collective, w.nranks, w.bytes, {}, {}};
    for (const auto& [c, seconds] : e.tuner->measured())
      entry.times_us[to_string(c)] = seconds * 1e6;
    if (!entry.times_us.empty()) t.record(entry);
  }
  return t;
}

std::string AutoState::explain(const Workload& w, bool online) {
  const Decision& d = selector_.decide(w);
  if (static_decision(d, w, online)) return d.explanation;
  const OnlineTuner& t = *online_entry(w).tuner;
  std::string s = to_string(t.next()) + " from online tuning (" +
                  (t.converged() ? "converged after " : "tuning, ") + std::to_string(t.calls()) +
                  " calls), measured:\n" + t.report();
  return s + "before tuning, " + d.explanation;
}

}  // namespace cclx::tune
