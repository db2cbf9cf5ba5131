// Nonblocking and persistent forms of the v-collectives and of barrier, and the one-shot plan
// cache under changing counts.
//
// Per v-collective x every algorithm serving it x in place / out of place x every element type
// (reduce_scatterv: every op, each on some types): counts pattern (r * 7 + 3 + shift) % 5 with
// the shift cycling over the types (uneven, zeros from n = 2 on; alltoallv: (i * 7 + j * 3 + 3)
// % 5, in place the symmetric (i * j + i + j + 3) % 5). A persistent request
// is started kStarts times with new data each time; the counts array it was made from is
// overwritten right after init (the request keeps its own copy). Nonblocking calls get a counts
// array that is destroyed before wait(). Results equal a locally computed reference exactly.
#include <doctest/doctest.h>

#include <functional>
#include <numeric>
#include <thread>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

std::vector<int> counts_of(int n, int shift = 0) {
  std::vector<int> c(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) c[static_cast<std::size_t>(r)] = (r * 7 + 3 + shift) % 5;
  return c;
}
int matrix_of(int i, int j, bool in_place) {
  return in_place ? (i * j + i + j + 3) % 5 : (i * 7 + j * 3 + 3) % 5;
}
std::size_t offset_of(const std::vector<int>& c, int b) {
  return static_cast<std::size_t>(std::accumulate(c.begin(), c.begin() + b, 0));
}
std::size_t total_of(const std::vector<int>& c) {
  return offset_of(c, static_cast<int>(c.size()));
}

// Every rank's payload of start g, packed in rank order: what allgatherv and gatherv's root get.
template <class T>
std::vector<T> gathered(const std::vector<int>& counts, int g) {
  std::vector<T> v(total_of(counts));
  for (int s = 0; s < static_cast<int>(counts.size()); ++s)
    put(v, offset_of(counts, s), payload<T>(s, 0, static_cast<std::size_t>(counts[s]), g));
  return v;
}

// One case: `make()` returns something with start()/wait() semantics through `run(g)`, which
// fills, runs and checks start g. Persistent: init once, then kStarts starts; nonblocking: a new
// call per g.
struct Case {
  std::string label;
  // Fills the inputs of start g and clears the outputs.
  std::function<void(int)> fill;
  // Compares after start g.
  std::function<void(int, const std::string&)> check;
};

// Not a template: one compiled body for every case (the grid has hundreds).
void run_case(const Case& c, const std::function<cclx::PersistentRequest()>& init,
              const std::function<cclx::Request()>& start) {
  progress(c.label);
  cclx::PersistentRequest p;
  if (!no_throw(c.label + " init", [&] { p = init(); })) return;
  for (int g = 0; g < kStarts; ++g) {
    c.fill(g);
    const std::string l = c.label + " persistent start " + std::to_string(g);
    if (!no_throw(l, [&] {
          p.start();
          if (g == 1)
            while (!p.test()) std::this_thread::yield();
          else
            p.wait();
        }))
      return;
    c.check(g, l);
  }
  c.fill(kStarts);
  const std::string l = c.label + " nonblocking";
  if (!no_throw(l, [&] {
        cclx::Request r = start();
        r.wait();
      }))
    return;
  c.check(kStarts, l);
}

// run_case with the counts array of a v-collective: init and start each get their own copy k of
// `counts`, overwritten right after init returns and gone before wait(): a request must keep its
// own copy.
void run_case(const Case& c, const std::vector<int>& counts,
              const std::function<cclx::PersistentRequest(std::vector<int>&)>& init,
              const std::function<cclx::Request(std::vector<int>&)>& start) {
  run_case(
      c,
      [&] {
        std::vector<int> k = counts;
        auto p = init(k);
        std::fill(k.begin(), k.end(), -1);
        return p;
      },
      [&] {
        std::vector<int> k = counts;
        return start(k);
      });
}

template <class T>
std::string label(std::string_view coll, std::string_view algo, bool ip, int root = -1) {
  std::string s = std::string(coll) + " " + std::string(type_name<T>()) + " [" + std::string(algo) +
                  (ip ? ", in place" : ", out of place");
  if (root >= 0) s += ", root " + std::to_string(root);
  return s + "]";
}

template <class T>
void allgatherv_cases(Comm& comm, int shift) {
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> counts = counts_of(n, shift);
  const std::size_t total = total_of(counts), mine = static_cast<std::size_t>(counts[r]);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(mine), out(total);
      Case c{label<T>("allgatherv", name, ip),
             [&](int g) {
               std::fill(out.begin(), out.end(), sentinel<T>());
               if (ip)
                 put(out, offset_of(counts, r), payload<T>(r, 0, mine, g));
               else
                 put(in, 0, payload<T>(r, 0, mine, g));
             },
             [&](int g, const std::string& l) { compare(l, out, gathered<T>(counts, g), true); }};
      run_case(
          c, counts,
          [&](std::vector<int>& k) {
            return ip ? comm.allgatherv_init(out, k, a) : comm.allgatherv_init(in, out, k, a);
          },
          [&](std::vector<int>& k) {
            return ip ? comm.iallgatherv(out, k, a) : comm.iallgatherv(in, out, k, a);
          });
    }
  });
}

