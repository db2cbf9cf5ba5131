// algo::Auto's side of the Communicator: the per-communicator tuning state, the agreement of the
// ranks on it, and the type-erased workload of a call. The Communicator's run_auto()/start_auto()
// (communicator_auto.hpp) drive it; everything here that needs no communication is compiled once
// in lib/api/auto_dispatch.cpp.
//
// Every rank must choose the same candidate for the same call, or the call deadlocks. The choice
// is a pure function of (workload, selector inputs, tuner history), so:
//   - the workload holds only what every rank of a valid call states alike (no in-place flag,
//     which MPI allows on the root alone for rooted collectives);
//   - the selector inputs (CCLX_ALGO, CCLX_TUNE_FILE, CCLX_TUNE) are per-process environment and
//     files: the first Auto call compares their fingerprint across ranks (one 16-byte allgather)
//     and throws naming the ranks that differ;
//   - the tuner's history is fed the max over ranks of every measured time (one 8-byte allreduce
//     per tuning call), so every rank's tuner takes the same steps.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "cclx/algo/by_name.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/tune/model.hpp"
#include "cclx/tune/settled.hpp"

namespace cclx::detail {

// The workload of call `c` on `nranks` ranks, the same on every rank of a valid call. Two kinds
// of call need care:
//   - alltoallv: each rank knows only its own counts, so the ranks share no size: the workload
//     has none (Workload::sized false; the selector decides for every size at once), and a
//     persistent alltoallv_init agrees on one at init (alltoallv_local_bytes(), max over ranks);
//   - v-collectives given displacements (Workload::displs): native alone serves them, and the
//     selector's explanation says what it skipped. Whether a call gives cclx::Displs decides the
//     algorithm, so under Auto every rank gives them or none does (as it names the policy).
[[nodiscard]] tune::Workload auto_workload(const CollectiveCall& c, int nranks);

// The workload explain() describes: `count` elements of `elem_size` bytes as the call states it
// (alltoallv: without a size, as its one-shot call).
[[nodiscard]] tune::Workload auto_workload(sched::Collective coll, std::size_t count,
                                           std::size_t elem_size, int nranks, int root,
                                           bool commutative);

// What this rank of an alltoallv moves: the larger of its send and receive totals, in bytes
// (saturating). Its max over ranks is the size alltoallv_init decides on: the busiest rank's
// buffer, which is what cclx-bench and cclx-tune record as alltoallv's (and alltoall's) size.
[[nodiscard]] std::size_t alltoallv_local_bytes(const CollectiveCall& c);

// "allreduce 4K bytes, 2 ranks, 4-byte elements"
[[nodiscard]] std::string describe(const tune::Workload& w);

// What auto_workload() reads of a call, packed for a cheap comparison (AutoContext::repeat()):
// equal keys mean equal workloads (nranks is the communicator's), so the same decision.
struct AutoKey {
  std::size_t count = 0;
  std::size_t elem_size = 0;
  // collective, then one bit each: commutative, Auto::online, native only (displacements),
  // reproducible mode; root in the high half.
  std::uint64_t shape = 0;
  friend bool operator==(const AutoKey&, const AutoKey&) = default;
};

inline AutoKey auto_key(const CollectiveCall& c, bool online) {
  const bool displs = c.blocks && (c.blocks->in_displs.size | c.blocks->out_displs.size) != 0;
  const bool commutative = !c.has_op || c.kernel.commutative;
  return {c.count, c.kernel.elem_size,
          static_cast<std::uint64_t>(c.collective) | std::uint64_t{commutative} << 8 |
              std::uint64_t{online} << 9 | std::uint64_t{displs} << 10 |
              std::uint64_t{c.reproducible} << 11 |
              std::uint64_t{static_cast<std::uint32_t>(c.root)} << 32};
}

class AutoContext {
 public:
  using Timing = tune::Timing;

