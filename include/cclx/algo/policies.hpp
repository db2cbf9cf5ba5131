// Every algorithm policy of the core with its generator (one header each); algo::Adaptive is the
// relay module's (cclx/relay/adaptive.hpp, cclx::relay).
#pragma once

#include "cclx/algo/auto.hpp"
#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/canonical_halving.hpp"
#include "cclx/algo/dissemination.hpp"
#include "cclx/algo/hierarchical.hpp"
#include "cclx/algo/pipelined_tree.hpp"
#include "cclx/algo/recursive_doubling.hpp"
#include "cclx/algo/recursive_halving_doubling.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/algo/straggler_aware.hpp"
