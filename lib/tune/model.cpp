#include "cclx/tune/model.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/schedule/partition.hpp"
#include "cclx/settings.hpp"

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
// a flat ring on n ranks has n * 2(n - 1) steps in all, 4 GB at n = 4096. A pipeline is priced
// from its segment's programs and layout (ScheduleRequest::segment_only) as the schedule that
// sched::pipeline() would build, without building it.
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
    nhosts_ = ids.size();
    // A rank crosses on its host's link number (its index among the host's ranks) mod the links
    // per host, as ranks are spread over a rail-optimized cluster's NICs.
    std::vector<std::size_t> placed(nhosts_, 0);  // ranks of each host seen so far
    host_index_.reserve(hosts_.size());
    for (const int h : hosts_) {
      const auto i =
          static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), h) - ids.begin());
      host_index_.push_back(i);
      ++placed[i];
    }
    // No more links per host than the largest host has ranks: the others would carry nothing.
    const std::size_t most = placed.empty() ? 1 : *std::max_element(placed.begin(), placed.end());
    const std::size_t links = std::min(static_cast<std::size_t>(std::max(m.inter_links, 1)), most);
    std::fill(placed.begin(), placed.end(), 0);
    link_of_.reserve(hosts_.size());
    for (const std::size_t i : host_index_) link_of_.push_back(i * links + placed[i]++ % links);
    link_.resize(nhosts_ * links);
  }

  /// The programs priced from now on are segments pipelined by `layout` (null: as they are).
  void set_layout(const sched::PipelineLayout* layout) { layout_ = layout; }

  /// Whether transfers between hosts are charged: the map gives every rank a host, and there are
  /// two or more (on one host nothing crosses).
  [[nodiscard]] bool mapped() const { return nhosts_ > 1; }

  /// Each host's ranks as one range [first, end) of consecutive ranks, in rank order; empty when
  /// some host's ranks are not consecutive (or without a map).
  [[nodiscard]] std::vector<std::pair<int, int>> host_ranges() const {
    std::vector<std::pair<int, int>> ranges;
    std::vector<bool> seen(nhosts_, false);
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

  /// What one rank does in one step: bytes sent and received within its host (or, without a map,
  /// at all) and across its host's link, bytes reduced, and whether it moves data at all and
  /// across hosts.
  struct StepTotals {
    double sent = 0, received = 0, sent_across = 0, received_across = 0, reduced = 0;
    bool moves = false, across = false;

    /// Another copy's totals in the same step.
    StepTotals& operator+=(const StepTotals& u) {
      sent += u.sent;
      received += u.received;
      sent_across += u.sent_across;
      received_across += u.received_across;
      reduced += u.reduced;
      moves = moves || u.moves;
      across = across || u.across;
      return *this;
    }
  };

  /// Rank r's totals per step of the priced program (s's, or the pipeline of its copies).
  [[nodiscard]] const std::vector<StepTotals>& totals(const sched::Schedule& s, int r) {
    const auto& p = s.programs[static_cast<std::size_t>(r)];
    const sched::Partition part{bytes_ / elem_size_, layout_ ? layout_->nblocks() : s.nblocks};
    // Blocks of one size: a region's bytes do not depend on where it lies.
    const bool even = part.count % part.nblocks == 0;
    const std::size_t block = part.count / part.nblocks;
    // Copy j's totals at step at(j, step), its regions moved by region(g, j).
    const auto add = [&](std::vector<StepTotals>& out, std::uint32_t j, const auto& at,
                         const auto& region) {
      if (p.num_steps() == 0) return;
      if (out.size() <= at(j, p.num_steps() - 1)) out.resize(at(j, p.num_steps() - 1) + 1);
      for (std::size_t step = 0; step < p.num_steps(); ++step) {
        StepTotals& t = out[at(j, step)];
        for (std::size_t i = 0; i < p.step_size(step); ++i) {
          const sched::Op& op = p.step_data(step)[i];
          const auto bytes = [&](sched::Region g) {
            if (even) return static_cast<double>(g.count * block * elem_size_);
            g = region(g, j);
            if (g.buf == Buf::scratch) g.first %= part.nblocks;
            return static_cast<double>(part.region_size(g) * elem_size_);
          };
          const bool remote = op.is_transfer() && crosses(r, op.peer);
          if (op.kind == OpKind::send) (remote ? t.sent_across : t.sent) += bytes(op.src);
          if (op.kind == OpKind::recv) (remote ? t.received_across : t.received) += bytes(op.dst);
          if (op.kind == OpKind::reduce) t.reduced += bytes(op.dst);
          t.moves = t.moves || op.is_transfer();
          t.across = t.across || remote;
        }
      }
    };
    const auto same_step = [](std::uint32_t, std::size_t step) { return step; };
    const auto same_region = [](sched::Region g, std::uint32_t) { return g; };
    totals_.clear();
    if (!layout_) {
      add(totals_, 0, same_step, same_region);
      return totals_;
    }
    const auto step_of = [&](std::uint32_t j, std::size_t step) { return layout_->step(j, step); };
    const auto region_of = [&](sched::Region g, std::uint32_t j) { return layout_->region(g, j); };
    if (!even) {  // the copies' blocks differ in size: each its own
      for (std::uint32_t j = 0; j < layout_->segments(); ++j) add(totals_, j, step_of, region_of);
      return totals_;
    }
    // Blocks of one size: every copy's totals are the first's, at its own steps.
    segment_.clear();
    add(segment_, 0, same_step, same_region);
    for (std::uint32_t j = 0; j < layout_->segments(); ++j)
      for (std::size_t step = 0; step < segment_.size(); ++step) {
        const std::size_t to = layout_->step(j, step);  // increasing in j and step
        if (totals_.size() <= to) totals_.resize(to + 1);
        totals_[to] += segment_[step];
      }
    return totals_;
  }

  /// Whether a rank with these totals sends or receives across hosts in some step (its time then
  /// reads its host link's loads).
  [[nodiscard]] static bool crosses_hosts(const std::vector<StepTotals>& totals) {
    return std::any_of(totals.begin(), totals.end(), [](const StepTotals& t) { return t.across; });
  }

  /// Adds rank r's transfers across its host link, per step, to the link's load: the bytes all
  /// of the ranks on that link send (receive) across it in that step.
  void add_link_loads(const std::vector<StepTotals>& totals, int r) {
    if (!mapped()) return;
    auto& load = link_[link_of_[static_cast<std::size_t>(r)]];
    if (load.size() < totals.size()) load.resize(totals.size());
    for (std::size_t step = 0; step < totals.size(); ++step) {
      load[step].first += totals[step].sent_across;
      load[step].second += totals[step].received_across;
    }
  }

  /// The busiest host link's time for all it carries in the call, in the direction it carries
  /// more: a bound on the call's time (once every rank's loads are added). A rank's time charges a
  /// link with the loads of its own steps only, so where ranks of a host cross in different steps
  /// that overlap in time (a flat tree whose inner ranks forward within the host first) only this
  /// bound sees that they share the link.
  [[nodiscard]] double link_time() const {
    double busiest = 0;
    for (const auto& steps : link_) {
      double sent = 0, received = 0;
      for (const auto& [s, r] : steps) {
        sent += s;
        received += r;
      }
      busiest = std::max({busiest, sent, received});
    }
    return busiest * m_.inter_beta;
  }

  /// Rank r's estimated seconds: per step its overhead, a latency, the larger of its bytes sent
  /// and received (a step across hosts: at least its host link's load) and its bytes reduced.
  [[nodiscard]] double rank_time(const std::vector<StepTotals>& totals, int r) const {
    double t = 0;
    for (std::size_t step = 0; step < totals.size(); ++step) {
      const StepTotals& s = totals[step];
      double wire = std::max(s.sent, s.received) * m_.beta;
      if (s.across) {
        const auto& l = link_[link_of_[static_cast<std::size_t>(r)]][step];
        wire = std::max(wire, std::max(l.first, l.second) * m_.inter_beta);
      }
      t += m_.step_overhead +
           (s.across  ? m_.inter_alpha
            : s.moves ? m_.alpha
                      : 0) +
           wire + s.reduced * m_.gamma;
    }
    return t;
  }

 private:
  [[nodiscard]] bool crosses(int a, int b) const {
    return mapped() && hosts_[static_cast<std::size_t>(a)] != hosts_[static_cast<std::size_t>(b)];
  }

  std::size_t bytes_, elem_size_;
  const ModelParams& m_;
  std::span<const int> hosts_;
  std::size_t nhosts_ = 0;
  std::vector<std::size_t> host_index_;  // per rank: its host, 0 .. nhosts_ - 1
  std::vector<std::size_t> link_of_;     // per rank: its host link, an index of link_
  /// Per host link (ModelParams::inter_links of each host), per step: the bytes its ranks send
  /// and receive across it.
  std::vector<std::vector<std::pair<double, double>>> link_;
  const sched::PipelineLayout* layout_ = nullptr;
  std::vector<StepTotals> totals_;   // totals()'s result, reused
  std::vector<StepTotals> segment_;  // a pipeline's one segment's totals, reused
};

