#include "work.hpp"

#include <utility>

namespace cclx::torch_backend {

Work::Work(int rank, c10d::OpType type, const char* title, std::vector<at::Tensor> outputs)
    : c10d::Work(rank, type, title),
      outputs_(std::move(outputs)),
      future_(
          c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {
}

void Work::complete(std::exception_ptr error) {
  finish(error);  // wakes Work::wait()
  if (error)
    future_->setError(std::move(error));
  else
    future_->markCompleted(c10::IValue(outputs_));
}

}  // namespace cclx::torch_backend
