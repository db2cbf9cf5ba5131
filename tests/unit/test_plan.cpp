// engine::Plan (a schedule resolved for one buffer shape) and the Communicator's plan cache key
// (call/plan.hpp), without MPI.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cclx/call/plan.hpp"
#include "cclx/cclx.hpp"
#include "cclx/engine/plan.hpp"

namespace {

// A scheduled policy whose fields have padding between them.
struct Padded {
  static constexpr std::string_view name = "padded";
  static constexpr std::array collectives{cclx::sched::Collective::allreduce};
  static constexpr std::array keeps_rank_order{cclx::sched::Collective::allreduce};
  std::size_t segment_bytes = 0;
  int fanout = 2;
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    cclx::sched::Schedule s = cclx::algo::Ring{}.generate(r);
    s.algorithm = name;
    return s;
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const {
    cclx::engine::ExecOptions o;
    o.segment_bytes = segment_bytes;
    return o;
  }
};
static_assert(cclx::algo::ScheduledAlgorithm<Padded>);

// A scheduled policy without fields.
struct Bare {
  static constexpr std::string_view name = "bare";
  static constexpr std::array collectives{cclx::sched::Collective::allreduce};
  static constexpr std::array keeps_rank_order{cclx::sched::Collective::allreduce};
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    cclx::sched::Schedule s = cclx::algo::Ring{}.generate(r);
    s.algorithm = name;
    return s;
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};
static_assert(std::is_empty_v<Bare>);

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
  using cclx::call::policy_type;
  CHECK(policy_type<algo::Ring>.keyed_by_bytes);
  CHECK(policy_type<algo::RecursiveHalvingDoubling>.keyed_by_bytes);
  CHECK(policy_type<algo::BinomialTree>.keyed_by_bytes);
  CHECK(policy_type<algo::StragglAR>.keyed_by_bytes);
  CHECK(policy_type<algo::PipelinedTree>.keyed_by_bytes);  // size_t + int fanout + int channels
  // Padding: keyed by its schedule (and segment size) instead.
  CHECK_FALSE(policy_type<Padded>.keyed_by_bytes);
  CHECK(&policy_type<algo::Ring> != &policy_type<algo::StragglAR>);
  // The erased policy points to the caller's object and its type's table.
  const algo::Ring ring{.segment_bytes = 4096};
  const cclx::call::Policy p = cclx::call::erase(ring);
  CHECK(p.name() == "ring");
  CHECK_FALSE(p.native());
  CHECK(p.type->exec_options(p.self).segment_bytes == 4096);
  CHECK(cclx::call::erase(algo::Native{}).native());
}

TEST_CASE("plan cache: most recently used first, the oldest goes when full") {
  cclx::call::Plans cache;
  auto key = [](std::size_t count) {
    cclx::call::PlanKey k;
    k.count = count;
    return k;
  };
  const auto plan = std::make_shared<const cclx::engine::Plan>();
  for (std::size_t i = 0; i < cclx::call::Plans::capacity; ++i) cache.insert(key(i), plan);
  CHECK(cache.size() == cclx::call::Plans::capacity);
  REQUIRE(cache.find(key(0)) != nullptr);  // used: no longer the oldest
  cache.insert(key(100), plan);            // evicts key(1), the least recently used
  CHECK(cache.size() == cclx::call::Plans::capacity);
  CHECK(cache.find(key(1)) == nullptr);
  CHECK(cache.find(key(0)) != nullptr);
  CHECK(cache.find(key(100)) != nullptr);
  auto k = key(100);
  k.in_place = true;
  CHECK(cache.find(k) == nullptr);  // every field is part of the key
}

namespace {
// An in-place float sum of `count` elements on `buf`.
cclx::CollectiveCall in_place_sum(Collective collective, std::vector<float>& buf,
                                  std::size_t count) {
  cclx::CollectiveCall c;
  c.collective = collective;
  c.type = cclx::data_type_of<float>();
  c.kernel = cclx::make_kernel<float>(cclx::sum);
  c.has_op = true;
  c.in = c.out = buf.data();
  c.in_place = true;
  c.count = count;
  c.in_size = c.out_size = buf.size();
  return c;
}
}  // namespace

TEST_CASE("plan stage: a repeated call finds its plan; another policy value makes its own") {
  namespace algo = cclx::algo;
  std::vector<float> buf(64);
  const cclx::CollectiveCall c = in_place_sum(Collective::allreduce, buf, buf.size());
  const cclx::call::Site site{0, 4, 0, {}};
  cclx::call::Plans plans;
  cclx::engine::Buffers b;
  // An empty policy is keyed by its type alone: two objects, one entry.
  const Bare t1, t2;
  CHECK(cclx::call::policy_type<Bare>.keyed_by_bytes);
  CHECK(cclx::call::policy_type<Bare>.key_size == 0);
  cclx::call::Plans::Entry* e = &plans.plan(c, cclx::call::erase(t1), site, b);
  CHECK(&plans.plan(c, cclx::call::erase(t2), site, b) == e);
  CHECK(plans.size() == 1);
  CHECK(b.out == buf.data());
  // A policy keyed by its fields: another segment size is another entry, the same one is not.
  const algo::Ring r1{.segment_bytes = 0}, r2{.segment_bytes = 4096}, r3{.segment_bytes = 4096};
  plans.plan(c, cclx::call::erase(r1), site, b);
  e = &plans.plan(c, cclx::call::erase(r2), site, b);
  CHECK(plans.size() == 3);
  CHECK(&plans.plan(c, cclx::call::erase(r3), site, b) == e);
  CHECK(plans.size() == 3);
  // A policy with padding is keyed by its schedule and segment size.
  const Padded p1{.segment_bytes = 256}, p2{.segment_bytes = 256}, p3{.segment_bytes = 512};
  e = &plans.plan(c, cclx::call::erase(p1), site, b);
  CHECK(&plans.plan(c, cclx::call::erase(p2), site, b) == e);
  CHECK(plans.size() == 4);
  CHECK(&plans.plan(c, cclx::call::erase(p3), site, b) != e);
  CHECK(plans.size() == 5);
}

TEST_CASE(
    "plan stage: a hit lays out the call's own buffers and still refuses what the key hides") {
  std::vector<float> first(64), second(64);
  // Per rank: In is 4 blocks of 16, Out (in place) the rank's block of In.
  cclx::CollectiveCall c = in_place_sum(Collective::reduce_scatter, first, 16);
  const cclx::call::Site site{1, 4, 0, {}};
  cclx::call::Plans plans;
  cclx::engine::Buffers b;
  const cclx::algo::Ring ring;
  cclx::call::Plans::Entry* e = &plans.plan(c, cclx::call::erase(ring), site, b);
  const cclx::sched::Schedule& s = *e->plan->schedule;
  // Another buffer of the same shape: the same entry, the addresses the descriptor gives for it.
  c.in = c.out = second.data();
  CHECK(&plans.plan(c, cclx::call::erase(ring), site, b) == e);
  const cclx::engine::Buffers expected = cclx::call::engine_buffers(c, s, 1);
  CHECK(b.in == expected.in);
  CHECK(b.out == expected.out);
  CHECK(b.count == expected.count);
  CHECK(e->plan->fits(b));
  CHECK(plans.size() == 1);
  // A non-commutative op of the same shape is another key, and the ring (which reorders on four
  // ranks) refuses it there.
  c.kernel = cclx::make_kernel<float>(cclx::user_op([](float x, float) { return x; }, false));
  CHECK_THROWS_AS(plans.plan(c, cclx::call::erase(ring), site, b), cclx::Error);
  CHECK(plans.size() == 1);
}
