// device::StagingTransport without a GPU: a host-memory fake device whose queues run only when
// polled (so device work really is deferred, and a send that did not wait for the compute work
// before it would send stale data), over an in-process host transport whose messages complete a
// few polls after they match. Real schedules run through engine::Execution on N fake ranks in
// one thread; the pipeline's order (double buffering, overlap) is read from an event log.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/cclx.hpp"
#include "cclx/device/device_call.hpp"
#include "cclx/device/staging_transport.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/schedule/generate.hpp"
#include "loop_transport.hpp"

namespace {

using cclx::device::Device;
using cclx::test::Log;
using cclx::test::LoopTransport;
using cclx::test::World;

class FakeDevice final : public Device {
 public:
  FakeDevice(int rank, Log* log) : rank_(rank), log_(log) {}
  ~FakeDevice() override { CHECK(pinned_ == 0); }

  std::byte* alloc_pinned(std::size_t bytes) override {
    ++pinned_;
    return new std::byte[bytes];
  }
  void free_pinned(std::byte* p) noexcept override {
    --pinned_;
    delete[] p;
  }
  void copy(Queue q, void* dst, const void* src, std::size_t bytes) override {
    if (fail_copies_ && --fail_copies_ == 0) throw cclx::Error(rank_, "fake device: copy failed");
    const std::string what = q == Queue::compute ? "D2H" : "H2D";
    push(q, {[=, this] {
               std::memmove(dst, src, bytes);
               note(what + " done");
             },
             -1});
    note(what + " queued");
  }
  void enqueue(std::function<void()> f) { push(Queue::compute, {std::move(f), -1}); }
  Marker mark(Queue q) override {
    const Marker m = new_marker();
    push(q, {[this, m] { reached_[m] = true; }, -1});
    return m;
  }
  bool reached(Marker m) override {
    tick();
    return reached_.at(m);
  }
  void order_after(Queue q, Marker m) override {
    push(q, {[] {}, static_cast<int>(m)});
  }
  void release(Marker m) noexcept override {
    CHECK(!released_.at(m));  // released once
    released_[m] = true;
    --live_;
  }
  void drain() {
    for (int i = 0; i < 100000 && (!q_[0].empty() || !q_[1].empty()); ++i) tick();
    REQUIRE(q_[0].empty());
    REQUIRE(q_[1].empty());
  }
  [[nodiscard]] int live_markers() const { return live_; }
  int fail_copies_ = 0;  // > 0: the n-th copy from now throws

 private:
  struct Op {
    std::function<void()> run;
    int wait;  // >= 0: a marker that must be reached first
  };
  void push(Queue q, Op op) { q_[static_cast<int>(q)].push_back(std::move(op)); }
  // Markers are never reused, so a queue may wait on one its owner already released.
  Marker new_marker() {
    ++live_;
    reached_.push_back(false);
    released_.push_back(false);
    return static_cast<Marker>(reached_.size() - 1);
  }
  // Every queue runs its head op, unless it waits for a marker not yet reached: the device makes
  // progress only when asked.
  void tick() {
    for (auto& q : q_) {
      if (q.empty()) continue;
      if (q.front().wait >= 0 && !reached_[static_cast<std::size_t>(q.front().wait)]) continue;
      auto run = std::move(q.front().run);
      q.pop_front();
      run();
    }
  }
  void note(const std::string& s) {
    if (log_) log_->push_back("r" + std::to_string(rank_) + " " + s);
  }

  int rank_;
  Log* log_;
  std::deque<Op> q_[2];
  std::vector<bool> reached_, released_;
  int live_ = 0;
  int pinned_ = 0;
};

// The fake's local ops: queued on its compute queue, run when the device ticks.
class FakeOps final : public cclx::engine::LocalOps {
 public:
  explicit FakeOps(FakeDevice& d) : d_(&d) {}
  void copy(void* dst, const void* src, std::size_t bytes) override {
    d_->enqueue([=] { std::memmove(dst, src, bytes); });
  }
  void reduce(const cclx::ReduceKernel& k, void* dst, const void* a, const void* b,
              std::size_t n) override {
    d_->enqueue([=] { k(dst, a, b, n); });
  }

