// A policy's run-time parameters, declared once by the policy itself (static params()): the name
// CCLX_ALGO, tuning tables and cclx-bench use, the values it accepts, a line of documentation, and
// how to read and set it. Its default is the policy's member initializer, so a default is never
// restated elsewhere. from_params() builds a policy from named values (a tune::Candidate's).
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

#include "cclx/error.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::algo {

/// One run-time parameter of a policy: its name, valid range, documentation and accessors (its
/// default is what get() reads from A{}).
template <class A>
struct Param {
  std::string_view name;                 ///< the policy's field, as CCLX_ALGO and tables name it
  long long min = 0;                     ///< the least value accepted
  long long max = 0;                     ///< the greatest value accepted (kUnbounded: no limit)
  std::string_view doc;                  ///< one line of documentation (sched::ParamInfo::doc)
  long long (*get)(const A&) = nullptr;  ///< reads the field of a policy
  void (*set)(A&, long long) = nullptr;  ///< sets the field of a policy, converted to its type
};

/// Param::max of a parameter without an upper limit.
inline constexpr long long kUnbounded = std::numeric_limits<long long>::max();

// One entry of a policy's params(): CCLX_POLICY_PARAM(Ring, segment_bytes, 0, kUnbounded, "...").
// A names a type and FIELD a member: neither can be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CCLX_POLICY_PARAM(A, FIELD, MIN, MAX, DOC)                                   \
  ::cclx::algo::Param<A> {                                                           \
#FIELD, MIN, MAX, DOC, [](const A& a) { return static_cast<long long>(a.FIELD); }, \
        [](A& a, long long v) { a.FIELD = static_cast<decltype(a.FIELD)>(v); } \
  }
// NOLINTEND(bugprone-macro-parentheses)

/// "segment_bytes must be >= 1, got 0", "fanout must be in [1, 1048576], got 0"
template <class A>
[[nodiscard]] std::string range_error(const Param<A>& p, long long value) {
  // Appended piece by piece: GCC 12 warns falsely (-Wstringop-overflow) on the operator+ chain.
  std::string s(A::name);
  s.append(": ").append(p.name).append(" must be ");
  if (p.max == kUnbounded)
    s.append(">= ").append(std::to_string(p.min));
  else
    s.append("in [")
        .append(std::to_string(p.min))
        .append(", ")
        .append(std::to_string(p.max))
        .append("]");
  s.append(", got ").append(std::to_string(value));
  return s;
}

/// The policy `params` describe, from A{}'s defaults; throws cclx::Error on a name A does not take
/// or a value outside its range.
template <class A>
[[nodiscard]] A from_params(const sched::ParamMap& params) {
  A a{};
  constexpr auto declared = A::params();
  for (const auto& entry : params) {
    const std::string& key = entry.first;
    const long long value = entry.second;
    const auto p = std::find_if(declared.begin(), declared.end(),
                                [&](const Param<A>& d) { return d.name == key; });
    if (p == declared.end())
      throw Error("algorithm '" + std::string(A::name) + "' has no parameter '" + key + "'");
    if (value < p->min || value > p->max) throw Error(range_error(*p, value));
    p->set(a, value);
  }
  return a;
}

/// The registry's description of A's parameters (defaults read from A{}).
template <class A>
[[nodiscard]] std::vector<sched::ParamInfo> param_infos() {
  std::vector<sched::ParamInfo> out;
  const A defaults{};
  for (const auto& p : A::params())
    out.push_back({std::string(p.name), p.min, p.max, p.get(defaults), std::string(p.doc)});
  return out;
}

}  // namespace cclx::algo
