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

/// A candidate of algorithm selection: an algorithm name and its parameters.
struct Candidate {
  std::string algorithm = "native";  ///< a registry name (algo::generators()) or "native"
  /// The policy's run-time fields by name (GeneratorInfo::params).
  sched::ParamMap params;

  /// Whether it names the MPI library's own collective.
  [[nodiscard]] bool native() const { return algorithm == "native"; }
  /// The same algorithm with the same parameters.
  friend bool operator==(const Candidate&, const Candidate&) = default;
};

/// Whether `c` asks for more than one channel for a collective that does not split into channels
/// (sched::splits_into_channels): such a candidate does not serve that collective.
[[nodiscard]] bool channels_unserved(const Candidate& c, sched::Collective collective);

/// "ring(segment_bytes=256K)"; parameters in name order, values as format_byte_size() writes them
/// (a negative one in decimal). Parses back with parse_candidate() unless a value is negative.
[[nodiscard]] std::string to_string(const Candidate& c);

/// Parses `name` or `name(key=value,...)`; values are byte sizes (cclx/byte_size.hpp). The
/// algorithm must be "native" or registered (algo::generators()), and each key one it accepts.
/// Throws cclx::Error naming the offending token.
[[nodiscard]] Candidate parse_candidate(std::string_view text);

}  // namespace cclx::tune
