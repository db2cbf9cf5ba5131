// The settings table (cclx/settings.hpp): one row per variable, defaults that parse and match the
// code's own defaults, each type's grammar, errors that name the variable and what it accepts.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cclx/device/pinned_pool.hpp"
#include "cclx/device/staging_transport.hpp"
#include "cclx/engine/execution_options.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/model.hpp"
#include "cclx/tune/override.hpp"

namespace settings = cclx::settings;
using settings::Id;

namespace {

std::string error_of(Id id, const char* text) {
  try {
    (void)settings::parse(id, text);
  } catch (const cclx::Error& e) {
    return e.detail();
  }
  return "";
}

}  // namespace

TEST_CASE("settings: one row per Id, in order, each name once, every default parses") {
  REQUIRE(settings::table().size() == settings::count);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < settings::count; ++i) {
    const settings::Spec& s = settings::table()[i];
    CAPTURE(s.name);
    CHECK(static_cast<std::size_t>(s.id) == i);
    CHECK(s.name.starts_with("CCLX_"));
    CHECK(names.insert(s.name).second);
    CHECK_FALSE(s.accepts.empty());
    CHECK_FALSE(s.doc.empty());
    CHECK(settings::find(s.name) == &s);
    CHECK_NOTHROW((void)settings::parse(s.id, s.default_text));
    if (s.type == settings::Type::enumeration) {
      const auto& c = s.choices;
      CHECK(std::find(c.begin(), c.end(), s.default_text) != c.end());
    }
  }
  CHECK(settings::find("CCLX_NOPE") == nullptr);
}

TEST_CASE("settings: the table's defaults are the code's defaults") {
  const auto size = [](Id id) {
    return std::any_cast<std::size_t>(settings::parse(id, settings::spec(id).default_text));
  };
  CHECK(size(Id::cuda_chunk_bytes) == cclx::device::StagingOptions{}.chunk_bytes);
  CHECK(size(Id::cuda_depth) == cclx::device::StagingOptions{}.depth);
  CHECK(size(Id::cuda_pinned_cache_bytes) == cclx::device::PinnedPool::kDefaultMaxCached);
  CHECK(size(Id::handshake_bytes) == cclx::engine::ExecOptions{}.handshake_bytes);
  CHECK(std::any_cast<std::string>(settings::parse(Id::wait, "")) == "spin");
  CHECK(cclx::engine::WaitPolicy{}.mode == cclx::engine::WaitMode::spin);
  CHECK(std::any_cast<double>(settings::parse(Id::timeout, "")) == 0.0);
  CHECK_FALSE(std::any_cast<bool>(settings::parse(Id::validate, "")));
  // CCLX_ADAPTIVE_FAULT's documented default is algo::Adaptive's.
  const cclx::algo::Adaptive a{};
  CHECK(a.fault_factor == 5);
  CHECK(a.fault_floor_s == 10);
  CHECK(a.fault_cap_s == 300);
  CHECK(std::string(settings::spec(Id::adaptive_fault).doc).find("5,10,300") != std::string::npos);
  // The network of algo::Auto's model.
  const cclx::tune::ModelParams m{};
  const auto number = [](Id id) {
    return std::any_cast<double>(settings::parse(id, settings::spec(id).default_text));
  };
  CHECK(number(Id::net_latency) == m.inter_alpha);
  CHECK(1 / number(Id::net_bandwidth) == doctest::Approx(m.inter_beta).epsilon(1e-12));
  CHECK(size(Id::net_links) == static_cast<std::size_t>(m.inter_links));
}

TEST_CASE("settings: each type's grammar") {
  const auto b = [](const char* t) {
    return std::any_cast<bool>(settings::parse(Id::validate, t));
  };
  for (const char* t : {"1", "true", "YES", "on"}) CHECK(b(t));
  for (const char* t : {"0", "false", "No", "OFF", ""}) CHECK_FALSE(b(t));
  CHECK(error_of(Id::validate, "2") ==
        "CCLX_VALIDATE='2': expected 1, 0, true, false, yes, no, on or off");

  const auto n = [](Id id, const char* t) {
    return std::any_cast<std::size_t>(settings::parse(id, t));
  };
  CHECK(n(Id::cuda_depth, "3") == 3);
  CHECK(n(Id::cuda_depth, "2") == 2);
  // The staging transport needs two slots (one filling while the other is on the wire).
  CHECK(error_of(Id::cuda_depth, "1") == "CCLX_CUDA_DEPTH='1': expected an integer of at least 2");
  CHECK(error_of(Id::cuda_depth, "0") == "CCLX_CUDA_DEPTH='0': expected an integer of at least 2");
  CHECK_FALSE(error_of(Id::cuda_depth, "-1").empty());
  CHECK_FALSE(error_of(Id::cuda_depth, "2x").empty());
  CHECK(n(Id::handshake_bytes, "256K") == 256u << 10);
  CHECK(n(Id::handshake_bytes, "1.5M") == 3u << 19);
  CHECK(n(Id::cuda_chunk_bytes, "4194304") == 4u << 20);
  CHECK(n(Id::cuda_pinned_cache_bytes, "0") == 0);
  CHECK(error_of(Id::cuda_chunk_bytes, "0").starts_with("CCLX_CUDA_CHUNK_BYTES='0': expected"));
  CHECK(error_of(Id::handshake_bytes, "1X") ==
        "CCLX_HANDSHAKE_BYTES='1X': expected a byte size such as 0, 65536, 256K or 1.5M");

  const auto s = [](const char* t) {
    return std::any_cast<double>(settings::parse(Id::timeout, t));
  };
  CHECK(s("30") == 30);
  CHECK(s("0.5") == 0.5);
  CHECK(s("2s") == 2);
  CHECK(s("off") == 0);
  CHECK(s("none") == 0);
  for (const char* bad : {"abc", "-1", "5 min", "inf", "nan"})
    CHECK(error_of(Id::timeout, bad).starts_with(std::string("CCLX_TIMEOUT='") + bad + "'"));

  CHECK(std::any_cast<std::string>(settings::parse(Id::wait, "backoff")) == "backoff");
  CHECK(error_of(Id::wait, "busy") == "CCLX_WAIT='busy': expected spin, yield or backoff");
  CHECK(error_of(Id::tune, "on") == "CCLX_TUNE='on': expected off or online");

  using Words = std::vector<std::string>;
  CHECK(std::any_cast<Words>(settings::parse(Id::log, "tune,shim")) == Words{"tune", "shim"});
  CHECK(std::any_cast<Words>(settings::parse(Id::log, "all")) == Words{"all"});
  CHECK(std::any_cast<Words>(settings::parse(Id::log, "")).empty());
  CHECK(error_of(Id::log, "tune,debug") ==
        "CCLX_LOG='tune,debug': expected a comma-separated list of tune, shim and all");

  CHECK(std::any_cast<std::string>(settings::parse(Id::tune_file, "t.json")) == "t.json");
}