template <class T>
void gatherv_scatterv_cases(Comm& comm, int shift) {
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> counts = counts_of(n, shift);
  const std::size_t total = total_of(counts), mine = static_cast<std::size_t>(counts[r]);
  for (int root : {0, n - 1}) {
    const bool is_root = r == root;
    for_each_algorithm_serving<Coll::gatherv>([&](std::string_view name, const auto& a) {
      for (bool ip : {false, true}) {
        std::vector<T> in(mine), out(is_root ? total : (ip ? mine : 0));
        Case c{label<T>("gatherv", name, ip, root),
               [&](int g) {
                 std::fill(out.begin(), out.end(), sentinel<T>());
                 if (!ip)
                   put(in, 0, payload<T>(r, 0, mine, g));
                 else
                   put(out, is_root ? offset_of(counts, r) : 0, payload<T>(r, 0, mine, g));
               },
               [&](int g, const std::string& l) {
                 if (!is_root) return;
                 compare(l, out, gathered<T>(counts, g), true);
               }};
        run_case(
            c, counts,
            [&](std::vector<int>& k) {
              return ip ? comm.gatherv_init(out, k, root, a)
                        : comm.gatherv_init(in, out, k, root, a);
            },
            [&](std::vector<int>& k) {
              return ip ? comm.igatherv(out, k, root, a) : comm.igatherv(in, out, k, root, a);
            });
      }
    });
    for_each_algorithm_serving<Coll::scatterv>([&](std::string_view name, const auto& a) {
      for (bool ip : {false, true}) {
        std::vector<T> in(is_root && !ip ? total : 0), out(ip && is_root ? total : mine);
        Case c{label<T>("scatterv", name, ip, root),
               [&](int g) {
                 if (ip && is_root)
                   put(out, 0, payload<T>(root, 0, total, g));
                 else
                   std::fill(out.begin(), out.end(), sentinel<T>());
                 if (!ip && is_root) put(in, 0, payload<T>(root, 0, total, g));
               },
               [&](int g, const std::string& l) {
                 if (ip && is_root)
                   compare(l, out, payload<T>(root, 0, total, g), true);
                 else
                   compare(l, out, payload<T>(root, offset_of(counts, r), mine, g), true);
               }};
        run_case(
            c, counts,
            [&](std::vector<int>& k) {
              return ip ? comm.scatterv_init(out, k, root, a)
                        : comm.scatterv_init(in, out, k, root, a);
            },
            [&](std::vector<int>& k) {
              return ip ? comm.iscatterv(out, k, root, a) : comm.iscatterv(in, out, k, root, a);
            });
      }
    });
  }
}

template <class T, class Op>
void reduce_scatterv_cases(Comm& comm, const Op& op, int shift) {
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> counts = counts_of(n, shift);
  const std::size_t total = total_of(counts), mine = static_cast<std::size_t>(counts[r]);
  const bool exact =
      !std::is_floating_point_v<T> || Op::id == cclx::OpId::min || Op::id == cclx::OpId::max;
  auto input = [](int s, std::size_t j, int g) {
    return reduce_input<T>(Op::id, s, j + static_cast<std::size_t>(g) * kShift);
  };
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(total), out(ip ? total : mine);
      Case c{label<T>("reduce_scatterv", name, ip) + " " + std::string(cclx::to_string(Op::id)),
             [&](int g) {
               std::vector<T>& src = ip ? out : in;
               for (std::size_t j = 0; j < total; ++j) src[j] = input(r, j, g);
               if (!ip) std::fill(out.begin(), out.end(), sentinel<T>());
             },
             [&](int g, const std::string& l) {
               std::vector<T> want(mine);
               for (std::size_t j = 0; j < mine; ++j)
                 want[j] = expected_reduction<T>(
                     Op::id, n, offset_of(counts, r) + j + static_cast<std::size_t>(g) * kShift);
               const std::vector<T> got(out.begin(),
                                        out.begin() + static_cast<std::ptrdiff_t>(mine));
               compare(l, got, want, exact);
             }};
      run_case(
          c, counts,
          [&](std::vector<int>& k) {
            return ip ? comm.reduce_scatterv_init(out, k, op, a)
                      : comm.reduce_scatterv_init(in, out, k, op, a);
          },
          [&](std::vector<int>& k) {
            return ip ? comm.ireduce_scatterv(out, k, op, a)
                      : comm.ireduce_scatterv(in, out, k, op, a);
          });
    }
  });
}

