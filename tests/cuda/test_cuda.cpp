// cclx-cuda-tests: Communicator<CudaBackend> under mpiexec (tests/mpi/main.cpp runs doctest).
// Without a GPU only the refusal is tested (every rank throws a cclx::Error naming the ranks);
// the device tests are skipped, and say so. With one (N ranks share it), the correctness grid on
// device buffers: every collective, scheduled algorithm and native, types, ops, in and out of
// place, blocking, nonblocking and persistent; sizes up to CCLX_CUDA_GRID_MAX_BYTES (default
// 1 MiB; 268435456 for the full check); stream ordering; the kernels against the host's.
// docs/cuda.md lists the commands.
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../../lib/cuda/reduce_kernels.hpp"
#include "../mpi/support.hpp"
#include "cclx/cuda.hpp"

namespace {

using namespace cclx_test;
using Dev = cclx::Communicator<cclx::CudaBackend>;

bool have_gpu() {
  static const bool yes = [] {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    return ok;
  }();
  return yes;
}

// A device buffer of T with host round trips.
template <class T>
class DeviceVec {
 public:
  explicit DeviceVec(std::size_t n) : n_(n) {
    REQUIRE(cudaMalloc(&p_, std::max<std::size_t>(n, 1) * sizeof(T)) == cudaSuccess);
  }
  explicit DeviceVec(const std::vector<T>& v) : DeviceVec(v.size()) { upload(v); }
  ~DeviceVec() { cudaFree(p_); }
  DeviceVec(const DeviceVec&) = delete;
  DeviceVec& operator=(const DeviceVec&) = delete;
  void upload(const std::vector<T>& v) {
    REQUIRE(v.size() == n_);
    REQUIRE(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> v(n_);
    REQUIRE(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return v;
  }
  [[nodiscard]] std::span<T> span() { return {static_cast<T*>(p_), n_}; }

 private:
  void* p_ = nullptr;
  std::size_t n_;
};

std::vector<std::size_t> grid_counts(std::size_t elem) {
  const char* env = std::getenv("CCLX_CUDA_GRID_MAX_BYTES");
  const std::size_t max_bytes = env ? std::strtoull(env, nullptr, 10) : (std::size_t{1} << 20);
  std::vector<std::size_t> c{0, 1, 7, 1000};
  for (std::size_t b = std::size_t{1} << 16; b <= max_bytes; b <<= 4) c.push_back(b / elem + 3);
  return c;
}

template <class T, class Op>
void device_allreduce(Dev& comm, const Op& op, std::size_t count, Consistency& cons) {
  const int n = comm.size(), r = comm.rank();
  std::vector<T> input(count), ref(count);
  for (std::size_t i = 0; i < count; ++i) {
    input[i] = reduce_input<T>(Op::id, r, i);
    ref[i] = expected_reduction<T>(Op::id, n, i);
  }
  const bool exact =
      !std::is_floating_point_v<T> || Op::id == cclx::OpId::min || Op::id == cclx::OpId::max;
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = std::string("device allreduce ") + type_name<T>() + " " +
                            std::string(cclx::to_string(Op::id)) +
                            " count=" + std::to_string(count) + " [" + std::string(name) +
                            (in_place ? ", in place]" : ", out of place]");
      progress(l);
      DeviceVec<T> out(count);
      if (in_place) {
        out.upload(input);
        if (!no_throw(l, [&] { comm.allreduce(out.span(), op, a); })) continue;
      } else {
        DeviceVec<T> in(input);
        out.upload(std::vector<T>(count, sentinel<T>()));
        if (!no_throw(l, [&] { comm.allreduce(in.span(), out.span(), op, a); })) continue;
        compare(l + " input untouched", in.download(), input, true);
      }
      const std::vector<T> got = out.download();
      compare(l, got, ref, exact);
      cons.add(l, std::span<const T>(got));
    }
  });
}

template <class T>
void device_reductions(Dev& comm, Consistency& cons) {
  for (std::size_t count : grid_counts(sizeof(T)))
    for_each_op<T>([&](const auto& op) { device_allreduce<T>(comm, op, count, cons); });
}

