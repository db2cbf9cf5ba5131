#include "cclx/detail/auto_dispatch.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "cclx/block_counts.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/auto_state.hpp"
#include "cclx/tune/table.hpp"

namespace cclx::detail {

tune::Workload auto_workload(const CollectiveCall& c, int nranks) {
  tune::Workload w =  // c.root is already 0 for collectives without a root
      auto_workload(c.collective, c.count, c.kernel.elem_size, nranks, c.root,
                    !c.has_op || c.kernel.commutative);
  w.displs = c.blocks && (c.blocks->in_displs.size != 0 || c.blocks->out_displs.size != 0);
  w.reproducible = needs_canonical_order(c, nranks);
  return w;
}

tune::Workload auto_workload(sched::Collective coll, std::size_t count, std::size_t elem_size,
                             int nranks, int root, bool commutative) {
  tune::Workload w;
  w.collective = coll;
  w.nranks = nranks;
  w.root = coll::visit(coll, [](auto d) { return d.rooted; }) ? root : 0;
  w.in_place = false;  // a per-rank choice for rooted collectives: not part of the decision
  w.sized = coll != sched::Collective::alltoallv;
  w.bytes = w.sized ? coll::partition_count(coll, count, nranks) * elem_size : 0;
  w.elem_size = elem_size;
  w.commutative = commutative;
  return w;
}

std::size_t alltoallv_local_bytes(const CollectiveCall& c) {
  const std::size_t elems =
      c.blocks ? std::max(counts_total(c.blocks->in_counts), counts_total(c.blocks->out_counts))
               : c.count;
  const std::size_t elem = std::max<std::size_t>(c.kernel.elem_size, 1);
  return elems > SIZE_MAX / elem ? SIZE_MAX : elems * elem;
}

std::string describe(const tune::Workload& w) {
  std::string s(sched::to_string(w.collective));
  if (!w.sized) {
    s += " (one-shot: no size all ranks know)";
  } else {
    const bool init = w.collective == sched::Collective::alltoallv;  // an agreed size
    s.append(init ? "_init " : " ").append(format_byte_size(w.bytes)).append(" bytes");
    if (init) s += " (the busiest rank's, agreed at init)";
  }
  s +=
      ", " + std::to_string(w.nranks) + " ranks, " + std::to_string(w.elem_size) + "-byte elements";
  if (coll::visit(w.collective, [](auto d) { return d.rooted; }))
    s += ", root " + std::to_string(w.root);
  if (!w.commutative) s += ", non-commutative op";
  if (w.displs) s += ", displacements";
  if (w.reproducible) s += ", reproducible";
  return s;
}

struct AutoContext::State {
  tune::AutoState tuner;
  bool online_env = false;
  bool log = false;
  int rank = 0;
  std::string save_path;                                          // CCLX_TUNE_SAVE
  std::unordered_set<tune::Workload, tune::WorkloadHash> logged;  // with log only
};

AutoContext::AutoContext() = default;
// A moved-from context remembers nothing (its memo would point into the moved state).
AutoContext::AutoContext(AutoContext&& o) noexcept
    : hosts_(o.hosts_),
      s_(std::move(o.s_)),
      agreed_(o.agreed_),
      memo_(std::exchange(o.memo_, {})) {}
AutoContext& AutoContext::operator=(AutoContext&& o) noexcept {
  hosts_ = o.hosts_;
  s_ = std::move(o.s_);
  agreed_ = o.agreed_;
  memo_ = std::exchange(o.memo_, {});
  return *this;
}

AutoContext::~AutoContext() {
  if (!s_ || s_->rank != 0 || s_->save_path.empty()) return;
  try {
    tune::TuningTable learned = s_->tuner.learned();
    if (learned.entries().empty()) return;
    // Merge into what the file holds (other communicators, earlier runs): newer times win.
    tune::TuningTable t;
    if (std::ifstream(s_->save_path).good()) t = tune::TuningTable::load(s_->save_path);
    t.merge(learned);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(version, &len);  // callable before MPI_Init and after finalize
    t.stamp_origin(std::string_view(version, static_cast<std::size_t>(len)));
    t.save(s_->save_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cclx: rank 0: CCLX_TUNE_SAVE: %s\n", e.what());
  }
}

tune::AutoState& AutoContext::state(int rank) {
  if (!s_) {
    tune::Selector::Config cfg = tune::Selector::config_from_env();
    const bool online = tune::online_from_env();
    std::string save = settings::get<std::string>(settings::Id::tune_save);
    s_ = std::make_unique<State>(State{tune::AutoState(std::move(cfg)),
                                       online,
                                       tune::log_tune_from_env(),
                                       rank,
                                       std::move(save),
                                       {}});
  }
  return s_->tuner;
}

std::array<std::uint64_t, 2> AutoContext::local_fingerprint(int rank) {
  try {
    const std::uint64_t fp = state(rank).fingerprint();
    // CCLX_TUNE decides who times calls (and reduces the times): it must agree as well.
    return {fp ^ (s_->online_env ? 0x9e3779b97f4a7c15ull : 0), 0};
  } catch (const Error& e) {
    std::fprintf(stderr, "cclx: rank %d: algo::Auto: %s\n", rank, e.detail().c_str());
    return {0, 1};
  }
}

void AutoContext::agree(std::span<const std::uint64_t> all, int rank) {
  std::string failed, differ;
  const auto n = static_cast<int>(all.size() / 2);
  for (int r = 0; r < n; ++r) {
    const std::size_t i = 2 * static_cast<std::size_t>(r);
    if (all[i + 1] != 0)
      failed += (failed.empty() ? "" : ", ") + std::to_string(r);
    else if (all[1] == 0 && all[i] != all[0])
      differ += (differ.empty() ? "" : ", ") + std::to_string(r);
  }
  if (!failed.empty()) {
    s_.reset();
    throw Error(
        rank,
        "algo::Auto: CCLX_ALGO, CCLX_TUNE_FILE, CCLX_TUNE, CCLX_NET_* or CCLX_LOG is invalid on "
        "rank(s) " +
            failed + " (the message is on their stderr)");
  }
  if (!differ.empty()) {
    s_.reset();
    throw Error(rank,
                "algo::Auto: rank(s) " + differ +
                    " see different CCLX_ALGO, CCLX_TUNE_FILE contents, CCLX_TUNE or CCLX_NET_* "
                    "than rank 0; "
                    "every rank must choose alike, so they must be the same everywhere");
  }
  agreed_ = true;
}

const tune::Candidate& AutoContext::choose(const tune::Workload& w, bool online_call,
                                           Timing& timing, tune::AutoEntry** entry) {
  State& s = *s_;
  const tune::Candidate& c = s.tuner.choose(w, online_call || s.online_env, timing, entry);
  if (s.log && s.rank == 0 && s.logged.insert(w).second)
    std::fprintf(stderr, "cclx tune: %s: %s\n", describe(w).c_str(),
                 s.tuner.explain(w, online_call || s.online_env).c_str());
  return c;
}

const tune::Settled& AutoContext::remember(const AutoKey& key, tune::AutoEntry& entry,
                                           const tune::Candidate& choice) {
  entry.settled = {choice.native() ? nullptr : &choice, algo::to_policy(choice)};
  memo_ = {key, &entry.settled, tune::AutoState::repeat_counter(entry)};
  return entry.settled;
}

void AutoContext::observe(const tune::Workload& w, bool online_call, double max_seconds) {
  State& s = *s_;
  s.tuner.observe(w, max_seconds);
  if (s.log && s.rank == 0 && s.tuner.converged(w))
    std::fprintf(stderr, "cclx tune: %s: %s\n", describe(w).c_str(),
                 s.tuner.explain(w, online_call || s.online_env).c_str());
}

bool AutoContext::add_sample(const tune::Workload& w, double local_seconds) {
  return s_->tuner.add_sample(w, local_seconds);
}

double AutoContext::window_score(const tune::Workload& w) const {
  return s_->tuner.window_score(w);
}

void AutoContext::check_drift(const tune::Workload& w, double max_score_seconds) {
  s_->tuner.check_drift(w, max_score_seconds);
}

std::string AutoContext::explain(const tune::Workload& w, bool online_call, int rank) {
  state(rank);
  return describe(w) + ": " + s_->tuner.explain(w, online_call || s_->online_env);
}

}  // namespace cclx::detail
