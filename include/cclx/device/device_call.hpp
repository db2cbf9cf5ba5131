// A device call that outlives its start: a nonblocking or persistent collective, or nonblocking
// point-to-point, on device buffers (docs/cuda.md, "Nonblocking and persistent calls").
//
// Its host part (an engine execution over the staging transport, or an MPI request on pinned host
// copies) progresses inside test() and wait(), as a host request's does. Once the host part is
// done, the device work that follows it is queued (e.g. the host-to-device copy of a staged
// result), a marker ends the call on the compute queue and the caller's stream is ordered after
// it. Then, with `wait_device`, the call completes once the device has reached the marker (polled,
// never blocking inside the device); without, at once (stream-ordered: later work on the caller's
// stream sees the results). Plain C++ over device::Device, so that the unit tests run it on a fake.
#pragma once

#include <functional>
#include <memory>

#include "cclx/device/device.hpp"
#include "cclx/request.hpp"

namespace cclx::device {

/// What a device call does around its host execution.
struct CallHooks {
  std::function<bool()> test;        ///< progresses the host part without blocking; true once done
  std::function<void()> wait;        ///< blocks until the host part is done (its deadline applies)
  std::function<void()> after_host;  ///< queues the device work that follows it; may be empty
  /// Makes the caller's stream wait for the marker; may be empty (the fake device has no caller).
  std::function<void(Device::Marker)> order_caller;
};

/// A device call that outlives its start: its staging state until completion.
class DeviceCall {
 public:
  /// A call whose host part has been started; `dev` must outlive it, and `wait_device` says
  /// whether completion waits for the device (see the top of this file).
  DeviceCall(Device& dev, bool wait_device, CallHooks hooks)
      : dev_(&dev), wait_device_(wait_device), hooks_(std::move(hooks)) {}
  ~DeviceCall() { drop_marker(); }
  DeviceCall(const DeviceCall&) = delete;
  DeviceCall& operator=(const DeviceCall&) = delete;

  /// Runs again (a persistent request's start, once its host part has been started again).
  void restart(bool wait_device) {
    drop_marker();
    wait_device_ = wait_device;
    phase_ = Phase::host;
  }
  /// Makes all progress possible without blocking; true once complete.
  bool test();
  /// Blocks until complete: the host part per its wait policy, then polls the marker.
  void wait();
  /// True once test() or wait() found the call complete.
  [[nodiscard]] bool done() const { return phase_ == Phase::done; }

 private:
  enum class Phase { host, device, done };
  void host_finished();  ///< the host part is done: queue what follows, mark, order the caller
  void drop_marker() noexcept;

  Device* dev_;
  bool wait_device_;
  CallHooks hooks_;
  Phase phase_ = Phase::host;
  bool marked_ = false;
  Device::Marker marker_ = 0;
};

/// A Request's pending device call; `keep` (buffers, the backend's state) lives as long as it.
struct DevicePending final : cclx::detail::PendingOp {
  /// A DeviceCall on `dev` (arguments as there) that holds `keep`.
  DevicePending(std::shared_ptr<void> keep, Device& dev, bool wait_device, CallHooks hooks)
      : keep(std::move(keep)), call(dev, wait_device, std::move(hooks)) {}
  std::shared_ptr<void> keep;                   ///< declared first: released last
  DeviceCall call;                              ///< the device call (released before `keep`)
  bool test() override { return call.test(); }  ///< progresses the call; true once complete
  void wait() override { call.wait(); }         ///< blocks until the call is complete
};

}  // namespace cclx::device