// Data movement: bcast, allgather, alltoall with every algorithm serving them.
template <class T>
void device_movement(Dev& comm, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  std::vector<T> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = data_value<T>(r, i);
  std::vector<T> gathered(count * un), a2a_in(count * un), a2a_ref(count * un);
  for (int q = 0; q < n; ++q)
    for (std::size_t i = 0; i < count; ++i) {
      gathered[static_cast<std::size_t>(q) * count + i] = data_value<T>(q, i);
      a2a_in[static_cast<std::size_t>(q) * count + i] = data_value<T>(r * n + q, i);
      a2a_ref[static_cast<std::size_t>(q) * count + i] = data_value<T>(q * n + r, i);
    }
  const std::string base = std::string(type_name<T>()) + " count=" + std::to_string(count);
  for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
    for (int root : {0, n - 1}) {
      const std::string l = "device bcast " + base + " [" + std::string(name) + ", root " +
                            std::to_string(root) + "]";
      progress(l);
      std::vector<T> want(count);
      for (std::size_t i = 0; i < count; ++i) want[i] = data_value<T>(root, i);
      DeviceVec<T> buf(r == root ? want : std::vector<T>(count, sentinel<T>()));
      if (no_throw(l, [&] { comm.bcast(buf.span(), root, a); }))
        compare(l, buf.download(), want, true);
    }
  });
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    const std::string l = "device allgather " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(mine), out(std::vector<T>(count * un, sentinel<T>()));
    if (no_throw(l, [&] { comm.allgather(in.span(), out.span(), a); }))
      compare(l, out.download(), gathered, true);
  });
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    const std::string l = "device alltoall " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(a2a_in), out(std::vector<T>(count * un, sentinel<T>()));
    if (no_throw(l, [&] { comm.alltoall(in.span(), out.span(), a); }))
      compare(l, out.download(), a2a_ref, true);
  });
}

// ---- every collective, in every form (blocking, nonblocking, persistent) ----

enum class Form { blocking, nonblocking, persistent };
constexpr Form forms[] = {Form::blocking, Form::nonblocking, Form::persistent};
const char* form_name(Form f) {
  return f == Form::blocking ? "blocking" : f == Form::nonblocking ? "nonblocking" : "persistent";
}

// Runs one call in form `f`: `b()` blocking, `nb()` returns its Request, `p()` its
// PersistentRequest (started twice when `again`: the call gives the same result again).
template <class B, class N, class P>
void in_form(Form f, bool again, B&& b, N&& nb, P&& p) {
  switch (f) {
    case Form::blocking:
      b();
      break;
    case Form::nonblocking: {
      cclx::Request r = nb();
      r.wait();
      break;
    }
    case Form::persistent: {
      cclx::PersistentRequest q = p();
      for (int i = 0; i < (again ? 2 : 1); ++i) {
        q.start();
        q.wait();
      }
      break;
    }
  }
}

// Whether a sum over ranks must equal the rank-order reference bit for bit: integers yes;
// floating sums only within the tolerance, since an algorithm's (or MPI's) order of summation is
// not rank order once n > 2.
template <class T>
constexpr bool exact_sum = !std::is_floating_point_v<T>;