// The estimate of a schedule whose programs of ranks [first, end) `programs_of(first, end)` holds
// (a Schedule, or a reference to one; its other programs may be empty), `chunk` ranks at a time.
// With a host map a rank's time reads its host link's loads only if it sends or receives across
// hosts: the others' times are taken in the pass that adds up the loads, and a second pass asks
// again for the chunks that hold a rank that crosses (a flat ring: only the ranks at a host's
// ends), which costs less than holding every rank's program when each chunk is generated on
// demand. `layout`: the programs are segments of that pipeline.
template <class ProgramsOf>
double estimate_by_ranges(int nranks, int chunk, const ProgramsOf& programs_of, std::size_t bytes,
                          std::size_t elem_size, const ModelParams& m, double per_call_overhead,
                          std::span<const int> hosts,
                          const sched::PipelineLayout* layout = nullptr) {
  RankCosts costs(bytes, elem_size, m, hosts, nranks);
  costs.set_layout(layout);
  chunk = std::max(chunk, 1);
  double slowest = 0;
  std::vector<bool> crosses(static_cast<std::size_t>(nranks), false);
  for (int first = 0; first < nranks; first += chunk) {
    const int end = std::min(nranks, first + chunk);
    const auto& s = programs_of(first, end);
    for (int r = first; r < end; ++r) {
      const auto& totals = costs.totals(s, r);
      costs.add_link_loads(totals, r);
      crosses[static_cast<std::size_t>(r)] = RankCosts::crosses_hosts(totals);
      if (!crosses[static_cast<std::size_t>(r)])
        slowest = std::max(slowest, costs.rank_time(totals, r));
    }
  }
  for (int first = 0; first < nranks; first += chunk) {
    const int end = std::min(nranks, first + chunk);
    if (std::find(crosses.begin() + first, crosses.begin() + end, true) == crosses.begin() + end)
      continue;
    const auto& s = programs_of(first, end);
    for (int r = first; r < end; ++r)
      if (crosses[static_cast<std::size_t>(r)])
        slowest = std::max(slowest, costs.rank_time(costs.totals(s, r), r));
  }
  return std::max(slowest, costs.link_time()) + per_call_overhead;
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
// - else a composition's whole schedule, or a flat algorithm's programs as many ranks at a time as
//   hold about kHeldOps / 8 ops: once for the links' loads and the times of the ranks that stay
//   in their host, and again, where a range holds a rank that crosses, for that rank's time.
// A pipelined composition is asked for its segment alone (ScheduleRequest::segment_only), whose
// copies RankCosts prices where sched::pipeline() would put them.
// Every way gives the same estimate (tests/unit/test_tune_model_ranks.cpp).
double estimate_generated(const std::string& name, const sched::ParamMap& params, const Workload& w,
                          const ModelParams& m, double per_call_overhead) {
  constexpr std::size_t kHeldOps = std::size_t{1} << 20;  // about 40 MB of ops
  sched::ScheduleRequest req = w.request();
  // A pipelined composition comes as one segment and its shape; `layout` prices its copies.
  sched::PipelineShape shape;
  std::optional<sched::PipelineLayout> layout;
  req.segment_only = &shape;
  const auto generate = [&](int first, int end) {
    req.only_rank = first;
    req.only_rank_end = end;
    shape = {};
    sched::Schedule s = algo::generate_by_name(name, req, params);
    if (shape.segments > 1) layout.emplace(shape, s.nblocks);
    return s;
  };
  const auto pipelined = [&]() -> const sched::PipelineLayout* {
    return layout ? &*layout : nullptr;
  };
  RankCosts costs(w.bytes, w.elem_size, m, w.hosts, w.nranks);
  const auto whole = [&] {
    const sched::Schedule s = generate(-1, -1);
    const auto same = [&](int, int) -> const sched::Schedule& { return s; };
    return estimate_by_ranges(w.nranks, w.nranks, same, w.bytes, w.elem_size, m, per_call_overhead,
                              w.hosts, pipelined());
  };
  if (w.nranks <= kAllRanksUpTo) return whole();
  const auto program_of = [&](int r) { return generate(r, -1); };
  const bool composed = algo::generator(name).uses_hosts;
  if (!costs.mapped() && !composed) {
    double slowest = 0;
    for (const int r : representative_ranks(w.nranks, w.root))
      slowest = std::max(slowest, costs.rank_time(costs.totals(program_of(r), r), r));
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
    // The totals of a host's ranks that cross hosts, by their offset in the host, kept until its
    // link's loads are complete (the others' times do not read them).
    std::vector<std::vector<RankCosts::StepTotals>> kept;
    std::vector<int> crossing;
    double slowest = 0;
    for (const auto& [first, end] : ranges) {
      const sched::Schedule s = generate(first, end);
      costs.set_layout(pipelined());
      kept.resize(std::max(kept.size(), static_cast<std::size_t>(end - first)));
      crossing.clear();
      for (int r = first; r < end; ++r) {
        const auto& totals = costs.totals(s, r);
        costs.add_link_loads(totals, r);
        if (RankCosts::crosses_hosts(totals)) {
          kept[static_cast<std::size_t>(r - first)] = totals;
          crossing.push_back(r);
        } else {
          slowest = std::max(slowest, costs.rank_time(totals, r));
        }
      }
      for (const int r : crossing)
        slowest = std::max(slowest, costs.rank_time(kept[static_cast<std::size_t>(r - first)], r));
    }
    return std::max(slowest, costs.link_time()) + per_call_overhead;
  }
  if (composed) return whole();
  // Ranges of ranks holding about kChunkOps ops, each generated again where one of its ranks
  // crosses hosts: one generation per rank would build (and free) every rank's empty program.
  constexpr std::size_t kChunkOps = kHeldOps / 8;
  const int chunk = static_cast<int>(std::min<std::size_t>(
      kChunkOps / std::max<std::size_t>(ops, 1), static_cast<std::size_t>(w.nranks)));
  return estimate_by_ranges(w.nranks, chunk, generate, w.bytes, w.elem_size, m, per_call_overhead,
                            w.hosts);
}

}  // namespace

double estimate(const sched::Schedule& s, std::size_t bytes, std::size_t elem_size,
                const ModelParams& m, double per_call_overhead, std::span<const int> hosts) {
  const auto whole = [&](int, int) -> const sched::Schedule& { return s; };
  const int n = static_cast<int>(s.programs.size());
  return estimate_by_ranges(n, n, whole, bytes, elem_size, m, per_call_overhead, hosts);
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

ModelParams model_params_from_env() {
  ModelParams m;
  m.inter_alpha = settings::get<double>(settings::Id::net_latency);
  m.inter_beta = 1.0 / settings::get<double>(settings::Id::net_bandwidth);
  m.inter_links = static_cast<int>(  // more links than ranks per host change nothing
      std::min<std::size_t>(settings::get<std::size_t>(settings::Id::net_links), 1 << 20));
  return m;
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
