// cclx-tune: the tuning suite's offline half. Measuring is `cclx-bench --tune-out` under mpiexec
// (benchmarks/tune.sh runs it per collective and communicator size); this tool explains
// algo::Auto's decision for a call, shows tables and merges them.
//
//   cclx-tune explain --collective allreduce --n 8 --bytes 1M   (reads CCLX_ALGO, CCLX_TUNE_FILE)
//   cclx-tune show table.json
//   cclx-tune merge -o all.json a.json b.json
//   cclx-tune merge --pool -o part.json run1.json run2.json run3.json
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/tune/selector.hpp"

namespace {

using namespace cclx;

constexpr const char* kUsage = R"(usage:
  cclx-tune explain --collective C --n N --bytes SIZE [--elem-size B] [--root R] [--in-place]
                    [--noncommutative] [--any-size]
      algo::Auto's choice for that call and why (CCLX_ALGO, CCLX_TUNE_FILE, then the model);
      --any-size: the choice that must hold for every size, as for a one-shot alltoallv (whose
      ranks share no size; --bytes is then ignored). alltoallv's --bytes is the busiest rank's
      send or receive total, what alltoallv_init agrees on.
  cclx-tune show FILE
      the table: per collective, rank count and size, the candidates by measured time
  cclx-tune merge [--pool] -o OUT IN [IN...]
      one table from several (later files win where they measured the same candidate);
      --pool: runs of one measurement (e.g. separate launches): a candidate with repetitions in
      several files keeps them all, and its time becomes their median
)";

struct UsageError {
  std::string what;
};

std::size_t size_arg(std::string_view s) {
  const auto v = parse_byte_size(s);
  if (!v) throw UsageError{"not a size: '" + std::string(s) + "'"};
  return *v;
}

int explain(const std::vector<std::string>& args) {
  tune::Workload w;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--collective") {
      w.collective = sched::collective_from_string(value());
    } else if (a == "--n") {
      w.nranks = static_cast<int>(size_arg(value()));
    } else if (a == "--bytes") {
      w.bytes = size_arg(value());
    } else if (a == "--elem-size") {
      w.elem_size = size_arg(value());
    } else if (a == "--root") {
      w.root = static_cast<int>(size_arg(value()));
    } else if (a == "--in-place") {
      w.in_place = true;
    } else if (a == "--noncommutative") {
      w.commutative = false;
    } else if (a == "--any-size") {
      w.sized = false;
    } else {
      throw UsageError{"unknown option " + a};
    }
  }
  if (w.nranks < 1) throw UsageError{"--n must be >= 1"};
  if (!w.sized) w.bytes = 0;
  tune::Selector s(tune::Selector::config_from_env());
  std::cout << s.decide(w).explanation << "\n";
  return 0;
}

int show(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError{"show takes one file"};
  const tune::TuningTable t = tune::TuningTable::load(args[0]);
  std::printf("# %s  machine: %s  mpi: %s\n", args[0].c_str(), t.machine.c_str(), t.mpi.c_str());
  std::printf("%-15s %5s %8s  %s\n", "# collective", "n", "bytes", "candidates by time (us)");
  for (const auto& e : t.entries()) {
    std::vector<std::pair<double, std::string>> by_time;
    for (const auto& [name, us] : e.times_us) by_time.emplace_back(us, name);
    std::sort(by_time.begin(), by_time.end());
    std::string row;
    for (const auto& [us, name] : by_time) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "=%.4g", us);
      row += " " + name + buf;
    }
    std::printf("%-15s %5d %8s %s\n", std::string(sched::to_string(e.collective)).c_str(), e.nranks,
                format_byte_size(e.bytes).c_str(), row.c_str());
  }
  return 0;
}

int merge(const std::vector<std::string>& args) {
  std::string out;
  std::vector<std::string> in;
  bool pool = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) throw UsageError{"-o needs a file"};
      out = args[++i];
    } else if (args[i] == "--pool") {
      pool = true;
    } else {
      in.push_back(args[i]);
    }
  }
  if (out.empty() || in.empty()) throw UsageError{"merge needs -o OUT and at least one input"};
  tune::TuningTable t;
  for (const auto& f : in) {
    if (pool)
      t.pool(tune::TuningTable::load(f));
    else
      t.merge(tune::TuningTable::load(f));
  }
  t.save(out);
  std::fprintf(stderr, "cclx-tune: %zu entries from %zu files -> %s\n", t.entries().size(),
               in.size(), out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw UsageError{"missing command"};
    const std::string cmd = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    if (cmd == "explain") return explain(args);
    if (cmd == "show") return show(args);
    if (cmd == "merge") return merge(args);
    if (cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return 0;
    }
    throw UsageError{"unknown command '" + cmd + "'"};
  } catch (const UsageError& e) {
    std::cerr << "cclx-tune: " << e.what << "\n" << kUsage;
    return 2;
  } catch (const cclx::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