template <class T>
void device_rooted(Dev& comm, std::size_t block, Form f) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const std::string base =
      std::string(type_name<T>()) + " count=" + std::to_string(block) + " " + form_name(f);
  const std::vector<T> mine = reduce_inputs<T>(cclx::OpId::sum, r, 0, block);
  for (int root : {0, n - 1}) {
    const bool is_root = r == root;
    const std::string rs = " root " + std::to_string(root);
    for_each_algorithm_serving<Coll::reduce>([&](std::string_view name, const auto& a) {
      for (bool in_place : {false, true}) {
        const std::string l = "device reduce " + base + " [" + std::string(name) + rs +
                              (in_place ? ", in place]" : "]");
        progress(l);
        const std::vector<T> want = is_root ? reduced<T>(cclx::OpId::sum, n, 0, block) : mine;
        if (in_place) {
          DeviceVec<T> buf(mine);
          if (no_throw(l, [&] {
                in_form(
                    f, false, [&] { comm.reduce(buf.span(), cclx::sum, root, a); },
                    [&] { return comm.ireduce(buf.span(), cclx::sum, root, a); },
                    [&] { return comm.reduce_init(buf.span(), cclx::sum, root, a); });
              }))
            compare(l, buf.download(), want, !is_root || exact_sum<T>);
        } else {
          DeviceVec<T> in(mine), out(std::vector<T>(block, sentinel<T>()));
          if (no_throw(l, [&] {
                in_form(
                    f, true, [&] { comm.reduce(in.span(), out.span(), cclx::sum, root, a); },
                    [&] { return comm.ireduce(in.span(), out.span(), cclx::sum, root, a); },
                    [&] { return comm.reduce_init(in.span(), out.span(), cclx::sum, root, a); });
              }))
            compare(l, out.download(), is_root ? want : std::vector<T>(block, sentinel<T>()),
                    !is_root || exact_sum<T>);
        }
      }
    });
    std::vector<T> all(block * un), gathered(block * un), part(block);
    for (std::size_t k = 0; k < block * un; ++k) all[k] = data_value<T>(root, k);
    for (int q = 0; q < n; ++q)
      for (std::size_t j = 0; j < block; ++j)
        gathered[static_cast<std::size_t>(q) * block + j] = data_value<T>(q, j);
    for (std::size_t j = 0; j < block; ++j) {
      part[j] = data_value<T>(root, static_cast<std::size_t>(r) * block + j);
    }
    std::vector<T> own(block);
    for (std::size_t j = 0; j < block; ++j) own[j] = data_value<T>(r, j);
    for_each_algorithm_serving<Coll::gather>([&](std::string_view name, const auto& a) {
      const std::string l = "device gather " + base + " [" + std::string(name) + rs + "]";
      progress(l);
      DeviceVec<T> in(own), out(std::vector<T>(is_root ? block * un : 0, sentinel<T>()));
      if (no_throw(l,
                   [&] {
                     in_form(
                         f, true, [&] { comm.gather(in.span(), out.span(), root, a); },
                         [&] { return comm.igather(in.span(), out.span(), root, a); },
                         [&] { return comm.gather_init(in.span(), out.span(), root, a); });
                   }) &&
          is_root)
        compare(l, out.download(), gathered, true);
    });
    for_each_algorithm_serving<Coll::scatter>([&](std::string_view name, const auto& a) {
      const std::string l = "device scatter " + base + " [" + std::string(name) + rs + "]";
      progress(l);
      DeviceVec<T> in(is_root ? all : std::vector<T>{}), out(std::vector<T>(block, sentinel<T>()));
      if (no_throw(l, [&] {
            in_form(
                f, true, [&] { comm.scatter(in.span(), out.span(), root, a); },
                [&] { return comm.iscatter(in.span(), out.span(), root, a); },
                [&] { return comm.scatter_init(in.span(), out.span(), root, a); });
          }))
        compare(l, out.download(), part, true);
    });
  }
}

