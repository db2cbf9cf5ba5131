// The hierarchical policies (algo/hierarchical.hpp) on emulated hosts: the ctest entries
// mpi-n{N}-hierarchical-* set CCLX_HOSTS or CCLX_RANKS_PER_HOST (tests/CMakeLists.txt), and the
// Communicator's host map must follow them. Every registered hierarchical policy, integer sums
// (exact) against a locally computed reference, blocking, nonblocking and persistent, in and out
// of place, bcast and reduce from every kind of root, allgather and reduce_scatter and their
// v-collectives, each where the policy serves it; every rank's result bitwise identical.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// The host of each world rank the environment asks for; empty when it asks for none.
std::vector<int> emulated_hosts(int n) {
  std::vector<int> ids;
  if (const char* list = std::getenv("CCLX_HOSTS"); list && *list) {
    std::string s(list);
    for (std::size_t at = 0; at <= s.size();) {
      const auto comma = std::min(s.find(',', at), s.size());
      ids.push_back(std::stoi(s.substr(at, comma - at)));
      at = comma + 1;
    }
  } else if (const char* k = std::getenv("CCLX_RANKS_PER_HOST"); k && std::atoi(k) > 0) {
    for (int r = 0; r < n; ++r) ids.push_back(r / std::atoi(k));
  }
  return ids;
}

// Calls f(label, policy) for every registered policy whose schedule depends on the host map; with
// `pipelined`, also for each of them as a pipeline of three segments (allreduce, bcast, reduce).
template <class F>
void for_each_hierarchical(F&& f, bool pipelined = false) {
  std::apply(
      [&](auto... policies) {
        (
            [&](auto p) {
              if constexpr (cclx::algo::uses_hosts<decltype(p)>) {
                f(decltype(p)::name, p);
                if (!pipelined) return;
                p.pipeline = 3;
                f(std::string(decltype(p)::name) + "(pipeline=3)", p);
              }
            }(policies),
            ...);
      },
      cclx::algo::registry{});
}

template <class T>
std::vector<T> input(int rank, std::size_t count, int g) {
  return reduce_inputs<T>(cclx::OpId::sum, rank, 0, count, g);
}
template <class T>
std::vector<T> reference(int n, std::size_t count, int g) {
  return reduced<T>(cclx::OpId::sum, n, 0, count, g);
}

}  // namespace

TEST_CASE("hierarchical: the Communicator's host map follows the environment") {
  Comm comm(MPI_COMM_WORLD);
  const auto ids = comm.host_ids();
  REQUIRE(ids.size() == static_cast<std::size_t>(comm.size()));
  const auto want = emulated_hosts(comm.size());
  if (want.empty()) {
    // MPI's shared-memory split: one host on the test machine.
    for (int id : ids) CHECK(id == ids[0]);
    return;
  }
  REQUIRE(want.size() == ids.size());
  for (std::size_t a = 0; a < ids.size(); ++a)
    for (std::size_t b = 0; b < ids.size(); ++b)
      CHECK_MESSAGE((ids[a] == ids[b]) == (want[a] == want[b]), "ranks " << a << " and " << b);
  // Kept: a second call is no collective and returns the same map.
  CHECK(comm.host_ids().data() == ids.data());
}

TEST_CASE("hierarchical: allreduce on the host map, blocking, nonblocking and persistent") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), me = comm.rank();
  Consistency same(MPI_COMM_WORLD);
  for_each_hierarchical(
      [&](std::string_view name, const auto& policy) {
        for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(n + 1),
                                  std::size_t{1000}, std::size_t{40001}})
          for (bool ip : {false, true}) {
            const std::string label =
                with(std::string(name) + " count=" + std::to_string(count), name, ip);
            progress(label);
            // Blocking, int32.
            {
              auto in = input<std::int32_t>(me, count, 0);
              std::vector<std::int32_t> out(count, -1);
              if (ip)
                comm.allreduce(in, cclx::sum, policy);
              else
                comm.allreduce(in, out, cclx::sum, policy);
              const auto& got = ip ? in : out;
              compare("blocking " + label, got, reference<std::int32_t>(n, count, 0), true);
              same.add("blocking " + label, got);
            }
            // Nonblocking, int64.
            {
              auto in = input<std::int64_t>(me, count, 1);
              std::vector<std::int64_t> out(count, -1);
              cclx::Request r = ip ? comm.iallreduce(in, cclx::sum, policy)
                                   : comm.iallreduce(in, out, cclx::sum, policy);
              r.wait();
              const auto& got = ip ? in : out;
              compare("nonblocking " + label, got, reference<std::int64_t>(n, count, 1), true);
              same.add("nonblocking " + label, got);
            }
            // Persistent, int32, started kStarts times with new inputs.
            {
              std::vector<std::int32_t> buf(count), out(count);
              auto p = ip ? comm.allreduce_init(buf, cclx::sum, policy)
                          : comm.allreduce_init(buf, out, cclx::sum, policy);
              for (int g = 0; g < kStarts; ++g) {
                const auto next = input<std::int32_t>(me, count, g);
                std::copy(next.begin(), next.end(), buf.begin());  // the bound buffer stays put
                p.start();
                p.wait();
                const auto& got = ip ? buf : out;
                compare("persistent start " + std::to_string(g) + " " + label, got,
                        reference<std::int32_t>(n, count, g), true);
                same.add("persistent " + label, got);
              }
            }
          }
      },
      true);
}