template <class T>
void alltoallv_cases(Comm& comm) {
  const int n = comm.size(), r = comm.rank();
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<int> sc(static_cast<std::size_t>(n)), rc(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j) {
        sc[static_cast<std::size_t>(j)] = matrix_of(r, j, ip);
        rc[static_cast<std::size_t>(j)] = matrix_of(j, r, ip);
      }
      std::vector<T> in(total_of(sc)), out(total_of(rc));
      // Rank s's block for rank d: elements [offset of d in s's sendcounts, ...) of s's data.
      auto send_offset = [&](int s, int d) {
        std::size_t o = 0;
        for (int j = 0; j < d; ++j) o += static_cast<std::size_t>(matrix_of(s, j, ip));
        return o;
      };
      Case c{label<T>("alltoallv", name, ip),
             [&](int g) {
               if (ip)
                 put(out, 0, payload<T>(r, 0, out.size(), g));
               else {
                 put(in, 0, payload<T>(r, 0, in.size(), g));
                 std::fill(out.begin(), out.end(), sentinel<T>());
               }
             },
             [&](int g, const std::string& l) {
               std::vector<T> want(out.size());
               for (int s = 0; s < n; ++s)
                 put(want, offset_of(rc, s),
                     payload<T>(s, send_offset(s, r),
                                static_cast<std::size_t>(rc[static_cast<std::size_t>(s)]), g));
               compare(l, out, want, true);
             }};
      run_case(
          c,
          [&] {
            std::vector<int> s = sc, k = rc;
            auto p = ip ? comm.alltoallv_init(out, k, a) : comm.alltoallv_init(in, s, out, k, a);
            std::fill(s.begin(), s.end(), -1);
            std::fill(k.begin(), k.end(), -1);
            return p;
          },
          [&] {
            std::vector<int> s = sc, k = rc;
            return ip ? comm.ialltoallv(out, k, a) : comm.ialltoallv(in, s, out, k, a);
          });
    }
  });
}

}  // namespace

TEST_CASE("grid persistent v-collectives") {
  Comm comm(MPI_COMM_WORLD);
  int shift = 0;
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    allgatherv_cases<T>(comm, shift);
    gatherv_scatterv_cases<T>(comm, shift + 1);
    alltoallv_cases<T>(comm);
    ++shift;
  });
  // Every op, each on a few types (the same pairs as the persistent grid of reduce_scatter).
  reduce_scatterv_cases<float>(comm, cclx::sum, 0);
  reduce_scatterv_cases<double>(comm, cclx::prod, 1);
  reduce_scatterv_cases<std::int32_t>(comm, cclx::band, 2);
  reduce_scatterv_cases<std::int32_t>(comm, cclx::bxor, 3);
  reduce_scatterv_cases<std::int64_t>(comm, cclx::bor, 4);
  reduce_scatterv_cases<std::uint8_t>(comm, cclx::max, 0);
  reduce_scatterv_cases<std::uint64_t>(comm, cclx::min, 1);
  reduce_scatterv_cases<std::int16_t>(comm, cclx::sum, 2);
}

TEST_CASE("grid persistent barrier") {
  Comm comm(MPI_COMM_WORLD);
  for_each_algorithm_serving<Coll::barrier>([&](std::string_view name, const auto& a) {
    progress("barrier " + std::string(name));
    // A token allreduce after each barrier proves the ranks still agree on the call sequence.
    std::vector<int> token(1);
    CHECK(no_throw("barrier_init " + std::string(name), [&] {
      auto p = comm.barrier_init(a);
      for (int g = 0; g < kStarts; ++g) {
        p.start();
        p.wait();
        token[0] = g;
        comm.allreduce(token, cclx::max);
        CHECK(token[0] == g);
      }
      auto q = comm.ibarrier(a);
      q.wait();
    }));
  });
}

// The one-shot plan cache keys a v-collective's plan by its counts: the same buffers and total
// with other counts must not reuse the first call's plan.
TEST_CASE("plan cache: v-collective calls with other counts of the same total") {
  Comm comm(MPI_COMM_WORLD);
  using T = std::int32_t;
  const int n = comm.size(), r = comm.rank();
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    for (int shift = 0; shift < 3; ++shift) {
      // A rotation of the same counts: equal total, different layout (from n = 2 on).
      std::vector<int> counts(static_cast<std::size_t>(n));
      for (int s = 0; s < n; ++s) counts[static_cast<std::size_t>(s)] = 1 + (s + shift) % n;
      const std::size_t total = total_of(counts), mine = static_cast<std::size_t>(counts[r]);
      std::vector<T> in = payload<T>(r, 0, mine, shift), out(total, sentinel<T>());
      const std::string l =
          "allgatherv counts shift " + std::to_string(shift) + " [" + std::string(name) + "]";
      progress(l);
      if (!no_throw(l, [&] { comm.allgatherv(in, out, counts, a); })) continue;
      compare(l, out, gathered<T>(counts, shift), true);
    }
  });
}

}  // namespace cclx_test