template <class T>
void device_unrooted(Dev& comm, std::size_t block, Form f) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const std::string base =
      std::string(type_name<T>()) + " count=" + std::to_string(block) + " " + form_name(f);
  // allreduce, reduce_scatter (sum), bcast, allgather, alltoall, out of place.
  const std::vector<T> mine = reduce_inputs<T>(cclx::OpId::sum, r, 0, block * un);
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    const std::string l = "device allreduce " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(mine), out(block * un);
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.allreduce(in.span(), out.span(), cclx::sum, a); },
              [&] { return comm.iallreduce(in.span(), out.span(), cclx::sum, a); },
              [&] { return comm.allreduce_init(in.span(), out.span(), cclx::sum, a); });
        }))
      compare(l, out.download(), reduced<T>(cclx::OpId::sum, n, 0, block * un), exact_sum<T>);
  });
  for_each_algorithm_serving<Coll::reduce_scatter>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = "device reduce_scatter " + base + " [" + std::string(name) +
                            (in_place ? ", in place]" : "]");
      progress(l);
      const std::vector<T> want =
          reduced<T>(cclx::OpId::sum, n, block * static_cast<std::size_t>(r), block);
      if (in_place) {
        DeviceVec<T> buf(mine);
        if (no_throw(l, [&] {
              in_form(
                  f, false, [&] { comm.reduce_scatter(buf.span(), cclx::sum, a); },
                  [&] { return comm.ireduce_scatter(buf.span(), cclx::sum, a); },
                  [&] { return comm.reduce_scatter_init(buf.span(), cclx::sum, a); });
            })) {
          std::vector<T> got = buf.download();
          got.resize(block);  // the result is the first block
          compare(l, got, want, exact_sum<T>);
        }
      } else {
        DeviceVec<T> in(mine), out(std::vector<T>(block, sentinel<T>()));
        if (no_throw(l, [&] {
              in_form(
                  f, true, [&] { comm.reduce_scatter(in.span(), out.span(), cclx::sum, a); },
                  [&] { return comm.ireduce_scatter(in.span(), out.span(), cclx::sum, a); },
                  [&] { return comm.reduce_scatter_init(in.span(), out.span(), cclx::sum, a); });
            }))
          compare(l, out.download(), want, exact_sum<T>);
      }
    }
  });
  std::vector<T> own(block), gathered(block * un), a2a_in(block * un), a2a_ref(block * un);
  for (std::size_t j = 0; j < block; ++j) own[j] = data_value<T>(r, j);
  for (int q = 0; q < n; ++q)
    for (std::size_t j = 0; j < block; ++j) {
      const std::size_t k = static_cast<std::size_t>(q) * block + j;
      gathered[k] = data_value<T>(q, j);
      a2a_in[k] = data_value<T>(r * n + q, j);
      a2a_ref[k] = data_value<T>(q * n + r, j);
    }
  for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
    const std::string l = "device bcast " + base + " [" + std::string(name) + ", root 0]";
    progress(l);
    std::vector<T> want(block);
    for (std::size_t j = 0; j < block; ++j) want[j] = data_value<T>(0, j);
    DeviceVec<T> buf(r == 0 ? want : std::vector<T>(block, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.bcast(buf.span(), 0, a); },
              [&] { return comm.ibcast(buf.span(), 0, a); },
              [&] { return comm.bcast_init(buf.span(), 0, a); });
        }))
      compare(l, buf.download(), want, true);
  });
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    const std::string l = "device allgather " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(own), out(std::vector<T>(block * un, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.allgather(in.span(), out.span(), a); },
              [&] { return comm.iallgather(in.span(), out.span(), a); },
              [&] { return comm.allgather_init(in.span(), out.span(), a); });
        }))
      compare(l, out.download(), gathered, true);
  });
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    const std::string l = "device alltoall " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(a2a_in), out(std::vector<T>(block * un, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.alltoall(in.span(), out.span(), a); },
              [&] { return comm.ialltoall(in.span(), out.span(), a); },
              [&] { return comm.alltoall_init(in.span(), out.span(), a); });
        }))
      compare(l, out.download(), a2a_ref, true);
  });
  for_each_algorithm_serving<Coll::barrier>([&](std::string_view name, const auto& a) {
    const std::string l =
        "device barrier " + std::string(form_name(f)) + " [" + std::string(name) + "]";
    progress(l);
    (void)no_throw(l, [&] {
      in_form(
          f, true, [&] { comm.barrier(a); }, [&] { return comm.ibarrier(a); },
          [&] { return comm.barrier_init(a); });
    });
  });
}

