// cclx-tune: the tuning suite's offline half. Measuring is `cclx-bench --tune-out` under mpiexec
// (benchmarks/tune.sh runs it per collective and communicator size); this tool explains
// algo::Auto's decision for a call, shows tables and merges them.
//
//   cclx-tune explain --collective allreduce --n 8 --bytes 1M   (reads CCLX_ALGO, CCLX_TUNE_FILE)
//   cclx-tune explain --collective allreduce --n 4096 --bytes 16M --ranks-per-host 128
//   cclx-tune explain --collective allreduce --n 8 --bytes 16M --hosts 0,1,2,3,0,1,2,3
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
#include "cli.hpp"

namespace {

using namespace cclx;

int explain(const tune::Workload& w) {
  tune::Selector s(tune::Selector::config_from_env());
  std::cout << s.decide(w).explanation << "\n";
  return 0;
}

int show(const std::string& file) {
  const tune::TuningTable t = tune::TuningTable::load(file);
  std::printf("# %s  machine: %s  mpi: %s\n", file.c_str(), t.machine.c_str(), t.mpi.c_str());
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

int merge(const std::string& out, const std::vector<std::string>& in, bool pool) {
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
  cclx::kit::App app("cclx-tune",
                     "The tuning suite's offline half: explains algo::Auto's decision for a "
                     "call, shows tuning tables and merges them. Measuring is `cclx-bench "
                     "--tune-out` under mpiexec (benchmarks/tune.sh).");
  app.require_subcommand(1);

  tune::Workload w;
  auto* ex = app.add_subcommand(
      "explain",
      "algo::Auto's choice for that call and why (CCLX_ALGO, CCLX_TUNE_FILE, then the model)");
  cclx::kit::add_collective(*ex, "--collective", w.collective, "the collective (allreduce, ...)");
  ex->add_option("--n", w.nranks, "rank count")->check(cclx::kit::Positive{});
  ex->add_option("--bytes", w.bytes,
                 "message size (cclx/byte_size.hpp); alltoallv's is the busiest rank's send or "
                 "receive total, what alltoallv_init agrees on")
      ->transform(cclx::kit::ByteSize{});
  ex->add_option("--elem-size", w.elem_size, "element size in bytes")
      ->transform(cclx::kit::ByteSize{})
      ->check(cclx::kit::Positive{});
  ex->add_option("--root", w.root, "root rank")->check(cclx::kit::NonNegative{});
  ex->add_flag("--in-place", w.in_place, "an in-place call");
  int ranks_per_host = 0;
  ex->add_option("--ranks-per-host", ranks_per_host,
                 "a communicator spanning hosts of this many consecutive ranks (the last may "
                 "have fewer), as Communicator::host_ids() would give it; 0: one host")
      ->check(cclx::kit::NonNegative{});
  std::vector<int> host_ids;
  auto* hosts_opt = cclx::kit::add_list(
      *ex, "--hosts", host_ids,
      "a host id per rank, comma-separated (e.g. ranks dealt round 2 hosts: 0,1,0,1), as "
      "Communicator::host_ids() would give it",
      ',');
  hosts_opt->excludes("--ranks-per-host");
  ex->add_flag("--noncommutative{false}", w.commutative, "a non-commutative reduction");
  ex->add_flag("--any-size{false}", w.sized,
               "the choice that must hold for every size, as for a one-shot alltoallv (whose "
               "ranks share no size; --bytes is then ignored)");

  std::string show_file;
  auto* sh = app.add_subcommand(
      "show", "the table: per collective, rank count and size, the candidates by measured time");
  sh->add_option("FILE", show_file, "tuning table")->required();

  std::string out;
  std::vector<std::string> in;
  bool pool = false;
  auto* me = app.add_subcommand("merge",
                                "one table from several (later files win where they measured the "
                                "same candidate)");
  me->add_option("-o", out, "the merged table")->required();
  me->add_flag("--pool", pool,
               "runs of one measurement (e.g. separate launches): a candidate with repetitions "
               "in several files keeps them all, and its time becomes their median");
  me->add_option("IN", in, "tables to merge")->required();

  if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
  try {
    if (ex->parsed()) {
      if (w.root >= w.nranks)
        throw cclx::Error("--root " + std::to_string(w.root) + " is not a rank of --n " +
                          std::to_string(w.nranks));
      if (w.bytes % w.elem_size != 0)
        throw cclx::Error("--bytes " + std::to_string(w.bytes) + " is not a whole number of " +
                          std::to_string(w.elem_size) + "-byte elements");
      if (!w.sized) w.bytes = 0;
      if (!host_ids.empty() && std::ssize(host_ids) != w.nranks)
        throw cclx::Error("--hosts names " + std::to_string(host_ids.size()) + " ranks, --n is " +
                          std::to_string(w.nranks));
      if (ranks_per_host > 0)
        for (int r = 0; r < w.nranks; ++r) host_ids.push_back(r / ranks_per_host);
      w.hosts = host_ids;  // a view: host_ids outlives the call
      return explain(w);
    }
    if (sh->parsed()) return show(show_file);
    return merge(out, in, pool);
  } catch (const cclx::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
