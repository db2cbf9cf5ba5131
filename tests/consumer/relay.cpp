// Built against an installed cclx with the relay component (cclx::relay): algo::Adaptive's
// persistent allreduce on every rank.
#include <cclx/cclx.hpp>
#include <cclx/relay/adaptive.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rc = 0;
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    std::vector<long> v(1000);
    cclx::PersistentRequest p = comm.allreduce_init(v, cclx::sum, cclx::algo::Adaptive{});
    const long expect = static_cast<long>(comm.size()) * (comm.size() + 1) / 2;
    for (int call = 0; call < 3; ++call) {
      v.assign(v.size(), comm.rank() + 1);
      p.start();
      p.wait();
      for (long x : v) rc |= x != expect;
    }
    if (comm.rank() == 0) std::printf("consumer_relay: %s\n", rc ? "WRONG" : "ok");
  }
  MPI_Finalize();
  return rc;
}