// The v-collectives, out of place, with per-rank counts (some zero): counts[q] of block q.
template <class T>
void device_v(Dev& comm, std::size_t block, Form f) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const auto count_of = [&](int q) {
    return q % 3 == 1 ? std::size_t{0} : block + static_cast<std::size_t>(q);
  };
  std::vector<int> counts(un);
  std::vector<std::size_t> offset(un + 1, 0);
  for (int q = 0; q < n; ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(count_of(q));
    offset[static_cast<std::size_t>(q) + 1] = offset[static_cast<std::size_t>(q)] + count_of(q);
  }
  const std::size_t total = offset[un], mine_n = count_of(r);
  const auto ur = static_cast<std::size_t>(r);
  const std::string base =
      std::string(type_name<T>()) + " block=" + std::to_string(block) + " " + form_name(f);
  std::vector<T> own(mine_n), packed(total), root_all(total), part(mine_n);
  for (std::size_t j = 0; j < mine_n; ++j) own[j] = data_value<T>(r, j);
  for (int q = 0; q < n; ++q)
    for (std::size_t j = 0; j < count_of(q); ++j)
      packed[offset[static_cast<std::size_t>(q)] + j] = data_value<T>(q, j);
  for (std::size_t k = 0; k < total; ++k) root_all[k] = data_value<T>(0, k);
  for (std::size_t j = 0; j < mine_n; ++j) part[j] = root_all[offset[ur] + j];
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    const std::string l = "device allgatherv " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(own), out(std::vector<T>(total, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.allgatherv(in.span(), out.span(), counts, a); },
              [&] { return comm.iallgatherv(in.span(), out.span(), counts, a); },
              [&] { return comm.allgatherv_init(in.span(), out.span(), counts, a); });
        }))
      compare(l, out.download(), packed, true);
  });
  for_each_algorithm_serving<Coll::gatherv>([&](std::string_view name, const auto& a) {
    const std::string l = "device gatherv " + base + " [" + std::string(name) + ", root 0]";
    progress(l);
    DeviceVec<T> in(own), out(std::vector<T>(r == 0 ? total : 0, sentinel<T>()));
    if (no_throw(l,
                 [&] {
                   in_form(
                       f, true, [&] { comm.gatherv(in.span(), out.span(), counts, 0, a); },
                       [&] { return comm.igatherv(in.span(), out.span(), counts, 0, a); },
                       [&] { return comm.gatherv_init(in.span(), out.span(), counts, 0, a); });
                 }) &&
        r == 0)
      compare(l, out.download(), packed, true);
  });
  for_each_algorithm_serving<Coll::scatterv>([&](std::string_view name, const auto& a) {
    const std::string l = "device scatterv " + base + " [" + std::string(name) + ", root 0]";
    progress(l);
    DeviceVec<T> in(r == 0 ? root_all : std::vector<T>{}),
        out(std::vector<T>(mine_n, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.scatterv(in.span(), out.span(), counts, 0, a); },
              [&] { return comm.iscatterv(in.span(), out.span(), counts, 0, a); },
              [&] { return comm.scatterv_init(in.span(), out.span(), counts, 0, a); });
        }))
      compare(l, out.download(), part, true);
  });
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    const std::string l = "device reduce_scatterv " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(reduce_inputs<T>(cclx::OpId::sum, r, 0, total)),
        out(std::vector<T>(mine_n, sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.reduce_scatterv(in.span(), out.span(), counts, cclx::sum, a); },
              [&] { return comm.ireduce_scatterv(in.span(), out.span(), counts, cclx::sum, a); },
              [&] {
                return comm.reduce_scatterv_init(in.span(), out.span(), counts, cclx::sum, a);
              });
        }))
      compare(l, out.download(), reduced<T>(cclx::OpId::sum, n, offset[ur], mine_n), exact_sum<T>);
  });
  // alltoallv: rank i sends c(i, j) elements to rank j; element k of that block is
  // data_value(i * n + j, k).
  const auto c = [&](int i, int j) { return static_cast<std::size_t>((i + 2 * j) % 3) * block; };
  std::vector<int> sc(un), rc(un);
  std::vector<T> a2a_in, a2a_ref;
  for (int q = 0; q < n; ++q) {
    sc[static_cast<std::size_t>(q)] = static_cast<int>(c(r, q));
    rc[static_cast<std::size_t>(q)] = static_cast<int>(c(q, r));
    for (std::size_t k = 0; k < c(r, q); ++k) a2a_in.push_back(data_value<T>(r * n + q, k));
    for (std::size_t k = 0; k < c(q, r); ++k) a2a_ref.push_back(data_value<T>(q * n + r, k));
  }
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    const std::string l = "device alltoallv " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(a2a_in), out(std::vector<T>(a2a_ref.size(), sentinel<T>()));
    if (no_throw(l, [&] {
          in_form(
              f, true, [&] { comm.alltoallv(in.span(), sc, out.span(), rc, a); },
              [&] { return comm.ialltoallv(in.span(), sc, out.span(), rc, a); },
              [&] { return comm.alltoallv_init(in.span(), sc, out.span(), rc, a); });
        }))
      compare(l, out.download(), a2a_ref, true);
  });
}

}  // namespace

TEST_CASE("cuda: without a GPU the backend refuses on every rank, naming the ranks") {
  if (have_gpu()) {
    MESSAGE("a GPU is present: the refusal is not tested here");
    return;
  }
  MESSAGE(
      "no CUDA device: the device tests (grid, streams, kernels) are skipped; run them on a "
      "GPU machine (docs/cuda.md)");
  try {
    Dev comm(MPI_COMM_WORLD);
    FAIL("constructing Communicator<CudaBackend> without a GPU must throw");
  } catch (const cclx::Error& e) {
    CHECK(e.rank() == world_rank());
    CHECK_MESSAGE(
        std::string(e.what()).find("no usable CUDA device on rank(s) 0") != std::string::npos,
        e.what());
  }
}

