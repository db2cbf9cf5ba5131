// cclx-trainer: data-parallel SGD on a small MLP. Every rank trains the same model on its own
// shard of a synthetic dataset; the gradients are all-reduced in buckets that overlap the backward
// pass (nonblocking or persistent cclx collectives) and averaged; every rank then takes the same
// step, so the parameters stay bitwise identical (checked by hashing). docs/trainer.md.
//
//   mpiexec -n 2 build/examples/trainer/cclx-trainer --algo ring --mode persistent --iters 200
#include <algorithm>
#include <cclx/cclx.hpp>
#include <cclx/tune/candidate.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "algorithms.hpp"
#include "bucketing.hpp"
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
  std::string csv;
};

constexpr const char* usage = R"usage(usage: cclx-trainer [options]   (under mpiexec)
  --algo NAME          allreduce algorithm: auto, native, ring, rhd, pipelined_tree,
                       straggler_aware, adaptive (AdapCC relays), or any registry candidate,
                       e.g. "ring(segment_bytes=64K)" [native]
  --mode M             nonblocking | persistent | blocking [persistent]; straggler_aware runs
                       blocking, adaptive persistent
  --buckets SIZE       gradient bucket size in bytes (K, M suffixes) [64K]
  --iters N            iterations [100]
  --batch B            samples per rank and iteration [64]
  --hidden H           width of the hidden layers [256]
  --depth L            number of hidden layers [2]
  --inputs D           input features [64]
  --classes C          classes [10]
  --activation A       tanh | relu [tanh]
  --lr X               learning rate [0.2]
  --seed S             data and initial weights [1]
  --straggler-rank R   this rank sleeps --straggler-ms before every backward pass [-1: none]
  --straggler-ms M     [0]
  --jitter-ms J        every rank sleeps a random 0..J ms before every backward pass [0]
  --check-every K      compare the ranks' parameter hashes every K iterations (always at the end)
  --print-every K      print the loss every K iterations [0: only the summary]
  --csv FILE           per iteration: iter,loss,time_ms,wait_ms (rank 0 writes it)
  --diverge-rank R     test of the check: rank R moves one parameter by one ulp after step 1
)usage";

struct UsageError {
  std::string what;
};

