// algo::Auto's choose stage: the Communicator members that choose a call's candidate through its
// AutoContext (detail/auto_dispatch.hpp says why every rank chooses alike) and hand it, erased
// (call::erase), to the pipeline's next stages (run_policy(), start_policy(), init_policy()).
// Included at the end of communicator.hpp; kept apart so that the Communicator itself carries only
// one branch per form.
//
// A persistent collective (*_init) chooses once, at init, through the same AutoContext::choose(),
// and keeps the candidate for the request's life. A persistent alltoallv first agrees on its size
// (one allreduce at init), so that it is decided by size like the other collectives; its one-shot
// calls are decided without one (auto_dispatch.hpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "cclx/algo/auto.hpp"
#include "cclx/algo/by_name.hpp"
#include "cclx/communicator.hpp"
#include "cclx/detail/auto_dispatch.hpp"

namespace cclx {

namespace detail {
// Runs a remembered decision's resolved policy: native, the common case, without a visit.
template <class Run>
void run_remembered(const tune::Settled& s, Run&& run) {
  if (!s.candidate) return run(s.candidate, algo::Native{});
  std::visit([&](const auto& p) { run(s.candidate, p); }, s.policy);
}
}  // namespace detail

template <Backend B>
tune::Workload Communicator<B>::auto_workload(const CollectiveCall& c) {
  if (!auto_.agreed()) {
    // The first Auto call: compare the selector's inputs across ranks (one 16-byte allgather).
    const std::array<std::uint64_t, 2> mine = auto_.local_fingerprint(rank());
    std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size()));
    CollectiveCall g = base_call<std::uint64_t>(sched::Collective::allgather);
    g.in = mine.data();
    g.out = all.data();
    g.count = g.in_size = 2;
    g.out_size = all.size();
    b_.native(g);
    auto_.agree(all, rank());
    // The host map, made here where every rank is (its first use is collective): on a
    // communicator that spans hosts the model ranks the hierarchical policies too.
    auto_.set_hosts(host_ids());
  }
  tune::Workload w = detail::auto_workload(c, size());
  w.hosts = auto_.hosts();
  return w;
}

// `value`'s max over ranks (one native allreduce of one element).
template <Backend B>
template <class T>
T Communicator<B>::max_over_ranks(T value) {
  CollectiveCall m = base_call<T>(sched::Collective::allreduce);
  m.kernel = detail::kernel_for<T>(cclx::max);
  m.has_op = true;
  m.in = m.out = &value;
  m.in_place = true;
  m.count = m.in_size = m.out_size = 1;
  b_.native(m);
  return value;
}

// Runs the chosen candidate; a tuning call is timed and its time reduced to the max over ranks,
// so that every rank's tuner sees the same number.
template <Backend B>
template <algo::AutoAlgorithm A>
void Communicator<B>::run_auto(const CollectiveCall& c, const A& policy) {
  // The repeated call's path, kept here (small enough to inline into the caller) ahead of
  // auto_miss(); the common native choice runs without a visit of the policy.
  const detail::AutoKey key = detail::auto_key(c, policy.online);
  if (const tune::Settled* s = auto_.repeat(key)) {
    if (!s->candidate) return run_native(c);
    return std::visit([&](const auto& p) { run_policy(c, call::erase(p)); }, s->policy);
  }
  auto_miss(c, policy, true, key,
            [&](const tune::Candidate*, const auto& p) { run_policy(c, call::erase(p)); });
}

template <Backend B>
template <class Run>
void Communicator<B>::with_auto_choice(const CollectiveCall& call, const algo::Auto& policy,
                                       bool blocking, Run&& run) {
  const CollectiveCall c = in_mode(call);
  detail::AutoKey key;  // only a blocking call is remembered
  if (blocking) {
    key = detail::auto_key(c, policy.online);
    // A blocking call repeating the last one's settled decision: its resolved policy.
    if (const tune::Settled* s = auto_.repeat(key)) return detail::run_remembered(*s, run);
  }
  auto_miss(c, policy, blocking, key, std::forward<Run>(run));
}