// The backend's own settings, and whether device memory goes to MPI directly, are agreed before
// the device check, with or without a GPU.
TEST_CASE("cuda: a bad or differing CCLX_CUDA_* setting on one rank throws on every rank") {
  const int n = world_size(), r = world_rank(), last = n - 1;
  const auto expect = [&](const char* variable, const char* value, const std::string& needle) {
    const ScopedEnv env(variable, r == last ? value : nullptr);
    expect_error(variable, r, [] { Dev comm(MPI_COMM_WORLD); }, {needle});
  };
  expect("CCLX_CUDA_DEPTH", "many",
         "CCLX_CUDA_DEPTH is invalid on rank(s) " + std::to_string(last));
  if (n > 1)
    expect("CCLX_CUDA_CHUNK_BYTES", "64K",
           "CCLX_CUDA_CHUNK_BYTES differs across ranks: rank(s) " + std::to_string(last));
  // Forced direct on one rank, staged on the others: chunks would meet whole messages.
  if (n > 1) {
    const ScopedEnv aware("CCLX_CUDA_AWARE", r == last ? "1" : "0");
    std::string staging = "0";
    for (int q = 1; q < last; ++q) staging += ", " + std::to_string(q);
    expect_error(
        "CCLX_CUDA_AWARE", r, [] { Dev comm(MPI_COMM_WORLD); },
        {"CCLX_CUDA_AWARE=1 passes device memory to MPI on rank(s) " + std::to_string(last) +
         ", while rank(s) " + staging + " stage it through host memory"});
  }
}

TEST_CASE("cuda grid: allreduce on device buffers" * doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  Consistency cons(MPI_COMM_WORLD);
  device_reductions<std::int32_t>(comm, cons);
  device_reductions<float>(comm, cons);
  device_reductions<double>(comm, cons);
  device_reductions<std::uint8_t>(comm, cons);
  device_reductions<std::int64_t>(comm, cons);
  device_reductions<std::uint16_t>(comm, cons);
}

TEST_CASE("cuda grid: data movement on device buffers" * doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  for (std::size_t count : grid_counts(4)) {
    device_movement<std::int32_t>(comm, count);
    device_movement<double>(comm, count / 2);
  }
  for (std::size_t count : {std::size_t{1}, std::size_t{1001}})
    device_movement<std::uint8_t>(comm, count);
}

TEST_CASE("cuda streams: a stream-ordered call waits for the stream and the stream for it" *
          doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  comm.backend().set_stream(s);
  comm.backend().set_blocking(false);
  const std::size_t count = (std::size_t{4} << 20) + 5;
  std::int32_t* host = nullptr;
  REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&host), count * 4) == cudaSuccess);
  for (std::size_t i = 0; i < count; ++i) host[i] = static_cast<std::int32_t>(r + 1 + i % 13);
  DeviceVec<std::int32_t> buf(count);
  for (int round = 0; round < 2; ++round) {
    // Upload, reduce and download are all queued on `s`; only the host waits at the end.
    REQUIRE(cudaMemcpyAsync(buf.span().data(), host, count * 4, cudaMemcpyHostToDevice, s) ==
            cudaSuccess);
    if (round == 0)
      comm.allreduce(buf.span(), cclx::sum, cclx::algo::Ring{});
    else
      comm.allreduce(buf.span(), cclx::sum);  // native
    REQUIRE(cudaMemcpyAsync(host, buf.span().data(), count * 4, cudaMemcpyDeviceToHost, s) ==
            cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto want = static_cast<std::int32_t>(n * (n + 1) / 2 + n * static_cast<int>(i % 13));
      bad += host[i] != want;
      host[i] = static_cast<std::int32_t>(r + 1 + i % 13);
    }
    CHECK_MESSAGE(bad == 0, "round " << round << ": " << bad << " wrong elements");
  }
  cudaFreeHost(host);
  cudaStreamDestroy(s);
}