  // The last blocking call's settled decision (a static one, or an online tuner's converged one
  // between drift samples): a call with the same key runs the entry's resolved policy without
  // building its workload or asking the tuner (docs/tuning-results.md, "Per-call cost of the
  // decision"). The decision itself lives in its entry (tune::AutoState), nowhere else; the memo
  // points into it.
  struct Memo {
    AutoKey key;
    const tune::Settled* settled = nullptr;  ///< the entry's resolved decision; null: no memo
    int* counter = nullptr;  ///< a converged tuner's calls since its drift sample; null: static
  };
  // The resolved decision when a call of `key` (auto_key()) repeats the remembered one and needs
  // no timing this call, else null.
  const tune::Settled* repeat(const AutoKey& key) {
    if (!memo_.settled || key != memo_.key) return nullptr;
    if (int* n = memo_.counter) {
      if (*n + 1 >= tune::drift_sample_every) return nullptr;
      ++*n;
    }
    return memo_.settled;
  }
  // After a blocking call of `key` whose choose() returned Timing::none with `choice`, the
  // decision of `entry`: resolve it to its policy there and remember the entry for repeat().
  const tune::Settled& remember(const AutoKey& key, tune::AutoEntry& entry,
                                const tune::Candidate& choice);
  // Before any other decision: the memo no longer holds.
  void forget() { memo_.settled = nullptr; }

  AutoContext();
  AutoContext(AutoContext&&) noexcept;
  AutoContext& operator=(AutoContext&&) noexcept;
  AutoContext(const AutoContext&) = delete;
  AutoContext& operator=(const AutoContext&) = delete;
  // With CCLX_TUNE_SAVE set, rank 0 merges what online tuning learned into that file (atomically;
  // errors are printed, never thrown). Needs no MPI, so it also works after MPI_Finalize.
  ~AutoContext();

  // True once the ranks have compared fingerprints (the first Auto call does it).
  [[nodiscard]] bool agreed() const { return agreed_; }
  // This rank's part of the agreement: {fingerprint, 1 when reading CCLX_* failed here}.
  std::array<std::uint64_t, 2> local_fingerprint(int rank);
  // `all`: every rank's local_fingerprint(), in rank order. Throws cclx::Error on every rank when
  // a rank failed or its fingerprint differs from rank 0's, naming the ranks.
  void agree(std::span<const std::uint64_t> all, int rank);

  // The candidate for this call of `w` and what to time (AutoState::choose); logs new decisions
  // and convergence to stderr on rank 0 when CCLX_LOG=tune.
  // `entry` (optional): where the decision is kept, for remember().
  const tune::Candidate& choose(const tune::Workload& w, bool online_call, Timing& timing,
                                tune::AutoEntry** entry = nullptr);
  // A tuning call's time, already reduced to its max over ranks.
  void observe(const tune::Workload& w, bool online_call, double max_seconds);
  // A drift sample (local time); true when the window is full: reduce window_score() (robust, as
  // the tuner's scores) to its max
  // over ranks and call check_drift().
  bool add_sample(const tune::Workload& w, double local_seconds);
  [[nodiscard]] double window_score(const tune::Workload& w) const;
  void check_drift(const tune::Workload& w, double max_score_seconds);

  // The decision for `w` and its sources, candidates and times (local: no communication).
  [[nodiscard]] std::string explain(const tune::Workload& w, bool online_call, int rank);
  // The state (created from the environment on first use; throws on a bad CCLX_* variable).
  tune::AutoState& state(int rank);

  // The communicator's host map (Communicator::host_ids(), made at the agreement; the backend
  // keeps it for the communicator's life) that every workload carries; empty until then, or for
  // a backend without one.
  void set_hosts(std::span<const int> hosts) { hosts_ = hosts; }
  [[nodiscard]] std::span<const int> hosts() const { return hosts_; }

 private:
  struct State;
  std::span<const int> hosts_;
  std::unique_ptr<State> s_;
  bool agreed_ = false;
  Memo memo_;
};

}  // namespace cclx::detail