 private:
  FakeDevice* d_;
};

struct Rank {
  Rank(World& w, int r, int n, cclx::device::StagingOptions o, Log* log)
      : host(w, r, n), dev(r, log), ops(dev), staging(host, dev, ops, o) {}
  LoopTransport host;
  FakeDevice dev;
  FakeOps ops;
  cclx::device::StagingTransport staging;
  cclx::engine::ScratchPool scratch;
};

// `algorithm`'s allreduce (sum) or allgather of `count` int32 on n fake ranks through the
// staging transport, started, with a locally computed reference.
struct Job {
  Job(const char* algorithm, cclx::sched::Collective c, int n, std::size_t count,
      cclx::device::StagingOptions o, std::size_t segment_bytes = 0)
      : n(n), gather_(c == cclx::sched::Collective::allgather), count_(count) {
    for (int r = 0; r < n; ++r) ranks.push_back(std::make_unique<Rank>(w, r, n, o, nullptr));
    const std::size_t out_count = gather_ ? count * static_cast<std::size_t>(n) : count;
    in.resize(static_cast<std::size_t>(n));
    out.assign(static_cast<std::size_t>(n), std::vector<std::int32_t>(out_count, -1));
    expect.assign(out_count, 0);
    fill(0);
    for (int r = 0; r < n; ++r) {
      cclx::sched::ScheduleRequest req;
      req.collective = c;
      req.nranks = n;
      req.only_rank = r;
      req.bytes = count * 4;
      auto s = std::make_shared<const cclx::sched::Schedule>(
          cclx::algo::generate_by_name(algorithm, req));
      buffers.push_back({in[static_cast<std::size_t>(r)].data(),
                         out[static_cast<std::size_t>(r)].data(), out_count});
      cclx::engine::ExecOptions eo;
      eo.segment_bytes = segment_bytes;
      auto plan = cclx::engine::make_plan(std::move(s), r, n, buffers.back(), 4, eo);
      Rank& rk = *ranks[static_cast<std::size_t>(r)];
      ex.push_back(std::make_unique<cclx::engine::Execution>(plan, rk.staging, rk.scratch));
    }
    start(7);
  }
  // New inputs for round `round` (a persistent request's next start) and their reference.
  void fill(int round) {
    std::fill(expect.begin(), expect.end(), 0);
    for (int r = 0; r < n; ++r) {
      auto& v = in[static_cast<std::size_t>(r)];
      v.resize(count_);
      for (std::size_t i = 0; i < count_; ++i) {
        v[i] = static_cast<std::int32_t>((r + 1) * 1000 + i % 977 + round * 31);
        if (gather_)
          expect[static_cast<std::size_t>(r) * count_ + i] = v[i];
        else
          expect[i] += v[i];
      }
    }
  }
  void start(unsigned channel) {
    for (int r = 0; r < n; ++r)
      ex[static_cast<std::size_t>(r)]->start(buffers[static_cast<std::size_t>(r)], kernel, channel,
                                             {});
  }
  // Progresses every rank's execution once; true once all are done.
  bool poll_all() {
    bool all = true;
    for (auto& e : ex) all = e->test() && all;
    return all;
  }
  int n;
  World w;
  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<std::vector<std::int32_t>> in, out;
  std::vector<std::int32_t> expect;
  std::vector<cclx::engine::Buffers> buffers;
  std::vector<std::unique_ptr<cclx::engine::Execution>> ex;
  const cclx::ReduceKernel kernel = cclx::make_kernel<std::int32_t>(cclx::sum);

 private:
  bool gather_;
  std::size_t count_;
};

// Runs a Job to completion through the executions alone and checks every rank's result.
void run_collective(const char* algorithm, cclx::sched::Collective c, int n, std::size_t count,
                    cclx::device::StagingOptions o, std::size_t segment_bytes = 0) {
  CAPTURE(algorithm);
  CAPTURE(n);
  CAPTURE(count);
  Job j(algorithm, c, n, count, o, segment_bytes);
  bool all = false;
  for (int it = 0; it < 1000000 && !all; ++it) all = j.poll_all();
  REQUIRE_MESSAGE(all, "the executions did not finish (a hang in the pipeline)");
  for (int r = 0; r < n; ++r) {
    j.ranks[static_cast<std::size_t>(r)]->dev.drain();  // the trailing local ops
    CHECK(j.out[static_cast<std::size_t>(r)] == j.expect);
    if (o.direct) CHECK(j.ranks[static_cast<std::size_t>(r)]->staging.slots_allocated() == 0);
    // At most `depth` slots per peer and direction, here for at most n - 1 peers.
    CHECK(j.ranks[static_cast<std::size_t>(r)]->staging.slots_allocated() <=
          2 * o.depth * static_cast<std::size_t>(n - 1));
  }
  j.ex.clear();
  for (auto& r : j.ranks) CHECK(r->dev.live_markers() == 0);
}

std::size_t index_of(const Log& log, const std::string& s) {
  const auto it = std::find(log.begin(), log.end(), s);
  REQUIRE_MESSAGE(it != log.end(), "missing from the log: " << s);
  return static_cast<std::size_t>(it - log.begin());
}

}  // namespace

