#include "cclx/tune/model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
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

namespace {

// The model's arithmetic over one schedule, a rank's program at a time, so that a caller can
// generate the programs one by one (ScheduleRequest::only_rank) instead of holding every rank's:
// a flat ring on n ranks has n * 2(n - 1) steps in all, 4 GB at n = 4096.
class RankCosts {
 public:
  RankCosts(std::size_t bytes, std::size_t elem_size, const ModelParams& m,
            std::span<const int> hosts, int nranks)
      : bytes_(bytes),
        elem_size_(std::max<std::size_t>(elem_size, 1)),
        m_(m),
        hosts_(hosts.size() == static_cast<std::size_t>(nranks) ? hosts : std::span<const int>{}) {
    // Dense host indices, so that the links' loads are vectors rather than a map per step.
    std::vector<int> ids(hosts_.begin(), hosts_.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    host_index_.reserve(hosts_.size());
    for (const int h : hosts_)
      host_index_.push_back(
          static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), h) - ids.begin()));
    link_.resize(ids.size());
  }

  /// Whether transfers between hosts are charged: the map gives every rank a host, and there are
  /// two or more (on one host nothing crosses).
  [[nodiscard]] bool mapped() const { return link_.size() > 1; }

  /// Each host's ranks as one range [first, end) of consecutive ranks, in rank order; empty when
  /// some host's ranks are not consecutive (or without a map).
  [[nodiscard]] std::vector<std::pair<int, int>> host_ranges() const {
    std::vector<std::pair<int, int>> ranges;
    std::vector<bool> seen(link_.size(), false);
    for (std::size_t r = 0; r < host_index_.size(); ++r) {
      const std::size_t h = host_index_[r];
      if (r > 0 && h == host_index_[r - 1]) {
        ++ranges.back().second;
        continue;
      }
      if (seen[h]) return {};  // the host's ranks resume after another host's
      seen[h] = true;
      ranges.emplace_back(static_cast<int>(r), static_cast<int>(r) + 1);
    }
    return ranges;
  }

  /// Adds rank r's transfers across its host's link, per step, to the link's load: the bytes all
  /// of the host's ranks send (receive) across it in that step.
  void add_link_loads(const sched::Schedule& s, int r) {
    if (!mapped()) return;
    const auto& p = s.programs[static_cast<std::size_t>(r)];
    auto& load = link_[host_index_[static_cast<std::size_t>(r)]];
    if (load.size() < p.num_steps()) load.resize(p.num_steps());
    for (std::size_t step = 0; step < p.num_steps(); ++step)
      for (std::size_t i = 0; i < p.step_size(step); ++i) {
        const sched::Op& op = p.step_data(step)[i];
        if (!op.is_transfer() || !crosses(r, op.peer)) continue;
        if (op.kind == OpKind::send) load[step].first += region_bytes(s, op.src);
        if (op.kind == OpKind::recv) load[step].second += region_bytes(s, op.dst);
      }
  }

  /// Rank r's estimated seconds: per step its overhead, a latency, the larger of its bytes sent
  /// and received (a step across hosts: at least its host link's load) and its bytes reduced.
  [[nodiscard]] double rank_time(const sched::Schedule& s, int r) const {
    const auto& p = s.programs[static_cast<std::size_t>(r)];
    double t = 0;
    for (std::size_t step = 0; step < p.num_steps(); ++step) {
      double sent = 0, received = 0, reduced = 0;
      bool moves = false, across = false;
      for (std::size_t i = 0; i < p.step_size(step); ++i) {
        const sched::Op& op = p.step_data(step)[i];
        const bool remote = op.is_transfer() && crosses(r, op.peer);
        if (op.kind == OpKind::send && !remote) sent += region_bytes(s, op.src);
        if (op.kind == OpKind::recv && !remote) received += region_bytes(s, op.dst);
        if (op.kind == OpKind::reduce) reduced += region_bytes(s, op.dst);
        moves = moves || op.is_transfer();
        across = across || remote;
      }
      double wire = std::max(sent, received) * m_.beta;
      if (across) {
        const auto& l = link_[host_index_[static_cast<std::size_t>(r)]][step];
        wire = std::max(wire, std::max(l.first, l.second) * m_.inter_beta);
      }
      t += m_.step_overhead +
           (across  ? m_.inter_alpha
            : moves ? m_.alpha
                    : 0) +
           wire + reduced * m_.gamma;
    }
    return t;
  }

 private:
  [[nodiscard]] bool crosses(int a, int b) const {
    return mapped() && hosts_[static_cast<std::size_t>(a)] != hosts_[static_cast<std::size_t>(b)];
  }
  [[nodiscard]] double region_bytes(const sched::Schedule& s, const sched::Region& g) const {
    const sched::Partition part{bytes_ / elem_size_, s.nblocks};
    sched::Region local = g;
    if (g.buf == Buf::scratch) local.first = g.first % s.nblocks;
    return static_cast<double>(part.region_size(local) * elem_size_);
  }

  std::size_t bytes_, elem_size_;
  const ModelParams& m_;
  std::span<const int> hosts_;
  std::vector<std::size_t> host_index_;
  /// Per host, per step: the bytes its ranks send and receive across its link.
  std::vector<std::vector<std::pair<double, double>>> link_;
};

