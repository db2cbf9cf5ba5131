#include "report.hpp"

#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "policy.hpp"

namespace cclx::shim {

namespace {

constexpr std::string_view path_names[] = {"cclx", "passthrough", "error"};

using Key = std::tuple<std::string, std::string, std::string, std::string>;
using KeyView = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;

struct KeyLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return view(a) < view(b);
  }
  static KeyView view(const Key& k) {
    return {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)};
  }
  static KeyView view(const KeyView& k) { return k; }
};

struct Counts {
  std::mutex mu;
  std::map<Key, long long, KeyLess> calls;
};

Counts& counts() {
  static Counts c;
  return c;
}

// Fields are tab-separated and records newline-separated in the report.
std::string clean(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    if (ch == '\t' || ch == '\n') ch = ' ';
  return out;
}

std::string serialize() {
  Counts& c = counts();
  std::lock_guard lock(c.mu);
  std::string s;
  for (const auto& [k, n] : c.calls)
    s += std::get<0>(k) + '\t' + std::get<1>(k) + '\t' + std::get<2>(k) + '\t' + std::to_string(n) +
         '\t' + std::get<3>(k) + '\n';
  return s;
}

}  // namespace

void count(std::string_view collective, Path path, std::string_view algorithm,
           std::string_view reason) {
  const std::string_view p = path_names[static_cast<int>(path)];
  Counts& c = counts();
  std::lock_guard lock(c.mu);
  const KeyView kv{collective, p, algorithm, reason};
  if (auto it = c.calls.find(kv); it != c.calls.end()) {
    ++it->second;
    return;
  }
  c.calls.emplace(Key{clean(collective), std::string(p), clean(algorithm), clean(reason)}, 1);
  if (config().log) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "cclx-mpi: rank %d: %.*s: %.*s %.*s (%.*s)\n", rank,
                 static_cast<int>(collective.size()), collective.data(), static_cast<int>(p.size()),
                 p.data(), static_cast<int>(algorithm.size()), algorithm.data(),
                 static_cast<int>(reason.size()), reason.data());
  }
}

void write_report() {
  const std::string& path = config().report_path;
  if (path.empty()) return;
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mine = serialize();
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? static_cast<std::size_t>(size) : 0);
  PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> displs(lens.size());
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  PMPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
               MPI_COMM_WORLD);
  if (rank != 0) return;

  // Sum over ranks: key = the four text fields, count = the fourth column.
  std::map<Key, long long> sum;
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string coll, p, algo, n, reason;
    std::getline(f, coll, '\t');
    std::getline(f, p, '\t');
    std::getline(f, algo, '\t');
    std::getline(f, n, '\t');
    std::getline(f, reason);
    sum[Key{coll, p, algo, reason}] += std::stoll(n);
  }
  std::ofstream out(path);
  out << "# libcclx-mpi report: calls summed over the " << size
      << " ranks of MPI_COMM_WORLD (docs/preload.md)\n"
      << "# collective\tpath\talgorithm\tcalls\treason\n";
  for (const auto& [k, n] : sum)
    out << std::get<0>(k) << '\t' << std::get<1>(k) << '\t' << std::get<2>(k) << '\t' << n << '\t'
        << std::get<3>(k) << '\n';
}

}  // namespace cclx::shim