TEST_CASE("hierarchical: bcast on the host map, blocking, nonblocking and persistent") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), me = comm.rank();
  Consistency same(MPI_COMM_WORLD);
  for_each_hierarchical(
      [&](std::string_view name, const auto& policy) {
        if constexpr (serves<decltype(policy)>(Coll::bcast))
          for (int root : all_roots(n))
            for (std::size_t count :
                 {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{40001}}) {
              const std::string label = with(
                  std::string(name) + " bcast count=" + std::to_string(count), name, false, root);
              progress(label);
              // The root's data at start g, every other rank's buffer filled with its own values.
              const auto fill = [&](std::vector<std::int32_t>& v, int g) {
                for (std::size_t i = 0; i < count; ++i)
                  v[i] = data_value<std::int32_t>(me == root ? root : n + me,
                                                  i + static_cast<std::size_t>(g) * kShift);
              };
              const auto want = [&](int g) {
                std::vector<std::int32_t> v(count);
                for (std::size_t i = 0; i < count; ++i)
                  v[i] = data_value<std::int32_t>(root, i + static_cast<std::size_t>(g) * kShift);
                return v;
              };
              std::vector<std::int32_t> buf(count);
              fill(buf, 0);
              comm.bcast(buf, root, policy);
              compare("blocking " + label, buf, want(0), true);
              same.add("blocking " + label, buf);
              fill(buf, 1);
              comm.ibcast(buf, root, policy).wait();
              compare("nonblocking " + label, buf, want(1), true);
              same.add("nonblocking " + label, buf);
              auto p = comm.bcast_init(buf, root, policy);
              for (int g = 0; g < kStarts; ++g) {
                fill(buf, g);
                p.start();
                p.wait();
                compare("persistent start " + std::to_string(g) + " " + label, buf, want(g), true);
                same.add("persistent " + label, buf);
              }
            }
      },
      true);
}

TEST_CASE("hierarchical: reduce on the host map, blocking, nonblocking and persistent") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), me = comm.rank();
  for_each_hierarchical(
      [&](std::string_view name, const auto& policy) {
        if constexpr (serves<decltype(policy)>(Coll::reduce))
          for (int root : all_roots(n))
            for (std::size_t count :
                 {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{40001}})
              for (bool ip : {false, true}) {
                const std::string label = with(
                    std::string(name) + " reduce count=" + std::to_string(count), name, ip, root);
                progress(label);
                // The root's result of start g; in place, another rank's buffer stays its input.
                const auto check = [&](const std::string& form, const std::vector<std::int32_t>& in,
                                       const std::vector<std::int32_t>& out, int g) {
                  if (me == root)
                    compare(form + label, ip ? in : out, reference<std::int32_t>(n, count, g),
                            true);
                  else if (ip)
                    compare(form + label, in, input<std::int32_t>(me, count, g), true);
                };
                auto in = input<std::int32_t>(me, count, 0);
                std::vector<std::int32_t> out(count, -1);
                if (ip)
                  comm.reduce(in, cclx::sum, root, policy);
                else
                  comm.reduce(in, out, cclx::sum, root, policy);
                check("blocking ", in, out, 0);
                in = input<std::int32_t>(me, count, 1);
                (ip ? comm.ireduce(in, cclx::sum, root, policy)
                    : comm.ireduce(in, out, cclx::sum, root, policy))
                    .wait();
                check("nonblocking ", in, out, 1);
                auto p = ip ? comm.reduce_init(in, cclx::sum, root, policy)
                            : comm.reduce_init(in, out, cclx::sum, root, policy);
                for (int g = 0; g < kStarts; ++g) {
                  const auto next = input<std::int32_t>(me, count, g);
                  std::copy(next.begin(), next.end(), in.begin());  // the bound buffer stays put
                  p.start();
                  p.wait();
                  check("persistent start " + std::to_string(g) + " ", in, out, g);
                }
              }
      },
      true);
}

