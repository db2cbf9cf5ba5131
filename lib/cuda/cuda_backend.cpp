// cclx::CudaBackend (include/cclx/cuda.hpp, docs/cuda.md): the CUDA implementations of the
// staging transport's Device and of the engine's LocalOps, and the backend around them.
#include <cuda_runtime.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../backend/mpi_state.hpp"
#include "cclx/backend/mpi_transport.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/cuda.hpp"
#include "cclx/device/cuda_aware.hpp"
#include "cclx/device/device_call.hpp"
#include "cclx/device/pinned_pool.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "reduce_kernels.hpp"

namespace cclx {

namespace {

void check(cudaError_t e, int rank, const char* what) {
  if (e != cudaSuccess)
    throw Error(rank, std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(e));
}

std::size_t type_bytes(DataType t) {
  switch (t) {
    case DataType::i8:
    case DataType::u8:
    case DataType::boolean:
      return 1;
    case DataType::i16:
    case DataType::u16:
      return 2;
    case DataType::i32:
    case DataType::u32:
    case DataType::f32:
      return 4;
    case DataType::i64:
    case DataType::u64:
    case DataType::f64:
      return 8;
    case DataType::f80:
      return sizeof(long double);
  }
  return 1;
}

bool is_device_pointer(const void* p) {
  if (!p) return false;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free error of an unknown pointer
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

// Streams and an event pool: device::Device for the staging transport.
class CudaDevice final : public device::Device {
 public:
  explicit CudaDevice(int rank) : rank_(rank) {
    check(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking), rank, "cudaStreamCreate");
    check(cudaStreamCreateWithFlags(&inbound_, cudaStreamNonBlocking), rank, "cudaStreamCreate");
  }
  ~CudaDevice() override {
    cudaStreamSynchronize(compute_);
    cudaStreamSynchronize(inbound_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    cudaStreamDestroy(compute_);
    cudaStreamDestroy(inbound_);
  }
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::byte* alloc_pinned(std::size_t bytes) override {
    void* p = nullptr;
    check(cudaMallocHost(&p, bytes), rank_, "cudaMallocHost");
    return static_cast<std::byte*>(p);
  }
  void free_pinned(std::byte* p) noexcept override { cudaFreeHost(p); }
  void copy(Queue q, void* dst, const void* src, std::size_t bytes) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream(q)), rank_, "cudaMemcpyAsync");
  }
  Marker mark(Queue q) override {
    Marker m;
    if (!free_.empty()) {
      m = free_.back();
      free_.pop_back();
    } else {
      cudaEvent_t e = nullptr;
      check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), rank_, "cudaEventCreate");
      m = static_cast<Marker>(events_.size());
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[m], stream(q)), rank_, "cudaEventRecord");
    return m;
  }
  bool reached(Marker m) override {
    const cudaError_t e = cudaEventQuery(events_[m]);
    if (e == cudaErrorNotReady) return false;
    check(e, rank_, "cudaEventQuery (an earlier copy or kernel failed)");
    return true;
  }
  void order_after(Queue q, Marker m) override {
    check(cudaStreamWaitEvent(stream(q), events_[m], 0), rank_, "cudaStreamWaitEvent");
  }
  void release(Marker m) noexcept override { free_.push_back(m); }

  [[nodiscard]] cudaEvent_t event(Marker m) const { return events_[m]; }
  [[nodiscard]] cudaStream_t stream(Queue q) const {
    return q == Queue::compute ? compute_ : inbound_;
  }
  // Waits for the compute stream, spinning on cudaStreamQuery (no blocking sync in the driver).
  void drain_compute() const {
    cudaError_t e;
    while ((e = cudaStreamQuery(compute_)) == cudaErrorNotReady) {
    }
    check(e, rank_, "the backend's stream");
  }

 private:
  int rank_;
  cudaStream_t compute_ = nullptr, inbound_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<Marker> free_;
};

