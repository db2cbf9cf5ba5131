// engine::Transport over an MPI communicator: nonblocking byte messages, one tag per channel.
#pragma once

#include <mpi.h>

#include "cclx/engine/transport.hpp"

namespace cclx {

/// engine::Transport over an MPI communicator (MPI_Isend, MPI_Irecv, MPI_Testsome).
class MpiTransport final : public engine::Transport {
 public:
  /// `comm` must be private to the library (no other traffic) and outlive the transport.
  explicit MpiTransport(MPI_Comm comm);
  [[nodiscard]] int rank() const override { return rank_; }  ///< this process's rank in `comm`
  [[nodiscard]] int size() const override { return size_; }  ///< the number of ranks in `comm`
  std::unique_ptr<engine::Channel> open_channel(unsigned number) override;
  /// `comm`'s MPI_TAG_UB, the largest tag (32767, MPI's minimum, where `comm` has none).
  [[nodiscard]] int tag_ub() const { return tag_ub_; }  ///< channel numbers wrap above it

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, tag_ub_ = 32767;
};

}  // namespace cclx
