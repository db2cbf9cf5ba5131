// The median of a benchmark's repetitions (the mean of the middle two for an even count).
#pragma once

#include "cclx/detail/median.hpp"

using cclx::detail::median;
