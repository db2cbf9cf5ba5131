// algo::relay_model(): the trees of an adaptive call shape, synthesized once on the policy's
// topology (or a homogeneous full mesh), and per active set the relay schedules and their cost
// predicted by the α-β simulator. In cclx::topology because synthesis and simulation need it.
// Two tree sets: the relay trees (scored with phase 2 of a late rank) for partial active sets,
// and for everyone present the faster of them and the trees scored without relays (on uniform
// links ring-like chains), since a call that every rank joined in time relays nothing.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cclx/algo/adaptive.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/relay.hpp"
#include "cclx/schedule/synthesis.hpp"
#include "cclx/sim/relay.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/tune/model.hpp"

namespace cclx::algo {

namespace {

class TreeRelayModel final : public detail::RelayModel {
 public:
  TreeRelayModel(topo::Topology t, sched::TreeSet relay_trees, sched::TreeSet full_trees,
                 const sched::ScheduleRequest& req, std::size_t elem_size)
      : topology_(std::move(t)),
        sim_(topology_),
        relay_trees_(std::move(relay_trees)),
        full_trees_(std::move(full_trees)),
        req_(req) {
    sim_options_.bytes = req.bytes;
    sim_options_.elem_size = elem_size;
    sim_options_.gamma = tune::ModelParams{}.gamma;
    sim_options_.critical_path = false;
  }

  [[nodiscard]] Phases phases(const std::vector<bool>& active, int only_rank) const override {
    sched::ScheduleRequest r = req_;
    r.only_rank = only_rank;
    sched::RelayPlan p = sched::relay_schedules(trees_for(active), r, active);
    return {std::make_shared<const sched::Schedule>(std::move(p.phase1)),
            std::make_shared<const sched::Schedule>(std::move(p.phase2))};
  }

  // Both phases from now with every rank's data ready now: what proceeding costs at the least.
  [[nodiscard]] double cost(const std::vector<bool>& active) const override {
    const sched::RelayPlan p = sched::relay_schedules(trees_for(active), req_, active);
    return sim::simulate_relay(sim_, p, active, sim_options_).time;
  }

 private:
  [[nodiscard]] const sched::TreeSet& trees_for(const std::vector<bool>& active) const {
    return std::find(active.begin(), active.end(), false) == active.end() ? full_trees_
                                                                          : relay_trees_;
  }

  topo::Topology topology_;  // before sim_, which points to it
  sim::Simulator sim_;
  sched::TreeSet relay_trees_, full_trees_;
  sched::ScheduleRequest req_;
  sim::SimOptions sim_options_;
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
  // The searches are local: the relay-aware one may end on trees that are faster all-active too.
  sim::SimOptions so;
  so.bytes = req.bytes;
  so.elem_size = elem_size;
  so.gamma = tune::ModelParams{}.gamma;
  so.critical_path = false;
  if (sim::simulate(sched::tree_schedule(relay, req), t, so).time <
      sim::simulate(sched::tree_schedule(full, req), t, so).time)
    full = relay;
  return std::make_shared<TreeRelayModel>(std::move(t), std::move(relay), std::move(full), req,
                                          elem_size);
}

}  // namespace cclx::algo