template <class T>
T number(std::string_view flag, const std::string& text) {
  try {
    std::size_t used = 0;
    T v{};
    if constexpr (std::is_floating_point_v<T>)
      v = static_cast<T>(std::stod(text, &used));
    else
      v = static_cast<T>(std::stoll(text, &used));
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw UsageError{std::string(flag) + ": not a number: '" + text + "'"};
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    if (flag == "-h" || flag == "--help") throw UsageError{};
    if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      throw UsageError{flag + " needs a value"};
    }
    const auto positive = [&](int v) {
      if (v < 1) throw UsageError{flag + " must be at least 1"};
      return v;
    };
    if (flag == "--algo") {
      o.algo = value;
    } else if (flag == "--mode") {
      if (value == "blocking")
        o.mode = Mode::blocking;
      else if (value == "nonblocking")
        o.mode = Mode::nonblocking;
      else if (value == "persistent")
        o.mode = Mode::persistent;
      else
        throw UsageError{"--mode: blocking, nonblocking or persistent, not '" + value + "'"};
    } else if (flag == "--buckets") {
      const auto s = cclx::parse_byte_size(value);
      if (!s) throw UsageError{"--buckets: not a size: '" + value + "'"};
      o.bucket_bytes = *s;
    } else if (flag == "--iters") {
      o.iters = positive(number<int>(flag, value));
    } else if (flag == "--batch") {
      o.batch = positive(number<int>(flag, value));
    } else if (flag == "--hidden") {
      o.hidden = positive(number<int>(flag, value));
    } else if (flag == "--depth") {
      o.depth = number<int>(flag, value);
      if (o.depth < 0) throw UsageError{"--depth must not be negative"};
    } else if (flag == "--inputs") {
      o.inputs = positive(number<int>(flag, value));
      if (o.inputs > 65536) throw UsageError{"--inputs: at most 65536"};
    } else if (flag == "--classes") {
      o.classes = number<int>(flag, value);
      if (o.classes < 2) throw UsageError{"--classes must be at least 2"};
    } else if (flag == "--activation") {
      if (value == "tanh")
        o.activation = trainer::Activation::tanh;
      else if (value == "relu")
        o.activation = trainer::Activation::relu;
      else
        throw UsageError{"--activation: tanh or relu, not '" + value + "'"};
    } else if (flag == "--lr") {
      o.lr = number<float>(flag, value);
    } else if (flag == "--seed") {
      o.seed = number<std::uint64_t>(flag, value);
    } else if (flag == "--straggler-rank") {
      o.straggler_rank = number<int>(flag, value);
    } else if (flag == "--straggler-ms") {
      o.straggler_ms = number<double>(flag, value);
    } else if (flag == "--jitter-ms") {
      o.jitter_ms = number<double>(flag, value);
    } else if (flag == "--check-every") {
      o.check_every = number<int>(flag, value);
    } else if (flag == "--print-every") {
      o.print_every = number<int>(flag, value);
    } else if (flag == "--diverge-rank") {
      o.diverge_rank = number<int>(flag, value);
    } else if (flag == "--csv") {
      o.csv = value;
    } else {
      throw UsageError{"unknown option " + flag};
    }
  }
  if (o.straggler_ms < 0 || o.jitter_ms < 0) throw UsageError{"sleep times must not be negative"};
  return o;
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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int train(const Options& o, cclx::Communicator<>& comm) {
  const int rank = comm.rank(), n = comm.size();
  for (const auto& [flag, r] : {std::pair{"--straggler-rank", o.straggler_rank},
                                std::pair{"--diverge-rank", o.diverge_rank}})
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

  std::unique_ptr<trainer::Reducer> reducer =
      trainer::with_algorithm(o.algo, [&](const auto& policy) -> std::unique_ptr<trainer::Reducer> {
        using A = std::decay_t<decltype(policy)>;
        return std::make_unique<trainer::BucketReducer<A>>(comm, model.grads(), buckets, o.mode,
                                                           policy);
      });
  if (rank == 0) {
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
    for (int w : widths) std::printf(" %d", w);
    std::printf(" (%zu parameters), %zu buckets of >= %zu bytes:", model.params().size(),
                buckets.size(), o.bucket_bytes);
    for (const auto& b : buckets) std::printf(" %zu", (b.end - b.begin) * sizeof(float));
    std::printf("\n");
    if (o.straggler_rank >= 0)
      std::printf("  straggler: rank %d sleeps %g ms per iteration\n", o.straggler_rank,
                  o.straggler_ms);
    if (o.jitter_ms > 0) std::printf("  jitter: every rank sleeps 0..%g ms\n", o.jitter_ms);
    std::fflush(stdout);
  }

  std::vector<double> loss(static_cast<std::size_t>(o.iters)),
      time_ms(static_cast<std::size_t>(o.iters)), wait_ms(static_cast<std::size_t>(o.iters));
  trainer::Matrix x;
  std::vector<int> y;
  const auto params = model.params();
  const auto grads = model.grads();
  const auto nf = static_cast<float>(n);
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t) {
    return std::chrono::duration<double, std::milli>(clock::now() - t).count();
  };
  for (int it = 0; it < o.iters; ++it) {
    const auto t0 = clock::now();
    const auto first =
        (static_cast<std::uint64_t>(it) * static_cast<std::uint64_t>(n) + rank) * o.batch;
    data.batch(first, o.batch, x, y);
    loss[it] = model.forward(x, y);
    // Injected delays: a persistent straggler and per-rank, per-iteration jitter.
    double delay = rank == o.straggler_rank ? o.straggler_ms : 0.0;
    if (o.jitter_ms > 0)
      delay += o.jitter_ms * trainer::uniform01(o.seed, trainer::stream_jitter,
                                                (static_cast<std::uint64_t>(rank) << 32) + it);
    sleep_ms(delay);
    model.backward([&](int layer) { reducer->layer_done(layer); });
    const auto t1 = clock::now();
    reducer->finish();
    wait_ms[it] = ms_since(t1);
    for (std::size_t i = 0; i < params.size(); ++i) params[i] -= o.lr * (grads[i] / nf);
    time_ms[it] = ms_since(t0);
    if (it == 0 && rank == o.diverge_rank)
      params[0] = std::nextafter(params[0], std::numeric_limits<float>::infinity());
    if (o.check_every > 0 && (it + 1) % o.check_every == 0 && it + 1 < o.iters)
      check_identical(comm, params, it + 1);
    if (rank == 0 && o.print_every > 0 && (it + 1) % o.print_every == 0)
      std::printf("  iter %d: local loss %.6f, %.3f ms\n", it + 1, loss[it], time_ms[it]);
  }
  const std::uint64_t hash = check_identical(comm, params, o.iters);

  // The global loss (mean over ranks of the local means) and the slowest rank's times.
  comm.allreduce(loss, cclx::sum);
  for (double& l : loss) l /= n;
  comm.allreduce(time_ms, cclx::max);
  comm.allreduce(wait_ms, cclx::max);
  if (rank == 0) {
    if (!o.csv.empty()) {
      std::ofstream f(o.csv);
      f << "iter,loss,time_ms,wait_ms\n";
      char line[128];
      for (int it = 0; it < o.iters; ++it) {
        std::snprintf(line, sizeof line, "%d,%.17g,%.4f,%.4f\n", it + 1, loss[it], time_ms[it],
                      wait_ms[it]);
        f << line;
      }
      if (!f) throw cclx::Error("cannot write " + o.csv);
    }
    // Timing summaries skip the first iteration (plan building, first-touch).
    const std::vector<double> steady(time_ms.begin() + (o.iters > 1), time_ms.end());
    const std::vector<double> steady_wait(wait_ms.begin() + (o.iters > 1), wait_ms.end());
    std::printf("loss: first %.6f last %.6f\n", loss.front(), loss.back());
    std::printf(
        "time per iteration: median %.3f ms, mean %.3f ms (wait after backward: median "
        "%.3f ms)\n",
        median(steady),
        std::accumulate(steady.begin(), steady.end(), 0.0) /
            static_cast<double>(std::max<std::size_t>(steady.size(), 1)),
        median(steady_wait));
    if (const std::string c = reducer->choices(); !c.empty())
      std::printf("adaptive choice for the next call: %s\n", c.c_str());
    std::printf("parameters identical on all %d ranks: hash %016llx\n", n,
                static_cast<unsigned long long>(hash));
  }
  return 0;
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
  int rc = 0;
  try {
    const Options o = parse(argc, argv);
    cclx::Communicator comm(MPI_COMM_WORLD);
    rc = train(o, comm);
  } catch (const UsageError& e) {
    if (rank == 0) {
      if (!e.what.empty()) std::fprintf(stderr, "cclx-trainer: %s\n", e.what.c_str());
      std::fputs(usage, e.what.empty() ? stdout : stderr);
    }
    rc = e.what.empty() ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cclx-trainer: rank %d: %s\n", rank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
