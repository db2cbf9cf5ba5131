// expect: hierarchical policy: the inter-host algorithm must serve allreduce
#include <cclx/cclx.hpp>

void f() {
  [[maybe_unused]] const cclx::algo::MultiLane<cclx::algo::Ring> lanes{};  // fine
#ifdef CCLX_EXPECT_FAIL
  [[maybe_unused]] const cclx::algo::LeaderBased<cclx::algo::Dissemination> leaders{};
#endif
}