TEST_CASE("settings: grammars of their own (CCLX_ALGO, CCLX_ADAPTIVE_FAULT)") {
  const auto rules = std::any_cast<cclx::tune::Overrides>(
      settings::parse(Id::algo, "allreduce:0-8K=native,8K-inf=ring"));
  CHECK(rules.rules().size() == 2);
  CHECK(std::any_cast<cclx::tune::Overrides>(settings::parse(Id::algo, "")).empty());
  CHECK(error_of(Id::algo, "bcast:0-8Q=ring").starts_with("CCLX_ALGO: bad token '0-8Q'"));

  using Fault = std::optional<std::array<double, 3>>;
  CHECK(std::any_cast<Fault>(settings::parse(Id::adaptive_fault, "2,0.5,10")) ==
        Fault(std::array<double, 3>{2, 0.5, 10}));
  CHECK_FALSE(std::any_cast<Fault>(settings::parse(Id::adaptive_fault, "")).has_value());
  CHECK(error_of(Id::adaptive_fault, "2,0.5") ==
        "CCLX_ADAPTIVE_FAULT='2,0.5': expected factor,floor,cap (non-negative numbers; seconds)");

  // CCLX_NET_BANDWIDTH: bytes per second, decimal suffixes (a network's rates are decimal).
  const auto rate = [](const char* t) {
    return std::any_cast<double>(settings::parse(Id::net_bandwidth, t));
  };
  CHECK(rate("12.5G") == 12.5e9);
  CHECK(rate("25M") == 25e6);
  CHECK(rate("3k") == 3e3);
  CHECK(rate("1e9") == 1e9);
  CHECK(rate("23900000") == 23.9e6);
  for (const char* bad : {"0", "-1M", "1T", "fast", "", "1 G", "inf", "100Gb/s"})
    CHECK(error_of(Id::net_bandwidth, bad) ==
          std::string("CCLX_NET_BANDWIDTH='") + bad +
              "': expected bytes per second: a positive number, optionally with k, M or G");
  CHECK(error_of(Id::net_links, "0") == "CCLX_NET_LINKS='0': expected an integer of at least 1");
  // What cclx-topo and Auto's explanations print, in the same grammar.
  CHECK(settings::format_rate(23.9e6) == "23.9M");
  CHECK(settings::format_rate(12.5e9) == "12.5G");
  CHECK(settings::format_rate(500) == "500");
  for (const double x : {999.0, 1e3, 2.5e4, 23.9e6, 12.5e9})
    CHECK(rate(settings::format_rate(x).c_str()) == doctest::Approx(x));
}

TEST_CASE(
    "settings: read from the environment once, again on reload(); a bad value throws at use") {
  setenv("CCLX_WAIT", "yield", 1);
  setenv("CCLX_TIMEOUT", "soon", 1);
  unsetenv("CCLX_LOG");
  settings::reload();
  CHECK(settings::value(Id::wait).source == settings::Source::environment);
  CHECK(settings::value(Id::wait).text == "yield");
  CHECK(settings::get<std::string>(Id::wait) == "yield");
  CHECK(cclx::engine::WaitPolicy::from_env().mode == cclx::engine::WaitMode::yield);
  CHECK(settings::value(Id::log).source == settings::Source::default_value);
  CHECK_FALSE(settings::logs("tune"));
  const settings::Value t = settings::value(Id::timeout);
  CHECK(t.error.starts_with("CCLX_TIMEOUT='soon': expected seconds"));
  CHECK_THROWS_WITH_AS((void)settings::get<double>(Id::timeout),
                       doctest::Contains("CCLX_TIMEOUT='soon'"), cclx::Error);

  setenv("CCLX_WAIT", "spin", 1);  // not seen before reload()
  CHECK(settings::get<std::string>(Id::wait) == "yield");
  setenv("CCLX_LOG", "all", 1);
  unsetenv("CCLX_TIMEOUT");
  settings::reload();
  CHECK(settings::get<std::string>(Id::wait) == "spin");
  CHECK(settings::logs("tune"));
  CHECK(settings::logs("shim"));
  CHECK(settings::get<double>(Id::timeout) == 0);

  unsetenv("CCLX_WAIT");
  unsetenv("CCLX_LOG");
  settings::reload();
  CHECK(settings::value(Id::wait).source == settings::Source::default_value);
}
