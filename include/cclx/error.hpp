// The one exception type cclx throws: says what went wrong and on which rank.
#pragma once

#include <stdexcept>
#include <string>

namespace cclx {

class Error : public std::runtime_error {
 public:
  // rank < 0: no communicator involved (schedule generation, verifier, tools).
  Error(int rank, const std::string& what)
      : std::runtime_error(rank < 0 ? "cclx: " + what
                                    : "cclx: rank " + std::to_string(rank) + ": " + what),
        rank_(rank) {}
  explicit Error(const std::string& what) : Error(-1, what) {}
  [[nodiscard]] int rank() const noexcept { return rank_; }

 private:
  int rank_;
};

}  // namespace cclx