// A call that did not repeat the remembered decision (`key` is its auto_key(), computed once by
// the caller): decides, runs, times where the tuner asks, and remembers a settled decision.
template <Backend B>
template <class Run>
void Communicator<B>::auto_miss(const CollectiveCall& c, const algo::Auto& policy, bool blocking,
                                const detail::AutoKey& key, Run&& run) {
  using Timing = detail::AutoContext::Timing;
  auto_.forget();
  const tune::Workload w = auto_workload(c);
  const auto run_choice = [&](const tune::Candidate& choice) {
    algo::with_policy(choice, [&](const auto& p) { run(choice.native() ? nullptr : &choice, p); });
  };
  if (!blocking) return run_choice(untimed_choice(c, w, policy));
  Timing timing = Timing::none;
  tune::AutoEntry* entry = nullptr;
  const tune::Candidate& choice = auto_.choose(w, policy.online, timing, &entry);
  if (timing == Timing::none)
    return detail::run_remembered(auto_.remember(key, *entry, choice), run);
  const double t0 = MPI_Wtime();
  run_choice(choice);
  const double local = MPI_Wtime() - t0;
  if (timing == Timing::tune) {
    auto_.observe(w, policy.online, max_over_ranks(local));
  } else if (auto_.add_sample(w, local)) {
    auto_.check_drift(w, max_over_ranks(auto_.window_score(w)));
  }
}

// Nonblocking and persistent calls use the decision but are not timed: their completion includes
// the caller's overlap. MPI's nonblocking and persistent paths do not take user-defined ops, so
// such a call runs the first scheduled candidate that serves it instead (the same on every rank).
template <Backend B>
template <algo::AutoAlgorithm A>
tune::Candidate Communicator<B>::untimed_choice(const CollectiveCall& c, const tune::Workload& w,
                                                const A& policy) {
  detail::AutoContext::Timing timing{};
  const tune::Candidate& choice = auto_.choose(w, policy.online, timing);
  if (choice.native() && c.has_op && c.kernel.op == OpId::user)
    for (auto& cand : tune::model_candidates(w))
      if (!cand.native()) return cand;
  return choice;
}

template <Backend B>
template <algo::AutoAlgorithm A>
Request Communicator<B>::start_auto(const CollectiveCall& c, const A& policy,
                                    std::shared_ptr<void> keepalive) {
  return algo::with_policy(untimed_choice(c, auto_workload(c), policy), [&](const auto& p) {
    return start_policy(c, call::erase(p), std::move(keepalive));
  });
}

// A persistent request chooses once, here, and keeps that candidate for its whole life. An
// alltoallv agrees on its size first: the busiest rank's bytes (one 8-byte allreduce, on every
// rank before anything here can throw), which is the size tables record for alltoallv.
template <Backend B>
template <class D, algo::AutoAlgorithm A>
PersistentRequest Communicator<B>::init_auto(const CollectiveCall& c, const A& policy,
                                             std::shared_ptr<void> keepalive) {
  tune::Workload w = auto_workload(c);
  if (!w.sized) {
    w.bytes = static_cast<std::size_t>(
        max_over_ranks(static_cast<std::uint64_t>(detail::alltoallv_local_bytes(c))));
    w.sized = true;
  }
  return algo::with_policy(untimed_choice(c, w, policy), [&](const auto& p) -> PersistentRequest {
    using P = std::decay_t<decltype(p)>;
    if constexpr (algo::serves<P>(D::id))
      return init_policy(c, call::erase(p), std::move(keepalive));
    else  // the selector never chooses a candidate that does not serve the collective
      throw Error(rank(), "algo::Auto chose '" + std::string(P::name) + "', which does not serve " +
                              std::string(sched::to_string(D::id)));
  });
}

template <Backend B>
template <Element T>
std::string Communicator<B>::explain(sched::Collective coll, std::size_t count, int root,
                                     bool commutative, const algo::Auto& policy) {
  tune::Workload w = detail::auto_workload(coll, count, sizeof(T), size(), root, commutative);
  w.hosts = auto_.hosts();  // known once an Auto call has run (explain() itself stays local)
  // A float sum or product in reproducible mode needs the canonical order.
  w.reproducible = reproducible_ && size() > 2 && std::is_floating_point_v<T> &&
                   coll::visit(coll, [](auto d) { return d.reduces; });
  std::string s = auto_.explain(w, policy.online, rank());
  if (!w.sized) {  // alltoallv: also what an alltoallv_init agreeing on `count` elements runs
    w.sized = true;
    w.bytes = count * sizeof(T);
    s += "\n" + auto_.explain(w, policy.online, rank());
  }
  return s;
}

}  // namespace cclx