// The estimate of a schedule whose rank-r program `program_of(r)` holds (a Schedule, or a
// reference to one; its other programs may be empty), one rank at a time: with a host map it is
// asked for each rank twice, once for the links' loads and once for the rank's time, which costs
// less than holding every rank's program when each is generated on demand.
template <class ProgramOf>
double estimate_by_rank(int nranks, const ProgramOf& program_of, std::size_t bytes,
                        std::size_t elem_size, const ModelParams& m, double per_call_overhead,
                        std::span<const int> hosts) {
  RankCosts costs(bytes, elem_size, m, hosts, nranks);
  if (costs.mapped())
    for (int r = 0; r < nranks; ++r) costs.add_link_loads(program_of(r), r);
  double slowest = 0;
  for (int r = 0; r < nranks; ++r) slowest = std::max(slowest, costs.rank_time(program_of(r), r));
  return slowest + per_call_overhead;
}

// The estimate of algorithm `name` with `params` on `w`, holding no more than it must:
// - the whole schedule up to kAllRanksUpTo ranks, where every rank's program counts and one
//   generation is the cheapest;
// - without hosts to charge (no map, or one host): the representative ranks' programs of a flat
//   algorithm, one at a time (ScheduleRequest::only_rank);
// - across hosts, a flat algorithm's whole schedule when it holds at most kHeldOps ops (from the
//   first and last ranks' programs); else, where every host is a range of consecutive ranks, each
//   host's ranks together (a host's link carries what its ranks send, and only their times read
//   it): a composition always, a flat algorithm when a host's programs hold at most kHeldOps;
// - else a composition's whole schedule, or every rank's program of a flat algorithm twice, one
//   at a time: once for the links' loads, once for the ranks' times.
// Every way gives the same estimate (tests/unit/test_tune_model_ranks.cpp).
double estimate_generated(const std::string& name, const sched::ParamMap& params, const Workload& w,
                          const ModelParams& m, double per_call_overhead) {
  constexpr std::size_t kHeldOps = std::size_t{1} << 20;  // about 40 MB of ops
  sched::ScheduleRequest req = w.request();
  const auto generate = [&](int first, int end) {
    req.only_rank = first;
    req.only_rank_end = end;
    return algo::generate_by_name(name, req, params);
  };
  const auto whole = [&] {
    return estimate(generate(-1, -1), w.bytes, w.elem_size, m, per_call_overhead, w.hosts);
  };
  if (w.nranks <= kAllRanksUpTo) return whole();
  const auto program_of = [&](int r) { return generate(r, -1); };
  const bool composed = algo::generator(name).uses_hosts;
  RankCosts costs(w.bytes, w.elem_size, m, w.hosts, w.nranks);
  if (!costs.mapped() && !composed) {
    double slowest = 0;
    for (const int r : representative_ranks(w.nranks, w.root))
      slowest = std::max(slowest, costs.rank_time(program_of(r), r));
    return slowest + per_call_overhead;
  }
  std::size_t ops = 0;  // the larger of the first and last ranks' programs
  if (!composed) {
    for (const int r : {0, w.nranks - 1})
      ops = std::max(ops, program_of(r).programs[static_cast<std::size_t>(r)].ops.size());
    if (ops * static_cast<std::size_t>(w.nranks) <= kHeldOps) return whole();
  }
  const std::vector<std::pair<int, int>> ranges = costs.host_ranges();
  int widest = 0;
  for (const auto& [first, end] : ranges) widest = std::max(widest, end - first);
  if (!ranges.empty() && (composed || ops * static_cast<std::size_t>(widest) <= kHeldOps)) {
    double slowest = 0;
    for (const auto& [first, end] : ranges) {
      const sched::Schedule s = generate(first, end);
      for (int r = first; r < end; ++r) costs.add_link_loads(s, r);
      for (int r = first; r < end; ++r) slowest = std::max(slowest, costs.rank_time(s, r));
    }
    return slowest + per_call_overhead;
  }
  if (composed) return whole();
  return estimate_by_rank(w.nranks, program_of, w.bytes, w.elem_size, m, per_call_overhead,
                          w.hosts);
}

}  // namespace

