#include "cclx/tune/online.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "cclx/algo/registry.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::tune {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// A neighbour must beat the center by this much to move it: below it, noise would steer.
constexpr double kImprovement = 0.02;

std::size_t index_of(const Axis& a, long long v) {
  const auto it = std::find(a.values.begin(), a.values.end(), v);
  return it == a.values.end() ? 0 : static_cast<std::size_t>(it - a.values.begin());
}
}  // namespace

double robust_score(std::vector<double> s) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  const std::size_t keep = std::max<std::size_t>(1, s.size() * 3 / 4);  // fastest 75%
  double sum = 0;
  for (std::size_t i = 0; i < keep; ++i) sum += s[i];
  return sum / static_cast<double>(keep);
}

std::vector<Subspace> subspaces_for(const Workload& w) {
  // The grid of each tunable parameter (by its registry name). Segment sizes stop at half the
  // message: a segment as large as the message is no segmentation; channels stop where a part
  // would be smaller than the smallest segment (more parts only add messages there); a pipeline's
  // segments stop at min_pipeline_segment.
  const auto grid = [&](const std::string& param) -> std::vector<long long> {
    if (param == "fanout") return {1, 2, 3, 4};
    if (param == "channels") {  // parts of at least the smallest segment, as segments stop
      std::vector<long long> v{1};
      for (long long k = 2; k <= 4 && static_cast<std::size_t>(k) * (16 << 10) <= w.bytes; k *= 2)
        v.push_back(k);
      return v;
    }
    if (param == "pipeline") return pipeline_grid(w.bytes);  // as the model prices them
    if (param != "segment_bytes") return {};  // e.g. StragglAR's straggler: not a resource
    std::vector<long long> v{0};
    for (long long s = 16 << 10; s <= 4 << 20 && static_cast<std::size_t>(s) * 2 <= w.bytes; s *= 4)
      v.push_back(s);
    return v;
  };
  const Predictor model = alpha_beta_model();
  std::vector<Subspace> out;
  for (const Candidate& c : model_candidates(w)) {
    if (!c.params.empty()) continue;  // a pipeline: a point of its policy's subspace
    Subspace sp{c, c, {}};
    if (!c.native()) {
      for (const sched::ParamInfo& info : algo::generator(c.algorithm).params) {
        const std::string& param = info.name;
        Axis a{param, {}};
        for (long long v : grid(param)) {  // values the generator accepts for this call
          Candidate probe = sp.center;
          probe.params[param] = v;
          if (model(probe, w) >= 0) a.values.push_back(v);
        }
        if (a.values.size() < 2) continue;  // nothing to tune (channels where nothing splits)
        // The descent starts mid-grid, so it can go either way (no segmentation is not always a
        // smooth continuation of ever larger segments); channels and pipeline at one, the
        // unsplit schedule.
        sp.center.params[param] = param == "channels" || param == "pipeline"
                                      ? a.values.front()
                                      : a.values[a.values.size() / 2];
        sp.axes.push_back(std::move(a));
      }
    }
    out.push_back(std::move(sp));
  }
  return out;
}

OnlineTuner::OnlineTuner(const Workload& w, std::vector<Subspace> spaces, const Predictor& model,
                         const OnlineOptions& o)
    : w_(w), spaces_(std::move(spaces)), model_(model), o_(o) {
  // Most promising first, so that the model's limit (model_ratio) bites early.
  std::stable_sort(spaces_.begin(), spaces_.end(), [&](const Subspace& a, const Subspace& b) {
    return predicted(a.start) < predicted(b.start);
  });
  start_score_.assign(spaces_.size(), kInf);
  advance();
}

void OnlineTuner::begin_descent() {
  phase_ = Phase::descend;
  order_.clear();
  pos_ = 0;
  entered_ = false;
  for (std::size_t i = 0; i < spaces_.size(); ++i)
    if (std::isfinite(start_score_[i]) && have_best_ &&
        start_score_[i] <= o_.prune_ratio * best_score_ && !spaces_[i].axes.empty())
      order_.push_back(i);
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::size_t a, std::size_t b) { return start_score_[a] < start_score_[b]; });
}

double OnlineTuner::predicted(const Candidate& c) const {
  const double t = model_ ? model_(c, w_) : 0;
  return t < 0 ? kInf : t;
}

const Candidate& OnlineTuner::next() const {
  return converged_ ? best_ : current_;
}

const OnlineTuner::Tried* OnlineTuner::tried(const Candidate& c) const {
  for (const auto& t : tried_)
    if (t.c == c) return &t;
  return nullptr;
}

bool OnlineTuner::proposal(Candidate& c) const {
  if (phase_ == Phase::start) {
    c = spaces_[space_].start;
    return true;
  }
  if (!entered_) {
    c = spaces_[space_].center;
    return true;
  }
  const Axis& a = spaces_[space_].axes[axis_];
  const auto it = center_.params.find(a.param);
  const std::size_t i = index_of(a, it == center_.params.end() ? a.values.front() : it->second);
  const auto j = static_cast<long long>(i) + direction_;
  if (j < 0 || j >= static_cast<long long>(a.values.size())) return false;
  c = center_;
  c.params[a.param] = a.values[static_cast<std::size_t>(j)];
  return true;
}

