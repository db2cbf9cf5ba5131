// Every algorithm policy with its generator (one header each).
#pragma once

#include "cclx/algo/adaptive.hpp"
#include "cclx/algo/auto.hpp"
#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/dissemination.hpp"
#include "cclx/algo/pipelined_tree.hpp"
#include "cclx/algo/recursive_doubling.hpp"
#include "cclx/algo/recursive_halving_doubling.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/algo/straggler_aware.hpp"