double estimate(const sched::Schedule& s, std::size_t bytes, std::size_t elem_size,
                const ModelParams& m, double per_call_overhead, std::span<const int> hosts) {
  const auto whole = [&](int) -> const sched::Schedule& { return s; };
  return estimate_by_rank(static_cast<int>(s.programs.size()), whole, bytes, elem_size, m,
                          per_call_overhead, hosts);
}

std::vector<int> representative_ranks(int nranks, int root) {
  std::vector<int> ranks;
  const long long n = nranks;
  if (n <= kAllRanksUpTo) {
    for (int r = 0; r < nranks; ++r) ranks.push_back(r);
    return ranks;
  }
  // Offsets where the textbook schedules' roles change: the first and last few ranks, around each
  // power of two (trees, recursive doubling and halving), around the ranks a non-power-of-two
  // count folds away (RHD's elimination: rem and 2 rem) and the middle (a fanout-2 tree's last
  // inner nodes), and every n/32-th rank besides; from rank 0 and from the root.
  long long pow2 = 1;
  while (pow2 * 2 <= n) pow2 *= 2;
  const long long rem = n - pow2;
  std::vector<long long> offsets;
  for (long long d = 0; d < 8; ++d) offsets.insert(offsets.end(), {d, n - 1 - d});
  for (long long p = 1; p <= n; p *= 2) offsets.insert(offsets.end(), {p - 1, p, p + 1});
  for (const long long c : {rem, 2 * rem, n / 2, (n - 1) / 2})
    for (long long d = -2; d <= 2; ++d) offsets.push_back(c + d);
  for (long long k = 0; k < 32; ++k) offsets.push_back(k * n / 32);
  for (const long long base : {0LL, static_cast<long long>(root)})
    for (const long long d : offsets)
      if (d >= 0 && d < n) ranks.push_back(static_cast<int>((base + d) % n));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
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

bool generates(const Candidate& c, const Workload& w, std::string* why) {
  if (!can_serve(c, w, why)) return false;
  if (c.native()) return true;
  sched::ScheduleRequest req = w.request();
  req.only_rank = 0;
  try {
    (void)algo::generate_by_name(c.algorithm, req, c.params);
    return true;
  } catch (const Error& e) {
    if (why) *why = e.detail();
    return false;
  }
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
        return estimate_generated(c.algorithm, c.params, w, m, m.call_overhead);
      } catch (const Error&) {
        return -1;  // the generator refuses this request
      }
    }
    // Native: MPICH's default choice, at its own per-call cost and per-byte efficiency.
    ModelParams nm = m;
    nm.beta *= m.native_beta_scale;
    nm.step_overhead = 0;
    try {
      return estimate_generated(native_algorithm(w), {}, w, nm, m.native_overhead);
    } catch (const Error&) {
      return m.native_overhead + m.alpha;  // n = 1 or a shape no stand-in serves
    }
  };
}

}  // namespace cclx::tune
