#include "cclx/tune/selector.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>

#include "cclx/error.hpp"

namespace cclx::tune {

std::string_view to_string(Source s) {
  switch (s) {
    case Source::override_env:
      return "override (CCLX_ALGO)";
    case Source::table:
      return "tuning table";
    case Source::model:
      break;
  }
  return "model";
}

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // FNV-1a over the value's bytes: stable across processes (std::hash need not be).
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}
std::uint64_t mix(std::uint64_t h, std::string_view s) {
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return mix(h, s.size());
}

std::string time_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g us", seconds * 1e6);
  return buf;
}
}  // namespace

std::size_t WorkloadHash::operator()(const Workload& w) const noexcept {
  // Process-local (unlike the fingerprint), and on every Auto call: a few multiplies, not FNV.
  const std::uint64_t a = static_cast<std::uint64_t>(w.collective) |
                          (std::uint64_t(w.in_place) << 8) | (std::uint64_t(w.commutative) << 9) |
                          (std::uint64_t(w.elem_size) << 16) |
                          (std::uint64_t(static_cast<std::uint32_t>(w.root)) << 32);
  std::uint64_t h = a * 0x9e3779b97f4a7c15ull;
  h ^= w.bytes * 0xbf58476d1ce4e5b9ull + (h >> 29);
  h ^= static_cast<std::uint64_t>(w.nranks) * 0x94d049bb133111ebull + (h >> 31);
  return static_cast<std::size_t>(h ^ (h >> 32));
}

Selector::Selector(Config c) : config_(std::move(c)) {
  if (!config_.model) config_.model = alpha_beta_model();
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& r : config_.overrides.rules()) h = mix(h, r.text);
  if (config_.table) h = mix(h, config_.table->dump());
  fingerprint_ = h;
}

Selector::Config Selector::config_from_env() {
  Config c;
  c.overrides = Overrides::from_env();
  if (const char* f = std::getenv("CCLX_TUNE_FILE"); f && *f) {
    c.table = TuningTable::load(f);
    c.table_origin = f;
  }
  return c;
}

const Decision& Selector::decide(const Workload& w) {
  if (auto it = cache_.find(w); it != cache_.end()) return it->second;
  return cache_.emplace(w, compute(w)).first->second;
}

Decision Selector::compute(const Workload& w) const {
  Decision d;
  std::string skipped;
  const auto usable = [&](const Candidate& c, std::string_view from) {
    std::string why;
    if (can_serve(c, w, &why)) {
      // A generator may still refuse the request (e.g. a rank count): ask it once.
      if (c.native() || config_.model(c, w) >= 0) return true;
      why = c.algorithm + " cannot generate this request";
    }
    skipped += std::string(from) + " chose " + to_string(c) + " but " + why + "; ";
    return false;
  };

  if (const SizeRule* r = config_.overrides.find(w.collective, w.bytes);
      r && usable(r->choice, "CCLX_ALGO")) {
    d.choice = r->choice;
    d.source = Source::override_env;
    d.explanation = "rule '" + r->text + "'";
  } else if (const TableEntry* e = config_.table
                                       ? config_.table->nearest(w.collective, w.nranks, w.bytes)
                                       : nullptr) {
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [name, t] : e->times_us) ranked.emplace_back(t, name);
    std::sort(ranked.begin(), ranked.end());
    std::string times;
    for (const auto& [t, name] : ranked) times += " " + name + "=" + time_text(t * 1e-6);
    // The native margin: a candidate replaces native only when it clearly beats it.
    const auto native_time = e->times_us.find("native");
    const auto reps = [&](const std::string& name) -> std::span<const double> {
      const auto r = e->reps_us.find(name);
      return r == e->reps_us.end() ? std::span<const double>() : r->second;
    };
    std::string margin;
    bool found = false;
    for (const auto& [t, name] : ranked) {
      const Candidate c = parse_candidate(name);
      if (!c.native() && native_time != e->times_us.end()) {
        const std::string why =
            unclear_win(t, reps(name), native_time->second, reps("native"), config_.native_margin);
        if (!why.empty()) {
          if (t < native_time->second) margin.append("; ").append(name).append(" ").append(why);
          continue;
        }
      }
      if (usable(c, "table")) {
        d.choice = c;
        d.source = Source::table;
        d.exact = e->bytes == w.bytes;
        d.explanation = config_.table_origin + " at " + format_size(e->bytes) + " (" +
                        std::to_string(e->nranks) + " ranks), measured:" + times;
        if (!margin.empty()) d.explanation += " (native margin" + margin + ")";
        found = true;
        break;
      }
    }
    if (!found) skipped += "no table candidate serves the call; ";
  }
  if (d.explanation.empty()) {
    std::vector<std::pair<double, Candidate>> ranked;
    for (auto& c : model_candidates(w))
      if (const double t = config_.model(c, w); t >= 0) ranked.emplace_back(t, std::move(c));
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (ranked.empty()) ranked.emplace_back(0.0, Candidate{});  // native serves everything
    d.choice = ranked.front().second;
    d.source = Source::model;
    d.explanation = "predicted:";
    for (const auto& [t, c] : ranked) d.explanation += " " + to_string(c) + "=" + time_text(t);
  }
  d.explanation =
      to_string(d.choice) + " from " + std::string(to_string(d.source)) + ": " + d.explanation;
  if (!skipped.empty())
    d.explanation += " (skipped: " + skipped.substr(0, skipped.size() - 2) + ")";
  return d;
}

}  // namespace cclx::tune
