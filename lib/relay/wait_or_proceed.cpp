#include "wait_or_proceed.hpp"

#include <cmath>
#include <utility>

namespace cclx::detail {

WaitOrProceed::WaitOrProceed(std::shared_ptr<const RelayModel> model, const RelayOptions& options,
                             int nranks, std::string name)
    : model_(std::move(model)), options_(options), n_(nranks), name_(std::move(name)) {}

WaitOrProceed::Decision WaitOrProceed::decide(const Round& r, double now) {
  std::vector<bool> ready(static_cast<std::size_t>(n_));
  for (int q = 0; q < n_; ++q)
    ready[static_cast<std::size_t>(q)] = r.ready_at[static_cast<std::size_t>(q)] >= 0;
  const double waited = now - r.first;
  const int predicted_plan = r.nready < n_ ? proceed_on_prediction(r, ready, now) : -1;
  const bool predicted = predicted_plan >= 0;
  const bool last_rank =
      !predicted && r.nready == n_ - 1 && rules_.last_rank() && std::isfinite(cost(ready).total());
  if (r.nready == n_ || predicted || last_rank ||
      (rules_.ski() && waited >= model_->cost_floor(ready) && waited >= cost(ready).total()))
    return {predicted ? predicted_plan : cost_plan(ready), predicted, last_rank};
  return {};
}

void WaitOrProceed::learn(const Round& r) {
  spread_ = std::max(spread_, r.last - r.first);
  learn_from(r);
}

double WaitOrProceed::fault_limit(const Round& r) const {
  return fault_limit(std::max(spread_, r.last - r.first));
}

}  // namespace cclx::detail
