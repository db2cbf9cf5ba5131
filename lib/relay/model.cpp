// algo::relay_model(): the trees of an adaptive call shape, synthesized once on the policy's
// topology (or a homogeneous full mesh), and per active set the relay schedules and their cost
// predicted by the α-β simulator. In cclx::topology because synthesis and simulation need it.
// A call that every rank joined in time relays nothing, so it runs the schedule the simulator
// finds fastest for everyone present: the library's schedules for the collective (ring, RHD,
// pipelined and binomial trees, as they serve it), the trees synthesized for that case, and the
// relay-aware trees; ties (within kTieTolerance) go to the earlier candidate, ring first (on
// uniform links ring and the ring-like chains tie, and ring needs no receiver-ready handshake).
// A tuning table with the collective measured near the call's size ranks the library's schedules
// instead of the simulator (Adaptive::table): measured beats modelled. The synthesized trees,
// which no table measures, still compete with the library's pick by the simulator.
// A partial call runs the cheapest of its plans (the simulator prices each;
// sched::partial_relay_plan lists them): plan 0 the relay-aware trees (late ranks relay in phase
// 1), for allreduce then the subset plans (phase 1 a library schedule over the active ranks only)
// and the owner plan (phase 1 a reduce-scatter over them); ties (kTieTolerance) go to the earlier
// plan. With a prediction of when the late ranks arrive the runtime picks among the same plans by
// their finish then (RelayModel::best_plan).
#include "cclx/tune/model.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/relay/simulate.hpp"
#include "cclx/relay/synthesis.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/topology/egress.hpp"
#include "cclx/tune/table.hpp"

namespace cclx::algo {

namespace {

// Library schedules tried for the all-active case, in order of preference on ties.
constexpr std::string_view kAllActiveCandidates[] = {"ring", "rhd", "pipelined_tree",
                                                     "binomial_tree"};
// A candidate replaces an earlier one only when predicted faster by more than this fraction: the
// α-β simulator does not resolve smaller differences (on the 8-host testbed it predicts RHD 0.4%
// faster than ring, and RHD measures 4% slower), so near-ties go to the earlier candidate.
constexpr double kTieTolerance = detail::RelayModel::kPlanTieTolerance;

class TreeRelayModel final : public detail::RelayModel {
 public:
  TreeRelayModel(topo::Topology t, sched::TreeSet relay_trees, const sched::ScheduleRequest& req,
                 std::size_t elem_size)
      : topology_(std::move(t)), sim_(topology_), relay_trees_(std::move(relay_trees)), req_(req) {
    sim_options_.bytes = req.bytes;
    sim_options_.elem_size = elem_size;
    sim_options_.gamma = tune::ModelParams{}.gamma;
    sim_options_.critical_path = false;
    // A late rank's whole contribution must leave it in phase 2 (allreduce; reduce unless it is
    // the root), which takes at least bytes / its egress bandwidth. A late bcast rank, or a late
    // reduce root, may receive what it needs while relaying in phase 1: no floor.
    late_floor_.assign(static_cast<std::size_t>(req.nranks), 0.0);
    const bool contributes = req.collective == sched::Collective::allreduce ||
                             req.collective == sched::Collective::reduce;
    for (int r = 0; contributes && r < req.nranks; ++r) {
      if (req.collective == sched::Collective::reduce && r == req.root) continue;
      const double egress = topo::egress_bandwidth(topology_, r);
      if (egress > 0 && std::isfinite(egress))
        late_floor_[static_cast<std::size_t>(r)] = static_cast<double>(req.bytes) / egress;
    }
  }

  // Picks the all-active schedule among the candidates (see the file comment).
  void choose_all_active(const std::vector<sched::TreeSet>& tree_sets,
                         const tune::TuningTable* table) {
    sched::ScheduleRequest r = req_;
    r.only_rank = -1;
    auto consider = [&](sched::Schedule s) {
      const double t = sim_.run(s, sim_options_).time;
      if (!all_active_ || t < all_active_cost_ * (1 - kTieTolerance)) {
        all_active_ = std::make_shared<const sched::Schedule>(std::move(s));
        all_active_cost_ = t;
      }
    };
    if (const std::string_view measured = measured_best(table); !measured.empty()) {
      consider(algo::generate_by_name(measured, r));  // the rules still price it by the model
    } else {
      for (const std::string_view name : kAllActiveCandidates)
        if (serves(name)) consider(algo::generate_by_name(name, r));
    }
    for (const auto& ts : tree_sets) consider(sched::tree_schedule(ts, r));
    sched::Schedule none = *all_active_;  // phase 2 of a full call: nothing on any rank
    none.programs.assign(none.programs.size(), sched::Program{});
    nothing_ = std::make_shared<const sched::Schedule>(std::move(none));
  }

