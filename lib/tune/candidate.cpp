#include "cclx/tune/candidate.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>
#include <system_error>

#include "../util/text.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/byte_size.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"

namespace cclx::tune {

namespace {
using cclx::detail::trim;

bool accepts(const sched::GeneratorInfo& g, std::string_view key) {
  return g.takes(key);
}

// A parameter's value: a byte size (256K, 1M, 3), or a negative integer (StragglAR's
// straggler=-1), as to_string() writes them.
std::optional<long long> parse_value(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '-') {
    long long v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return v;
  }
  const auto size = parse_byte_size(text);
  if (!size || *size > static_cast<std::size_t>(std::numeric_limits<long long>::max()))
    return std::nullopt;
  return static_cast<long long>(*size);
}
}  // namespace

std::string to_string(const Candidate& c) {
  std::string s = c.algorithm;
  if (c.params.empty()) return s;
  s += '(';
  bool first = true;
  for (const auto& [key, value] : c.params) {
    if (!first) s += ',';
    first = false;
    s += key + '=' +
         (value >= 0 ? format_byte_size(static_cast<std::size_t>(value)) : std::to_string(value));
  }
  return s + ')';
}

Candidate parse_candidate(std::string_view text) {
  const std::string_view whole = trim(text);
  const auto open = whole.find('(');
  Candidate c;
  c.algorithm = std::string(trim(whole.substr(0, open)));
  if (c.algorithm.empty())
    throw Error("algorithm selection: empty algorithm name in '" + std::string(whole) + "'");
  const sched::GeneratorInfo* g = nullptr;
  if (!c.native()) {
    try {
      g = &algo::generator(c.algorithm);
    } catch (const Error& e) {
      throw Error("algorithm selection: '" + std::string(whole) + "': " + e.detail());
    }
  }
  if (open == std::string_view::npos) return c;
  if (whole.back() != ')')
    throw Error("algorithm selection: '" + std::string(whole) + "': missing ')'");
  std::string_view args = whole.substr(open + 1, whole.size() - open - 2);
  while (!trim(args).empty()) {
    const auto comma = args.find(',');
    const std::string_view item = trim(args.substr(0, comma));
    args = comma == std::string_view::npos ? std::string_view{} : args.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string key(trim(item.substr(0, eq)));
    const auto value =
        eq == std::string_view::npos ? std::nullopt : parse_value(item.substr(eq + 1));
    if (key.empty() || !value)
      throw Error("algorithm selection: '" + std::string(item) + "' in '" + std::string(whole) +
                  "' is not key=size (e.g. segment_bytes=256K) or key=integer");
    if (c.native() || !accepts(*g, key))
      throw Error("algorithm selection: algorithm '" + c.algorithm + "' has no parameter '" + key +
                  "'");
    if (key == "channels" && (*value < 1 || *value > sched::max_channels))
      throw Error("algorithm selection: '" + std::string(item) + "' in '" + std::string(whole) +
                  "': channels must be in [1, " + std::to_string(sched::max_channels) + "]");
    c.params[key] = *value;
  }
  return c;
}

bool channels_unserved(const Candidate& c, sched::Collective collective) {
  const auto ch = c.params.find("channels");
  return ch != c.params.end() && ch->second != 1 && !sched::splits_into_channels(collective);
}

}  // namespace cclx::tune
