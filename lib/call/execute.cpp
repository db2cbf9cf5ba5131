// The execute stage of the call pipeline (call/execute.hpp).
#include "cclx/call/execute.hpp"

#include <utility>

namespace cclx::call {

namespace {

// The entry's idle execution, or a new one when a call of this shape is already running it or it
// was abandoned.
std::unique_ptr<engine::Execution> take(Plans::Entry& e, const Engine& x) {
  if (e.idle) return std::move(e.idle);
  return std::make_unique<engine::Execution>(e.plan, *x.transport, *x.scratch);
}

}  // namespace

void execute(Plans::Entry& e, const engine::Buffers& buffers, const ReduceKernel& kernel,
             const Engine& x, void (*after)(const void*), const void* context) {
  std::unique_ptr<engine::Execution> ex = take(e, x);
  ex->start(buffers, kernel, x.channel, x.options);
  ex->wait();
  after(context);
  if (e.plan->scratch_bytes > Plans::keep_scratch_bytes) ex->release_scratch();
  e.idle = std::move(ex);
}

std::unique_ptr<engine::Execution> start(Plans::Entry& e, const engine::Buffers& buffers,
                                         const ReduceKernel& kernel, const Engine& x) {
  std::unique_ptr<engine::Execution> ex = take(e, x);
  ex->start(buffers, kernel, x.channel, x.options);
  return ex;
}

}  // namespace cclx::call