// Per-rank block sizes for the v-collectives around `count`: a zero, small and larger blocks.
std::vector<int> v_counts(int n, std::size_t count) {
  std::vector<int> c;
  for (int r = 0; r < n; ++r) c.push_back(r % 3 == 1 ? 0 : static_cast<int>(count) + r);
  return c;
}

TEST_CASE("hierarchical: allgather and reduce_scatter on the host map, and their v-collectives") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), me = comm.rank();
  const auto un = static_cast<std::size_t>(n), ume = static_cast<std::size_t>(me);
  Consistency same(MPI_COMM_WORLD);
  // The allgather of start g: block r holds rank r's values.
  const auto gathered = [&](const std::vector<int>& counts, int g) {
    std::vector<std::int32_t> v;
    for (int r = 0; r < n; ++r)
      for (std::size_t i = 0; i < static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
           ++i)
        v.push_back(data_value<std::int32_t>(r, i + static_cast<std::size_t>(g) * kShift));
    return v;
  };
  const auto mine = [&](std::size_t count, int g) {
    std::vector<std::int32_t> v(count);
    for (std::size_t i = 0; i < count; ++i)
      v[i] = data_value<std::int32_t>(me, i + static_cast<std::size_t>(g) * kShift);
    return v;
  };
  for_each_hierarchical([&](std::string_view name, const auto& policy) {
    using P = std::decay_t<decltype(policy)>;
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{777}, std::size_t{20001}})
      for (bool ip : {false, true}) {
        const std::vector<int> equal(un, static_cast<int>(count)), varied = v_counts(n, count);
        std::size_t offset = 0;  // of this rank's block among the varied ones
        for (int r = 0; r < me; ++r) offset += static_cast<std::size_t>(varied[r]);
        const std::size_t total =
            static_cast<std::size_t>(std::accumulate(varied.begin(), varied.end(), std::size_t{0}));
        const auto my_count = static_cast<std::size_t>(varied[ume]);
        if constexpr (serves<P>(Coll::allgather)) {
          const std::string label =
              with(std::string(name) + " allgather count=" + std::to_string(count), name, ip);
          progress(label);
          for (int g = 0; g < 2; ++g) {
            // Blocking (g = 0) and nonblocking (g = 1); in place, this rank's block in its place.
            std::vector<std::int32_t> in = mine(count, g), out(un * count, -1);
            if (ip) std::copy(in.begin(), in.end(), out.begin() + static_cast<long>(ume * count));
            if (g == 0)
              ip ? comm.allgather(out, policy) : comm.allgather(in, out, policy);
            else
              (ip ? comm.iallgather(out, policy) : comm.iallgather(in, out, policy)).wait();
            compare((g ? "nonblocking " : "blocking ") + label, out, gathered(equal, g), true);
            same.add(label, out);
          }
          std::vector<std::int32_t> in(count), out(un * count, -1);
          auto p = comm.allgather_init(in, out, policy);
          for (int g = 0; g < kStarts; ++g) {
            const auto next = mine(count, g);
            std::copy(next.begin(), next.end(), in.begin());
            p.start();
            p.wait();
            compare("persistent start " + std::to_string(g) + " " + label, out, gathered(equal, g),
                    true);
          }
        }
        if constexpr (serves<P>(Coll::allgatherv)) {
          const std::string label =
              with(std::string(name) + " allgatherv count=" + std::to_string(count), name, ip);
          progress(label);
          std::vector<std::int32_t> in = mine(my_count, 0), out(total, -1);
          if (ip) std::copy(in.begin(), in.end(), out.begin() + static_cast<long>(offset));
          ip ? comm.allgatherv(out, varied, policy) : comm.allgatherv(in, out, varied, policy);
          compare("blocking " + label, out, gathered(varied, 0), true);
          same.add(label, out);
          in = mine(my_count, 1);
          comm.iallgatherv(in, out, varied, policy).wait();
          compare("nonblocking " + label, out, gathered(varied, 1), true);
        }
        if constexpr (serves<P>(Coll::reduce_scatter)) {
          const std::string label =
              with(std::string(name) + " reduce_scatter count=" + std::to_string(count), name, ip);
          progress(label);
          for (int g = 0; g < kStarts; ++g) {
            // Blocking, nonblocking, then persistent (bound once, started for the last g).
            auto in = input<std::int32_t>(me, un * count, g);
            const auto all = reference<std::int32_t>(n, un * count, g);
            const std::vector<std::int32_t> want(
                all.begin() + static_cast<long>(ume * count),
                all.begin() + static_cast<long>((ume + 1) * count));
            std::vector<std::int32_t> out(count, -1);
            if (g == 0)
              ip ? comm.reduce_scatter(in, cclx::sum, policy)
                 : comm.reduce_scatter(in, out, cclx::sum, policy);
            else if (g == 1)
              (ip ? comm.ireduce_scatter(in, cclx::sum, policy)
                  : comm.ireduce_scatter(in, out, cclx::sum, policy))
                  .wait();
            else {
              auto p = ip ? comm.reduce_scatter_init(in, cclx::sum, policy)
                          : comm.reduce_scatter_init(in, out, cclx::sum, policy);
              p.start();
              p.wait();
            }
            const std::vector<std::int32_t> got =
                ip ? std::vector<std::int32_t>(in.begin(), in.begin() + static_cast<long>(count))
                   : out;
            compare("form " + std::to_string(g) + " " + label, got, want, true);
          }
        }
        if constexpr (serves<P>(Coll::reduce_scatterv)) {
          const std::string label =
              with(std::string(name) + " reduce_scatterv count=" + std::to_string(count), name, ip);
          progress(label);
          auto in = input<std::int32_t>(me, total, 0);
          const auto all = reference<std::int32_t>(n, total, 0);
          const std::vector<std::int32_t> want(all.begin() + static_cast<long>(offset),
                                               all.begin() + static_cast<long>(offset + my_count));
          std::vector<std::int32_t> out(my_count, -1);
          ip ? comm.reduce_scatterv(in, varied, cclx::sum, policy)
             : comm.reduce_scatterv(in, out, varied, cclx::sum, policy);
          const std::vector<std::int32_t> got =
              ip ? std::vector<std::int32_t>(in.begin(), in.begin() + static_cast<long>(my_count))
                 : out;
          compare("blocking " + label, got, want, true);
        }
      }
  });
}

