// engine::Transport over an MPI communicator: nonblocking byte messages, one tag per channel.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "cclx/engine/transport.hpp"

namespace cclx {

namespace detail {
class RollCall;  // lib/backend/mpi_roll_call.hpp
}

/// engine::Transport over an MPI communicator (MPI_Isend, MPI_Irecv, MPI_Testsome).
class MpiTransport final : public engine::Transport {
 public:
  /// `comm` must be private to the library (no other traffic) and outlive the transport; so must
  /// `roll` (the backend's roll call, asked when a wait times out), if not null.
  explicit MpiTransport(MPI_Comm comm, detail::RollCall* roll = nullptr);
  [[nodiscard]] int rank() const override;  ///< this process's rank in `comm`
  [[nodiscard]] int size() const override;  ///< the number of ranks in `comm`
  std::unique_ptr<engine::Channel> open_channel(unsigned number) override;
  void idle() override;                               ///< answers other ranks' roll calls
  std::string on_failure(double timeout_s) override;  ///< this rank's roll call
  /// CCLX_MAX_MESSAGE_BYTES, read at construction.
  [[nodiscard]] std::size_t max_message_bytes() const override;
  /// `comm`'s MPI_TAG_UB, the largest tag (32767, MPI's minimum, where `comm` has none).
  [[nodiscard]] int tag_ub() const { return tag_ub_; }  ///< channel numbers wrap above it
  /// True once a channel was destroyed with transfers pending (an execution abandoned after an
  /// error): late messages may still arrive, so `comm` must never be freed.
  [[nodiscard]] bool abandoned() const { return abandoned_; }

 private:
  MPI_Comm comm_;
  detail::RollCall* roll_;
  int rank_ = 0, size_ = 1, tag_ub_ = 32767;
  std::size_t max_message_bytes_ = 0;
  bool abandoned_ = false;
};

}  // namespace cclx
