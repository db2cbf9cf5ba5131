// engine::Plan (a schedule resolved for one buffer shape) and the Communicator's plan cache key
// (detail/plan_cache.hpp), without MPI.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "cclx/cclx.hpp"
#include "cclx/detail/plan_cache.hpp"
#include "cclx/engine/plan.hpp"

namespace {

using cclx::sched::Buf;
using cclx::sched::Collective;
using cclx::sched::OpKind;

std::shared_ptr<const cclx::sched::Schedule> ring_schedule(Collective c, int n, int rank,
                                                           bool in_place) {
  cclx::sched::ScheduleRequest req;
  req.collective = c;
  req.nranks = n;
  req.in_place = in_place;
  req.only_rank = rank;
  return std::make_shared<const cclx::sched::Schedule>(cclx::sched::ring(req));
}

}  // namespace

TEST_CASE("plan: ring allreduce resolves every region once and pipelines its reductions") {
  const int n = 4;
  std::vector<float> in(1003), out(1003);
  for (int rank = 0; rank < n; ++rank) {
    const auto s = ring_schedule(Collective::allreduce, n, rank, false);
    cclx::engine::Buffers b{in.data(), out.data(), in.size()};
    cclx::engine::ExecOptions o;
    o.segment_bytes = 1001;  // rounded down to whole floats
    const auto p = cclx::engine::make_plan(s, rank, n, b, sizeof(float), o);
    CHECK(p->segment_bytes == 1000);
    CHECK(p->num_steps() == s->programs[static_cast<std::size_t>(rank)].num_steps());
    CHECK_FALSE(p->aliased);
    CHECK(p->fits(b));
    // Every byte range lies inside its buffer, scratch inside the scratch size.
    std::size_t attached = 0;
    for (const auto& op : p->ops) {
      for (const auto* r : {&op.dst, &op.src}) {
        const bool used = r == &op.dst ? op.kind != OpKind::send : op.kind != OpKind::recv;
        if (!used) continue;
        const std::size_t limit = r->buf == Buf::scratch ? p->scratch_bytes : in.size() * 4;
        CHECK(r->offset + r->bytes <= limit);
      }
      if (op.kind == OpKind::recv && op.attached >= 0) ++attached;
    }
    // The reduce-scatter half reduces each landed block as it arrives: n - 1 steps.
    CHECK(attached == n - 1);
    CHECK(p->max_posted >= 2);
    CHECK(p->held.empty());  // ring: one sender per receiver, no handshake
  }
}

TEST_CASE("plan: in place, In and Out alias at a fixed distance") {
  const int n = 3, rank = 1;
  std::vector<int> buf(3 * 7);  // reduce_scatter in place: n blocks, the result in the first
  const auto s = ring_schedule(Collective::reduce_scatter, n, rank, true);
  cclx::engine::Buffers b{buf.data() + 7 * rank, buf.data(), buf.size()};
  const auto p = cclx::engine::make_plan(s, rank, n, b, sizeof(int), {});
  CHECK(p->aliased);
  CHECK(p->alias == static_cast<std::ptrdiff_t>(7 * rank * sizeof(int)));
  CHECK(p->fits(b));
  std::vector<int> other(3 * 7);
  CHECK(p->fits({other.data() + 7 * rank, other.data(), other.size()}));  // same shape elsewhere
  CHECK_FALSE(p->fits({other.data(), other.data(), other.size()}));       // another aliasing
}

TEST_CASE("plan: a schedule for another rank count is refused") {
  const auto s = ring_schedule(Collective::allreduce, 4, 0, false);
  std::vector<float> v(8);
  CHECK_THROWS_AS(cclx::engine::make_plan(s, 0, 3, {v.data(), v.data(), v.size()}, 4, {}),
                  cclx::Error);
}

TEST_CASE("plan cache: policies are keyed by their bytes where those are unique") {
  namespace algo = cclx::algo;
  using cclx::detail::policy_is_bytes;
  CHECK(policy_is_bytes<algo::Ring>);
  CHECK(policy_is_bytes<algo::RecursiveHalvingDoubling>);
  CHECK(policy_is_bytes<algo::BinomialTree>);  // empty
  CHECK(policy_is_bytes<algo::StragglAR>);
  CHECK(policy_is_bytes<algo::PipelinedTree>);  // size_t + int fanout + int channels
  // Padding: keyed by its schedule (and segment size) instead.
  struct Padded {
    std::size_t segment_bytes = 0;
    int fanout = 2;
  };
  CHECK_FALSE(policy_is_bytes<Padded>);
  CHECK(&cclx::detail::policy_tag<algo::Ring> != &cclx::detail::policy_tag<algo::StragglAR>);
}

TEST_CASE("plan cache: most recently used first, the oldest goes when full") {
  cclx::detail::PlanCache cache;
  auto key = [](std::size_t count) {
    cclx::detail::PlanKey k;
    k.count = count;
    return k;
  };
  const auto plan = std::make_shared<const cclx::engine::Plan>();
  for (std::size_t i = 0; i < cclx::detail::PlanCache::capacity; ++i) cache.insert(key(i), plan);
  CHECK(cache.size() == cclx::detail::PlanCache::capacity);
  REQUIRE(cache.find(key(0)) != nullptr);  // used: no longer the oldest
  cache.insert(key(100), plan);            // evicts key(1), the least recently used
  CHECK(cache.size() == cclx::detail::PlanCache::capacity);
  CHECK(cache.find(key(1)) == nullptr);
  CHECK(cache.find(key(0)) != nullptr);
  CHECK(cache.find(key(100)) != nullptr);
  auto k = key(100);
  k.in_place = true;
  CHECK(cache.find(k) == nullptr);  // every field is part of the key
}