TEST_CASE("hierarchical: algo::Auto ranks the hierarchical policies where the map spans hosts") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), me = comm.rank();
  // Auto's first call takes the host map; its choice must compute the right sum.
  const std::size_t count = std::size_t{1} << 18;
  auto v = input<std::int32_t>(me, count, 0);
  comm.allreduce(v, cclx::sum, cclx::algo::Auto{});
  compare("Auto allreduce", v, reference<std::int32_t>(n, count, 0), true);
  const auto ids = comm.host_ids();
  std::vector<int> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  const bool several_hosts = sorted.front() != sorted.back();
  const bool shared_host = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  const std::string why =
      comm.explain<std::int32_t>(cclx::sched::Collective::allreduce, std::size_t{1} << 22);
  CAPTURE(why);
  const auto names = [&](const char* part) { return why.find(part) != std::string::npos; };
  // The same for allgather, reduce_scatter, bcast and reduce: the multi-lane schedules are priced
  // among the rest.
  std::string lanes;
  for (auto c : {cclx::sched::Collective::allgather, cclx::sched::Collective::reduce_scatter,
                 cclx::sched::Collective::bcast, cclx::sched::Collective::reduce})
    lanes += comm.explain<std::int32_t>(c, std::size_t{1} << 22);
  CAPTURE(lanes);
  const auto lanes_name = [&](const char* part) { return lanes.find(part) != std::string::npos; };
  if (several_hosts && shared_host) {
    CHECK(names("multilane_ring="));
    CHECK(names("leader_recursive_doubling="));
    // One multilane_rhd line per collective.
    std::size_t priced = 0;
    for (auto at = lanes.find("multilane_rhd="); at != std::string::npos;
         at = lanes.find("multilane_rhd=", at + 1))
      ++priced;
    CHECK(priced == 4);
  } else {
    CHECK_FALSE(names("multilane"));
    CHECK_FALSE(lanes_name("multilane"));
  }
  // A moved communicator keeps what Auto knows, its host map included.
  Comm moved(std::move(comm));
  CHECK(moved.explain<std::int32_t>(cclx::sched::Collective::allreduce, std::size_t{1} << 22) ==
        why);
}

}  // namespace cclx_test
