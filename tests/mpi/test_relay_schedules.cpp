// Relay schedules (relay/schedules.hpp) on real data: phase 1 followed by phase 2
// (sched::concat_phases, one execution) through the Communicator, for every active subset at
// n <= 4 and a few beyond, allreduce / reduce / bcast, 1 and 3 trees. Integers must equal the
// locally computed reduction; float sums must be bitwise identical on every rank (allreduce).
// The same for the subset and owner plans (allreduce, in place too). The runtime that runs the
// phases as two executions is tested with algo::Adaptive.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/schedules.hpp"
#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// Test policy: the relay plan of `mask` (bit r: rank r active) on par-trees, both phases as one
// schedule.
struct RelayConcat {
  static constexpr std::string_view name = "relay_concat";
  static constexpr std::array collectives = {Coll::allreduce, Coll::reduce, Coll::bcast};
  static constexpr std::array<Coll, 0> keeps_rank_order = {};
  std::uint64_t mask = 0;
  int trees = 1;

  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& req) const {
    std::vector<int> host(static_cast<std::size_t>(req.nranks));
    for (int r = 0; r < req.nranks; ++r) host[static_cast<std::size_t>(r)] = r / 2;
    const auto ts = cclx::sched::par_trees(host, {}, trees, 2, true,
                                           req.collective == Coll::allreduce ? -1 : req.root, 64);
    std::vector<bool> active(static_cast<std::size_t>(req.nranks));
    for (int r = 0; r < req.nranks; ++r) active[static_cast<std::size_t>(r)] = (mask >> r) & 1;
    const auto plan = cclx::sched::relay_schedules(ts, req, active);
    return cclx::sched::concat_phases(plan.phase1, plan.phase2);
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const {
    return "mask=" + std::to_string(mask) + ",trees=" + std::to_string(trees);
  }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

// Test policy: the subset plan of `mask` with phase 1 from `algo`, or with algo "owners" the owner
// plan, both phases as one schedule (64-byte segments: about 60 chunks in phase 2).
struct SubsetConcat {
  static constexpr std::string_view name = "relay_subset_concat";
  static constexpr std::array collectives = {Coll::allreduce};
  static constexpr std::array<Coll, 0> keeps_rank_order = {};
  std::uint64_t mask = 0;
  std::string algo;

  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& req) const {
    std::vector<bool> active(static_cast<std::size_t>(req.nranks));
    for (int r = 0; r < req.nranks; ++r) active[static_cast<std::size_t>(r)] = (mask >> r) & 1;
    const auto plan = algo == "owners" ? cclx::sched::owner_relay_schedules(req, active, 64)
                                       : cclx::sched::subset_relay_schedules(algo, req, active, 64);
    return cclx::sched::concat_phases(plan.phase1, plan.phase2);
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const {
    return "mask=" + std::to_string(mask) + ",algo=" + algo;
  }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

// 1000 elements: 4000 bytes, 63 chunks of 64 bytes per tree at most.
constexpr std::size_t kRelayCount = 1000;

std::vector<std::uint64_t> masks(int n) {
  std::vector<std::uint64_t> m;
  const std::uint64_t all = (std::uint64_t{1} << n) - 1;
  if (n <= 4) {
    for (std::uint64_t x = 0; x <= all; ++x) m.push_back(x);
  } else {
    m = {0, all, all & ~std::uint64_t{1}, std::uint64_t{1} << (n - 1), all & 0x55, all & 0x6};
  }
  return m;
}

// allreduce with `policy`: int32 sums equal the local reference (in place too with `in_place`),
// float sums go to `cons` (bitwise identical on every rank). Returns the int32 input and the
// reference for the caller's further checks.
template <class Policy>
std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>> check_allreduce(
    Comm& comm, const Policy& policy, const std::string& l, Consistency& cons, bool in_place) {
  const std::size_t count = kRelayCount;
  const int n = comm.size(), r = comm.rank();
  std::vector<std::int32_t> in(count), out(count, sentinel<std::int32_t>()), want(count);
  for (std::size_t i = 0; i < count; ++i) {
    in[i] = reduce_input<std::int32_t>(cclx::OpId::sum, r, i);
    want[i] = expected_reduction<std::int32_t>(cclx::OpId::sum, n, i);
  }
  comm.allreduce(in, out, cclx::sum, policy);
  compare(l + " allreduce int32", out, want, true);
  if (in_place) {
    std::vector<std::int32_t> io = in;
    comm.allreduce(io, cclx::sum, policy);
    compare(l + " allreduce int32 in place", io, want, true);
  }
  std::vector<float> fin(count), fout(count);
  for (std::size_t i = 0; i < count; ++i) fin[i] = reduce_input<float>(cclx::OpId::sum, r, i);
  comm.allreduce(fin, fout, cclx::sum, policy);
  cons.add<float>(l + " allreduce float", fout);
  return {std::move(in), std::move(want)};
}

}  // namespace

TEST_CASE("relay schedules: phase 1 + phase 2 on real data") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  Consistency cons(comm.native_handle());
  const std::size_t count = kRelayCount;
  for (const std::uint64_t mask : masks(n))
    for (const int trees : {1, 3}) {
      const RelayConcat policy{mask, trees};
      const std::string l = "mask=" + std::to_string(mask) + " trees=" + std::to_string(trees);
      const auto [in, want] = check_allreduce(comm, policy, l, cons, false);
      const int root = static_cast<int>(mask % static_cast<std::uint64_t>(n));
      std::vector<std::int32_t> red(count, sentinel<std::int32_t>());
      comm.reduce(in, red, cclx::sum, root, policy);
      if (r == root) compare(l + " reduce int32", red, want, true);
      std::vector<std::int32_t> b(count);
      for (std::size_t i = 0; i < count; ++i)
        b[i] = r == root ? data_value<std::int32_t>(root, i) : sentinel<std::int32_t>();
      comm.bcast(b, root, policy);
      std::vector<std::int32_t> bw(count);
      for (std::size_t i = 0; i < count; ++i) bw[i] = data_value<std::int32_t>(root, i);
      compare(l + " bcast int32", b, bw, true);
    }
}

TEST_CASE("relay schedules: subset and owner plans on real data") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size();
  Consistency cons(comm.native_handle());
  for (const std::uint64_t mask : masks(n))
    for (const std::string algo : {"ring", "rhd", "owners"}) {
      if (algo == "owners" && mask == 0) continue;  // needs an active rank
      const SubsetConcat policy{mask, algo};
      (void)check_allreduce(comm, policy, "mask=" + std::to_string(mask) + " " + algo, cons, true);
    }
}

}  // namespace cclx_test
