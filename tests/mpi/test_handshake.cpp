// The receiver-ready handshake (engine::ExecOptions::handshake_bytes): with it on, every scheduled
// algorithm must give exactly what it gives without it, on every rank, for every collective it
// serves. Threshold 1 puts every non-empty pair of a step through the handshake (tokens then
// interleave with data sends that are held and with small ones that are not); 4 KiB mixes
// handshaken and plain pairs within one schedule.
#include <doctest/doctest.h>

#include <cstdint>

#include "cclx/settings.hpp"
#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

std::vector<std::int32_t> ramp(int rank, std::size_t count, int salt) {
  std::vector<std::int32_t> v(count);
  for (std::size_t i = 0; i < count; ++i)
    v[i] = static_cast<std::int32_t>(mix(static_cast<std::uint64_t>(rank) * 1000003 + i + salt) %
                                     2000001) -
           1000000;
  return v;
}

// Runs `coll` with `a` on `comm` (handshake as set) and returns this rank's output.
template <class A>
std::vector<std::int32_t> run(Comm& comm, Coll coll, const A& a, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  const auto nn = static_cast<std::size_t>(n);
  switch (coll) {
    case Coll::allreduce: {
      std::vector<std::int32_t> out(count);
      if constexpr (serves<A>(Coll::allreduce))
        comm.allreduce(ramp(r, count, 1), out, cclx::sum, a);
      return out;
    }
    case Coll::reduce: {
      std::vector<std::int32_t> out(count, 7);
      if constexpr (serves<A>(Coll::reduce))
        comm.reduce(ramp(r, count, 2), out, cclx::sum, n - 1, a);
      if (r != n - 1) out.assign(count, 7);  // only the root's output is defined
      return out;
    }
    case Coll::reduce_scatter: {
      std::vector<std::int32_t> out(count);
      if constexpr (serves<A>(Coll::reduce_scatter))
        comm.reduce_scatter(ramp(r, count * nn, 3), out, cclx::sum, a);
      return out;
    }
    case Coll::bcast: {
      auto buf = ramp(r, count, 4);
      if constexpr (serves<A>(Coll::bcast)) comm.bcast(buf, n / 2, a);
      return buf;
    }
    case Coll::allgather: {
      std::vector<std::int32_t> out(count * nn);
      if constexpr (serves<A>(Coll::allgather)) comm.allgather(ramp(r, count, 5), out, a);
      return out;
    }
    case Coll::alltoall: {
      std::vector<std::int32_t> out(count * nn);
      if constexpr (serves<A>(Coll::alltoall)) comm.alltoall(ramp(r, count * nn, 6), out, a);
      return out;
    }
    default:  // the other collectives are not called here
      break;
  }
  return {};
}

template <class A>
void check_with_handshake(Comm& comm, std::string_view name, const A& a) {
  for (Coll coll : {Coll::allreduce, Coll::reduce, Coll::reduce_scatter, Coll::bcast,
                    Coll::allgather, Coll::alltoall}) {
    if (!supports(a, coll)) continue;
    for (std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{1001}, std::size_t{70001}}) {
      // Appended, not chained with +: GCC 12 warns falsely on the chain (-Wstringop-overflow).
      std::string base(name);
      base.append(" ").append(cclx::sched::to_string(coll)).append(" count=");
      base += std::to_string(count);
      progress(base);
      comm.backend().set_handshake_bytes(0);
      std::vector<std::int32_t> plain;
      if (!no_throw(base + " without handshake", [&] { plain = run(comm, coll, a, count); }))
        continue;
      for (std::size_t threshold : {std::size_t{1}, std::size_t{4096}}) {
        const std::string l = base + " handshake>=" + std::to_string(threshold);
        comm.backend().set_handshake_bytes(threshold);
        std::vector<std::int32_t> got;
        if (no_throw(l, [&] { got = run(comm, coll, a, count); })) compare(l, got, plain, true);
      }
      comm.backend().set_handshake_bytes(0);
    }
  }
}

TEST_CASE("handshake: every scheduled algorithm gives the same result with it as without") {
  Comm comm(MPI_COMM_WORLD);
  for_each_algorithm([&](std::string_view name, const auto& a) {
    if constexpr (!is_native<std::decay_t<decltype(a)>>) check_with_handshake(comm, name, a);
  });
  for (int s : {0, comm.size() - 1})
    check_with_handshake(comm, "stragglar/" + std::to_string(s),
                         cclx::algo::StragglAR{.straggler = s});
}

