// Channels (schedule/channels.hpp): scheduled algorithms split into 2 and 3 concurrent parts give
// the local reference exactly (integers) and bitwise identical results on every rank, at counts
// below, at and above the number of parts (empty parts), in place and out of place, one-shot and
// persistent; a collective that does not split is refused with the same cclx::Error everywhere.
#include <doctest/doctest.h>

#include <set>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

std::vector<std::size_t> channel_counts(int n) {
  const auto un = static_cast<std::size_t>(n);
  std::set<std::size_t> s{0, 1, 2, un + 1, 3 * un + 2, 1000, 100003};
  return {s.begin(), s.end()};
}

// Every scheduled policy that serves C, with `channels` set.
template <Coll C, class F>
void for_each_split(int channels, F&& f) {
  namespace algo = cclx::algo;
  const auto one = [&](std::string_view name, auto a) {
    if constexpr (cclx::algo::serves<decltype(a)>(C)) {
      a.channels = channels;
      f(std::string(name) + "/channels=" + std::to_string(channels), a);
    }
  };
  one("ring/seg4KiB", algo::Ring{.segment_bytes = 4096});
  one("rhd", algo::RecursiveHalvingDoubling{});
  one("rhd_elimination", algo::RhdElimination{});
  one("recursive_doubling", algo::RecursiveDoubling{});
  one("binomial_tree", algo::BinomialTree{});
  one("pipelined_tree/seg256", algo::PipelinedTree{.segment_bytes = 256});
}

}  // namespace

TEST_CASE("channels: allreduce, reduce and bcast split into 2 and 3 parts") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  const int n = comm.size(), r = comm.rank();
  for (const int k : {2, 3}) {
    for (std::size_t count : channel_counts(n)) {
      const auto in = reduce_inputs<std::int32_t>(cclx::OpId::sum, r, 0, count);
      const auto ref = reduced<std::int32_t>(cclx::OpId::sum, n, 0, count);
      const std::string c = " count=" + std::to_string(count);
      for_each_split<Coll::allreduce>(k, [&](const std::string& name, const auto& a) {
        for (bool in_place : {false, true}) {
          const std::string l =
              "allreduce int32 sum" + c + " [" + name + (in_place ? ", in place]" : "]");
          progress(l);
          std::vector<std::int32_t> out = in_place ? in : std::vector<std::int32_t>(count, -7);
          const bool ok = in_place ? no_throw(l, [&] { comm.allreduce(out, cclx::sum, a); })
                                   : no_throw(l, [&] { comm.allreduce(in, out, cclx::sum, a); });
          if (!ok) continue;
          compare(l, out, ref, true);
          cons.add(l, out);
        }
        // Floats: the order of the additions shows in the last bits, which must agree everywhere.
        const auto fin = reduce_inputs<float>(cclx::OpId::sum, r, 0, count);
        std::vector<float> fout(count);
        const std::string l = "allreduce float sum" + c + " [" + name + "]";
        if (no_throw(l, [&] { comm.allreduce(fin, fout, cclx::sum, a); })) {
          compare(l, fout, reduced<float>(cclx::OpId::sum, n, 0, count), false);
          cons.add(l, fout);
        }
      });
      for_each_split<Coll::reduce>(k, [&](const std::string& name, const auto& a) {
        for (int root : {0, n - 1}) {
          const std::string l =
              "reduce int32 sum" + c + " [" + name + ", root " + std::to_string(root) + "]";
          progress(l);
          std::vector<std::int32_t> out(count, -7);
          if (!no_throw(l, [&] { comm.reduce(in, out, cclx::sum, root, a); })) continue;
          if (r == root) compare(l, out, ref, true);
        }
      });
      for_each_split<Coll::bcast>(k, [&](const std::string& name, const auto& a) {
        const int root = n / 2;
        std::vector<std::uint8_t> want(count);
        for (std::size_t i = 0; i < count; ++i) want[i] = data_value<std::uint8_t>(root, i);
        const std::string l =
            "bcast uint8" + c + " [" + name + ", root " + std::to_string(root) + "]";
        progress(l);
        std::vector<std::uint8_t> buf = r == root ? want : std::vector<std::uint8_t>(count, 0xA5);
        if (!no_throw(l, [&] { comm.bcast(buf, root, a); })) return;
        compare(l, buf, want, true);
        cons.add(l, buf);
      });
    }
    cons.flush();
  }
}

TEST_CASE("channels: persistent allreduce with channels repeats exactly") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const std::size_t count = 4099;
  const auto in = reduce_inputs<std::int64_t>(cclx::OpId::sum, r, 0, count);
  std::vector<std::int64_t> out(count, -1);
  auto req = comm.allreduce_init(in, out, cclx::sum, cclx::algo::Ring{.channels = 3});
  for (int i = 0; i < 3; ++i) {
    std::fill(out.begin(), out.end(), -1);
    req.start();
    req.wait();
    compare("persistent ring/channels=3 call " + std::to_string(i), out,
            reduced<std::int64_t>(cclx::OpId::sum, n, 0, count), true);
  }
}

TEST_CASE("channels: a collective with one block per rank refuses channels on every rank") {
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> mine(3, comm.rank()), all(3 * static_cast<std::size_t>(comm.size()));
  expect_error("allgather ring/channels=2", comm.rank(),
               [&] { comm.allgather(mine, all, cclx::algo::Ring{.channels = 2}); },
               {"does not split into channels"});
}

}  // namespace cclx_test
