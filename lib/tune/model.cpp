#include "cclx/tune/model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/partition.hpp"

namespace cclx::tune {

using sched::Buf;
using sched::OpKind;

sched::ScheduleRequest Workload::request() const {
  sched::ScheduleRequest r;
  r.collective = collective;
  r.nranks = nranks;
  r.root = root;
  r.in_place = in_place;
  r.bytes = bytes;
  r.hosts = hosts;
  return r;
}

bool Workload::multi_host() const {
  if (hosts.empty()) return false;
  std::vector<int> ids(hosts.begin(), hosts.end());
  std::sort(ids.begin(), ids.end());
  return ids.front() != ids.back() && std::adjacent_find(ids.begin(), ids.end()) != ids.end();
}

double estimate(const sched::Schedule& s, std::size_t bytes, std::size_t elem_size,
                const ModelParams& m, double per_call_overhead, std::span<const int> hosts) {
  const sched::Partition part{bytes / std::max<std::size_t>(elem_size, 1), s.nblocks};
  const auto region_bytes = [&](const sched::Region& g) {
    sched::Region local = g;
    if (g.buf == Buf::scratch) local.first = g.first % s.nblocks;
    return static_cast<double>(part.region_size(local) * elem_size);
  };
  const bool mapped = hosts.size() == s.programs.size();
  const auto crosses = [&](int a, int b) {
    return mapped && hosts[static_cast<std::size_t>(a)] != hosts[static_cast<std::size_t>(b)];
  };
  // Each host link's load per step: the bytes its ranks send, and receive, across it.
  std::map<std::pair<int, std::size_t>, std::pair<double, double>> link;
  if (mapped)
    for (std::size_t r = 0; r < s.programs.size(); ++r) {
      const auto& p = s.programs[r];
      for (std::size_t step = 0; step < p.num_steps(); ++step)
        for (std::size_t i = 0; i < p.step_size(step); ++i) {
          const sched::Op& op = p.step_data(step)[i];
          if (!op.is_transfer() || !crosses(static_cast<int>(r), op.peer)) continue;
          auto& l = link[{hosts[r], step}];
          if (op.kind == OpKind::send) l.first += region_bytes(op.src);
          if (op.kind == OpKind::recv) l.second += region_bytes(op.dst);
        }
    }
  double slowest = 0;
  for (std::size_t r = 0; r < s.programs.size(); ++r) {
    const auto& p = s.programs[r];
    double t = 0;
    for (std::size_t step = 0; step < p.num_steps(); ++step) {
      double sent = 0, received = 0, reduced = 0;
      bool moves = false, across = false;
      for (std::size_t i = 0; i < p.step_size(step); ++i) {
        const sched::Op& op = p.step_data(step)[i];
        const bool remote = op.is_transfer() && crosses(static_cast<int>(r), op.peer);
        if (op.kind == OpKind::send && !remote) sent += region_bytes(op.src);
        if (op.kind == OpKind::recv && !remote) received += region_bytes(op.dst);
        if (op.kind == OpKind::reduce) reduced += region_bytes(op.dst);
        moves = moves || op.is_transfer();
        across = across || remote;
      }
      double wire = std::max(sent, received) * m.beta;
      if (across) {
        const auto& l = link.at({hosts[r], step});
        wire = std::max(wire, std::max(l.first, l.second) * m.inter_beta);
      }
      t += m.step_overhead +
           (across  ? m.inter_alpha
            : moves ? m.alpha
                    : 0) +
           wire + reduced * m.gamma;
    }
    slowest = std::max(slowest, t);
  }
  return slowest + per_call_overhead;
}

bool can_serve(const Candidate& c, const Workload& w, std::string* why) {
  const auto fail = [&](std::string reason) {
    if (why) *why = std::move(reason);
    return false;
  };
  if (c.native())
    return !w.reproducible || fail("native promises no reduction order (reproducible mode)");
  const sched::GeneratorInfo* g = nullptr;
  try {
    g = &algo::generator(c.algorithm);
  } catch (const Error& e) {
    return fail(e.detail());
  }
  const auto& cs = g->collectives;
  if (std::find(cs.begin(), cs.end(), w.collective) == cs.end())
    return fail(c.algorithm + " does not serve " + std::string(sched::to_string(w.collective)));
  if (w.reproducible && !g->reduces_canonically(w.collective, w.nranks))
    return fail(c.algorithm + " does not combine in the canonical order on " +
                std::to_string(w.nranks) + " ranks (reproducible mode)");
  if (!w.commutative && !algo::keeps_rank_order(c.algorithm, w.collective))
    return fail(c.algorithm + " reorders contributions (the op is not commutative)");
  if (channels_unserved(c, w.collective))
    return fail(std::string(sched::to_string(w.collective)) + " does not split into channels");
  if (w.displs)
    return fail(c.algorithm +
                " needs packed blocks, and the call gives displacements (cclx::Displs)");
  return true;
}

std::vector<long long> pipeline_grid(std::size_t bytes) {
  std::vector<long long> v{1};
  for (long long k = 2; k <= 8 && static_cast<std::size_t>(k) * min_pipeline_segment <= bytes;
       k *= 2)
    v.push_back(k);
  return v;
}

std::vector<Candidate> model_candidates(const Workload& w) {
  std::vector<Candidate> out{Candidate{}};
  for (const auto& g : algo::generators()) {
    if (g.name == "stragglar") continue;            // needs the straggler's rank
    if (g.uses_hosts && !w.multi_host()) continue;  // flat there: its Inter's schedule
    // Serves reproducible calls; elsewhere unmeasured against ring and RHD, so not a candidate.
    if (g.name == "canonical_halving" && !w.reproducible) continue;
    Candidate c{g.name, {}};
    if (!can_serve(c, w)) continue;
    out.push_back(c);
    if (!g.uses_hosts) continue;
    for (const long long segments : pipeline_grid(w.bytes)) {
      if (segments == 1) continue;
      Candidate piped = c;
      piped.params["pipeline"] = segments;
      if (can_serve(piped, w)) out.push_back(std::move(piped));
    }
  }
  return out;
}

namespace {

// The schedules MPICH's defaults amount to on `w`, in order of preference.
std::vector<std::string> native_preferences(const Workload& w) {
  using C = sched::Collective;
  const bool short_msg = w.bytes < 2048;
  // Across hosts MPICH composes node-aware collectives (CH4's "composition": reduce to a leader
  // per host, the leaders' allreduce, bcast within each host): the leader-based schedules.
  if (w.multi_host() && w.collective == C::allreduce)
    return {short_msg ? "leader_recursive_doubling" : "leader_rhd"};
  if (w.multi_host() && (w.collective == C::bcast || w.collective == C::reduce))
    return {"leader_binomial_tree"};
  switch (w.collective) {
    case C::allreduce:
      return short_msg ? std::vector<std::string>{"recursive_doubling", "binomial_tree", "rhd"}
                       : std::vector<std::string>{"rhd", "ring"};
    case C::reduce:
    case C::bcast:
      return {"binomial_tree", "pipelined_tree"};
    case C::reduce_scatter:
      return {"rhd", "ring"};
    default:
      return {"ring", "binomial_tree"};
  }
}

}  // namespace

std::string native_algorithm(const Workload& w) {
  for (const auto& name : native_preferences(w)) {
    const Candidate c{name, {}};
    bool known = false;
    for (const auto& g : algo::generators()) known = known || g.name == name;
    if (known && can_serve(c, w)) return name;
  }
  for (const auto& c : model_candidates(w))
    if (!c.native()) return c.algorithm;
  return "ring";
}

Predictor alpha_beta_model(const ModelParams& m) {
  return [m](const Candidate& c, const Workload& w) -> double {
    if (!can_serve(c, w)) return -1;
    if (!c.native()) {
      try {
        const sched::Schedule s = algo::generate_by_name(c.algorithm, w.request(), c.params);
        return estimate(s, w.bytes, w.elem_size, m, m.call_overhead, w.hosts);
      } catch (const Error&) {
        return -1;  // the generator refuses this request
      }
    }
    // Native: MPICH's default choice, at its own per-call cost and per-byte efficiency.
    ModelParams nm = m;
    nm.beta *= m.native_beta_scale;
    nm.step_overhead = 0;
    try {
      const sched::Schedule s = algo::generate_by_name(native_algorithm(w), w.request());
      return estimate(s, w.bytes, w.elem_size, nm, m.native_overhead, w.hosts);
    } catch (const Error&) {
      return m.native_overhead + m.alpha;  // n = 1 or a shape no stand-in serves
    }
  };
}

}  // namespace cclx::tune
