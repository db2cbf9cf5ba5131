// Device reduction kernels for every element type x builtin op of cclx (reduce_kernels.hpp).
// Vectorized: each thread handles 16 bytes (one 128-bit load of a, b and store of dst) when the
// three pointers are 16-byte aligned, otherwise one element; a grid-stride loop covers any n.
#include <cstdint>
#include <type_traits>

#include "reduce_kernels.hpp"

namespace cclx::cuda_detail {

namespace {

enum Op : int { sum, prod, min, max, band, bor, bxor };

template <class T, int O>
__device__ __forceinline__ T apply(T x, T y) {
  if constexpr (O == sum)
    return static_cast<T>(x + y);
  else if constexpr (O == prod)
    return static_cast<T>(x * y);
  else if constexpr (O == min)
    return y < x ? y : x;
  else if constexpr (O == max)
    return x < y ? y : x;
  else if constexpr (std::is_same_v<T, bool>) {
    if constexpr (O == band)
      return x && y;
    else if constexpr (O == bor)
      return x || y;
    else
      return x != y;
  } else if constexpr (O == band)
    return static_cast<T>(x & y);
  else if constexpr (O == bor)
    return static_cast<T>(x | y);
  else
    return static_cast<T>(x ^ y);
}

template <class T>
struct alignas(16) Vec {
  T v[16 / sizeof(T)];
};

template <class T, int O>
__global__ void reduce_vec(Vec<T>* dst, const Vec<T>* a, const Vec<T>* b, std::size_t nvec) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < nvec;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const Vec<T> x = a[i], y = b[i];
    Vec<T> r;
#pragma unroll
    for (int k = 0; k < static_cast<int>(16 / sizeof(T)); ++k) r.v[k] = apply<T, O>(x.v[k], y.v[k]);
    dst[i] = r;
  }
}

template <class T, int O>
__global__ void reduce_scalar(T* dst, const T* a, const T* b, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = apply<T, O>(a[i], b[i]);
}

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t work) {
  // Enough blocks to fill any current GPU (the grid-stride loop does the rest).
  const std::size_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b ? b : 1) : 65535);
}

template <class T, int O>
cudaError_t launch(void* dst, const void* a, const void* b, std::size_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  std::size_t done = 0;
  if (aligned(dst) && aligned(a) && aligned(b)) {
    constexpr std::size_t per = 16 / sizeof(T);
    const std::size_t nvec = n / per;
    if (nvec) {
      reduce_vec<T, O><<<blocks_for(nvec), kThreads, 0, s>>>(static_cast<Vec<T>*>(dst),
                                                             static_cast<const Vec<T>*>(a),
                                                             static_cast<const Vec<T>*>(b), nvec);
      done = nvec * per;
    }
  }
  if (done < n)
    reduce_scalar<T, O><<<blocks_for(n - done), kThreads, 0, s>>>(
        static_cast<T*>(dst) + done, static_cast<const T*>(a) + done,
        static_cast<const T*>(b) + done, n - done);
  return cudaGetLastError();
}

template <class T>
cudaError_t by_op(int op, void* dst, const void* a, const void* b, std::size_t n, cudaStream_t s) {
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool integral = std::is_integral_v<T>;
  switch (op) {
    case sum:
      if constexpr (!is_bool) return launch<T, sum>(dst, a, b, n, s);
      break;
    case prod:
      if constexpr (!is_bool) return launch<T, prod>(dst, a, b, n, s);
      break;
    case min:
      return launch<T, min>(dst, a, b, n, s);
    case max:
      return launch<T, max>(dst, a, b, n, s);
    case band:
      if constexpr (integral) return launch<T, band>(dst, a, b, n, s);
      break;
    case bor:
      if constexpr (integral) return launch<T, bor>(dst, a, b, n, s);
      break;
    case bxor:
      if constexpr (integral) return launch<T, bxor>(dst, a, b, n, s);
      break;
    default:
      break;
  }
  return cudaErrorInvalidValue;
}

// Plain byte copy of disjoint ranges (launch_move cuts an overlapping move into such pieces).
__global__ void copy_bytes(unsigned char* dst, const unsigned char* src, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

}  // namespace

cudaError_t launch_reduce(DataType type, int op, void* dst, const void* a, const void* b,
                          std::size_t n, cudaStream_t stream) {
  switch (type) {
    case DataType::i8:
      return by_op<std::int8_t>(op, dst, a, b, n, stream);
    case DataType::u8:
      return by_op<std::uint8_t>(op, dst, a, b, n, stream);
    case DataType::i16:
      return by_op<std::int16_t>(op, dst, a, b, n, stream);
    case DataType::u16:
      return by_op<std::uint16_t>(op, dst, a, b, n, stream);
    case DataType::i32:
      return by_op<std::int32_t>(op, dst, a, b, n, stream);
    case DataType::u32:
      return by_op<std::uint32_t>(op, dst, a, b, n, stream);
    case DataType::i64:
      return by_op<std::int64_t>(op, dst, a, b, n, stream);
    case DataType::u64:
      return by_op<std::uint64_t>(op, dst, a, b, n, stream);
    case DataType::f32:
      return by_op<float>(op, dst, a, b, n, stream);
    case DataType::f64:
      return by_op<double>(op, dst, a, b, n, stream);
    case DataType::boolean:
      return by_op<bool>(op, dst, a, b, n, stream);
    case DataType::f80:  // long double: no device arithmetic
      break;
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_move(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0 || dst == src) return cudaSuccess;
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  const bool overlap = d < s + bytes && s < d + bytes;
  if (!overlap) return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
  // Overlapping: copy in pieces no longer than the distance, in the safe direction, so that no
  // piece overlaps the part of the source not yet copied.
  const std::size_t dist =
      d > s ? static_cast<std::size_t>(d - s) : static_cast<std::size_t>(s - d);
  if (bytes / dist > 64) {  // many pieces: through a temporary buffer instead
    void* tmp = nullptr;
    if (cudaError_t e = cudaMallocAsync(&tmp, bytes, stream); e != cudaSuccess) return e;
    cudaMemcpyAsync(tmp, src, bytes, cudaMemcpyDeviceToDevice, stream);
    cudaMemcpyAsync(dst, tmp, bytes, cudaMemcpyDeviceToDevice, stream);
    return cudaFreeAsync(tmp, stream);
  }
  if (d < s) {
    for (std::size_t off = 0; off < bytes; off += dist) {
      const std::size_t len = bytes - off < dist ? bytes - off : dist;
      copy_bytes<<<blocks_for(len), kThreads, 0, stream>>>(d + off, s + off, len);
    }
  } else {
    for (std::size_t end = bytes; end > 0;) {
      const std::size_t len = end < dist ? end : dist;
      end -= len;
      copy_bytes<<<blocks_for(len), kThreads, 0, stream>>>(d + end, s + end, len);
    }
  }
  return cudaGetLastError();
}

}  // namespace cclx::cuda_detail
