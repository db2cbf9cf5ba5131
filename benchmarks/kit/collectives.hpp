// The benchmarks' table of collectives: for each collective, how its buffers are sized and its
// inputs placed, how cclx calls it (one-shot and persistent) and how the MPI library does (as OSU's
// programs call it), which part of the output holds this rank's result and what that result must
// be. cclx-bench (its side-by-side tables and its OSU mode) measures every collective through it.
//
// A call is described by its Shape: the collective, `count` (MPI's count: elements per call
// argument; for the collectives whose blocks are the ranks, one rank's block), the rank count,
// this rank, in place or not. The v-collectives run with equal counts, laid out as their
// equal-block collective (cclx::coll::shape_of: gatherv as gather, ...). Root: rank 0.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "cclx/cclx.hpp"

namespace cclx::kit {

using Coll = cclx::sched::Collective;
using Comm = cclx::Communicator<cclx::MpiBackend>;
using Call = std::function<void()>;

constexpr int kRoot = 0;

struct Shape {
  Coll coll = Coll::allreduce;
  std::size_t count = 0;  // elements per call argument (one rank's block where blocks are ranks)
  int n = 1, rank = 0;
  bool in_place = false;
};

// One call's buffers. `in` is empty in place (and for bcast, whose one buffer is `out`).
template <class T>
struct Buffers {
  std::vector<T> in, out;
  std::vector<int> counts, displs;  // v-collectives: every rank's count and offset (equal)
};

// Buffer sizes and the window of `out` that holds this rank's result ([begin, end), empty where
// the rank receives nothing: reduce and gather off the root, barrier).
struct Layout {
  std::size_t in = 0, out = 0;
  std::size_t begin = 0, end = 0;
};

inline Layout layout_of(const Shape& s) {
  const std::size_t c = s.count, all = c * static_cast<std::size_t>(s.n);
  const bool root = s.rank == kRoot;
  Layout l;
  switch (cclx::coll::shape_of(s.coll)) {
    case Coll::allreduce:
      l = {c, c, 0, c};
      break;
    case Coll::reduce:
      l = {c, c, 0, root ? c : 0};
      break;
    case Coll::bcast:
      l = {0, c, 0, c};
      break;
    case Coll::reduce_scatter:
      l = {all, s.in_place ? all : c, 0, c};
      break;
    case Coll::allgather:
      l = {c, all, 0, all};
      break;
    case Coll::alltoall:
      l = {all, all, 0, all};
      break;
    case Coll::gather: {
      const std::size_t out = s.in_place && !root ? c : all;
      l = {c, out, 0, root ? out : 0};
      break;
    }
    case Coll::scatter:
      // In place, the root's result is its own block inside its n-block buffer.
      if (s.in_place && root)
        l = {all, all, static_cast<std::size_t>(s.rank) * c,
             static_cast<std::size_t>(s.rank) * c + c};
      else
        l = {all, c, 0, c};
      break;
    default:  // barrier: no data
      break;
  }
  if (s.in_place) l.in = 0;
  return l;
}

// Sizes `b` for `s` and places the inputs, element j of rank r's input being value(r, j): in `in`
// out of place (`out` zeroed), in place where MPI_IN_PLACE (or MPI_Bcast) expects them.
template <class T, class Value>
void fill(Buffers<T>& b, const Shape& s, Value&& value) {
  const Layout l = layout_of(s);
  const std::size_t c = s.count, me = static_cast<std::size_t>(s.rank);
  const Coll shape = cclx::coll::shape_of(s.coll);
  const bool root = s.rank == kRoot;
  b.in.resize(l.in);
  for (std::size_t j = 0; j < l.in; ++j) b.in[j] = value(s.rank, j);
  b.out.assign(l.out, T{});
  b.counts.assign(static_cast<std::size_t>(s.n), static_cast<int>(c));
  b.displs.resize(static_cast<std::size_t>(s.n));
  for (int r = 0; r < s.n; ++r) b.displs[r] = r * static_cast<int>(c);
  if (!s.in_place && shape != Coll::bcast) return;
  if (shape == Coll::bcast) {
    if (root)
      for (std::size_t j = 0; j < c; ++j) b.out[j] = value(kRoot, j);
  } else if (shape == Coll::allgather || (shape == Coll::gather && root)) {
    for (std::size_t j = 0; j < c; ++j) b.out[me * c + j] = value(s.rank, j);
  } else if (shape == Coll::scatter && !root) {
    // receives only
  } else {
    for (std::size_t j = 0; j < l.out; ++j) b.out[j] = value(s.rank, j);
  }
}

// What out[i] must hold after the call, for i in the layout's window, when element j of rank r's
// input is value(r, j). Sums are taken in double for floating-point types and in long long for
// integers (then converted to T, wrapping as MPI's sum of small types does).
template <class T, class Value>
T expected(const Shape& s, std::size_t i, Value&& value) {
  const std::size_t c = s.count, me = static_cast<std::size_t>(s.rank);
  auto sum = [&](std::size_t j) {
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, long long>;
    Acc v = 0;
    for (int r = 0; r < s.n; ++r) v += static_cast<Acc>(value(r, j));
    return static_cast<T>(v);
  };
  switch (cclx::coll::shape_of(s.coll)) {
    case Coll::allreduce:
    case Coll::reduce:
      return sum(i);
    case Coll::bcast:
      return value(kRoot, i);
    case Coll::reduce_scatter:
      return sum(me * c + i);
    case Coll::allgather:
    case Coll::gather:
      return value(static_cast<int>(i / c), i % c);
    case Coll::alltoall:
      return value(static_cast<int>(i / c), me * c + i % c);
    case Coll::scatter:
      return value(kRoot, me * c + i - layout_of(s).begin);
    default:
      return T{};
  }
}

// cclx's call of `coll` with policy `a` on `b` (sum for the reductions, root kRoot). Throws
// cclx::Error when `a` does not serve `coll`.
template <class T, class A>
Call cclx_call(Comm& comm, Buffers<T>& b, Coll coll, bool ip, const A& a) {
  namespace al = cclx::algo;
  switch (coll) {
    case Coll::allreduce:
      if constexpr (al::serves<A>(Coll::allreduce)) {
        if (ip) return [&comm, &b, a] { comm.allreduce(b.out, cclx::sum, a); };
        return [&comm, &b, a] { comm.allreduce(b.in, b.out, cclx::sum, a); };
      }
      break;
    case Coll::reduce:
      if constexpr (al::serves<A>(Coll::reduce)) {
        if (ip) return [&comm, &b, a] { comm.reduce(b.out, cclx::sum, kRoot, a); };
        return [&comm, &b, a] { comm.reduce(b.in, b.out, cclx::sum, kRoot, a); };
      }
      break;
    case Coll::bcast:
      if constexpr (al::serves<A>(Coll::bcast)) {
        return [&comm, &b, a] { comm.bcast(b.out, kRoot, a); };
      }
      break;
    case Coll::reduce_scatter:
      if constexpr (al::serves<A>(Coll::reduce_scatter)) {
        if (ip) return [&comm, &b, a] { comm.reduce_scatter(b.out, cclx::sum, a); };
        return [&comm, &b, a] { comm.reduce_scatter(b.in, b.out, cclx::sum, a); };
      }
      break;
    case Coll::allgather:
      if constexpr (al::serves<A>(Coll::allgather)) {
        if (ip) return [&comm, &b, a] { comm.allgather(b.out, a); };
        return [&comm, &b, a] { comm.allgather(b.in, b.out, a); };
      }
      break;
    case Coll::gather:
      if constexpr (al::serves<A>(Coll::gather)) {
        if (ip) return [&comm, &b, a] { comm.gather(b.out, kRoot, a); };
        return [&comm, &b, a] { comm.gather(b.in, b.out, kRoot, a); };
      }
      break;
    case Coll::scatter:
      if constexpr (al::serves<A>(Coll::scatter)) {
        if (ip) return [&comm, &b, a] { comm.scatter(b.out, kRoot, a); };
        return [&comm, &b, a] { comm.scatter(b.in, b.out, kRoot, a); };
      }
      break;
    case Coll::alltoall:
      if constexpr (al::serves<A>(Coll::alltoall)) {
        if (ip) return [&comm, &b, a] { comm.alltoall(b.out, a); };
        return [&comm, &b, a] { comm.alltoall(b.in, b.out, a); };
      }
      break;
    case Coll::barrier:  // no data: every size measures the same barrier
      if constexpr (al::serves<A>(Coll::barrier)) {
        return [&comm, a] { comm.barrier(a); };
      }
      break;
    case Coll::gatherv:
      if constexpr (al::serves<A>(Coll::gatherv)) {
        if (ip) return [&comm, &b, a] { comm.gatherv(b.out, b.counts, kRoot, a); };
        return [&comm, &b, a] { comm.gatherv(b.in, b.out, b.counts, kRoot, a); };
      }
      break;
    case Coll::scatterv:
      if constexpr (al::serves<A>(Coll::scatterv)) {
        if (ip) return [&comm, &b, a] { comm.scatterv(b.out, b.counts, kRoot, a); };
        return [&comm, &b, a] { comm.scatterv(b.in, b.out, b.counts, kRoot, a); };
      }
      break;
    case Coll::allgatherv:
      if constexpr (al::serves<A>(Coll::allgatherv)) {
        if (ip) return [&comm, &b, a] { comm.allgatherv(b.out, b.counts, a); };
        return [&comm, &b, a] { comm.allgatherv(b.in, b.out, b.counts, a); };
      }
      break;
    case Coll::reduce_scatterv:
      if constexpr (al::serves<A>(Coll::reduce_scatterv)) {
        if (ip) return [&comm, &b, a] { comm.reduce_scatterv(b.out, b.counts, cclx::sum, a); };
        return [&comm, &b, a] { comm.reduce_scatterv(b.in, b.out, b.counts, cclx::sum, a); };
      }
      break;
    case Coll::alltoallv:
      if constexpr (al::serves<A>(Coll::alltoallv)) {
        if (ip) return [&comm, &b, a] { comm.alltoallv(b.out, b.counts, a); };
        return [&comm, &b, a] { comm.alltoallv(b.in, b.counts, b.out, b.counts, a); };
      }
      break;
  }
  throw cclx::Error("algorithm '" + std::string(A::name) + "' does not serve " +
                    std::string(cclx::sched::to_string(coll)));
}

// The persistent request of `a` for `coll` on the buffers as they are now (requests bind their
// buffers: make one per size, after fill()); an invalid request where there is none (adaptive
// policies choose per call; barrier and the v-collectives but alltoallv have no *_init here).
template <class T, class A>
cclx::PersistentRequest cclx_persistent(Comm& comm, Buffers<T>& b, Coll coll, bool ip, const A& a) {
  namespace al = cclx::algo;
  if constexpr (!al::AdaptiveAlgorithm<A>) {
    switch (coll) {
      case Coll::allreduce:
        if constexpr (al::serves<A>(Coll::allreduce))
          return ip ? comm.allreduce_init(b.out, cclx::sum, a)
                    : comm.allreduce_init(b.in, b.out, cclx::sum, a);
        break;
      case Coll::reduce:
        if constexpr (al::serves<A>(Coll::reduce))
          return ip ? comm.reduce_init(b.out, cclx::sum, kRoot, a)
                    : comm.reduce_init(b.in, b.out, cclx::sum, kRoot, a);
        break;
      case Coll::bcast:
        if constexpr (al::serves<A>(Coll::bcast)) return comm.bcast_init(b.out, kRoot, a);
        break;
      case Coll::reduce_scatter:
        if constexpr (al::serves<A>(Coll::reduce_scatter))
          return ip ? comm.reduce_scatter_init(b.out, cclx::sum, a)
                    : comm.reduce_scatter_init(b.in, b.out, cclx::sum, a);
        break;
      case Coll::allgather:
        if constexpr (al::serves<A>(Coll::allgather))
          return ip ? comm.allgather_init(b.out, a) : comm.allgather_init(b.in, b.out, a);
        break;
      case Coll::gather:
        if constexpr (al::serves<A>(Coll::gather))
          return ip ? comm.gather_init(b.out, kRoot, a) : comm.gather_init(b.in, b.out, kRoot, a);
        break;
      case Coll::scatter:
        if constexpr (al::serves<A>(Coll::scatter))
          return ip ? comm.scatter_init(b.out, kRoot, a) : comm.scatter_init(b.in, b.out, kRoot, a);
        break;
      case Coll::alltoall:
        if constexpr (al::serves<A>(Coll::alltoall))
          return ip ? comm.alltoall_init(b.out, a) : comm.alltoall_init(b.in, b.out, a);
        break;
      case Coll::alltoallv:  // Auto agrees on its size at init (docs/tuning-alltoallv.md)
        if constexpr (al::serves<A>(Coll::alltoallv))
          return ip ? comm.alltoallv_init(b.out, b.counts, a)
                    : comm.alltoallv_init(b.in, b.counts, b.out, b.counts, a);
        break;
      default:
        break;
    }
  }
  return {};
}

// The MPI library's own call, as OSU Micro-Benchmarks 7.4 makes it (MPI_SUM, root kRoot), on
// `b` with `s`'s count at the time of the call. The v-collectives are out of place only.
template <class T>
Call mpi_call(Buffers<T>& b, const Shape& s, MPI_Datatype dt, MPI_Comm comm) {
  void* const ip = MPI_IN_PLACE;
  switch (s.coll) {
    case Coll::allreduce:
      return [&b, &s, dt, comm, ip] {
        MPI_Allreduce(s.in_place ? ip : b.in.data(), b.out.data(), static_cast<int>(s.count), dt,
                      MPI_SUM, comm);
      };
    case Coll::reduce:
      return [&b, &s, dt, comm, ip] {
        const bool root = s.rank == kRoot;
        const void* send = s.in_place ? (root ? ip : b.out.data()) : b.in.data();
        void* recv = s.in_place && !root ? nullptr : b.out.data();
        MPI_Reduce(send, recv, static_cast<int>(s.count), dt, MPI_SUM, kRoot, comm);
      };
    case Coll::bcast:
      return [&b, &s, dt, comm] {
        MPI_Bcast(b.out.data(), static_cast<int>(s.count), dt, kRoot, comm);
      };
    case Coll::reduce_scatter:
      return [&b, &s, dt, comm, ip] {
        MPI_Reduce_scatter_block(s.in_place ? ip : b.in.data(), b.out.data(),
                                 static_cast<int>(s.count), dt, MPI_SUM, comm);
      };
    case Coll::allgather:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        MPI_Allgather(s.in_place ? ip : b.in.data(), c, dt, b.out.data(), c, dt, comm);
      };
    case Coll::alltoall:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        MPI_Alltoall(s.in_place ? ip : b.in.data(), c, dt, b.out.data(), c, dt, comm);
      };
    case Coll::gather:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        const bool root = s.rank == kRoot;
        if (!s.in_place)
          MPI_Gather(b.in.data(), c, dt, b.out.data(), c, dt, kRoot, comm);
        else if (root)
          MPI_Gather(ip, c, dt, b.out.data(), c, dt, kRoot, comm);
        else
          MPI_Gather(b.out.data(), c, dt, nullptr, c, dt, kRoot, comm);
      };
    case Coll::scatter:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        const bool root = s.rank == kRoot;
        if (!s.in_place)
          MPI_Scatter(b.in.data(), c, dt, b.out.data(), c, dt, kRoot, comm);
        else if (root)
          MPI_Scatter(b.out.data(), c, dt, ip, c, dt, kRoot, comm);
        else
          MPI_Scatter(nullptr, c, dt, b.out.data(), c, dt, kRoot, comm);
      };
    case Coll::barrier:
      return [comm] { MPI_Barrier(comm); };
    case Coll::gatherv:
      return [&b, &s, dt, comm] {
        MPI_Gatherv(b.in.data(), static_cast<int>(s.count), dt, b.out.data(), b.counts.data(),
                    b.displs.data(), dt, kRoot, comm);
      };
    case Coll::scatterv:
      return [&b, &s, dt, comm] {
        MPI_Scatterv(b.in.data(), b.counts.data(), b.displs.data(), dt, b.out.data(),
                     static_cast<int>(s.count), dt, kRoot, comm);
      };
    case Coll::allgatherv:
      return [&b, &s, dt, comm] {
        MPI_Allgatherv(b.in.data(), static_cast<int>(s.count), dt, b.out.data(), b.counts.data(),
                       b.displs.data(), dt, comm);
      };
    case Coll::alltoallv:
      return [&b, dt, comm] {
        MPI_Alltoallv(b.in.data(), b.counts.data(), b.displs.data(), dt, b.out.data(),
                      b.counts.data(), b.displs.data(), dt, comm);
      };
    default:
      break;
  }
  throw cclx::Error("no MPI call for " + std::string(cclx::sched::to_string(s.coll)));
}

}  // namespace cclx::kit
