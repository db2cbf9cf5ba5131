// The engine's settings: what a policy asks for (segmentation), what the communicator sets
// (handshake threshold, wait policy, deadline), and the environment variables behind them.
#pragma once

#include <cstddef>
#include <string>

#include "cclx/engine/wait_policy.hpp"

namespace cclx::engine {

/// segment_bytes and handshake_bytes shape the plan (plan.hpp) and must be equal on all ranks;
/// wait and timeout_s are read by each start of an execution and are local.
struct ExecOptions {
  /// Transfers larger than this are cut into segments so that the reduction of segment k overlaps
  /// the transfer of segment k + 1; 0 disables segmentation. Must be equal on all ranks.
  std::size_t segment_bytes = 0;
  /// Receiver-ready handshake: when a step moves at least this many bytes from one rank to another,
  /// the receiver first sends a zero-byte token saying its receives are posted, and the sender
  /// holds its data until the token arrives; 0 disables it. With an MPI that sends large messages
  /// eagerly (UCX over TCP with UCX_RNDV_THRESH=inf), a rank that is a step ahead would otherwise
  /// push its next step's data into a partner that is still receiving the previous step, and the
  /// two flows share that partner's link: the late, critical flow is slowed by one that is early.
  /// Costs one latency per step and peer. Must be equal on all ranks (docs/architecture.md).
  std::size_t handshake_bytes = 0;
  /// How wait() waits for transfers: spin, yield or back off (wait_policy.hpp). Local to the rank.
  WaitPolicy wait{};
  /// Deadline of wait() in seconds from its start; 0 means none. On expiry wait() throws a
  /// cclx::Error naming the collective, algorithm, step and the peers still owing data.
  double timeout_s = 0;
};

/// CCLX_HANDSHAKE_BYTES (cclx/settings.hpp): the handshake threshold, a byte size (65536, 256K,
/// 1.5M: cclx/byte_size.hpp); unset or 0 turns the handshake off. Throws cclx::Error on anything
/// else.
std::size_t handshake_bytes_from_env();

/// CCLX_TIMEOUT (cclx/settings.hpp): seconds (e.g. 30, 0.5, optionally with an `s` suffix); unset,
/// 0, `off` or `none` mean no deadline (returns 0). Throws cclx::Error on anything else.
double timeout_from_env();
/// A duration in seconds as the error messages print it ("30 s", "0.5 s").
std::string format_seconds(double s);

}  // namespace cclx::engine