TEST_CASE("cuda kernels: every type x op matches the host kernel" * doctest::skip(!have_gpu())) {
  auto check_type = [](auto tag) {
    using T = decltype(tag);
    for_each_op<T>([&](const auto& op) {
      using Op = std::decay_t<decltype(op)>;
      for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{100003}}) {
        for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {  // aligned, misaligned
          std::vector<T> a(n + 1), b(n + 1), want(n + 1);
          for (std::size_t i = 0; i <= n; ++i) {
            a[i] = reduce_input<T>(Op::id, 1, i);
            b[i] = reduce_input<T>(Op::id, 2, i);
          }
          const cclx::ReduceKernel k = cclx::make_kernel<T>(op);
          k(want.data() + shift, a.data() + shift, b.data() + shift, n);
          DeviceVec<T> da(a), db(b), dd(std::vector<T>(n + 1, T{}));
          REQUIRE(cclx::cuda_detail::launch_reduce(
                      k.type, static_cast<int>(k.op), dd.span().data() + shift,
                      da.span().data() + shift, db.span().data() + shift, n,
                      nullptr) == cudaSuccess);
          std::vector<T> got = dd.download();
          compare(std::string("kernel ") + type_name<T>() + " " +
                      std::string(cclx::to_string(Op::id)) + " n=" + std::to_string(n),
                  got, want, true);
        }
      }
    });
  };
  check_type(std::int8_t{});
  check_type(std::uint8_t{});
  check_type(std::int16_t{});
  check_type(std::uint16_t{});
  check_type(std::int32_t{});
  check_type(std::uint32_t{});
  check_type(std::int64_t{});
  check_type(std::uint64_t{});
  check_type(float{});
  check_type(double{});
}

TEST_CASE("cuda grid: every collective in every form on device buffers" *
          doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  for (Form f : forms)
    for (std::size_t block :
         {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{70003}}) {
      device_unrooted<std::int32_t>(comm, block, f);
      device_rooted<std::int32_t>(comm, block, f);
      device_v<std::int32_t>(comm, block, f);
    }
  device_unrooted<double>(comm, 513, Form::nonblocking);
  device_rooted<double>(comm, 513, Form::persistent);
  device_v<std::uint8_t>(comm, 33, Form::blocking);
}

TEST_CASE("cuda nonblocking: requests overlap, complete in any order, order the stream" *
          doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  const std::size_t count = (std::size_t{1} << 20) + 3;
  for (bool blocking : {true, false}) {
    CAPTURE(blocking);
    comm.backend().set_stream(s);
    comm.backend().set_blocking(blocking);
    DeviceVec<std::int32_t> a(reduce_inputs<std::int32_t>(cclx::OpId::sum, r, 0, count)),
        b(reduce_inputs<std::int32_t>(cclx::OpId::sum, r, 0, count)),
        c(reduce_inputs<std::int32_t>(cclx::OpId::sum, r, 0, count));
    // Three requests in flight at once (scheduled, native, persistent), completed out of order.
    cclx::Request ra = comm.iallreduce(a.span(), cclx::sum, cclx::algo::Ring{});
    cclx::Request rb = comm.iallreduce(b.span(), cclx::sum);
    cclx::PersistentRequest pc = comm.allreduce_init(c.span(), cclx::sum, cclx::algo::Ring{});
    pc.start();
    while (!rb.test()) {
    }
    pc.wait();
    ra.wait();
    // Stream-ordered: the results are visible to work queued on the stream after completion.
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    const std::vector<std::int32_t> want = reduced<std::int32_t>(cclx::OpId::sum, n, 0, count);
    compare("iallreduce ring", a.download(), want, true);
    compare("iallreduce native", b.download(), want, true);
    compare("allreduce_init ring", c.download(), want, true);
  }
  // Point-to-point: a ring of isend/irecv on device buffers.
  DeviceVec<std::int32_t> out(reduce_inputs<std::int32_t>(cclx::OpId::sum, r, 0, 1001)), in(1001);
  cclx::Request rr = comm.irecv(in.span(), (r + n - 1) % n, 5);
  cclx::Request rs = comm.isend(out.span(), (r + 1) % n, 5);
  rs.wait();
  rr.wait();
  REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
  compare("irecv", in.download(),
          reduce_inputs<std::int32_t>(cclx::OpId::sum, (r + n - 1) % n, 0, 1001), true);
  cudaStreamDestroy(s);
}
