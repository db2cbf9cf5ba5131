// Policies chosen at run time (algo::Auto, CCLX_ALGO, tuning tables): a tune::Candidate names an
// algorithm and its fields; with_policy() builds that policy and hands it to a generic callable,
// so the call then runs through the same compile-time path as a policy written in the code.
#pragma once

#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "cclx/algo/param.hpp"
#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/tune/candidate.hpp"

namespace cclx::algo {

/// Every policy that can be named at run time: the registry.
using named_policies = registry;

namespace detail {
template <std::size_t I, class F>
decltype(auto) with_named_policy(const tune::Candidate& c, F&& f) {
  if constexpr (I == std::tuple_size_v<named_policies>) {
    throw Error("unknown algorithm '" + c.algorithm + "'");
    return std::forward<F>(f)(Native{});  // unreachable; fixes the return type
  } else {
    using A = std::tuple_element_t<I, named_policies>;
    if (c.algorithm == A::name) return std::forward<F>(f)(from_params<A>(c.params));
    return with_named_policy<I + 1>(c, std::forward<F>(f));
  }
}
}  // namespace detail

/// Calls f(policy) with the policy `c` names (Native for "native"); every instantiation of f must
/// return the same type.
template <class F>
decltype(auto) with_policy(const tune::Candidate& c, F&& f) {
  if (c.native()) return std::forward<F>(f)(Native{});
  return detail::with_named_policy<0>(c, std::forward<F>(f));
}

namespace detail {
template <class Tuple>
struct any_policy;
template <class... P>
struct any_policy<std::tuple<P...>> {
  using type = std::variant<Native, P...>;
};
}  // namespace detail

/// Any policy with_policy() can build, held by value: what a decision resolves to once, so that a
/// call repeating it dispatches on the variant's index instead of on the candidate's name.
using AnyPolicy = detail::any_policy<named_policies>::type;

/// The policy `c` names, built once (with_policy()'s name test and parameter parsing).
inline AnyPolicy to_policy(const tune::Candidate& c) {
  return with_policy(c, [](const auto& p) { return AnyPolicy(p); });
}

}  // namespace cclx::algo
