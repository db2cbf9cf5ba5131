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

/// One measured workload of a tuning table: every candidate's time.
struct TableEntry {
  sched::Collective collective = sched::Collective::allreduce;  ///< the collective measured
  int nranks = 1;                                               ///< the communicator size
  std::size_t bytes = 0;  ///< the data size in bytes as CCLX_ALGO counts it (the whole partition)
  std::map<std::string, double, std::less<>> times_us;  ///< candidate (to_string) -> time
  /// candidate -> each repetition's time; only for candidates of times_us, possibly none
  std::map<std::string, std::vector<double>, std::less<>> reps_us;

  /// The fastest candidate, or "" when there are no times.
  [[nodiscard]] std::string best() const;
};

/// A tuning table (MCR-DL's): measured times per collective, rank count and size.
class TuningTable {
 public:
  /// The host the table was measured on (stamp_origin() fills in the host name); empty: unknown.
  std::string machine, mpi;  ///< the MPI library, by its version string's first line; "": unknown

  /// Throws cclx::Error naming the file and the offending field.
  static TuningTable load(const std::string& path);
  /// The table in the JSON text `json`; throws cclx::Error naming `origin` and the offending
  /// field.
  static TuningTable parse(std::string_view json, const std::string& origin = "<string>");
  /// Writes dump() to `path` through a temporary file renamed over it; throws cclx::Error when it
  /// cannot.
  void save(const std::string& path) const;
  /// The table as JSON (the format above), ending in a newline.
  [[nodiscard]] std::string dump() const;

  /// Adds or replaces the times of `e`'s candidates at its (collective, nranks, bytes), with their
  /// repetitions (a candidate measured again without repetitions loses its old ones).
  void record(const TableEntry& e);
  /// record() of every entry of `other` (its times win where both tables have them); `machine`
  /// and `mpi` are taken from `other` where they are empty.
  void merge(const TuningTable& other);
  /// Like merge(), but a candidate measured with repetitions in both tables keeps all of them
  /// (this table's first, then `other`'s) and its time becomes their median: the runs are pooled,
  /// e.g. separate launches of the same measurement (benchmarks/tune.sh -r), so that the native
  /// margin's sign test spans launches. Without repetitions on both sides, as merge().
  void pool(const TuningTable& other);
  /// Fills `machine` (the host name) and `mpi` (the first line of `mpi_library_version`, as
  /// MPI_Get_library_version gives it) where they are still empty.
  void stamp_origin(std::string_view mpi_library_version);
  /// The entry measured for (c, nranks) at the size nearest to `bytes` on a log scale (ties go to
  /// the smaller size); null when the table has nothing for (c, nranks).
  [[nodiscard]] const TableEntry* nearest(sched::Collective c, int nranks, std::size_t bytes) const;
  /// The entry measured for (c, nranks) at exactly `bytes`, or null.
  [[nodiscard]] const TableEntry* exact(sched::Collective c, int nranks, std::size_t bytes) const;
  /// Where nearest() changes entry: for each entry of (c, nranks) with times, in size order, the
  /// smallest size it is nearest to (the first one's: 0). Empty when there is none.
  [[nodiscard]] std::vector<std::size_t> region_starts(sched::Collective c, int nranks) const;
  /// Every entry, sorted by (collective, nranks, bytes).
  [[nodiscard]] const std::vector<TableEntry>& entries() const { return entries_; }

 private:
  std::vector<TableEntry> entries_;  ///< sorted by (collective, nranks, bytes)
};

/// The table CCLX_TUNE_FILE names, loaded (throws cclx::Error on a bad file); nullopt when the
/// variable is unset or empty. algo::Auto's selector and algo::Adaptive read it.
[[nodiscard]] std::optional<TuningTable> table_from_env();

}  // namespace cclx::tune
