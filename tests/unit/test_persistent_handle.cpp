// cclx::PersistentRequest as a handle, on a fake operation (no MPI): what a move leaves behind.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>

#include "cclx/error.hpp"
#include "cclx/persistent.hpp"

namespace {

// Counts what the handle asks of it; complete at the first test() or wait().
struct FakeOp : cclx::detail::PersistentOp {
  int* waits;
  explicit FakeOp(int* w) : waits(w) {}
  void start() override {}
  bool test() override { return true; }
  void wait() override { ++*waits; }
  void abandon() noexcept override {}
  [[nodiscard]] std::string name() const override { return "allreduce (fake)"; }
  [[nodiscard]] int rank() const override { return 0; }
};

}  // namespace

TEST_CASE("persistent handle: a moved-from active request is empty and inactive") {
  int waits = 0;
  cclx::PersistentRequest a(std::make_unique<FakeOp>(&waits));
  a.start();
  REQUIRE(a.active());
  cclx::PersistentRequest b(std::move(a));
  // NOLINTBEGIN(bugprone-use-after-move): what a move leaves behind is the point
  CHECK_FALSE(a.valid());
  CHECK_FALSE(a.active());
  CHECK(a.test());  // nothing to complete
  a.wait();
  // NOLINTEND(bugprone-use-after-move)
  CHECK(b.active());
  b.wait();
  CHECK(waits == 1);
  CHECK_FALSE(b.active());

  cclx::PersistentRequest c;
  b.start();
  c = std::move(b);
  CHECK_FALSE(b.active());  // NOLINT(bugprone-use-after-move)
  CHECK(c.active());
  c.wait();
  CHECK(waits == 2);
}
