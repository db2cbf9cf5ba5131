// MpiBackend::clock(): seconds on a clock common to all ranks.
#include <string>

#include "cclx/backend/mpi.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::mpi_check;

double MpiBackend::clock() {
  if (!s_->clock_calibrated) {
    // Ranks on one node read the same system clock: calibrating there would only add the error of
    // ping-pongs that oversubscribed ranks make milliseconds long. Collective, like the rest.
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(s_->internal, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              s_->rank, "MPI_Comm_split_type (clock)");
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    s_->clock_calibrated = node_size == s_->size;
  }
  if (!s_->clock_calibrated) {
    // Cristian's method against rank 0, keeping the exchange with the smallest round trip. Runs on
    // the private communicator under a channel number like any collective.
    const int tag = static_cast<int>(next_channel() % 32768u);
    constexpr int kRounds = 8;
    // Blocking point-to-point, against the deadline if one is set (a dead rank must not hang it).
    auto p2p = [&](bool send, double* v, int peer) {
      MPI_Request req = MPI_REQUEST_NULL;
      mpi_check(send ? MPI_Isend(v, 1, MPI_DOUBLE, peer, tag, s_->internal, &req)
                     : MPI_Irecv(v, 1, MPI_DOUBLE, peer, tag, s_->internal, &req),
                s_->rank, send ? "MPI_Isend (clock)" : "MPI_Irecv (clock)");
      if (s_->timeout_s > 0) {
        s_->finish(req, true, [&] {
          return std::string("clock calibration: ") + (send ? "send to" : "receive from") +
                 " rank " + std::to_string(peer);
        });
      } else {
        const detail::CompletionScope scope;
        mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), s_->rank, "MPI_Wait (clock)");
      }
    };
    if (s_->rank == 0) {
      for (int peer = 1; peer < s_->size; ++peer)
        for (int i = 0; i < kRounds; ++i) {
          double t = 0;
          p2p(false, &t, peer);
          t = MPI_Wtime();
          p2p(true, &t, peer);
        }
    } else {
      double best_rtt = 1e300;
      for (int i = 0; i < kRounds; ++i) {
        double t1 = MPI_Wtime();
        double t0 = 0;
        p2p(true, &t1, 0);
        p2p(false, &t0, 0);
        const double t2 = MPI_Wtime();
        if (t2 - t1 < best_rtt) {
          best_rtt = t2 - t1;
          s_->clock_offset = t0 - 0.5 * (t1 + t2);
        }
      }
    }
    s_->clock_calibrated = true;
  }
  return MPI_Wtime() + s_->clock_offset;
}

}  // namespace cclx
