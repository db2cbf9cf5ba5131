// The check stage of the call pipeline (call/check.hpp).
#include "cclx/call/check.hpp"

#include "cclx/algo/registry.hpp"
#include "cclx/call/schedule.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"

namespace cclx::call {

namespace {

// Whether `c` needs the canonical order (reproducible mode) and `p` does not keep it on `nranks`
// ranks.
bool refuses_order(const CollectiveCall& c, const Policy& p, int nranks) {
  return needs_canonical_order(c, nranks) && !p.type->reduces_canonically(c.collective, nranks);
}

}  // namespace

void check(const CollectiveCall& c, const Policy& p, int rank, int nranks) {
  if (const std::string err = check_call(c, rank, nranks); !err.empty()) throw Error(rank, err);
  if (refuses_order(c, p, nranks)) throw Error(rank, order_refusal(p.name(), c, nranks));
}

void check_schedule_in_full(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  if (c.has_op && !c.kernel.commutative && !s.preserves_order)
    throw Error(rank, "algorithm '" + s.algorithm +
                          "' reorders contributions and cannot honor a non-commutative op; use "
                          "an algorithm that keeps rank order (" +
                          algo::order_preserving_algorithms(c.collective) + ")");
  if (static_cast<int>(s.programs.size()) <= rank)
    throw Error(rank, "algorithm '" + s.algorithm + "' produced no program for this rank");
  if (c.blocks)
    if (std::string e = check_packed(c, rank, s.nranks); !e.empty()) throw Error(rank, e);
}

Validation validation(const CollectiveCall& c, const Policy& p, const sched::ScheduleRequest& req,
                      int rank, int nranks) {
  Validation v{{}, check_call(c, rank, nranks)};
  if (v.local_error.empty() && refuses_order(c, p, nranks))
    v.local_error = order_refusal(p.name(), c, nranks);
  if (!p.type->schedule) return v;  // native, relay
  v.params = p.type->wire_params(p.self, req);
  if (v.local_error.empty()) {
    try {
      check_schedule(c, *schedule(p, req, rank), rank);
    } catch (const Error& e) {
      v.local_error = e.detail();
    }
  }
  return v;
}

std::string order_refusal(std::string_view algorithm, const CollectiveCall& c, int nranks) {
  std::string keep;
  for (const auto& g : algo::generators())
    if (g.reduces_canonically(c.collective, nranks)) keep += (keep.empty() ? "" : ", ") + g.name;
  const std::string op = c.kernel.op == OpId::user ? std::string("a user-defined op")
                                                   : std::string(to_string(c.kernel.op));
  return std::string(sched::to_string(c.collective)) + " of " + std::string(to_string(c.type)) +
         " " + op + " in reproducible mode (CCLX_REPRODUCIBLE): '" + std::string(algorithm) +
         "' does not combine in the canonical order on " + std::to_string(nranks) +
         " ranks; use algo::Auto or one of: " + keep + " (docs/reproducibility.md)";
}

bool reproducible_setting(int rank) {
  try {
    return settings::get<bool>(settings::Id::reproducible);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
}

std::string check_call(const CollectiveCall& c, int rank, int n) {
  // Strings are built only on failure: this runs on every call, including 8-byte native ones.
  return coll::visit(c.collective, [&](auto d) -> std::string {
    const auto what = [&] { return std::string(d.name); };
    if (d.rooted && (c.root < 0 || c.root >= n))
      return what() + ": invalid root " + std::to_string(c.root) + " (communicator has " +
             std::to_string(n) + " ranks)";
    const sched::Windows w = d.windows(n, rank, c.root, 1);
    const bool uses_out = w.out.present;  // e.g. reduce's output matters on the root only
    if (c.in_size && !c.in)
      return what() + ": input is null but has " + std::to_string(c.in_size) + " elements";
    if (uses_out && c.out_size && !c.out)
      return what() + ": output is null but has " + std::to_string(c.out_size) + " elements";
    if constexpr (coll::variable_counts<decltype(d)>) {
      if (std::string e = check_block_counts(c, rank, n); !e.empty()) return e;
    } else if (std::string e = d.check_sizes(c.in_size, c.out_size, c.in_place, rank == c.root, n);
               !e.empty()) {
      return e;
    }
    if (!c.in_place && uses_out && c.in && c.out) {
      const auto* a = static_cast<const std::byte*>(c.in);
      const auto* b = static_cast<const std::byte*>(c.out);
      const std::size_t es = c.kernel.elem_size;
      if (a < b + c.out_size * es && b < a + c.in_size * es)
        return what() +
               ": input and output buffers overlap (use the one-buffer overload for an "
               "in-place call)";
    }
    return {};
  });
}

}  // namespace cclx::call