void OnlineTuner::advance() {
  while (!converged_) {
    if (calls_ >= o_.max_calls) {
      converge();
      return;
    }
    if (phase_ == Phase::start && space_ >= spaces_.size()) {
      begin_descent();
      continue;
    }
    if (phase_ == Phase::descend) {
      if (pos_ >= order_.size()) {
        converge();
        return;
      }
      space_ = order_[pos_];
      if (entered_ && axes_unimproved_ >= spaces_[space_].axes.size()) {
        ++pos_;  // a full round over the axes did not move the center: this subspace is done
        entered_ = false;
        continue;
      }
    }
    Candidate c;
    if (!proposal(c)) {
      on_score(kInf);  // off the grid: as if worse
      continue;
    }
    current_ = c;
    if (const Tried* t = tried(c)) {
      on_score(t->score);
      continue;
    }
    if (have_best_ && predicted(c) > o_.model_ratio * predicted(best_)) {
      tried_.push_back({c, kInf, 0});
      on_score(kInf);
      continue;
    }
    warm_ = false;
    samples_.clear();
    return;  // measure current_
  }
}

void OnlineTuner::observe(double seconds) {
  if (converged_) return;
  ++calls_;
  if (!warm_) {
    warm_ = true;
  } else {
    samples_.push_back(seconds);
  }
  if (static_cast<int>(samples_.size()) >= o_.samples) {
    const double score = robust_score(samples_);
    tried_.push_back({current_, score, static_cast<int>(samples_.size())});
    if (!have_best_ || score < best_score_) {
      best_ = current_;
      best_score_ = score;
      have_best_ = true;
    }
    on_score(score);
    advance();
  } else if (calls_ >= o_.max_calls) {
    converge();
  }
}

void OnlineTuner::on_score(double score) {
  if (phase_ == Phase::start) {
    start_score_[space_++] = score;
    return;
  }
  if (!entered_) {  // the subspace's center: the descent starts here
    entered_ = true;
    center_ = current_;
    center_score_ = score;
    axis_ = 0;
    direction_ = +1;
    tried_other_ = false;
    axes_unimproved_ = 0;
    if (!std::isfinite(score)) axes_unimproved_ = spaces_[space_].axes.size();  // skipped
    return;
  }
  if (score < center_score_ * (1 - kImprovement)) {
    center_ = current_;  // keep walking the same way
    center_score_ = score;
    axes_unimproved_ = 0;
    tried_other_ = true;  // came from the other side
    return;
  }
  if (direction_ == +1 && !tried_other_) {
    direction_ = -1;
    tried_other_ = true;
    return;
  }
  axis_ = (axis_ + 1) % spaces_[space_].axes.size();
  direction_ = +1;
  tried_other_ = false;
  ++axes_unimproved_;
}

void OnlineTuner::converge() {
  converged_ = true;
  if (!have_best_) {
    best_ = spaces_.empty() ? Candidate{} : spaces_.front().start;
    return;
  }
  // The native margin: a win of another candidate inside it is not worth leaving native for.
  if (const Tried* n = tried(Candidate{});
      n && !best_.native() && std::isfinite(n->score) &&
      !unclear_win(best_score_, {}, n->score, {}, o_.native_margin).empty()) {
    best_ = n->c;
    best_score_ = n->score;
  }
}

bool OnlineTuner::check_drift(double window_score_seconds) {
  if (!converged_ || !have_best_) return false;
  if (window_score_seconds <= o_.drift_ratio * best_score_) {
    drift_count_ = 0;
    return false;
  }
  if (++drift_count_ < o_.drift_windows) return false;
  // Start over from scratch: the machine (or the interference) changed.
  tried_.clear();
  have_best_ = false;
  converged_ = false;
  calls_ = 0;
  drift_count_ = 0;
  space_ = 0;
  start_score_.assign(spaces_.size(), kInf);
  order_.clear();
  pos_ = 0;
  entered_ = false;
  phase_ = Phase::start;
  advance();
  return true;
}

std::vector<std::pair<Candidate, double>> OnlineTuner::measured() const {
  std::vector<std::pair<Candidate, double>> out;
  for (const auto& t : tried_)
    if (std::isfinite(t.score)) out.emplace_back(t.c, t.score);
  return out;
}

std::string OnlineTuner::report() const {
  std::string s;
  for (const auto& t : tried_) {
    char buf[64];
    if (std::isfinite(t.score))
      std::snprintf(buf, sizeof buf, " %.3g us (%d samples)\n", t.score * 1e6, t.samples);
    else
      std::snprintf(buf, sizeof buf, " skipped (model: > %.3gx the best)\n", o_.model_ratio);
    s += to_string(t.c) + buf;
  }
  return s;
}

}  // namespace cclx::tune
