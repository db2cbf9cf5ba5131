// cclx::CudaBackend (include/cclx/cuda.hpp, docs/cuda.md): the CUDA implementations of the
// staging transport's Device and of the engine's LocalOps, and the backend around them.
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cclx/cuda.hpp"
#include "cclx/device/cuda_aware.hpp"
#include "cclx/error.hpp"
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

std::size_t env_size(const char* name, std::size_t fallback, int rank) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (*end || x == 0)
    throw Error(rank, std::string(name) + "='" + v + "': expected a positive integer");
  return static_cast<std::size_t>(x);
}

}  // namespace

struct CudaBackend::Impl {
  explicit Impl(MpiBackend& b, int r)
      : rank(r),
        dev(r),
        ops(dev, r),
        scratch(engine::ScratchPool::Allocator{&device_alloc, &device_free, &rank}) {
    aware = device::decide_cuda_aware(device::mpi_reports_cuda_support(),
                                      std::getenv("CCLX_CUDA_AWARE"), r);
    device::StagingOptions o;
    o.chunk_bytes = env_size("CCLX_CUDA_CHUNK_BYTES", o.chunk_bytes, r);
    o.depth = env_size("CCLX_CUDA_DEPTH", o.depth, r);
    o.direct = aware;
    staging = std::make_unique<device::StagingTransport>(b.transport(), dev, ops, o);
    check(cudaEventCreateWithFlags(&begin, cudaEventDisableTiming), r, "cudaEventCreate");
    check(cudaEventCreateWithFlags(&end, cudaEventDisableTiming), r, "cudaEventCreate");
  }
  ~Impl() {
    staging.reset();
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    if (host_in) cudaFreeHost(host_in);
    if (host_out) cudaFreeHost(host_out);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  [[nodiscard]] cudaStream_t compute() const { return dev.stream(device::Device::Queue::compute); }
  // Pinned host buffers for staging whole calls (native, point-to-point), grown as needed.
  std::byte* pinned(std::byte*& p, std::size_t& cap, std::size_t bytes) {
    if (bytes > cap) {
      if (p) cudaFreeHost(p);
      p = nullptr;
      cap = 0;
      void* q = nullptr;
      check(cudaMallocHost(&q, bytes), rank, "cudaMallocHost (staging)");
      p = static_cast<std::byte*>(q);
      cap = bytes;
    }
    return p;
  }
  void begin_order() {
    check(cudaEventRecord(begin, user), rank, "cudaEventRecord (caller's stream)");
    check(cudaStreamWaitEvent(compute(), begin, 0), rank, "cudaStreamWaitEvent");
  }
  void end_order() {
    check(cudaEventRecord(end, compute()), rank, "cudaEventRecord");
    check(cudaStreamWaitEvent(user, end, 0), rank, "cudaStreamWaitEvent (caller's stream)");
    if (blocking) dev.drain_compute();
  }

  int rank;
  CudaDevice dev;
  CudaOps ops;
  engine::ScratchPool scratch;
  std::unique_ptr<device::StagingTransport> staging;
  bool aware = false;
  cudaStream_t user = nullptr;  // the legacy default stream
  bool blocking = true;
  cudaEvent_t begin = nullptr, end = nullptr;
  std::byte *host_in = nullptr, *host_out = nullptr;
  std::size_t host_in_cap = 0, host_out_cap = 0;
};

CudaBackend::CudaBackend(MPI_Comm comm, Ownership own) : MpiBackend(comm, own) {
  // Every rank learns whether every rank has a device, so that all throw or none.
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  const int mine = (e == cudaSuccess && count > 0) ? 1 : 0;
  std::vector<int> all(static_cast<std::size_t>(size()));
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, native_handle());
  std::string missing;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
  if (!missing.empty()) {
    std::string why = mine
                          ? std::string()
                          : std::string(" (here: ") +
                                (e == cudaSuccess ? "no CUDA device" : cudaGetErrorString(e)) + ")";
    (void)cudaGetLastError();
    throw Error(rank(), "CudaBackend: no usable CUDA device on rank(s) " + missing + why);
  }
  d_ = std::make_unique<Impl>(*this, rank());
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

void CudaBackend::native(const CollectiveCall& c) const {
  if (!is_device_pointer(c.in) && !is_device_pointer(c.out)) {
    MpiBackend::native(c);  // host buffers (the Communicator's own exchanges)
    return;
  }
  Impl& d = *d_;
  if (d.aware) {
    d.dev.drain_compute();  // MPI reads what the stream wrote
    MpiBackend::native(c);
    d.end_order();
    return;
  }
  const std::size_t es = type_bytes(c.type);
  const std::size_t in_bytes = c.in_size * es, out_bytes = c.out_size * es;
  std::byte* hout = d.pinned(d.host_out, d.host_out_cap, out_bytes ? out_bytes : 1);
  std::byte* hin = c.in_place ? hout : d.pinned(d.host_in, d.host_in_cap, in_bytes ? in_bytes : 1);
  const cudaStream_t s = d.compute();
  // In place the output holds the input; a v-collective may leave parts of it untouched.
  if (out_bytes && c.out && (c.in_place || c.blocks))
    check(cudaMemcpyAsync(hout, c.out, out_bytes, cudaMemcpyDefault, s), d.rank, "staging copy");
  if (!c.in_place && in_bytes && c.in)
    check(cudaMemcpyAsync(hin, c.in, in_bytes, cudaMemcpyDefault, s), d.rank, "staging copy");
  d.dev.drain_compute();
  CollectiveCall h = c;
  h.in = c.in ? hin : nullptr;
  h.out = c.out ? hout : nullptr;
  MpiBackend::native(h);
  if (out_bytes && c.out)
    check(cudaMemcpyAsync(c.out, hout, out_bytes, cudaMemcpyDefault, s), d.rank, "staging copy");
  d.end_order();
  if (!d.blocking) d.dev.drain_compute();  // the pinned buffers are reused by the next call
}

void CudaBackend::send(const void* data, std::size_t count, DataType t, int dest, int tag) const {
  Impl& d = *d_;
  d.begin_order();
  if (d.aware || !is_device_pointer(data)) {
    d.dev.drain_compute();
    MpiBackend::send(data, count, t, dest, tag);
    return;
  }
  const std::size_t bytes = count * type_bytes(t);
  std::byte* h = d.pinned(d.host_in, d.host_in_cap, bytes ? bytes : 1);
  if (bytes)
    check(cudaMemcpyAsync(h, data, bytes, cudaMemcpyDefault, d.compute()), d.rank, "staging copy");
  d.dev.drain_compute();
  MpiBackend::send(h, count, t, dest, tag);
}

void CudaBackend::recv(void* data, std::size_t count, DataType t, int source, int tag) const {
  Impl& d = *d_;
  d.begin_order();
  d.dev.drain_compute();  // the stream's earlier work may still read `data`
  if (d.aware || !is_device_pointer(data)) {
    MpiBackend::recv(data, count, t, source, tag);
    d.end_order();
    return;
  }
  const std::size_t bytes = count * type_bytes(t);
  std::byte* h = d.pinned(d.host_out, d.host_out_cap, bytes ? bytes : 1);
  MpiBackend::recv(h, count, t, source, tag);
  if (bytes)
    check(cudaMemcpyAsync(data, h, bytes, cudaMemcpyDefault, d.compute()), d.rank, "staging copy");
  d.end_order();
  if (!d.blocking) d.dev.drain_compute();
}

}  // namespace cclx