TEST_CASE(
    "staging transport: scheduled collectives on deferred device queues match the reference") {
  using cclx::sched::Collective;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 100;  // not a multiple of the element size: chunks are bytes
  for (int n : {2, 3, 4, 5}) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1001}}) {
      run_collective("ring", Collective::allreduce, n, count, o);
      run_collective("recursive_doubling", Collective::allreduce, n, count, o);
      run_collective("ring", Collective::allgather, n, count, o);
    }
  }
  // Engine segments smaller and larger than the chunks: each segment is one staged transfer,
  // reduced on the device as it lands.
  run_collective("ring", Collective::allreduce, 3, 5000, o, 256);
  run_collective("ring", Collective::allreduce, 4, 5000, o, 36);
  o.depth = 3;
  run_collective("ring", Collective::allreduce, 3, 4099, o);
}

TEST_CASE("staging transport: direct mode hands device pointers over after the compute queue") {
  using cclx::sched::Collective;
  cclx::device::StagingOptions o;
  o.direct = true;
  for (int n : {2, 3, 5}) {
    run_collective("ring", Collective::allreduce, n, 1001, o);
    run_collective("ring", Collective::allreduce, n, 1001, o, 64);
    run_collective("ring", Collective::allgather, n, 33, o);
  }
}

TEST_CASE("staging transport: double buffering overlaps copies with transfers, in order") {
  Log log;
  World w;
  w.log = &log;
  w.latency = 4;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 64;
  Rank a(w, 0, 2, o, &log), b(w, 1, 2, o, &log);
  std::vector<std::byte> src(64 * 6), dst(64 * 6);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 7);
  auto ca = a.staging.open_channel(1);
  auto cb = b.staging.open_channel(1);
  CHECK(cb->post_recv(dst.data(), dst.size(), 0) == 0);
  CHECK(ca->post_send(src.data(), src.size(), 1) == 0);
  std::vector<std::size_t> da, db;
  for (int i = 0; i < 10000 && (da.empty() || db.empty()); ++i) {
    ca->poll(da);
    cb->poll(db);
  }
  REQUIRE(da == std::vector<std::size_t>{0});
  REQUIRE(db == std::vector<std::size_t>{0});
  CHECK(dst == src);
  // Two slots per peer and direction, however many chunks.
  CHECK(a.staging.slots_allocated() == 2);
  CHECK(b.staging.slots_allocated() == 2);
  // Chunks go out in order, and the copy of chunk k+1 is queued before chunk k's send is done.
  // (The log numbers host messages per rank: rank 0's sends 0..5 are chunks 0..5, rank 1's
  // receives likewise.)
  for (int k = 0; k + 1 < 6; ++k) {
    CHECK(index_of(log, "r0 send " + std::to_string(k) + " posted") <
          index_of(log, "r0 send " + std::to_string(k + 1) + " posted"));
  }
  std::vector<std::size_t> d2h;
  for (std::size_t i = 0; i < log.size(); ++i)
    if (log[i] == "r0 D2H queued") d2h.push_back(i);
  REQUIRE(d2h.size() == 6);
  CHECK(d2h[1] < index_of(log, "r0 send 0 done"));
  // The receiver's host-to-device copy of chunk k is queued while chunk k+1 is still in transit.
  std::vector<std::size_t> h2d;
  for (std::size_t i = 0; i < log.size(); ++i)
    if (log[i] == "r1 H2D queued") h2d.push_back(i);
  REQUIRE(h2d.size() == 6);
  CHECK(index_of(log, "r1 recv 1 posted") < h2d[0]);
  CHECK(h2d[0] < index_of(log, "r1 recv 1 done"));
  ca.reset();
  cb.reset();
  CHECK(a.dev.live_markers() == 0);
  CHECK(b.dev.live_markers() == 0);
}

