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

#include <tuple>

#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/dissemination.hpp"
#include "cclx/algo/pipelined_tree.hpp"
#include "cclx/algo/recursive_doubling.hpp"
#include "cclx/algo/recursive_halving_doubling.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"

namespace cclx::algo {

using registry = std::tuple<Ring,                      //
                            StragglAR,                 //
                            RecursiveHalvingDoubling,  //
                            RhdElimination,            //
                            RecursiveDoubling,         //
                            BinomialTree,              //
                            PipelinedTree,             //
                            Dissemination>;

}  // namespace cclx::algo