// With CCLX_WAIT=spin and no deadline, Execution::wait() blocks in the transport (one
// MPI_Waitsome per completion) instead of polling; the tests otherwise run with backoff. Every
// scheduled algorithm and collective it serves, one-shot, with and without the handshake, plus
// nonblocking and persistent allreduce, must give what the polling waits give.
TEST_CASE("wait: spinning in the transport gives the same results as polling") {
  Comm comm(MPI_COMM_WORLD);
  const cclx::engine::WaitPolicy polling = comm.backend().wait_policy();
  cclx::engine::WaitPolicy spin;
  spin.mode = cclx::engine::WaitMode::spin;
  const std::size_t count = 1001;
  for_each_algorithm([&](std::string_view name, const auto& a) {
    if constexpr (!is_native<std::decay_t<decltype(a)>>) {
      for (Coll coll : {Coll::allreduce, Coll::reduce, Coll::reduce_scatter, Coll::bcast,
                        Coll::allgather, Coll::alltoall}) {
        if (!supports(a, coll)) continue;
        const std::string l =
            std::string(name) + " " + std::string(cclx::sched::to_string(coll)) + " spinning";
        progress(l);
        comm.backend().set_wait_policy(polling);
        std::vector<std::int32_t> want, got, shaken;
        if (!no_throw(l + " (polling)", [&] { want = run(comm, coll, a, count); })) continue;
        comm.backend().set_wait_policy(spin);
        if (no_throw(l, [&] { got = run(comm, coll, a, count); })) compare(l, got, want, true);
        comm.backend().set_handshake_bytes(1);
        if (no_throw(l + " handshake", [&] { shaken = run(comm, coll, a, count); }))
          compare(l + " handshake", shaken, want, true);
        comm.backend().set_handshake_bytes(0);
      }
      if constexpr (serves<std::decay_t<decltype(a)>>(Coll::allreduce)) {
        const std::string l = std::string(name) + " allreduce nonblocking/persistent spinning";
        progress(l);
        comm.backend().set_wait_policy(polling);
        const auto in = ramp(comm.rank(), count, 1);
        std::vector<std::int32_t> want(count), got(count), persistent(count);
        comm.allreduce(in, want, cclx::sum, a);
        comm.backend().set_wait_policy(spin);
        no_throw(l, [&] {
          auto q = comm.iallreduce(in, got, cclx::sum, a);
          q.wait();
          auto p = comm.allreduce_init(in, persistent, cclx::sum, a);
          for (int g = 0; g < 3; ++g) {
            std::fill(persistent.begin(), persistent.end(), -1);
            p.start();
            p.wait();
            compare(l + " persistent start " + std::to_string(g), persistent, want, true);
          }
        });
        compare(l + " nonblocking", got, want, true);
      }
    }
  });
  comm.backend().set_wait_policy(polling);
}

TEST_CASE("handshake: CCLX_HANDSHAKE_BYTES is parsed, and nonsense is refused") {
  // cclx reads the environment once (cclx/settings.hpp): reload() after each change.
  auto parse = [](const char* v) {
    setenv("CCLX_HANDSHAKE_BYTES", v, 1);
    cclx::settings::reload();
    const std::size_t b = cclx::engine::handshake_bytes_from_env();
    unsetenv("CCLX_HANDSHAKE_BYTES");
    cclx::settings::reload();
    return b;
  };
  CHECK(parse("") == 0);
  CHECK(parse("0") == 0);
  CHECK(parse("65536") == 65536);
  CHECK(parse("256K") == 256u << 10);
  CHECK(parse("1M") == 1u << 20);
  CHECK(parse("1.5M") == 3u << 19);  // cclx/byte_size.hpp: exact fractions
  CHECK(parse("2GiB") == std::size_t{2} << 30);
  for (const char* bad : {"x", "1X", "-5", "1.3B", "M"}) {
    setenv("CCLX_HANDSHAKE_BYTES", bad, 1);
    cclx::settings::reload();
    CHECK_THROWS_WITH_AS(cclx::engine::handshake_bytes_from_env(),
                         doctest::Contains("CCLX_HANDSHAKE_BYTES"), cclx::Error);
  }
  unsetenv("CCLX_HANDSHAKE_BYTES");
  cclx::settings::reload();
}

}  // namespace
}  // namespace cclx_test
