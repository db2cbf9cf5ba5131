// The one exception type cclx throws: says what went wrong and on which rank.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cclx {

/// The one exception type cclx throws: says what went wrong and on which rank.
class Error : public std::runtime_error {
 public:
  /// rank < 0: no communicator involved (schedule generation, verifier, tools).
  Error(int rank, const std::string& what)
      : std::runtime_error(rank < 0 ? "cclx: " + what
                                    : "cclx: rank " + std::to_string(rank) + ": " + what),
        rank_(rank),
        detail_(what) {}
  /// An error with no rank (rank() is -1).
  explicit Error(const std::string& what) : Error(-1, what) {}
  /// The rank in its communicator of the process that raised it; -1 where no communicator was
  /// involved.
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// The message without the "cclx: rank N: " prefix.
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }
  /// The same error attributed to `rank` (used where a rank-less layer reports to a communicator).
  [[nodiscard]] Error on_rank(int rank) const { return rank_ < 0 ? Error(rank, detail_) : *this; }

 private:
  int rank_;
  std::string detail_;
};

/// Ranks as every cclx message names them: "rank 3", "ranks 0, 2-4, 7" (sorted, duplicates
/// dropped, consecutive ranks as a range); "no rank" for none.
[[nodiscard]] std::string rank_list(std::vector<int> ranks);

}  // namespace cclx
