// algo::Auto's dispatch: the Communicator members that run a call through the candidate its
// AutoContext chooses (detail/auto_dispatch.hpp says why every rank chooses alike). Included at
// the end of communicator.hpp; kept apart so that the Communicator itself carries only one branch
// in run() and one in start().
//
// A persistent collective (*_init) chooses once, at init, through the same auto_choice(), and
// keeps the candidate for the request's life.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <variant>
#include <vector>

#include "cclx/algo/auto.hpp"
#include "cclx/algo/by_name.hpp"
#include "cclx/communicator.hpp"
#include "cclx/detail/auto_dispatch.hpp"

namespace cclx {

template <class Backend>
std::optional<tune::Workload> Communicator<Backend>::auto_workload(const CollectiveCall& c) {
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
  }
  return detail::auto_workload(c, size());
}

template <class Backend>
template <algo::AutoAlgorithm A>
const tune::Candidate& Communicator<Backend>::auto_choice(const tune::Workload& w, const A& policy,
                                                          detail::AutoContext::Timing& timing) {
  return auto_.choose(w, policy.online, timing);
}

template <class Backend>
double Communicator<Backend>::max_over_ranks(double seconds) {
  CollectiveCall m = base_call<double>(sched::Collective::allreduce);
  m.kernel = detail::kernel_for<double>(cclx::max);
  m.has_op = true;
  m.in = m.out = &seconds;
  m.in_place = true;
  m.count = m.in_size = m.out_size = 1;
  b_.native(m);
  return seconds;
}

// Runs the chosen candidate; a tuning call is timed and its time reduced to the max over ranks,
// so that every rank's tuner sees the same number.
template <class Backend>
template <algo::AutoAlgorithm A>
void Communicator<Backend>::run_auto(const CollectiveCall& c, const A& policy) {
  // The repeated call's path, kept here (small enough to inline into the caller) ahead of
  // with_auto_choice()'s; the common native choice runs without a visit of the policy.
  if (const detail::AutoContext::Memo* m = auto_.repeat(c, policy.online)) {
    if (!m->choice) return run(c, algo::Native{});
    return std::visit([&](const auto& p) { run(c, p); }, m->policy);
  }
  with_auto_choice(c, policy, true, [&](const tune::Candidate*, const auto& p) { run(c, p); });
}

template <class Backend>
template <class Run>
void Communicator<Backend>::with_auto_choice(const CollectiveCall& c, const algo::Auto& policy,
                                             bool blocking, Run&& run) {
  using Timing = detail::AutoContext::Timing;
  // A blocking call repeating the last one's settled decision: its resolved policy, nothing else.
  const auto run_memo = [&](const detail::AutoContext::Memo& m) {
    if (!m.choice) return run(m.choice, algo::Native{});  // the common case, without a visit
    std::visit([&](const auto& p) { run(m.choice, p); }, m.policy);
  };
  if (blocking)
    if (const detail::AutoContext::Memo* m = auto_.repeat(c, policy.online)) return run_memo(*m);
  auto_.forget();
  const std::optional<tune::Workload> w = auto_workload(c);
  if (!w) {
    if (blocking) auto_.remember(c, policy.online, nullptr);
    return run(static_cast<const tune::Candidate*>(nullptr), algo::Native{});
  }
  const auto run_choice = [&](const tune::Candidate& choice) {
    algo::with_policy(choice, [&](const auto& p) { run(choice.native() ? nullptr : &choice, p); });
  };
  if (!blocking) return run_choice(untimed_choice(c, *w, policy));
  Timing timing = Timing::none;
  const tune::Candidate& choice = auto_choice(*w, policy, timing);
  if (timing == Timing::none) return run_memo(auto_.remember(c, policy.online, &choice));
  const double t0 = MPI_Wtime();
  run_choice(choice);
  const double local = MPI_Wtime() - t0;
  if (timing == Timing::tune) {
    auto_.observe(*w, policy.online, max_over_ranks(local));
  } else if (auto_.add_sample(*w, local)) {
    auto_.check_drift(*w, max_over_ranks(auto_.window_score(*w)));
  }
}

// Nonblocking and persistent calls use the decision but are not timed: their completion includes
// the caller's overlap. MPI's nonblocking and persistent paths do not take user-defined ops, so
// such a call runs the first scheduled candidate that serves it instead (the same on every rank).
template <class Backend>
template <algo::AutoAlgorithm A>
tune::Candidate Communicator<Backend>::untimed_choice(const CollectiveCall& c,
                                                      const tune::Workload& w, const A& policy) {
  detail::AutoContext::Timing timing{};
  const tune::Candidate& choice = auto_choice(w, policy, timing);
  if (choice.native() && c.has_op && c.kernel.op == OpId::user)
    for (auto& cand : tune::model_candidates(w))
      if (!cand.native()) return cand;
  return choice;
}

template <class Backend>
template <algo::AutoAlgorithm A>
Request Communicator<Backend>::start_auto(const CollectiveCall& c, const A& policy,
                                          std::shared_ptr<void> keepalive) {
  const std::optional<tune::Workload> w = auto_workload(c);
  if (!w) return start(c, algo::Native{}, std::move(keepalive));
  return algo::with_policy(untimed_choice(c, *w, policy),
                           [&](const auto& p) { return start(c, p, std::move(keepalive)); });
}

// A persistent request chooses once, here, and keeps that candidate for its whole life.
template <class Backend>
template <class D, algo::AutoAlgorithm A>
PersistentRequest Communicator<Backend>::init_auto(const CollectiveCall& c, const A& policy,
                                                   std::shared_ptr<void> keepalive) {
  const std::optional<tune::Workload> w = auto_workload(c);
  if (!w) return init<D>(c, algo::Native{}, std::move(keepalive));
  return algo::with_policy(untimed_choice(c, *w, policy), [&](const auto& p) -> PersistentRequest {
    using P = std::decay_t<decltype(p)>;
    if constexpr (algo::serves<P>(D::id))
      return init<D>(c, p, std::move(keepalive));
    else  // the selector never chooses a candidate that does not serve the collective
      throw Error(rank(), "algo::Auto chose '" + std::string(P::name) + "', which does not serve " +
                              std::string(sched::to_string(D::id)));
  });
}

template <class Backend>
template <Element T>
std::string Communicator<Backend>::explain(sched::Collective coll, std::size_t count, int root,
                                           bool commutative, const algo::Auto& policy) {
  const tune::Workload w = detail::auto_workload(coll, count, sizeof(T), size(), root, commutative);
  return auto_.explain(w, policy.online, rank());
}

}  // namespace cclx