TEST_CASE("staging transport: errors are cclx::Error with the rank, and nothing leaks") {
  World w;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 16;
  Rank a(w, 0, 2, o, nullptr);
  std::vector<std::byte> buf(64);
  {
    auto c = a.staging.open_channel(0);
    a.dev.fail_copies_ = 2;  // the second chunk's device-to-host copy fails
    try {
      c->post_send(buf.data(), buf.size(), 1);
      FAIL("a failing device copy must throw");
    } catch (const cclx::Error& e) {
      CHECK(e.rank() == 0);
      CHECK(std::string(e.what()).find("fake device: copy failed") != std::string::npos);
    }
    CHECK_THROWS_WITH_AS(c->post_send(buf.data(), 4, 2), doctest::Contains("peer 2 out of range"),
                         cclx::Error);
  }
  CHECK(a.dev.live_markers() == 0);
  LoopTransport host(w, 0, 2);
  FakeDevice dev(0, nullptr);
  FakeOps ops(dev);
  o.depth = 1;
  CHECK_THROWS_WITH_AS(cclx::device::StagingTransport(host, dev, ops, o),
                       doctest::Contains("depth >= 2"), cclx::Error);
}

TEST_CASE("staging transport: a receive lands only after the compute work queued before it") {
  // The compute queue is busy (a long kernel) and then reads the receive's destination: the
  // host-to-device copy must not overwrite it before that read, however early the data arrives.
  World w;
  w.latency = 1;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 8;
  Rank a(w, 0, 2, o, nullptr), b(w, 1, 2, o, nullptr);
  std::vector<std::byte> src(32, std::byte{7}), dst(32, std::byte{1}), seen(32);
  for (int i = 0; i < 200; ++i) b.dev.enqueue([] {});  // the long kernel
  b.ops.copy(seen.data(), dst.data(), dst.size());     // reads the old destination
  auto ca = a.staging.open_channel(0);
  auto cb = b.staging.open_channel(0);
  cb->post_recv(dst.data(), dst.size(), 0);
  ca->post_send(src.data(), src.size(), 1);
  std::vector<std::size_t> da, db;
  for (int i = 0; i < 100000 && (da.empty() || db.empty()); ++i) {
    ca->poll(da);
    cb->poll(db);
  }
  REQUIRE(db.size() == 1);
  b.dev.drain();
  CHECK(seen == std::vector<std::byte>(32, std::byte{1}));
  CHECK(dst == src);
}

namespace {

// One DeviceCall per rank of a Job, its host part the rank's execution; `order_caller` logs the
// marker it was given (what CUDA turns into cudaStreamWaitEvent on the caller's stream).
// With `stage`, the device work after the host part copies each rank's output to `staged`
// behind a long kernel (as a staged native call copies its result to the device): the call must
// wait for it.
struct Calls {
  Calls(Job& j, bool wait_device, bool stage = false)
      : ordered(static_cast<std::size_t>(j.n)), staged(stage ? j.out : decltype(j.out){}) {
    for (int r = 0; r < j.n; ++r) {
      cclx::engine::Execution* e = j.ex[static_cast<std::size_t>(r)].get();
      cclx::device::CallHooks h;
      if (stage)
        h.after_host = [this, &j, r] {
          FakeDevice& dev = j.ranks[static_cast<std::size_t>(r)]->dev;
          for (int i = 0; i < 20; ++i) dev.enqueue([] {});
          auto& from = j.out[static_cast<std::size_t>(r)];
          auto& to = staged[static_cast<std::size_t>(r)];
          dev.enqueue([&from, &to] { std::copy(from.begin(), from.end(), to.begin()); });
        };
      h.test = [e] { return e->test(); };
      // The other ranks run in this thread too: waiting progresses them all (as MPI would).
      h.wait = [&j] {
        while (!j.poll_all()) {
        }
      };
      h.order_caller = [this, r](cclx::device::Device::Marker m) {
        ordered[static_cast<std::size_t>(r)].push_back(m);
      };
      calls.push_back(std::make_unique<cclx::device::DeviceCall>(
          j.ranks[static_cast<std::size_t>(r)]->dev, wait_device, std::move(h)));
    }
  }
  std::vector<std::vector<cclx::device::Device::Marker>> ordered;
  std::vector<std::vector<std::int32_t>> staged;
  std::vector<std::unique_ptr<cclx::device::DeviceCall>> calls;
};

// Polls every rank's call until all completed; checks each rank's result at the moment its call
// completes, without draining its device. Returns how often a rank's execution had finished
// while its call had not (the call waiting for the device).
int run_calls(Job& j, Calls& c, bool check_at_completion) {
  std::vector<bool> done(static_cast<std::size_t>(j.n), false);
  int device_waits = 0;
  for (int it = 0; it < 1000000; ++it) {
    bool all = true;
    for (int r = 0; r < j.n; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      if (done[ur]) continue;
      if (c.calls[ur]->test()) {
        done[ur] = true;
        CHECK(c.ordered[ur].size() == 1);  // the caller's stream ordered once
        if (check_at_completion) CHECK((c.staged.empty() ? j.out[ur] : c.staged[ur]) == j.expect);
      } else {
        all = false;
        if (j.ex[ur]->done()) ++device_waits;
      }
    }
    if (all) return device_waits;
  }
  FAIL("the device calls did not complete (a hang)");
  return device_waits;
}

}  // namespace

