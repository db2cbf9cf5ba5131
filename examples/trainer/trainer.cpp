// cclx-trainer: data-parallel SGD on a small MLP. Every rank trains the same model on its own
// shard of a synthetic dataset; the gradients are all-reduced in buckets that overlap the backward
// pass (nonblocking or persistent cclx collectives) and averaged; every rank then takes the same
// step, so the parameters stay bitwise identical (checked by hashing). docs/trainer.md.
//
//   mpiexec -n 2 build/examples/trainer/cclx-trainer --algo ring --mode persistent --iters 200
#include <algorithm>
#include <cclx/cclx.hpp>
#include <cclx/detail/median.hpp>
#include <cclx/relay/adaptive.hpp>
#include <cclx/tune/candidate.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "algorithms.hpp"
#include "bucketing.hpp"
#include "cli.hpp"
#include "data.hpp"
#include "model.hpp"
#include "rng.hpp"

namespace {

using trainer::Mode;

struct Options {
  std::string algo = "native";
  Mode mode = Mode::persistent;
  std::size_t bucket_bytes = 64 << 10;
  int iters = 100, batch = 64, hidden = 256, depth = 2, inputs = 64, classes = 10;
  trainer::Activation activation = trainer::Activation::tanh;
  float lr = 0.2f;
  std::uint64_t seed = 1;
  int straggler_rank = -1;
  double straggler_ms = 0, jitter_ms = 0;
  int check_every = 0, print_every = 0;
  int diverge_rank = -1;
  bool reproducible = false;
  bool survive = false;
  int exit_rank = -1, exit_iter = 1;
  std::string csv;
};

// The command line into `o`; nullopt to go on, else the exit status (rank 0 prints).
std::optional<int> parse(int argc, char** argv, Options& o) {
  cclx::kit::App app("cclx-trainer",
                     "Data-parallel SGD on a small MLP, gradients all-reduced in buckets that "
                     "overlap the backward pass (docs/trainer.md). Run under mpiexec.");
  app.add_option("--algo", o.algo,
                 "allreduce algorithm: auto, native, ring, rhd, pipelined_tree, "
                 "straggler_aware, adaptive (AdapCC relays), or any registry candidate, e.g. "
                 "\"ring(segment_bytes=64K)\" [native]");
  cclx::kit::add_choice<Mode>(app, "--mode", o.mode,
                              {{"nonblocking", Mode::nonblocking},
                               {"persistent", Mode::persistent},
                               {"blocking", Mode::blocking}},
                              "[persistent]; straggler_aware runs blocking, adaptive persistent");
  app.add_option("--buckets", o.bucket_bytes, "gradient bucket size in bytes [64K]")
      ->transform(cclx::kit::ByteSize{});
  app.add_option("--iters", o.iters, "iterations [100]")->check(cclx::kit::Positive{});
  app.add_option("--batch", o.batch, "samples per rank and iteration [64]")
      ->check(cclx::kit::Positive{});
  app.add_option("--hidden", o.hidden, "width of the hidden layers [256]")
      ->check(cclx::kit::Positive{});
  app.add_option("--depth", o.depth, "number of hidden layers [2]")
      ->check(cclx::kit::NonNegative{});
  app.add_option("--inputs", o.inputs, "input features [64]")->check(CLI::Range(1, 65536));
  app.add_option("--classes", o.classes, "classes [10]")
      ->check(CLI::Range(2, std::numeric_limits<int>::max()));
  cclx::kit::add_choice<trainer::Activation>(
      app, "--activation", o.activation,
      {{"tanh", trainer::Activation::tanh}, {"relu", trainer::Activation::relu}}, "[tanh]");
  app.add_option("--lr", o.lr, "learning rate [0.2]");
  app.add_option("--seed", o.seed, "data and initial weights [1]");
  app.add_option("--straggler-rank", o.straggler_rank,
                 "this rank sleeps --straggler-ms before every backward pass [-1: none]");
  app.add_option("--straggler-ms", o.straggler_ms, "[0]")->check(cclx::kit::NonNegative{});
  app.add_option("--jitter-ms", o.jitter_ms,
                 "every rank sleeps a random 0..J ms before every backward pass [0]")
      ->check(cclx::kit::NonNegative{});
  app.add_option("--check-every", o.check_every,
                 "compare the ranks' parameter hashes every K iterations (always at the end)");
  app.add_option("--print-every", o.print_every,
                 "print the loss every K iterations [0: only the summary]");
  app.add_option("--csv", o.csv, "per iteration: iter,loss,time_ms,wait_ms (rank 0 writes it)");
  app.add_flag("--reproducible", o.reproducible,
               "reproducible mode (docs/reproducibility.md): every float reduction in the "
               "canonical order, so losses and parameters have the same bits whatever the "
               "algorithm; --algo must keep that order (auto, canonical_halving, binomial_tree)");
  app.add_option("--diverge-rank", o.diverge_rank,
                 "test of the check: rank R moves one parameter by one ulp after step 1");
  app.add_flag("--survive", o.survive,
               "when ranks die (a collective fails; set CCLX_TIMEOUT), the others shrink the "
               "communicator, re-split the data and redo the iteration (docs/faults.md)");
  app.add_option("--exit-rank", o.exit_rank,
                 "test of --survive: rank R (of MPI_COMM_WORLD) exits in the backward pass of "
                 "iteration --exit-iter");
  app.add_option("--exit-iter", o.exit_iter, "[1]")->check(cclx::kit::Positive{});
  return cclx::kit::parse_mpi(app, argc, argv);
}

// FNV-1a over the parameters' bytes.
std::uint64_t hash_of(std::span<const float> p) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(p.data());
  for (std::size_t i = 0; i < p.size_bytes(); ++i) h = (h ^ bytes[i]) * 0x100000001b3ULL;
  return h;
}

