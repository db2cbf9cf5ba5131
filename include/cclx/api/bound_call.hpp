// What every collective call passes to the Communicator, whatever its form. A collective's
// argument lists (api/argument_lists.hpp, derived from its descriptor) are overloads of `bind`
// that turn the caller's typed arguments into a Bound; its blocking, nonblocking (i...) and
// persistent (..._init) forms (api/<name>.hpp) are three generic one-liners that hand the same
// Bound to the Communicator with their form tag.
#pragma once

#include <concepts>
#include <cstddef>
#include <optional>
#include <ranges>
#include <type_traits>

#include "cclx/algo/algorithm.hpp"
#include "cclx/block_counts.hpp"
#include "cclx/ops.hpp"
#include "cclx/persistent.hpp"
#include "cclx/request.hpp"
#include "cclx/types.hpp"

namespace cclx {

template <class R>
concept ContiguousRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    Element<std::remove_cv_t<std::ranges::range_value_t<R>>>;

template <class R>
concept MutableRange = ContiguousRange<R> &&
    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

/// The element type of range R, without const or volatile.
template <class R>
using element_t = std::remove_cv_t<std::ranges::range_value_t<R>>;

namespace detail {
/// The op argument of data-movement collectives.
struct NoOp {};
}  // namespace detail

namespace api {

/// The three forms of every collective.
struct Blocking {};
struct Start {};  ///< i...: returns a Request
struct Init {};   ///< ..._init: returns a PersistentRequest

/// What a call of form `Form` returns: Request (Start), PersistentRequest (Init), nothing
/// (Blocking).
template <class Form>
using result_t =
    std::conditional_t<std::same_as<Form, Start>, Request,
                       std::conditional_t<std::same_as<Form, Init>, PersistentRequest, void>>;

/// barrier's buffer type: it has none that could be a temporary.
struct NoBuffer {};

/// A call of collective D on elements of type T. `Written` is the range the call writes, as passed
/// (a temporary container would be gone before a nonblocking call completes). The pointers refer to
/// the caller's arguments, which live until the end of the full expression that made the Bound.
template <class D, class T, class Written, class Op, class A>
struct Bound {
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t in_size = 0, out_size = 0;
  bool in_place = false;
  const Op* op = nullptr;  ///< null for data-movement collectives
  const A* algorithm = nullptr;
  int root = 0;
  std::optional<detail::BlockCounts> counts;  ///< a v-collective's
};

/// The op a data-movement collective's argument lists pass: none (Bound::op stays null).
inline constexpr const detail::NoOp* no_op = nullptr;

/// One counts array sizing In's and Out's blocks, and the displacements of the n-block buffer
/// (whichever of In and Out that is on this rank: the checks apply them by window).
template <CountRange C>
detail::BlockCounts shared_counts(const C& counts, const Displs* displs = nullptr) {
  const detail::IntArray a = detail::int_array(counts);
  const detail::IntArray d = displs ? displs->array() : detail::IntArray{};
  return {a, a, d, d};
}

/// In place: one buffer.
template <class D, class Written, class R, class Op, algo::Algorithm A>
Bound<D, element_t<R>, Written, Op, A> one(R& buf, const Op* op, const A& algorithm, int root = 0,
                                           std::optional<detail::BlockCounts> counts = {}) {
  Bound<D, element_t<R>, Written, Op, A> b;
  b.out = std::ranges::data(buf);
  b.in = b.out;
  b.in_place = true;
  b.in_size = b.out_size = std::ranges::size(buf);
  b.op = op;
  b.algorithm = &algorithm;
  b.root = root;
  b.counts = counts;
  return b;
}

/// Out of place: input and output.
template <class D, class Written, class In, class Out, class Op, algo::Algorithm A>
Bound<D, element_t<In>, Written, Op, A> two(const In& in, Out& out, const Op* op,
                                            const A& algorithm, int root = 0,
                                            std::optional<detail::BlockCounts> counts = {}) {
  static_assert(std::same_as<element_t<In>, element_t<Out>>,
                "cclx: input and output element types differ");
  Bound<D, element_t<In>, Written, Op, A> b;
  b.in = std::ranges::data(in);
  b.out = std::ranges::data(out);
  b.in_size = std::ranges::size(in);
  b.out_size = std::ranges::size(out);
  b.op = op;
  b.algorithm = &algorithm;
  b.root = root;
  b.counts = counts;
  return b;
}

/// The collectives' headers reach the Communicator's one entry through this (a friend of it).
struct Access {
  template <class Form, class Comm, class Call>
  static result_t<Form> invoke(Comm& comm, const Call& call) {
    return comm.template invoke<Form>(call);
  }
};

}  // namespace api
}  // namespace cclx