  // Whether the library's generator `name` serves this call's collective.
  [[nodiscard]] bool serves(std::string_view name) const {
    const auto& c = algo::generator(name).collectives;
    return std::find(c.begin(), c.end(), req_.collective) != c.end();
  }
  // The fastest library candidate that `table` measured for this collective and communicator
  // size at a size within a factor of 2 of the call's; empty when there is none.
  [[nodiscard]] std::string_view measured_best(const tune::TuningTable* table) const {
    if (!table) return {};
    const tune::TableEntry* e = table->nearest(req_.collective, req_.nranks, req_.bytes);
    if (!e || e->bytes > 2 * req_.bytes || 2 * e->bytes < req_.bytes) return {};
    std::string_view best;
    double best_us = 0;
    for (const std::string_view name : kAllActiveCandidates) {
      if (!serves(name)) continue;
      const auto t = e->times_us.find(name);
      if (t != e->times_us.end() && (best.empty() || t->second < best_us)) {
        best = name;
        best_us = t->second;
      }
    }
    return best;
  }

  [[nodiscard]] Phases phases(const std::vector<bool>& active, int only_rank,
                              int plan_index) const override {
    if (everyone(active)) return {all_active_, nothing_};
    sched::ScheduleRequest r = req_;
    r.only_rank = only_rank;
    sched::RelayPlan p = plan(active, r, plan_index);
    return {std::make_shared<const sched::Schedule>(std::move(p.phase1)),
            std::make_shared<const sched::Schedule>(std::move(p.phase2))};
  }

  // Both phases from now with every rank's data ready now, for every plan that serves the set.
  [[nodiscard]] std::vector<Choice> choices(const std::vector<bool>& active) const override {
    if (everyone(active)) return {{all_active_cost_, 0, 0}};
    std::vector<Choice> all;
    for (int i = 0; i < plans(); ++i) {
      try {  // a generator that cannot serve the set leaves its plan out (not plan 0)
        const sim::RelayTimes t =
            sim::simulate_relay(sim_, plan(active, req_, i), active, sim_options_);
        all.push_back(Choice{t.phase1_end, t.time - t.phase1_end, i});
      } catch (const Error&) {
        if (i == 0) throw;
      }
    }
    return all;
  }
  [[nodiscard]] double cost_floor(const std::vector<bool>& active) const override {
    double f = 0;
    for (std::size_t r = 0; r < active.size() && r < late_floor_.size(); ++r)
      if (!active[r]) f = std::max(f, late_floor_[r]);
    return f;
  }

 private:
  // Plans of a partial set: sched::partial_relay_plan's list.
  [[nodiscard]] int plans() const { return sched::partial_relay_plans(req_.collective); }
  // Throws cclx::Error for an index outside the list.
  [[nodiscard]] sched::RelayPlan plan(const std::vector<bool>& active,
                                      const sched::ScheduleRequest& r, int index) const {
    return sched::partial_relay_plan(index, relay_trees_, r, active);
  }
  static bool everyone(const std::vector<bool>& active) {
    return std::find(active.begin(), active.end(), false) == active.end();
  }

  topo::Topology topology_;  // before sim_, which points to it
  sim::Simulator sim_;
  sched::TreeSet relay_trees_;
  sched::ScheduleRequest req_;
  sim::SimOptions sim_options_;
  std::shared_ptr<const sched::Schedule> all_active_, nothing_;
  double all_active_cost_ = 0;
  std::vector<double> late_floor_;  // by rank: the floor of a call in which it is late
};

}  // namespace

std::shared_ptr<const detail::RelayModel> relay_model(const Adaptive& a,
                                                      const sched::ScheduleRequest& req,
                                                      std::size_t elem_size) {
  topo::Topology t;
  if (a.topology) {
    t = *a.topology;
    if (t.nranks() != req.nranks)
      throw Error("algo::Adaptive: the topology has " + std::to_string(t.nranks()) +
                  " ranks, the communicator " + std::to_string(req.nranks));
  } else {
    const tune::ModelParams m;
    t = topo::full_mesh(req.nranks, topo::LinkCost{m.alpha, m.beta});
  }
  sched::SynthesisOptions o;
  o.max_trees = a.max_trees;
  o.chunk_bytes = a.chunk_bytes;
  sched::TreeSet full = sched::synthesize_trees(t, req.collective, req.bytes, req.root, o);
  o.relay = true;  // score the trees with phase 2 of one late rank too
  sched::TreeSet relay = sched::synthesize_trees(t, req.collective, req.bytes, req.root, o);
  auto model = std::make_shared<TreeRelayModel>(std::move(t), relay, req, elem_size);
  std::shared_ptr<const tune::TuningTable> table = a.table;
  if (!table)
    if (auto loaded = tune::table_from_env())
      table = std::make_shared<const tune::TuningTable>(std::move(*loaded));
  model->choose_all_active({std::move(full), std::move(relay)}, table.get());
  return model;
}

}  // namespace cclx::algo
