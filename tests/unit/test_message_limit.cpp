// engine::Execution under a transport's largest message (Transport::max_message_bytes,
// CCLX_MAX_MESSAGE_BYTES for MPI): real schedules on N in-process ranks, every message at most
// the limit in whole elements, the results equal to a locally computed reference.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/cclx.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "loop_transport.hpp"

namespace {

using cclx::sched::Collective;

// `algorithm`'s allreduce (int64 sum, out of place) or allgather of `count` elements per rank on n
// ranks whose transport carries at most `limit` bytes per message; returns the largest message.
std::size_t run(const char* algorithm, Collective c, int n, std::size_t count, std::size_t limit,
                std::size_t segment_bytes = 0) {
  CAPTURE(algorithm);
  CAPTURE(n);
  CAPTURE(limit);
  CAPTURE(segment_bytes);
  const bool gather = c == Collective::allgather;
  const std::size_t out_count = gather ? count * static_cast<std::size_t>(n) : count;
  cclx::test::World w;
  std::vector<std::unique_ptr<cclx::test::LoopTransport>> transports;
  std::vector<cclx::engine::ScratchPool> pools(static_cast<std::size_t>(n));
  std::vector<std::vector<std::int64_t>> in(static_cast<std::size_t>(n)),
      out(static_cast<std::size_t>(n), std::vector<std::int64_t>(out_count, -1));
  std::vector<std::int64_t> expect(out_count, 0);
  std::vector<std::unique_ptr<cclx::engine::Execution>> ex;
  const cclx::ReduceKernel kernel = cclx::make_kernel<std::int64_t>(cclx::sum);
  for (int r = 0; r < n; ++r) {
    auto& v = in[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < count; ++i) {
      v.push_back(static_cast<std::int64_t>((r + 1) * 100003 + i * 7));
      if (gather)
        expect[static_cast<std::size_t>(r) * count + i] = v.back();
      else
        expect[i] += v.back();
    }
  }
  for (int r = 0; r < n; ++r) {
    transports.push_back(std::make_unique<cclx::test::LoopTransport>(w, r, n, limit));
    cclx::sched::ScheduleRequest req;
    req.collective = c;
    req.nranks = n;
    req.only_rank = r;
    req.bytes = out_count * sizeof(std::int64_t);
    auto s =
        std::make_shared<const cclx::sched::Schedule>(cclx::algo::generate_by_name(algorithm, req));
    const cclx::engine::Buffers b{in[static_cast<std::size_t>(r)].data(),
                                  out[static_cast<std::size_t>(r)].data(), out_count};
    cclx::engine::ExecOptions o;
    o.segment_bytes = segment_bytes;
    auto plan = cclx::engine::make_plan(std::move(s), r, n, b, sizeof(std::int64_t), o);
    ex.push_back(std::make_unique<cclx::engine::Execution>(plan, *transports.back(),
                                                           pools[static_cast<std::size_t>(r)]));
    ex.back()->start(b, kernel, 1, {});
  }
  bool all = false;
  for (int it = 0; it < 1000000 && !all; ++it) {
    all = true;
    for (auto& e : ex) all = e->test() && all;
  }
  REQUIRE_MESSAGE(all, "the executions did not finish");
  for (int r = 0; r < n; ++r) CHECK(out[static_cast<std::size_t>(r)] == expect);
  return w.largest_message;
}

}  // namespace

TEST_CASE("message limit: transfers go as messages of at most the limit, in whole elements") {
  for (const int n : {2, 3, 5}) {
    // Ring allreduce of 1000 int64 on n ranks: blocks of 8000 / n bytes.
    CHECK(run("ring", Collective::allreduce, n, 1000, 0) > 1000);
    CHECK(run("ring", Collective::allreduce, n, 1000, 1000) == 1000);  // 125 elements
    CHECK(run("ring", Collective::allreduce, n, 1000, 1001) == 1000);  // rounded down
    CHECK(run("ring", Collective::allreduce, n, 1000, 3) == 8);        // one element at least
    // The plan's own segments, where smaller, stay; where larger, are cut.
    CHECK(run("ring", Collective::allreduce, n, 1000, 1000, 400) == 400);
    CHECK(run("ring", Collective::allreduce, n, 1000, 400, 1000) == 400);
    CHECK(run("rhd", Collective::allreduce, n, 1000, 512) == 512);
    CHECK(run("recursive_doubling", Collective::allreduce, n, 1000, 512) == 512);
    CHECK(run("rhd", Collective::allgather, n, 300, 800) == 800);
    CHECK(run("binomial_tree", Collective::allreduce, n, 1000, 2048) == 2048);
  }
}
