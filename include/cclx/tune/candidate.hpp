// A candidate of algorithm selection: an algorithm by its registry name (or "native") with its
// parameters, e.g. "ring(segment_bytes=256K)" or "pipelined_tree(segment_bytes=1M,fanout=2)".
// What algo::Auto, CCLX_ALGO, tuning tables and the online tuner choose between.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cclx/byte_size.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::tune {

struct Candidate {
  std::string algorithm = "native";
  // The policy's run-time fields by name (GeneratorInfo::params).
  sched::ParamMap params;

  [[nodiscard]] bool native() const { return algorithm == "native"; }
  friend bool operator==(const Candidate&, const Candidate&) = default;
};

// Whether `c` asks for more than one channel for a collective that does not split into channels
// (sched::splits_into_channels): such a candidate does not serve that collective.
[[nodiscard]] bool channels_unserved(const Candidate& c, sched::Collective collective);

// "ring(segment_bytes=262144)"; parameters in name order, sizes as plain numbers. Parses back
// with parse_candidate().
[[nodiscard]] std::string to_string(const Candidate& c);

// Parses `name` or `name(key=value,...)`; values are byte sizes (cclx/byte_size.hpp). The
// algorithm must be "native" or registered (algo::generators()), and each key one it accepts.
// Throws cclx::Error naming the offending token.
[[nodiscard]] Candidate parse_candidate(std::string_view text);

}  // namespace cclx::tune
