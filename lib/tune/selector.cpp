#include "cclx/tune/selector.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <span>

#include "cclx/error.hpp"
#include "cclx/settings.hpp"

namespace cclx::tune {

std::string_view to_string(Source s) {
  switch (s) {
    case Source::override_env:
      return "override (CCLX_ALGO)";
    case Source::table:
      return "tuning table";
    case Source::native_default:
      return "native default";
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
                          (std::uint64_t(w.sized) << 10) | (std::uint64_t(w.displs) << 11) |
                          (std::uint64_t(w.reproducible) << 12) |
                          (std::uint64_t(w.elem_size) << 16) |
                          (std::uint64_t(static_cast<std::uint32_t>(w.root)) << 32);
  std::uint64_t h = a * 0x9e3779b97f4a7c15ull;
  h ^= w.bytes * 0xbf58476d1ce4e5b9ull + (h >> 29);
  h ^= static_cast<std::uint64_t>(w.nranks) * 0x94d049bb133111ebull + (h >> 31);
  return static_cast<std::size_t>(h ^ (h >> 32));
}

Selector::Selector(Config c) : config_(std::move(c)) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  default_model_ = !config_.model;
  if (default_model_) {
    config_.model = alpha_beta_model(config_.model_params);
    const ModelParams& m = config_.model_params;
    for (const double x :
         {m.alpha, m.beta, m.gamma, m.call_overhead, m.step_overhead, m.native_overhead,
          m.native_beta_scale, m.inter_alpha, m.inter_beta, static_cast<double>(m.inter_links)})
      h = mix(h, std::bit_cast<std::uint64_t>(x));
  }
  for (const auto& r : config_.overrides.rules()) h = mix(h, r.text);
  if (config_.table) h = mix(h, config_.table->dump());
  fingerprint_ = h;
}

Selector::Config Selector::config_from_env() {
  Config c;
  c.overrides = Overrides::from_env();
  c.model_params = model_params_from_env();
  c.table = table_from_env();
  if (c.table) c.table_origin = settings::get<std::string>(settings::Id::tune_file);
  return c;
}

Decision Selector::decide(const Workload& w) const {
  return compute(w);
}

Decision Selector::compute(const Workload& w) const {
  if (!w.sized) return compute_any_size(w);
  Decision d;
  std::string skipped;
  const auto usable = [&](const Candidate& c, std::string_view from) {
    std::string why;
    if (generates(c, w, &why)) return true;
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
        d.explanation = config_.table_origin + " at " + format_byte_size(e->bytes) + " (" +
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
    if (default_model_ && w.multi_host()) {  // the network it assumed, as the settings write it
      const ModelParams& m = config_.model_params;
      char latency[32];
      std::snprintf(latency, sizeof latency, "%.3g", m.inter_alpha);
      d.explanation += std::string(" (across hosts: CCLX_NET_LATENCY=") + latency +
                       " CCLX_NET_BANDWIDTH=" + settings::format_rate(1 / m.inter_beta) +
                       " CCLX_NET_LINKS=" + std::to_string(m.inter_links) + ")";
    }
  }
  d.explanation =
      to_string(d.choice) + " from " + std::string(to_string(d.source)) + ": " + d.explanation;
  if (!skipped.empty()) {
    d.skipped = skipped.substr(0, skipped.size() - 2);
    d.explanation += " (skipped: " + d.skipped + ")";
  }
  return d;
}

Decision Selector::compute_any_size(const Workload& w) const {
  // Every size where a source's answer can change: 0, the bounds of the override rules that can
  // apply, and where the table's nearest entry changes. Between two of them every answer holds.
  std::vector<std::size_t> at{0};
  for (const auto& r : config_.overrides.rules()) {
    if (r.collective && *r.collective != w.collective) continue;
    at.push_back(r.lo);
    if (r.hi != std::numeric_limits<std::size_t>::max()) at.push_back(r.hi);
  }
  if (config_.table)
    for (const std::size_t b : config_.table->region_starts(w.collective, w.nranks))
      at.push_back(b);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());

