// Call pipeline, the execute stage of a scheduled call: the plan stage's entry (call/plan.hpp) run
// on the backend's transport and scratch. Compiled once in lib/call/execute.cpp. A native call's
// execute stage is the backend's own collective; a persistent request's is the backend's
// persistent execution of the plan.
#pragma once

#include <memory>

#include "cclx/call/plan.hpp"
#include "cclx/engine/execution.hpp"

namespace cclx::call {

/// What an execution runs on: the backend's transport and scratch pool, the call's channel, and the
/// wait policy and deadline of this start.
struct Engine {
  engine::Transport* transport = nullptr;
  engine::ScratchPool* scratch = nullptr;
  unsigned channel = 0;
  engine::ExecOptions options;
};

/// A blocking call: runs entry `e`'s plan on `buffers` with `kernel` until this rank's part is
/// done, calls `after(context)` (the backend's end_call hook), and gives the execution back to the
/// entry for the next call of this shape. If the run throws, the execution is abandoned (destroyed:
/// its transfers are cancelled) and the next call makes a new one.
void execute(Plans::Entry& e, const engine::Buffers& buffers, const ReduceKernel& kernel,
             const Engine& x, void (*after)(const void* context), const void* context);

/// A nonblocking call: the entry's idle execution (or a new one), started; the caller's Request
/// owns it from here.
std::unique_ptr<engine::Execution> start(Plans::Entry& e, const engine::Buffers& buffers,
                                         const ReduceKernel& kernel, const Engine& x);

}  // namespace cclx::call
