#include "cclx/schedule/generate.hpp"

#include <algorithm>
#include <string>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

void require_supported(const ScheduleRequest& req, std::string_view algorithm,
                       std::span<const Collective> supported) {
  if (req.nranks < 1) throw Error(std::string(algorithm) + ": communicator size must be >= 1");
  if (req.only_rank >= req.nranks || req.only_rank_end > req.nranks)
    throw Error(std::string(algorithm) + ": rank " +
                std::to_string(std::max(req.only_rank, req.only_rank_end - 1)) +
                " out of range for " + std::to_string(req.nranks) + " ranks");
  if (std::find(supported.begin(), supported.end(), req.collective) == supported.end())
    throw Error(std::string(algorithm) + " does not implement " +
                std::string(to_string(req.collective)));
  const bool rooted = cclx::coll::visit(req.collective, [](auto d) { return d.rooted; });
  if (rooted && (req.root < 0 || req.root >= req.nranks))
    throw Error(std::string(algorithm) + ": invalid root " + std::to_string(req.root) + " for " +
                std::to_string(req.nranks) + " ranks");
}

}  // namespace cclx::sched
