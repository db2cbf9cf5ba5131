// Everything an application needs: the communicator, ops and the algorithm policies.
#pragma once

#include "cclx/algo/algorithm.hpp"
#include "cclx/algo/policies.hpp"
#include "cclx/communicator.hpp"
#include "cclx/error.hpp"
#include "cclx/ops.hpp"
#include "cclx/version.hpp"