// Every rank's parameter hash; throws (on every rank alike) when they differ.
std::uint64_t check_identical(cclx::Communicator<>& comm, std::span<const float> params, int iter) {
  const std::uint64_t mine = hash_of(params);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const std::uint64_t>(&mine, 1), all);
  if (std::all_of(all.begin(), all.end(), [&](std::uint64_t h) { return h == all[0]; }))
    return mine;
  std::string msg =
      "parameters differ across ranks after iteration " + std::to_string(iter) + " (hash per rank:";
  for (std::size_t r = 0; r < all.size(); ++r) {
    char buf[40];
    std::snprintf(buf, sizeof buf, " %zu:%016llx", r, static_cast<unsigned long long>(all[r]));
    msg += buf;
  }
  throw cclx::Error(msg + "); the gradients were not all-reduced to the same sums on every rank");
}

void sleep_ms(double ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

// What one attempt at the iterations needs and leaves behind; an attempt ends when a collective
// fails (ranks died) and starts again on the shrunken communicator (--survive).
struct Run {
  const Options& o;
  trainer::Mlp& model;
  const trainer::Dataset& data;
  const std::vector<trainer::Bucket>& buckets;
  std::vector<double> loss{}, time_ms{}, wait_ms{}, ranks{};
  std::vector<std::chrono::steady_clock::time_point> began{};  // an iteration's first attempt
  std::vector<float> snapshot[2]{};  // parameters at the start of iteration it - 1 and it
  int it = 0;                        // the iteration this rank is in
  std::string choices{};             // of the adaptive algorithms, for the summary
};

// Iterations run.it .. o.iters - 1 on `comm`, then the closing check. A cclx::Error (a rank died)
// unwinds through the reducer, which abandons its requests without waiting.
std::uint64_t iterate(Run& run, cclx::Communicator<>& comm) {
  const Options& o = run.o;
  const int rank = comm.rank(), n = comm.size();
  std::unique_ptr<trainer::Reducer> reducer =
      trainer::with_algorithm(o.algo, [&](const auto& policy) -> std::unique_ptr<trainer::Reducer> {
        using A = std::decay_t<decltype(policy)>;
        return std::make_unique<trainer::BucketReducer<A>>(comm, run.model.grads(), run.buckets,
                                                           o.mode, policy);
      });
  if (rank == 0 && run.it == 0) {
    std::printf("cclx-trainer: %d ranks, algo %s, mode %s", n, o.algo.c_str(),
                to_string(reducer->mode()));
    if (reducer->mode() != o.mode)
      std::printf(reducer->mode() == trainer::Mode::persistent
                      ? " (asked for %s: relay collectives are persistent only; a bucket's "
                        "start() tells the others this rank is ready)"
                      : " (asked for %s: adaptive algorithms choose per call from the previous "
                        "calls, so they serve blocking calls only: one blocking allreduce per "
                        "bucket after the backward pass)",
                  to_string(o.mode));
    std::printf("\n  model");
    for (const auto& l : run.model.layers()) std::printf(" %d", l.in);
    std::printf(" %d (%zu parameters), %zu buckets of >= %zu bytes:", run.model.layers().back().out,
                run.model.params().size(), run.buckets.size(), o.bucket_bytes);
    for (const auto& b : run.buckets) std::printf(" %zu", (b.end - b.begin) * sizeof(float));
    std::printf("\n");
    if (o.straggler_rank >= 0)
      std::printf("  straggler: rank %d sleeps %g ms per iteration\n", o.straggler_rank,
                  o.straggler_ms);
    if (o.jitter_ms > 0) std::printf("  jitter: every rank sleeps 0..%g ms\n", o.jitter_ms);
    std::fflush(stdout);
  }
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  trainer::Matrix x;
  std::vector<int> y;
  const auto params = run.model.params();
  const auto grads = run.model.grads();
  const auto nf = static_cast<float>(n);
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  for (; run.it < o.iters; ++run.it) {
    const int it = run.it;
    const auto t0 = clock::now();
    if (run.began[it] == clock::time_point{}) run.began[it] = t0;
    if (o.survive) {
      std::swap(run.snapshot[0], run.snapshot[1]);
      run.snapshot[1].assign(params.begin(), params.end());
    }
    const auto first =
        (static_cast<std::uint64_t>(it) * static_cast<std::uint64_t>(n) + rank) * o.batch;
    run.data.batch(first, o.batch, x, y);
    run.loss[it] = run.model.forward(x, y);
    // Injected delays: a persistent straggler and per-rank, per-iteration jitter.
    double delay = rank == o.straggler_rank ? o.straggler_ms : 0.0;
    if (o.jitter_ms > 0)
      delay += o.jitter_ms * trainer::uniform01(o.seed, trainer::stream_jitter,
                                                (static_cast<std::uint64_t>(rank) << 32) + it);
    sleep_ms(delay);
    run.model.backward([&](int layer) {
      reducer->layer_done(layer);
      if (world_rank == o.exit_rank && it + 1 == o.exit_iter && layer == 0) {
        std::printf("cclx-trainer: rank %d exits in iteration %d (--exit-rank)\n", world_rank,
                    it + 1);
        std::fflush(stdout);
        std::_Exit(0);
      }
    });
    const auto t1 = clock::now();
    reducer->finish();
    run.wait_ms[it] = ms_since(t1);
    for (std::size_t i = 0; i < params.size(); ++i) params[i] -= o.lr * (grads[i] / nf);
    run.time_ms[it] = ms_since(run.began[it]);
    run.ranks[it] = n;
    if (it == 0 && rank == o.diverge_rank)
      params[0] = std::nextafter(params[0], std::numeric_limits<float>::infinity());
    if (o.check_every > 0 && (it + 1) % o.check_every == 0 && it + 1 < o.iters)
      check_identical(comm, params, it + 1);
    if (rank == 0 && o.print_every > 0 && (it + 1) % o.print_every == 0)
      std::printf("  iter %d: local loss %.6f, %.3f ms\n", it + 1, run.loss[it], run.time_ms[it]);
  }
  run.choices = reducer->choices();
  return check_identical(comm, params, o.iters);
}

// After a collective failed: the survivors shrink the communicator and agree on the iteration to
// redo (a rank may have finished the failed one: the others' data reached it), and each takes
// the parameters it had when that iteration started.
std::unique_ptr<cclx::Communicator<>> recover(Run& run, cclx::Communicator<>& comm,
                                              const cclx::Error& e) {
  const auto t0 = std::chrono::steady_clock::now();
  const int failed_in = run.it;
  auto next = std::make_unique<cclx::Communicator<>>(comm.shrink());
  int redo = failed_in;
  next->allreduce(std::span<int>(&redo, 1), cclx::min);
  if (failed_in - redo > 1 || failed_in < redo)
    throw cclx::Error("--survive: this rank is in iteration " + std::to_string(failed_in + 1) +
                      ", the others redo " + std::to_string(redo + 1));
  const auto params = run.model.params();
  const std::vector<float>& start = run.snapshot[failed_in == redo ? 1 : 0];
  std::copy(start.begin(), start.end(), params.begin());
  run.it = redo;
  if (next->rank() == 0)
    std::printf(
        "cclx-trainer: %d of %d ranks go on from iteration %d after %s\n  shrink and agreement: "
        "%.1f ms\n",
        next->size(), comm.size(), redo + 1, e.what(),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  std::fflush(stdout);
  return next;
}

int train(const Options& o, cclx::Communicator<>& world) {
  const int n = world.size();
  for (const auto& [flag, r] :
       {std::pair{"--straggler-rank", o.straggler_rank},
        std::pair{"--diverge-rank", o.diverge_rank}, std::pair{"--exit-rank", o.exit_rank}})
    if (r >= n)
      throw cclx::Error(std::string(flag) + " " + std::to_string(r) + ": there are only " +
                        std::to_string(n) + " ranks");
  if (o.straggler_ms > 0 && o.straggler_rank < 0)
    throw cclx::Error("--straggler-ms needs --straggler-rank");
  std::vector<int> widths{o.inputs};
  for (int l = 0; l < o.depth; ++l) widths.push_back(o.hidden);
  widths.push_back(o.classes);
  trainer::Mlp model(widths, o.activation, o.seed);
  const trainer::Dataset data(o.inputs, o.classes, o.seed);
  const auto buckets = trainer::make_buckets(model.layers(), o.bucket_bytes);
  const auto iters = static_cast<std::size_t>(o.iters);
  Run run{o, model, data, buckets};
  for (auto* v : {&run.loss, &run.time_ms, &run.wait_ms, &run.ranks}) v->resize(iters);
  run.began.resize(iters);

  // Communicators of earlier attempts stay alive: their abandoned requests may refer to them.
  std::vector<std::unique_ptr<cclx::Communicator<>>> shrunk;
  cclx::Communicator<>* comm = &world;
  std::uint64_t hash = 0;
  for (;;) {
    try {
      hash = iterate(run, *comm);
      break;
    } catch (const cclx::Error& e) {
      if (!o.survive) throw;
      shrunk.push_back(recover(run, *comm, e));
      comm = shrunk.back().get();
    }
  }
  const int rank = comm->rank(), alive = comm->size();

  // The global loss (mean over the ranks left of the local means) and the slowest rank's times.
  // In reproducible mode algo::Auto chooses an algorithm that keeps the canonical order (native
  // keeps none); otherwise the MPI library's own.
  if (o.reproducible)
    comm->allreduce(run.loss, cclx::sum, cclx::algo::Auto{});
  else
    comm->allreduce(run.loss, cclx::sum);
  for (double& l : run.loss) l /= alive;
  comm->allreduce(run.time_ms, cclx::max);
  comm->allreduce(run.wait_ms, cclx::max);
  if (rank == 0) {
    if (!o.csv.empty()) {
      std::ofstream f(o.csv);
      f << "iter,loss,time_ms,wait_ms,ranks\n";
      char line[160];
      for (int it = 0; it < o.iters; ++it) {
        std::snprintf(line, sizeof line, "%d,%.17g,%.4f,%.4f,%d\n", it + 1, run.loss[it],
                      run.time_ms[it], run.wait_ms[it], static_cast<int>(run.ranks[it]));
        f << line;
      }
      if (!f) throw cclx::Error("cannot write " + o.csv);
    }
    // Timing summaries skip the first iteration (plan building, first-touch).
    const std::vector<double> steady(run.time_ms.begin() + (o.iters > 1), run.time_ms.end());
    const std::vector<double> steady_wait(run.wait_ms.begin() + (o.iters > 1), run.wait_ms.end());
    std::printf("loss: first %.6f last %.6f\n", run.loss.front(), run.loss.back());
    std::printf(
        "time per iteration: median %.3f ms, mean %.3f ms, max %.3f ms (wait after backward: "
        "median %.3f ms)\n",
        cclx::detail::median(steady),
        std::accumulate(steady.begin(), steady.end(), 0.0) /
            static_cast<double>(std::max<std::size_t>(steady.size(), 1)),
        steady.empty() ? 0.0 : *std::max_element(steady.begin(), steady.end()),
        cclx::detail::median(steady_wait));
    if (!run.choices.empty())
      std::printf("adaptive choice for the next call: %s\n", run.choices.c_str());
    std::printf("parameters identical on all %d ranks: hash %016llx\n", alive,
                static_cast<unsigned long long>(hash));
  }
  return alive < n ? -1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  // algo::Adaptive relays on a progress thread: it needs MPI_THREAD_MULTIPLE (and says so when
  // MPI provides less); the others run at MPI_Init's level, so their timings are not taxed.
  bool relay = false;
  for (int i = 1; i + 1 < argc; ++i)
    relay |= std::string_view(argv[i]) == "--algo" && std::string_view(argv[i + 1]) == "adaptive";
  int provided = 0;
  if (relay)
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Options o;
  if (const auto usage_rc = parse(argc, argv, o)) return *usage_rc;
  int rc = 0;
  try {
    cclx::Communicator comm(MPI_COMM_WORLD);
    if (o.reproducible) comm.set_reproducible(true);
    rc = train(o, comm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cclx-trainer: rank %d: %s\n", rank, e.what());
    rc = 1;
  }
  if (rc < 0) {  // ranks died: MPI_Finalize may wait for them (docs/faults.md)
    std::fflush(stdout);
    std::_Exit(0);
  }
  MPI_Finalize();
  return rc;
}
