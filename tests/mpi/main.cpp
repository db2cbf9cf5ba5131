// cclx-mpi-tests: doctest under mpiexec.
//
// Every rank runs the same test cases in the same order (doctest's default file/line order), so
// collectives inside them match up. Each rank's doctest output goes to a buffer; at the end the
// failure counts are combined with MPI_Allreduce: if any rank failed, rank 0 prints the output of
// every rank (in rank order) and every rank exits non-zero; otherwise only rank 0's summary is
// printed.
//
// Environment:
//   CCLX_TEST_LIVE=1    stream doctest output from every rank directly (debugging)
//   CCLX_TEST_STALL_S   seconds without progress (see progress()) after which a rank prints where
//                       it is stuck and exits, so that a deadlock fails fast and says where
//                       (default 120; 0 disables)
//   CCLX_TEST_THREAD_LEVEL=multiple   initialize MPI with MPI_THREAD_MULTIPLE (the "adaptive"
//                       group: algo::Adaptive's progress thread needs it); default FUNNELED
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

namespace cclx_test {

namespace {
std::mutex where_mutex;
std::string where_now = "startup";
std::chrono::steady_clock::time_point where_since = std::chrono::steady_clock::now();
}  // namespace

void progress(std::string where) {
  std::lock_guard lock(where_mutex);
  where_now = std::move(where);
  where_since = std::chrono::steady_clock::now();
}

namespace {

// Records the current test case for the stall watchdog.
struct ProgressListener : doctest::IReporter {
  explicit ProgressListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& tc) override {
    progress(std::string("test case '") + tc.m_name + "'");
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  // A crash or an exception escaping a test case: say where (also on stderr, in case the
  // captured output is lost with the process).
  void test_case_exception(const doctest::TestCaseException& e) override {
    std::lock_guard lock(where_mutex);
    std::fprintf(stderr, "cclx-mpi-tests: %s in %s: %s\n", e.is_crash ? "crash" : "exception",
                 where_now.c_str(), e.error_string.c_str());
    std::fflush(stderr);
  }
  void subcase_start(const doctest::SubcaseSignature& s) override {
    progress(std::string("subcase '") + s.m_name.c_str() + "'");
  }
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("cclx_progress", 1, ProgressListener);

class StallWatchdog {
 public:
  StallWatchdog(int rank, int seconds) : rank_(rank), seconds_(seconds) {
    if (seconds_ > 0) thread_ = std::thread([this] { loop(); });
  }
  ~StallWatchdog() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop() {
    std::unique_lock lock(m_);
    while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
      std::string where;
      double idle = 0;
      {
        std::lock_guard w(where_mutex);
        where = where_now;
        idle =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - where_since).count();
      }
      if (idle > seconds_) {
        std::fprintf(stderr,
                     "cclx-mpi-tests: rank %d: no progress for %.0f s (deadlock?); last position: "
                     "%s\n",
                     rank_, idle, where.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }
  int rank_, seconds_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

}  // namespace
}  // namespace cclx_test

int main(int argc, char** argv) {
  int provided = 0;
  const char* level = std::getenv("CCLX_TEST_THREAD_LEVEL");
  const bool multiple = level && std::string(level) == "multiple";
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const bool live = cclx_test::env_int("CCLX_TEST_LIVE", 0) != 0;
  std::ostringstream captured;
  int failed = 0;
  {
    cclx_test::StallWatchdog watchdog(rank, cclx_test::env_int("CCLX_TEST_STALL_S", 120));
    doctest::Context ctx;
    ctx.applyCommandLine(argc, argv);
    if (!live) ctx.setCout(&captured);
    failed = ctx.run();
    if (ctx.shouldExit()) {  // --help, --list-test-cases, ...
      if (rank == 0 && !live) std::cout << captured.str() << std::flush;
      MPI_Finalize();
      return failed;
    }
  }

  int any_failed = 0;
  const int mine = failed != 0 ? 1 : 0;
  MPI_Allreduce(&mine, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  if (!live) {
    // Gather every rank's output on rank 0 (only needed when something failed).
    const std::string text = captured.str();
    if (any_failed) {
      int len = static_cast<int>(text.size());
      std::vector<int> lens(static_cast<std::size_t>(size)), offs(static_cast<std::size_t>(size));
      MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
      std::string all;
      if (rank == 0) {
        int total = 0;
        for (int i = 0; i < size; ++i) {
          offs[static_cast<std::size_t>(i)] = total;
          total += lens[static_cast<std::size_t>(i)];
        }
        all.resize(static_cast<std::size_t>(total));
      }
      MPI_Gatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0,
                  MPI_COMM_WORLD);
      if (rank == 0) {
        for (int i = 0; i < size; ++i) {
          std::cout << "=============== rank " << i << " of " << size << " ("
                    << (i == 0 ? "" : "see its own summary; ")
                    << "doctest output) ===============\n"
                    << all.substr(static_cast<std::size_t>(offs[static_cast<std::size_t>(i)]),
                                  static_cast<std::size_t>(lens[static_cast<std::size_t>(i)]));
        }
        std::cout << "cclx-mpi-tests: FAILED on at least one of " << size << " ranks\n"
                  << std::flush;
      }
    } else if (rank == 0) {
      std::cout << text << "cclx-mpi-tests: all " << size << " ranks passed\n" << std::flush;
    }
  }
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
