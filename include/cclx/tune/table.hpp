// Tuning tables (MCR-DL's): measured times of each candidate per collective, communicator size
// and message size, written by cclx-tune and read by algo::Auto (CCLX_TUNE_FILE). A table is
// only valid for the machine and MPI it was measured on; it records both.
//
// JSON:
//   {"format": "cclx-tune-table", "version": 1, "machine": "...", "mpi": "...",
//    "entries": [{"collective": "allreduce", "nranks": 2, "bytes": 8,
//                 "times_us": {"native": 0.77, "ring": 1.21},
//                 "reps_us": {"native": [0.75, 0.77, 0.80], "ring": [1.2, 1.21, 1.3]}}, ...]}
// `bytes` is the collective's data size as CCLX_ALGO counts it (the whole partition);
// `times_us` the median time per call (max over ranks) of each candidate (to_string form);
// `reps_us` (optional; tables written before it have none) each repetition's time, in the order
// they ran, which the native margin compares pairwise (margin.hpp).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/schedule/schedule.hpp"
#include "cclx/tune/candidate.hpp"

namespace cclx::tune {

struct TableEntry {
  sched::Collective collective = sched::Collective::allreduce;
  int nranks = 1;
  std::size_t bytes = 0;
  std::map<std::string, double, std::less<>> times_us;  // candidate (to_string) -> time
  // candidate -> each repetition's time; only for candidates of times_us, possibly none
  std::map<std::string, std::vector<double>, std::less<>> reps_us;

  // The fastest candidate, or "" when there are no times.
  [[nodiscard]] std::string best() const;
};

class TuningTable {
 public:
  std::string machine, mpi;

  // Throws cclx::Error naming the file and the offending field.
  static TuningTable load(const std::string& path);
  static TuningTable parse(std::string_view json, const std::string& origin = "<string>");
  void save(const std::string& path) const;
  [[nodiscard]] std::string dump() const;

  // Adds or replaces the times of `e`'s candidates at its (collective, nranks, bytes), with their
  // repetitions (a candidate measured again without repetitions loses its old ones).
  void record(const TableEntry& e);
  void merge(const TuningTable& other);
  // Like merge(), but a candidate measured with repetitions in both tables keeps all of them
  // (this table's first, then `other`'s) and its time becomes their median: the runs are pooled,
  // e.g. separate launches of the same measurement (benchmarks/tune.sh -r), so that the native
  // margin's sign test spans launches. Without repetitions on both sides, as merge().
  void pool(const TuningTable& other);
  // Fills `machine` (the host name) and `mpi` (the first line of `mpi_library_version`, as
  // MPI_Get_library_version gives it) where they are still empty.
  void stamp_origin(std::string_view mpi_library_version);
  // The entry measured for (c, nranks) at the size nearest to `bytes` on a log scale (ties go to
  // the smaller size); null when the table has nothing for (c, nranks).
  [[nodiscard]] const TableEntry* nearest(sched::Collective c, int nranks, std::size_t bytes) const;
  [[nodiscard]] const TableEntry* exact(sched::Collective c, int nranks, std::size_t bytes) const;
  // Where nearest() changes entry: for each entry of (c, nranks) with times, in size order, the
  // smallest size it is nearest to (the first one's: 0). Empty when there is none.
  [[nodiscard]] std::vector<std::size_t> region_starts(sched::Collective c, int nranks) const;
  [[nodiscard]] const std::vector<TableEntry>& entries() const { return entries_; }

 private:
  std::vector<TableEntry> entries_;  // sorted by (collective, nranks, bytes)
};

// The table CCLX_TUNE_FILE names, loaded (throws cclx::Error on a bad file); nullopt when the
// variable is unset or empty. algo::Auto's selector and algo::Adaptive read it.
[[nodiscard]] std::optional<TuningTable> table_from_env();

}  // namespace cclx::tune
