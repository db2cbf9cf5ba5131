#include "cclx/tune/override.hpp"

#include <cctype>
#include <limits>

#include "../util/text.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"

namespace cclx::tune {

namespace {
using cclx::detail::trim;

[[noreturn]] void bad(std::string_view token, const std::string& why) {
  throw Error("CCLX_ALGO: bad token '" + std::string(token) + "': " + why);
}
}  // namespace

std::vector<std::string_view> split_top_level(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == sep && depth == 0) {
      parts.push_back(text.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(text.substr(begin));
  return parts;
}

Overrides Overrides::parse(std::string_view text) {
  Overrides o;
  for (std::string_view section : split_top_level(text, ';')) {
    section = trim(section);
    if (section.empty()) continue;
    const auto colon = section.find(':');
    if (colon == std::string_view::npos)
      bad(section, "expected <collective>:<rules> (e.g. allreduce:0-8K=native)");
    const std::string_view name = trim(section.substr(0, colon));
    std::optional<sched::Collective> coll;
    if (name != "*") {
      try {
        coll = sched::collective_from_string(name);
      } catch (const Error& e) {
        bad(name, e.detail());
      }
    }
    const std::string_view rules = section.substr(colon + 1);
    if (trim(rules).empty()) bad(section, "no rules after ':'");
    for (std::string_view rule : split_top_level(rules, ',')) {
      rule = trim(rule);
      const auto eq = rule.find('=');
      if (eq == std::string_view::npos)
        bad(rule, "expected <lo>-<hi>=<algorithm> or *=<algorithm>");
      const std::string_view range = trim(rule.substr(0, eq));
      SizeRule r;
      r.collective = coll;
      r.text = std::string(name) + ':' + std::string(rule);
      if (range == "*") {
        r.lo = 0;
        r.hi = std::numeric_limits<std::size_t>::max();
      } else {
        const auto dash = range.find('-');
        const auto lo =
            dash == std::string_view::npos ? std::nullopt : parse_byte_size(range.substr(0, dash));
        const auto hi = dash == std::string_view::npos
                            ? std::nullopt
                            : parse_byte_size(range.substr(dash + 1), AllowInf::yes);
        if (!lo || !hi) bad(range, "expected a size range <lo>-<hi> such as 0-8K or 8K-inf");
        if (*lo >= *hi) bad(range, "empty size range (lo must be below hi)");
        r.lo = *lo;
        r.hi = *hi;
      }
      try {
        r.choice = parse_candidate(rule.substr(eq + 1));
      } catch (const Error& e) {
        bad(trim(rule.substr(eq + 1)), e.detail());
      }
      if (coll && !r.choice.native()) {
        const auto& served = algo::generator(r.choice.algorithm).collectives;
        bool ok = false;
        for (auto c : served) ok = ok || c == *coll;
        if (!ok)
          bad(rule, "algorithm '" + r.choice.algorithm + "' does not serve " +
                        std::string(sched::to_string(*coll)));
        if (channels_unserved(r.choice, *coll))
          bad(rule, std::string(sched::to_string(*coll)) + " does not split into channels");
      }
      o.rules_.push_back(std::move(r));
    }
  }
  return o;
}

Overrides Overrides::from_env() {
  return settings::get<Overrides>(settings::Id::algo);
}

const SizeRule* Overrides::find(sched::Collective c, std::size_t bytes) const {
  const SizeRule* wildcard = nullptr;
  for (const auto& r : rules_) {
    if (bytes < r.lo || bytes >= r.hi) continue;
    if (r.collective == c) return &r;
    if (!r.collective && !wildcard) wildcard = &r;
  }
  return wildcard;
}

}  // namespace cclx::tune
