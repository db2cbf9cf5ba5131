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

AutoState::Entry& AutoState::entry(const Workload& w) {
  auto it = entries_.find(w);
  if (it == entries_.end()) {
    Entry fresh;
    fresh.decision = selector_.decide(w);
    it = entries_.emplace(w, std::move(fresh)).first;
  }
  return it->second;
}

AutoState::Entry& AutoState::tuned(const Workload& w) {
  Entry& e = entry(w);
  if (!e.tuner)
    e.tuner = std::make_unique<OnlineTuner>(w, subspaces_for(w), selector_.model(), options_);
  return e;
}

const AutoState::Entry* AutoState::find_tuned(const Workload& w) const {
  const auto it = entries_.find(w);
  return it == entries_.end() || !it->second.tuner ? nullptr : &it->second;
}

const Candidate& AutoState::choose(const Workload& w, bool online, Timing& timing,
                                   Entry** entry_out) {
  timing = Timing::none;
  Entry& e = entry(w);
  if (entry_out) *entry_out = &e;
  if (static_decision(e.decision, w, online)) return e.decision.choice;
  tuned(w);
  if (!e.tuner->converged()) {
    timing = Timing::tune;
  } else if (++e.calls_since_sample >= sample_every) {
    e.calls_since_sample = 0;
    timing = Timing::sample;
  }
  return e.tuner->next();
}

void AutoState::observe(const Workload& w, double max_seconds) {
  tuned(w).tuner->observe(max_seconds);
}

bool AutoState::add_sample(const Workload& w, double local_seconds) {
  Entry& e = tuned(w);
  e.samples.push_back(local_seconds);
  return static_cast<int>(e.samples.size()) >= window;
}

double AutoState::window_score(const Workload& w) const {
  const Entry* e = find_tuned(w);
  // The tuner's own statistic: a plain mean let one descheduled call in 16 (+56% for a 10x
  // outlier) pass the drift ratio and restart tuning.
  return !e || e->samples.empty() ? 0 : robust_score(e->samples);
}

void AutoState::check_drift(const Workload& w, double max_score_seconds) {
  Entry& e = tuned(w);
  e.samples.clear();
  e.tuner->check_drift(max_score_seconds);
}

int AutoState::tuning_calls(const Workload& w) const {
  const Entry* e = find_tuned(w);
  return e ? e->tuner->calls() : 0;
}

bool AutoState::converged(const Workload& w) const {
  const Entry* e = find_tuned(w);
  return e && e->tuner->converged();
}

TuningTable AutoState::learned() const {
  TuningTable t;
  for (const auto& [w, e] : entries_) {
    if (!e.tuner || !e.tuner->converged()) continue;
    TableEntry entry{w.collective, w.nranks, w.bytes, {}, {}};
    for (const auto& [c, seconds] : e.tuner->measured())
      entry.times_us[to_string(c)] = seconds * 1e6;
    if (!entry.times_us.empty()) t.record(entry);
  }
  return t;
}

std::string AutoState::explain(const Workload& w, bool online) {
  const Decision& d = entry(w).decision;
  if (static_decision(d, w, online)) return d.explanation;
  const OnlineTuner& t = *tuned(w).tuner;
  std::string s = to_string(t.next()) + " from online tuning (" +
                  (t.converged() ? "converged after " : "tuning, ") + std::to_string(t.calls()) +
                  " calls), measured:\n" + t.report();
  return s + "before tuning, " + d.explanation;
}

}  // namespace cclx::tune