// The engine's local ops on device memory, queued on the compute stream.
class CudaOps final : public engine::LocalOps {
 public:
  CudaOps(CudaDevice& dev, int rank) : dev_(&dev), rank_(rank) {}
  void copy(void* dst, const void* src, std::size_t bytes) override {
    check(cuda_detail::launch_move(dst, src, bytes, dev_->stream(device::Device::Queue::compute)),
          rank_, "device copy");
  }
  void reduce(const ReduceKernel& k, void* dst, const void* a, const void* b,
              std::size_t n) override {
    check(cuda_detail::launch_reduce(k.type, static_cast<int>(k.op), dst, a, b, n,
                                     dev_->stream(device::Device::Queue::compute)),
          rank_, "reduction kernel");
  }

 private:
  CudaDevice* dev_;
  int rank_;
};

std::byte* device_alloc(void* ctx, std::size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), *static_cast<const int*>(ctx), "cudaMalloc (scratch)");
  return static_cast<std::byte*>(p);
}
void device_free(void*, std::byte* p) noexcept {
  cudaFree(p);
}

// A CCLX_CUDA_* size (cclx/settings.hpp), its error attributed to `rank`.
std::size_t setting_size(settings::Id id, int rank) {
  try {
    return settings::get<std::size_t>(id);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
}

// CCLX_CUDA_AWARE: 1 true, 0 false, auto nullopt.
std::optional<bool> cuda_aware_setting(int rank) {
  try {
    const std::string v = settings::get<std::string>(settings::Id::cuda_aware);
    if (v == "auto") return std::nullopt;
    return v == "1";
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
}

}  // namespace

struct CudaBackend::Impl {
  Impl(MpiBackend& b, int r, bool direct)
      : rank(r),
        nranks(b.size()),
        dev(r),
        ops(dev, r),
        pool(dev, setting_size(settings::Id::cuda_pinned_cache_bytes, r)),
        scratch(engine::ScratchPool::Allocator{&device_alloc, &device_free, &rank}) {
    aware = direct;
    device::StagingOptions o;
    o.chunk_bytes = setting_size(settings::Id::cuda_chunk_bytes, r);
    o.depth = setting_size(settings::Id::cuda_depth, r);
    o.direct = aware;
    staging = std::make_unique<device::StagingTransport>(b.transport(), dev, ops, o);
    check(cudaEventCreateWithFlags(&begin, cudaEventDisableTiming), r, "cudaEventCreate");
    check(cudaEventCreateWithFlags(&end, cudaEventDisableTiming), r, "cudaEventCreate");
  }
  ~Impl() {
    staging.reset();
    persistent.reset();
    persistent_host.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (persistent_comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&persistent_comm);
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    cudaStreamSynchronize(compute());  // queued copies may still use the staging buffers
    pool.release(host_in);
    pool.release(host_out);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  [[nodiscard]] cudaStream_t compute() const { return dev.stream(device::Device::Queue::compute); }
  // Pinned host buffers for staging whole blocking calls (native, point-to-point), grown as needed
  // (the compute stream is idle between blocking calls, so the old block is free to give back).
  std::byte* pinned(device::PinnedPool::Block& b, std::size_t bytes) {
    if (!b.data || bytes > b.capacity) {
      pool.release(std::exchange(b, {}));
      b = pool.acquire(bytes);
    }
    return b.data;
  }
  void begin_order() {
    check(cudaEventRecord(begin, user), rank, "cudaEventRecord (caller's stream)");
    check(cudaStreamWaitEvent(compute(), begin, 0), rank, "cudaStreamWaitEvent");
  }
  // Makes `caller` wait for a marker on the compute stream (a request's completion).
  std::function<void(device::Device::Marker)> order_caller(cudaStream_t caller) {
    return [this, caller](device::Device::Marker m) {
      check(cudaStreamWaitEvent(caller, dev.event(m), 0), rank,
            "cudaStreamWaitEvent (caller's stream)");
    };
  }
  // The staging transport of persistent requests, on a communicator of its own (collective: made
  // at the first persistent init, which every rank calls in the same order).
  device::StagingTransport& persistent_transport(MPI_Comm comm) {
    if (!persistent) {
      if (MPI_Comm_dup(comm, &persistent_comm) != MPI_SUCCESS)
        throw Error(rank, "CudaBackend: MPI_Comm_dup (persistent requests) failed");
      MPI_Comm_set_errhandler(persistent_comm, MPI_ERRORS_RETURN);
      persistent_host = std::make_unique<MpiTransport>(persistent_comm);
      persistent = std::make_unique<device::StagingTransport>(*persistent_host, dev, ops,
                                                              staging->options());
    }
    return *persistent;
  }
  void end_order() {
    check(cudaEventRecord(end, compute()), rank, "cudaEventRecord");
    check(cudaStreamWaitEvent(user, end, 0), rank, "cudaStreamWaitEvent (caller's stream)");
    if (blocking) dev.drain_compute();
  }

  int rank;
  int nranks;
  CudaDevice dev;
  CudaOps ops;
  device::PinnedPool pool;  // after dev: destroyed before it
  engine::ScratchPool scratch;
  std::unique_ptr<device::StagingTransport> staging;
  bool aware = false;
  cudaStream_t user = nullptr;  // the legacy default stream
  bool blocking = true;
  cudaEvent_t begin = nullptr, end = nullptr;
  device::PinnedPool::Block host_in, host_out;
  MPI_Comm persistent_comm = MPI_COMM_NULL;
  std::unique_ptr<MpiTransport> persistent_host;
  std::unique_ptr<device::StagingTransport> persistent;
  unsigned persistent_channel = 0;  // the next start's; equal on all ranks (starts are in order)
};

CudaBackend::CudaBackend(MPI_Comm comm, Ownership own) : host_(comm, own) {
  // Its own settings, agreed as the host backend's are: a bad value, or another staging chunk (the
  // size of every staged message), on some ranks throws on every rank.
  using settings::Id;
  detail::agree_settings(host_.state()->internal, rank(), size(),
                         {Id::cuda_aware, Id::cuda_depth, Id::cuda_pinned_cache_bytes},
                         {Id::cuda_chunk_bytes});
  // One exchange for two things every rank must learn of every other: whether it has a device
  // (all throw or none), and how it would move device memory (one decision for all ranks, since a
  // staging rank cuts each transfer into chunks that a direct one sends whole; cuda_aware.hpp).
  const std::optional<bool> forced = cuda_aware_setting(rank());
  using device::AwareVote;
  const AwareVote vote = !device::decide_cuda_aware(device::mpi_reports_cuda_support(), forced)
                             ? AwareVote::stage
                         : forced.value_or(false) ? AwareVote::forced_direct
                                                  : AwareVote::direct;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  const int mine = (e == cudaSuccess && count > 0) ? 1 : 0;
  const int record[2] = {mine, static_cast<int>(vote)};
  const auto n = static_cast<std::size_t>(size());
  std::vector<int> all(2 * n), votes(n);
  detail::mpi_check(
      MPI_Allgather(record, 2, MPI_INT, all.data(), 2, MPI_INT, host_.state()->internal), rank(),
      "MPI_Allgather (devices and the CUDA-aware decision)");
  for (std::size_t r = 0; r < n; ++r) votes[r] = all[2 * r + 1];
  const bool direct = device::combine_cuda_aware(votes, rank());
  std::string missing;
  for (std::size_t r = 0; r < n; ++r)
    if (!all[2 * r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  if (!missing.empty()) {
    std::string why = mine
                          ? std::string()
                          : std::string(" (here: ") +
                                (e == cudaSuccess ? "no CUDA device" : cudaGetErrorString(e)) + ")";
    (void)cudaGetLastError();
    throw Error(rank(), "CudaBackend: no usable CUDA device on rank(s) " + missing + why);
  }
  d_ = std::make_shared<Impl>(host_, rank(), direct);
}

CudaBackend::~CudaBackend() = default;
CudaBackend::CudaBackend(CudaBackend&&) noexcept = default;
CudaBackend& CudaBackend::operator=(CudaBackend&&) noexcept = default;

void CudaBackend::set_stream(cudaStream_t s) {
  d_->user = s;
}
cudaStream_t CudaBackend::stream() const {
  return d_->user;
}
void CudaBackend::set_blocking(bool b) {
  d_->blocking = b;
}
bool CudaBackend::blocking() const {
  return d_->blocking;
}
bool CudaBackend::cuda_aware() const {
  return d_->aware;
}
const device::StagingOptions& CudaBackend::staging_options() const {
  return d_->staging->options();
}
engine::Transport& CudaBackend::transport() {
  return *d_->staging;
}
engine::ScratchPool& CudaBackend::scratch() {
  return d_->scratch;
}

void CudaBackend::begin_call(const CollectiveCall& c) {
  host_.begin_call(c);
  if (c.has_op && c.kernel.op == OpId::user)
    throw Error(rank(),
                "CudaBackend: user-defined ops cannot run on device buffers; use a "
                "builtin op (sum, prod, min, max, band, bor, bxor)");
  if (c.has_op && c.type == DataType::f80)
    throw Error(rank(), "CudaBackend: long double reductions are not supported on device buffers");
  d_->begin_order();
}

void CudaBackend::end_call() const {
  d_->end_order();
}

namespace {

// Pinned host copies of a staged call's buffers (`in` is `out` in place), from the backend's
// pool; the compute stream is drained before they go back (a queued copy may still use them).
struct Pinned {
  Pinned(std::shared_ptr<CudaBackend::Impl> owner, std::size_t in_bytes, std::size_t out_bytes,
         bool in_place)
      : d(std::move(owner)) {
    out_block = d->pool.acquire(out_bytes);
    if (!in_place) {
      try {
        in_block = d->pool.acquire(in_bytes);
      } catch (...) {
        d->pool.release(out_block);
        throw;
      }
    }
    out = out_block.data;
    in = in_place ? out : in_block.data;
  }
  ~Pinned() {
    cudaStreamSynchronize(d->compute());
    d->pool.release(in_block);
    d->pool.release(out_block);
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  std::shared_ptr<CudaBackend::Impl> d;
  device::PinnedPool::Block in_block, out_block;
  std::byte* in = nullptr;
  std::byte* out = nullptr;
};

// What a request keeps alive: the call's own state, the device's, MPI's (released in this order).
struct Kept {
  std::shared_ptr<void> mpi;
  std::shared_ptr<CudaBackend::Impl> impl;
  std::shared_ptr<void> call;
  std::shared_ptr<Pinned> pinned;
};

}  // namespace

// The call on pinned host copies `hin`/`hout` of its device buffers: queues the device-to-host
// copies (after the stream's earlier work) and returns the call MPI runs on the copies.
static CollectiveCall staged_call(CudaBackend::Impl& d, const CollectiveCall& c, std::byte* hin,
                                  std::byte* hout) {
  const std::size_t es = type_bytes(c.type);
  const std::size_t in_bytes = c.in_size * es, out_bytes = c.out_size * es;
  const cudaStream_t s = d.compute();
  // In place the output holds the input; a v-collective may leave parts of it untouched.
  if (out_bytes && c.out && (c.in_place || c.blocks))
    check(cudaMemcpyAsync(hout, c.out, out_bytes, cudaMemcpyDefault, s), d.rank, "staging copy");
  if (!c.in_place && in_bytes && c.in)
    check(cudaMemcpyAsync(hin, c.in, in_bytes, cudaMemcpyDefault, s), d.rank, "staging copy");
  CollectiveCall h = c;
  h.in = c.in ? hin : nullptr;
  h.out = c.out ? hout : nullptr;
  return h;
}

// Queues the host-to-device copy of a staged call's result, where MPI writes one: not on a
// non-root rank of reduce, gather or gatherv, whose device buffer must stay as the caller left
// it (the pinned copy holds whatever an earlier call left there).
static void unstage(CudaBackend::Impl& d, const CollectiveCall& c, const std::byte* hout) {
  const std::size_t out_bytes = c.out_size * type_bytes(c.type);
  const auto nb = static_cast<std::uint32_t>(d.nranks);
  if (out_bytes && c.out &&
      coll::windows_of(c.collective, d.nranks, d.rank, c.root, nb).out.present)
    check(cudaMemcpyAsync(c.out, hout, out_bytes, cudaMemcpyDefault, d.compute()), d.rank,
          "staging copy");
}

static bool on_device(const CollectiveCall& c) {
  return is_device_pointer(c.in) || is_device_pointer(c.out);
}

void CudaBackend::native(const CollectiveCall& c) const {
  if (!on_device(c)) {
    host_.native(c);  // host buffers (the Communicator's own exchanges)
    return;
  }
  Impl& d = *d_;
  if (d.aware) {
    d.dev.drain_compute();  // MPI reads what the stream wrote
    host_.native(c);
    d.end_order();
    return;
  }
  const std::size_t es = type_bytes(c.type);
  std::byte* hout = d.pinned(d.host_out, c.out_size * es);
  std::byte* hin = c.in_place ? hout : d.pinned(d.host_in, c.in_size * es);
  const CollectiveCall h = staged_call(d, c, hin, hout);
  d.dev.drain_compute();
  host_.native(h);
  unstage(d, c, hout);
  d.end_order();
  if (!d.blocking) d.dev.drain_compute();  // the pinned buffers are reused by the next call
}

void CudaBackend::send(const void* data, std::size_t count, DataType t, int dest, int tag) const {
  Impl& d = *d_;
  d.begin_order();
  if (d.aware || !is_device_pointer(data)) {
    d.dev.drain_compute();
    host_.send(data, count, t, dest, tag);
    return;
  }
  const std::size_t bytes = count * type_bytes(t);
  std::byte* h = d.pinned(d.host_in, bytes);
  if (bytes)
    check(cudaMemcpyAsync(h, data, bytes, cudaMemcpyDefault, d.compute()), d.rank, "staging copy");
  d.dev.drain_compute();
  host_.send(h, count, t, dest, tag);
}

void CudaBackend::recv(void* data, std::size_t count, DataType t, int source, int tag) const {
  Impl& d = *d_;
  d.begin_order();
  d.dev.drain_compute();  // the stream's earlier work may still read `data`
  if (d.aware || !is_device_pointer(data)) {
    host_.recv(data, count, t, source, tag);
    d.end_order();
    return;
  }
  const std::size_t bytes = count * type_bytes(t);
  std::byte* h = d.pinned(d.host_out, bytes);
  host_.recv(h, count, t, source, tag);
  if (bytes)
    check(cudaMemcpyAsync(data, h, bytes, cudaMemcpyDefault, d.compute()), d.rank, "staging copy");
  d.end_order();
  if (!d.blocking) d.dev.drain_compute();
}

// ---- nonblocking and persistent calls (docs/cuda.md, "Nonblocking and persistent calls") ----

std::shared_ptr<void> CudaBackend::keepalive() const {
  return std::make_shared<Kept>(Kept{host_.keepalive(), d_, nullptr, nullptr});
}

namespace {

// A host request as a device call's host part.
device::CallHooks request_hooks(const std::shared_ptr<Request>& r) {
  device::CallHooks h;
  h.test = [r] { return r->test(); };
  h.wait = [r] { r->wait(); };
  return h;
}

// A persistent device call: each start orders the backend's stream after the caller's stream
// then in force, runs `before` (staging copies), starts the host part; completion as DeviceCall.
class DevicePersistent final : public detail::PersistentOp {
 public:
  struct Host {
    std::function<void()> start, abandon;
    std::function<std::string()> name;
  };
  DevicePersistent(std::shared_ptr<Kept> keep, Host host, std::function<void()> before,
                   device::CallHooks hooks)
      : keep_(std::move(keep)), host_(std::move(host)), before_(std::move(before)) {
    hooks.order_caller = [this](device::Device::Marker m) { order_(m); };
    call_ = std::make_unique<device::DeviceCall>(keep_->impl->dev, true, std::move(hooks));
  }
  ~DevicePersistent() override { call_.reset(); }
  DevicePersistent(const DevicePersistent&) = delete;
  DevicePersistent& operator=(const DevicePersistent&) = delete;

  void start() override {
    CudaBackend::Impl& d = *keep_->impl;
    d.begin_order();
    if (before_) before_();
    host_.start();
    order_ = d.order_caller(d.user);
    call_->restart(d.blocking);
  }
  bool test() override { return call_->test(); }
  void wait() override { call_->wait(); }
  void abandon() noexcept override {
    if (host_.abandon) host_.abandon();
  }
  [[nodiscard]] std::string name() const override { return host_.name(); }
  [[nodiscard]] int rank() const override { return keep_->impl->rank; }

 private:
  std::shared_ptr<Kept> keep_;  // declared first: released last
  Host host_;
  std::function<void()> before_;
  std::function<void(device::Device::Marker)> order_;
  std::unique_ptr<device::DeviceCall> call_;
};

}  // namespace

Request CudaBackend::execution_request(std::unique_ptr<engine::Execution> exec,
                                       std::shared_ptr<void> keepalive) {
  Impl& d = *d_;
  auto keep = std::make_shared<Kept>(Kept{host_.keepalive(), d_, std::move(keepalive), {}});
  std::shared_ptr<engine::Execution> ex(std::move(exec));
  device::CallHooks h;
  h.test = [ex] { return ex->test(); };
  h.wait = [ex] { ex->wait(); };
  h.order_caller = d.order_caller(d.user);
  return Request(
      std::make_unique<device::DevicePending>(std::move(keep), d.dev, d.blocking, std::move(h)));
}

Request CudaBackend::native_start(const CollectiveCall& c, std::shared_ptr<void> keepalive) const {
  if (!on_device(c)) return host_.native_start(c, std::move(keepalive));
  Impl& d = *d_;
  auto keep = std::make_shared<Kept>(Kept{host_.keepalive(), d_, std::move(keepalive), {}});
  if (d.aware) {
    d.dev.drain_compute();  // MPI reads what the stream wrote
    device::CallHooks h = request_hooks(std::make_shared<Request>(host_.native_start(c, keep)));
    h.order_caller = d.order_caller(d.user);
    return Request(std::make_unique<device::DevicePending>(keep, d.dev, d.blocking, std::move(h)));
  }
  // Staged on pinned copies of its own, freed once the result's copy to the device is done (so
  // such a request waits for the device also when stream-ordered).
  const std::size_t es = type_bytes(c.type);
  keep->pinned = std::make_shared<Pinned>(d_, c.in_size * es, c.out_size * es, c.in_place);
  const CollectiveCall hc = staged_call(d, c, keep->pinned->in, keep->pinned->out);
  d.dev.drain_compute();
  device::CallHooks h = request_hooks(std::make_shared<Request>(host_.native_start(hc, keep)));
  h.after_host = [&d, c, out = keep->pinned->out] { unstage(d, c, out); };
  h.order_caller = d.order_caller(d.user);
  return Request(std::make_unique<device::DevicePending>(keep, d.dev, true, std::move(h)));
}

std::unique_ptr<detail::PersistentOp> CudaBackend::native_init(const CollectiveCall& c,
                                                               std::shared_ptr<void> keepalive) {
  if (!on_device(c)) return host_.native_init(c, std::move(keepalive));
  Impl& d = *d_;
  auto keep = std::make_shared<Kept>(Kept{host_.keepalive(), d_, std::move(keepalive), {}});
  CollectiveCall hc = c;
  std::function<void()> before = [&d] { d.dev.drain_compute(); };
  device::CallHooks h;
  if (!d.aware) {
    // Pinned copies bound for the request's life; each start refreshes them from the device.
    const std::size_t es = type_bytes(c.type);
    keep->pinned = std::make_shared<Pinned>(d_, c.in_size * es, c.out_size * es, c.in_place);
    std::byte *hin = keep->pinned->in, *hout = keep->pinned->out;
    hc.in = c.in ? hin : nullptr;
    hc.out = c.out ? hout : nullptr;
    before = [&d, c, hin, hout] {
      (void)staged_call(d, c, hin, hout);
      d.dev.drain_compute();
    };
    h.after_host = [&d, c, hout] { unstage(d, c, hout); };
  }
  std::shared_ptr<detail::PersistentOp> host = host_.native_init(hc, keep);
  h.test = [host] { return host->test(); };
  h.wait = [host] { host->wait(); };
  DevicePersistent::Host hh{[host] { host->start(); }, [host] { host->abandon(); },
                            [host] { return host->name(); }};
  return std::make_unique<DevicePersistent>(std::move(keep), std::move(hh), std::move(before),
                                            std::move(h));
}

std::unique_ptr<detail::PersistentOp> CudaBackend::persistent_execution(
    std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
    const ReduceKernel& kernel, std::shared_ptr<void> keepalive) {
  Impl& d = *d_;
  auto keep = std::make_shared<Kept>(Kept{host_.keepalive(), d_, std::move(keepalive), {}});
  auto ex = std::make_shared<engine::Execution>(std::move(plan),
                                                d.persistent_transport(native_handle()), d.scratch);
  // The wait policy and the timeout of init (the request may outlive the backend's object).
  engine::ExecOptions o;
  o.wait = wait_policy();
  o.timeout_s = timeout();
  DevicePersistent::Host hh{
      [ex, &d, buffers, kernel, o] { ex->start(buffers, kernel, d.persistent_channel++, o); },
      {},
      [ex] { return ex->name(); }};
  device::CallHooks h;
  h.test = [ex] { return ex->test(); };
  h.wait = [ex] { ex->wait(); };
  return std::make_unique<DevicePersistent>(std::move(keep), std::move(hh), nullptr, std::move(h));
}

Request CudaBackend::isend(const void* data, std::size_t count, DataType t, int dest,
                           int tag) const {
  Impl& d = *d_;
  d.begin_order();
  if (d.aware || !is_device_pointer(data)) {
    d.dev.drain_compute();  // MPI reads what the stream wrote
    return host_.isend(data, count, t, dest, tag);
  }
  const std::size_t bytes = count * type_bytes(t);
  auto keep = std::make_shared<Kept>(
      Kept{host_.keepalive(), d_, nullptr, std::make_shared<Pinned>(d_, 0, bytes, true)});
  std::byte* h = keep->pinned->out;
  if (bytes)
    check(cudaMemcpyAsync(h, data, bytes, cudaMemcpyDefault, d.compute()), d.rank, "staging copy");
  d.dev.drain_compute();
  device::CallHooks hooks =
      request_hooks(std::make_shared<Request>(host_.isend(h, count, t, dest, tag)));
  return Request(
      std::make_unique<device::DevicePending>(std::move(keep), d.dev, false, std::move(hooks)));
}

Request CudaBackend::irecv(void* data, std::size_t count, DataType t, int source, int tag) const {
  Impl& d = *d_;
  d.begin_order();
  if (d.aware || !is_device_pointer(data)) {
    d.dev.drain_compute();  // the stream's earlier work may still read `data`
    return host_.irecv(data, count, t, source, tag);
  }
  const std::size_t bytes = count * type_bytes(t);
  auto keep = std::make_shared<Kept>(
      Kept{host_.keepalive(), d_, nullptr, std::make_shared<Pinned>(d_, 0, bytes, true)});
  std::byte* h = keep->pinned->out;
  device::CallHooks hooks =
      request_hooks(std::make_shared<Request>(host_.irecv(h, count, t, source, tag)));
  // The copy to the device goes on the compute stream, after the caller's earlier work.
  hooks.after_host = [&d, data, h, bytes] {
    if (bytes)
      check(cudaMemcpyAsync(data, h, bytes, cudaMemcpyDefault, d.compute()), d.rank,
            "staging copy");
  };
  hooks.order_caller = d.order_caller(d.user);
  return Request(
      std::make_unique<device::DevicePending>(std::move(keep), d.dev, true, std::move(hooks)));
}

}  // namespace cclx
