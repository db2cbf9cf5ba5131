// expect: requires +Backend<B>
#include <cclx/cclx.hpp>

// A Communicator's backend must model cclx::Backend (backend/backend.hpp): a class that lacks
// what the Communicator calls is refused where the Communicator is named, not deep inside it.
struct PointToPointOnly : cclx::MpiBackend {
  using cclx::MpiBackend::MpiBackend;
};
struct NoCollectives {
  explicit NoCollectives(MPI_Comm, cclx::Ownership) {}
  [[nodiscard]] int rank() const { return 0; }
  [[nodiscard]] int size() const { return 1; }
};

static_assert(cclx::Backend<PointToPointOnly>);  // derived from a backend: still one
#ifdef CCLX_EXPECT_FAIL
int f(cclx::Communicator<NoCollectives>& comm) {
  return comm.size();
}
#endif