TEST_CASE("device call: a nonblocking staged collective completes once the device has the result") {
  using cclx::sched::Collective;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 100;
  for (int n : {2, 3, 5}) {
    for (const std::string algorithm : {"ring", "recursive_doubling"}) {
      for (bool stage : {false, true}) {
        CAPTURE(n);
        CAPTURE(algorithm);
        CAPTURE(stage);
        Job j(algorithm.c_str(), Collective::allreduce, n, 1001, o);
        Calls c(j, true, stage);
        // test() returns true only once the trailing reductions and copies (and, staged, the
        // copy after the host part) have run on the deferred device: the results are checked
        // right then, before any drain. Staged, the device is still busy when the execution
        // finishes, so the call must have waited for it.
        const int device_waits = run_calls(j, c, true);
        if (stage) CHECK(device_waits > 0);
        for (auto& r : j.ranks) r->dev.drain();
        c.calls.clear();
        for (auto& r : j.ranks) CHECK(r->dev.live_markers() == 0);
      }
    }
  }
}

TEST_CASE("device call: stream-ordered completion leaves the device work queued, in order") {
  using cclx::sched::Collective;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 64;
  for (int n : {2, 4}) {
    CAPTURE(n);
    Job j("ring", Collective::allreduce, n, 777, o, 128);
    Calls c(j, false, true);
    run_calls(j, c, false);  // completes with the host part; no device wait
    for (int r = 0; r < n; ++r) {
      // The marker the caller's stream waits for comes after every local op of the call: once
      // the device reaches it, the result is there.
      // (The fake never reuses markers, so the released one can still be asked.)
      auto& dev = j.ranks[static_cast<std::size_t>(r)]->dev;
      const cclx::device::Device::Marker m = c.ordered[static_cast<std::size_t>(r)].at(0);
      bool reached = false;
      for (int i = 0; i < 100000 && !reached; ++i) reached = dev.reached(m);
      REQUIRE(reached);
      CHECK(c.staged[static_cast<std::size_t>(r)] == j.expect);
    }
    for (auto& r : j.ranks) r->dev.drain();
    c.calls.clear();
    for (auto& r : j.ranks) CHECK(r->dev.live_markers() == 0);
  }
}

TEST_CASE("device call: wait(), and restarts as a persistent request's starts") {
  using cclx::sched::Collective;
  cclx::device::StagingOptions o;
  o.chunk_bytes = 100;
  for (int n : {2, 3}) {
    CAPTURE(n);
    Job j("ring", Collective::allgather, n, 301, o);
    Calls c(j, true);
    c.calls[0]->wait();  // progresses every rank's host part, then polls rank 0's device
    CHECK(j.out[0] == j.expect);
    run_calls(j, c, true);
    for (int round = 1; round <= 3; ++round) {
      CAPTURE(round);
      j.fill(round);
      j.start(7 + static_cast<unsigned>(round));  // a new channel per start
      for (std::size_t r = 0; r < c.calls.size(); ++r) {
        c.ordered[r].clear();
        c.calls[r]->restart(true);
      }
      run_calls(j, c, true);
    }
    c.calls.clear();
    for (auto& r : j.ranks) CHECK(r->dev.live_markers() == 0);
  }
}
