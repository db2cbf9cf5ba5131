// cclx-ring-gap: the large-message ring allreduce against its transfer bound on 2 ranks
// (docs/results-ring.md).
//
//   mpiexec -n 2 cclx-ring-gap [BYTES [REPS [SEGMENT_BYTES...]]]   (defaults: 64 MiB, 21, 0 1M)
//
// Per repetition, interleaved so that load drifts hit all alike: the bound, i.e. the two
// exchanges a 2-rank ring allreduce of BYTES needs (MPI_Sendrecv of BYTES/2 both ways, twice), then
// algo::Ring and "ring/scratch" (the ring as it was before partial sums landed in Out: arriving
// data in scratch, then reduced into Out) at each segment size. Each sample is the slowest rank's
// time of one call after a barrier; the medians are printed with bound/time (1 = at the bound).
// Float sum, out of place; the ring's result is checked against a local reference.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cclx/cclx.hpp"
#include "cli.hpp"
#include "kit/timing.hpp"

namespace {

// The ring with its arriving partial sums landing in scratch (the schedule before this change).
struct RingScratch {
  static constexpr std::string_view name = "ring_scratch";
  static constexpr std::array collectives = {cclx::sched::Collective::allreduce};
  static constexpr std::array<cclx::sched::Collective, 0> keeps_rank_order = {};
  std::size_t segment_bytes = 0;

  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    using cclx::sched::Buf;
    using cclx::sched::OpKind;
    cclx::sched::Schedule s = cclx::sched::ring(r);
    for (auto& prog : s.programs)
      for (std::size_t st = 0; st < prog.num_steps(); ++st) {
        cclx::sched::Op* ops = prog.ops.data() + prog.step_begin[st];
        const std::size_t n = prog.step_size(st);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < n; ++j)
            if (ops[i].kind == OpKind::recv && ops[j].kind == OpKind::reduce &&
                ops[i].dst.buf == Buf::out && ops[j].src == ops[i].dst) {
              ops[i].dst.buf = Buf::scratch;
              ops[j].src.buf = Buf::scratch;
            }
      }
    return s;
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {segment_bytes, {}}; }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    std::size_t bytes = 64u << 20;
    int reps = 21;
    std::vector<std::size_t> segs;
    cclx::kit::App app("cclx-ring-gap",
                       "The large-message ring allreduce against its transfer bound on 2 ranks "
                       "(docs/results-ring.md).");
    app.add_option("BYTES", bytes, "message size, a multiple of 8 (default 64M)")
        ->transform(cclx::kit::ByteSize{});
    app.add_option("REPS", reps, "repetitions; the medians are printed (default 21)")
        ->check(cclx::kit::Positive{});
    app.add_option("SEGMENT_BYTES", segs, "the ring's segment sizes (default 0 1M)")
        ->transform(cclx::kit::ByteSize{});
    if (const auto usage_rc = cclx::kit::parse_mpi(app, argc, argv)) return *usage_rc;
    cclx::Communicator comm(MPI_COMM_WORLD);
    if (segs.empty()) segs = {0, 1u << 20};
    if (comm.size() != 2 || bytes % 8) {
      if (comm.rank() == 0) std::fprintf(stderr, "cclx-ring-gap: 2 ranks, BYTES a multiple of 8\n");
      MPI_Finalize();
      return 2;
    }
    const int rank = comm.rank(), peer = 1 - rank;
    const std::size_t n = bytes / sizeof(float), half = bytes / 2;
    std::vector<float> in(n), out(n), sbuf(n / 2, 1.0f), rbuf(n / 2);
    auto value = [](std::size_t i, int r) { return static_cast<float>((i * 7 + r) % 13); };
    for (std::size_t i = 0; i < n; ++i) in[i] = value(i, rank);

    auto timed = [&](auto&& f) { return cclx::kit::slowest_call(MPI_COMM_WORLD, f) * 1e3; };
    auto exchange = [&] {
      for (int k = 0; k < 2; ++k)
        MPI_Sendrecv(sbuf.data(), static_cast<int>(half), MPI_BYTE, peer, 7, rbuf.data(),
                     static_cast<int>(half), MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    };
    auto check = [&](const char* what) {
      for (std::size_t i = 0; i < n; ++i)
        if (out[i] != value(i, 0) + value(i, 1)) {
          std::fprintf(stderr, "rank %d: %s wrong at element %zu\n", rank, what, i);
          return false;
        }
      return true;
    };

    std::vector<std::string> names{"bound (2 x Sendrecv of BYTES/2)"};
    std::vector<std::vector<double>> t(1 + 2 * segs.size());
    for (std::size_t s : segs) {
      names.push_back("ring segment_bytes=" + std::to_string(s));
      names.push_back("ring/scratch segment_bytes=" + std::to_string(s));
    }
    for (int r = -2; r < reps; ++r) {  // two warm-up rounds
      const double b = timed(exchange);
      if (r >= 0) t[0].push_back(b);
      for (std::size_t k = 0; k < segs.size(); ++k) {
        std::fill(out.begin(), out.end(), 0.0f);
        const double a = timed([&] {
          comm.allreduce(in, out, cclx::sum, cclx::algo::Ring{.segment_bytes = segs[k]});
        });
        if (r == -2 && !check("ring")) rc = 1;
        std::fill(out.begin(), out.end(), 0.0f);
        const double c = timed(
            [&] { comm.allreduce(in, out, cclx::sum, RingScratch{.segment_bytes = segs[k]}); });
        if (r == -2 && !check("ring/scratch")) rc = 1;
        if (r >= 0) {
          t[1 + 2 * k].push_back(a);
          t[2 + 2 * k].push_back(c);
        }
      }
    }
    if (rank == 0) {
      const double bound = cclx::kit::median(t[0]);
      std::printf("# cclx-ring-gap: %zu bytes, 2 ranks, float sum, out of place, median of %d\n",
                  bytes, reps);
      for (std::size_t i = 0; i < t.size(); ++i)
        std::printf("%-40s %9.2f ms  bound/time %.3f\n", names[i].c_str(), cclx::kit::median(t[i]),
                    bound / cclx::kit::median(t[i]));
    }
  }
  MPI_Finalize();
  return rc;
}
