// Everything an application needs: the communicator, ops and the algorithm policies.
#pragma once

#include "cclx/algo/algorithm.hpp"
#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/pipelined_tree.hpp"
#include "cclx/algo/recursive_halving_doubling.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/algo/straggler_aware.hpp"
#include "cclx/communicator.hpp"
#include "cclx/error.hpp"
#include "cclx/ops.hpp"
#include "cclx/version.hpp"
