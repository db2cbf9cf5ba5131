// Built against an installed cclx and linked with cclx::cclx alone; run under mpiexec by the
// consumer test. Everything <cclx/cclx.hpp> offers links with that one target: every policy of the
// registry, Native, Auto and StragglerAware, each in the forms it serves (the relay collectives
// are the relay module's: relay.cpp, cclx::relay).
#include <cclx/algo/registry.hpp>
#include <cclx/cclx.hpp>
#include <cstdio>
#include <tuple>
#include <vector>

static_assert(CCLX_VERSION_MAJOR >= 0 && CCLX_VERSION_NUMBER >= 100, "cclx/version.hpp");

namespace {

// 0 when an allreduce of `a` in each of its forms gives the sum of the ranks' values.
template <class A>
int allreduce_forms(cclx::Communicator<>& comm, const A& a) {
  const long expect = static_cast<long>(comm.size()) * (comm.size() + 1) / 2;
  int wrong = 0;
  auto check = [&](const std::vector<long>& v) {
    for (long x : v) wrong |= x != expect;
  };
  std::vector<long> v(1000, comm.rank() + 1);
  comm.allreduce(v, cclx::sum, a);
  check(v);
  if constexpr (!cclx::algo::AdaptiveAlgorithm<A>) {
    v.assign(v.size(), comm.rank() + 1);
    comm.iallreduce(v, cclx::sum, a).wait();
    check(v);
    v.assign(v.size(), comm.rank() + 1);
    cclx::PersistentRequest p = comm.allreduce_init(v, cclx::sum, a);
    p.start();
    p.wait();
    check(v);
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    rc |= allreduce_forms(comm, cclx::algo::Native{});
    rc |= allreduce_forms(comm, cclx::algo::Auto{});
    rc |= allreduce_forms(comm, cclx::algo::StragglerAware<cclx::algo::Ring>{});
    std::apply(
        [&](const auto&... policy) {
          auto one = [&](const auto& p) {
            using P = std::decay_t<decltype(p)>;
            if constexpr (cclx::algo::serves<P>(cclx::sched::Collective::allreduce))
              rc |= allreduce_forms(comm, p);
            else
              comm.barrier(p);
          };
          (one(policy), ...);
        },
        cclx::algo::registry{});
    if (comm.rank() == 0)
      std::printf("consumer (cclx %s): %s\n", CCLX_VERSION, rc ? "WRONG" : "ok");
  }
  MPI_Finalize();
  return rc;
}
