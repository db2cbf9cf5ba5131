// device::DeviceCall (include/cclx/device/device_call.hpp).
#include "cclx/device/device_call.hpp"

namespace cclx::device {

void DeviceCall::host_finished() {
  if (hooks_.after_host) hooks_.after_host();
  marker_ = dev_->mark(Device::Queue::compute);
  marked_ = true;
  if (hooks_.order_caller) hooks_.order_caller(marker_);
  phase_ = Phase::device;
}

bool DeviceCall::test() {
  if (phase_ == Phase::host) {
    if (!hooks_.test()) return false;
    host_finished();
  }
  if (phase_ == Phase::device && (!wait_device_ || dev_->reached(marker_))) {
    drop_marker();
    phase_ = Phase::done;
  }
  return phase_ == Phase::done;
}

void DeviceCall::wait() {
  if (phase_ == Phase::host) {
    hooks_.wait();
    host_finished();
  }
  // No MPI operation of this call is left; the device finishes on its own.
  while (!test()) {
  }
}

void DeviceCall::drop_marker() noexcept {
  if (marked_) dev_->release(marker_);
  marked_ = false;
}

}  // namespace cclx::device
