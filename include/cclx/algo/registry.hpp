// The registry: every algorithm that can be named at run time, one line each. Everything that
// lists algorithms derives from this list: sched::generators() (generate by name, the verifier's
// and the simulator's sweeps), CCLX_ALGO and tuning tables (tune::parse_candidate), algo::Auto's
// candidates, with_policy() (a name to its policy), cclx-bench --algos, cclx-info and the tests.
// Each policy declares the rest in its own header: its name, the collectives it serves, where it
// keeps rank order, and its parameters with their defaults and ranges (params()).
//
// Adding an algorithm: its policy header (algo/<name>.hpp), its generator (lib/algo/<name>.cpp),
// and one line here (docs/architecture.md, "Adding an algorithm").
#pragma once

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/canonical_halving.hpp"
#include "cclx/algo/dissemination.hpp"
#include "cclx/algo/hierarchical.hpp"
#include "cclx/algo/pipelined_tree.hpp"
#include "cclx/algo/recursive_doubling.hpp"
#include "cclx/algo/recursive_halving_doubling.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::algo {

/// Every policy that can be named at run time, in the order generators() lists them.
using registry = std::tuple<Ring,                                   //
                            StragglAR,                              //
                            RecursiveHalvingDoubling,               //
                            RhdElimination,                         //
                            RecursiveDoubling,                      //
                            BinomialTree,                           //
                            PipelinedTree,                          //
                            Dissemination,                          //
                            CanonicalHalving,                       //
                            MultiLane<Ring>,                        //
                            MultiLane<RecursiveHalvingDoubling>,    //
                            MultiLane<RecursiveDoubling>,           //
                            LeaderBased<RecursiveDoubling>,         //
                            LeaderBased<RecursiveHalvingDoubling>,  //
                            LeaderBased<BinomialTree>>;

/// The registry by name, for tools, tuning tables and tests: one entry per policy above, built
/// from the policy's own declarations (its name, collectives, rank order and params()).
[[nodiscard]] const std::vector<sched::GeneratorInfo>& generators();
/// Throws cclx::Error naming the known algorithms when `name` is unknown.
[[nodiscard]] const sched::GeneratorInfo& generator(std::string_view name);
/// The schedule of the algorithm `name` with `params` (its policy's fields by name, plus
/// "channels"); throws cclx::Error for an unknown name or a parameter it does not take.
[[nodiscard]] sched::Schedule generate_by_name(std::string_view name,
                                               const sched::ScheduleRequest& req,
                                               const sched::ParamMap& params = {});
/// Whether the registry says `algorithm` keeps rank order on `c` (false for unknown names).
[[nodiscard]] bool keeps_rank_order(std::string_view algorithm, sched::Collective c);
/// "native, binomial_tree, ..." for error messages: the algorithms that keep rank order on `c`.
[[nodiscard]] std::string order_preserving_algorithms(sched::Collective c);

}  // namespace cclx::algo