  struct Piece {
    std::size_t lo;
    Decision d;
  };
  std::vector<Piece> pieces;
  bool same = true, model = false, table_only = true;
  std::string skipped;
  for (const std::size_t b : at) {
    Workload sized = w;
    sized.sized = true;
    sized.bytes = b;
    Decision d = compute(sized);
    model = model || d.source == Source::model;
    table_only = table_only && d.source == Source::table;
    if (!d.skipped.empty() && skipped.find(d.skipped) == std::string::npos)
      skipped += (skipped.empty() ? "" : "; ") + d.skipped;
    if (pieces.empty() || !(pieces.back().d.choice == d.choice) ||
        pieces.back().d.source != d.source)
      pieces.push_back({b, std::move(d)});
  }
  std::string ranges;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    same = same && pieces[i].d.choice == pieces.front().d.choice;
    const std::size_t hi =
        i + 1 < pieces.size() ? pieces[i + 1].lo : std::numeric_limits<std::size_t>::max();
    const Decision& p = pieces[i].d;
    std::string from(to_string(p.source));
    if (p.source == Source::override_env)
      from = "rule '" + config_.overrides.find(w.collective, pieces[i].lo)->text + "'";
    else if (p.source == Source::table)
      from += " " + config_.table_origin;
    ranges += (i ? ", " : "") + format_byte_size(pieces[i].lo) + "-" + format_byte_size(hi) + " " +
              to_string(p.choice) + " (" + from + ")";
  }
  Decision d;
  std::string regret;
  if (same && !model) {
    d.choice = pieces.front().d.choice;
    d.source = pieces.front().d.source;
    d.explanation =
        to_string(d.choice) + " from " + std::string(to_string(d.source)) +
        " at every size (no size all ranks know, so one choice must hold for all): " + ranges;
  } else if (table_only && least_regret(w, d.choice, regret)) {
    d.source = Source::table;
    d.explanation = to_string(d.choice) + " from " + std::string(to_string(d.source)) +
                    ": the choice varies with size and no size all ranks know, so the candidate "
                    "least slower than the fastest at its worst size: " +
                    regret + "; by size: " + ranges;
  } else {
    d.source = Source::native_default;
    d.explanation =
        "native by default: no size all ranks know, and " +
        std::string(model ? "the model ranks candidates by size" : "the choice varies with size") +
        ", so the native default serves every size: " + ranges;
  }
  if (!skipped.empty()) {
    d.skipped = skipped;
    d.explanation += " (skipped: " + skipped + ")";
  }
  return d;
}

bool Selector::least_regret(const Workload& w, Candidate& choice, std::string& why) const {
  // Per candidate, its worst ratio to the fastest candidate over the table's sizes for
  // (collective, nranks); only candidates measured, and able to serve, at every size.
  std::map<std::string, double, std::less<>> worst;
  std::map<std::string, std::size_t, std::less<>> sizes;
  std::size_t entries = 0;
  for (const TableEntry& e : config_.table->entries()) {
    if (e.collective != w.collective || e.nranks != w.nranks || e.times_us.empty()) continue;
    ++entries;
    Workload sized = w;
    sized.sized = true;
    sized.bytes = e.bytes;
    std::vector<std::pair<std::string, double>> served;
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [name, t] : e.times_us) {
      const Candidate c = parse_candidate(name);
      if (!generates(c, sized)) continue;
      served.emplace_back(name, t);
      fastest = std::min(fastest, t);
    }
    for (const auto& [name, t] : served) {
      double& r = worst.try_emplace(name, 0.0).first->second;
      r = std::max(r, fastest > 0 ? t / fastest : 1.0);
      ++sizes[name];
    }
  }
  const std::string* best = nullptr;
  for (const auto& [name, r] : worst)
    if (sizes[name] == entries && (!best || r < worst.find(*best)->second)) best = &name;
  if (!best) return false;
  // The native margin over worst cases: another candidate replaces native only when its worst
  // case is clearly better than native's.
  const auto native = worst.find("native");
  const bool native_everywhere = native != worst.end() && sizes["native"] == entries;
  if (native_everywhere && *best != "native" &&
      worst[*best] * (1 + config_.native_margin) > native->second)
    best = &native->first;
  choice = parse_candidate(*best);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s at most %.1f%% slower at any of %zu sizes", best->c_str(),
                100 * (worst[*best] - 1), entries);
  why = buf;
  if (native_everywhere && *best != "native") {
    std::snprintf(buf, sizeof buf, ", native up to %.1f%%", 100 * (native->second - 1));
    why += buf;
  }
  return true;
}

}  // namespace cclx::tune
