// The table of served nonblocking and persistent requests, and the MPI completion calls over it
// (requests.hpp; docs/preload.md, "Requests").
#include "requests.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cclx/collectives/collectives.hpp"
#include "cclx/engine/execution_options.hpp"
#include "cclx/error.hpp"
#include "errors.hpp"
#include "guard.hpp"
#include "report.hpp"

namespace cclx::shim {

namespace {

struct RequestEntry {
  std::shared_ptr<void> keep;  // first, so it goes last: the requests below run on what it holds
  ErrorTarget target;
  std::string_view name;
  Request request;                                // nonblocking
  std::unique_ptr<PersistentRequest> persistent;  // persistent
  std::function<void()> before, after;
  bool active = false;  // started, not yet completed towards the application
  bool done = false;    // cclx's part complete (after() ran), not yet reported
  bool freed = false;   // MPI_Request_free while active: dropped once done
  std::string error;    // why it failed (then done)
};

std::mutex table_mutex;  // never held across a blocking wait
std::unordered_map<MPI_Request, std::unique_ptr<RequestEntry>> table;
std::atomic<std::size_t> table_size{0};  // the fast path: no handle of ours anywhere

// The generalized request behind a handle: MPI calls these when it completes or frees it.
int query_fn(void*, MPI_Status* s) {
  PMPI_Status_set_elements(s, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(s, 0);
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}
int free_fn(void*) {
  return MPI_SUCCESS;
}
int cancel_fn(void*, int) {
  return MPI_SUCCESS;  // cancelling a collective is erroneous in MPI; nothing to do
}

MPI_Request new_handle() {
  MPI_Request h = MPI_REQUEST_NULL;
  if (PMPI_Grequest_start(query_fn, free_fn, cancel_fn, nullptr, &h) != MPI_SUCCESS)
    throw Error("libcclx-mpi: MPI_Grequest_start failed");
  return h;
}
void free_handle(MPI_Request h) {
  PMPI_Grequest_complete(h);
  PMPI_Wait(&h, MPI_STATUS_IGNORE);
}

// What a completed collective's status says (MPI: nothing but MPI_ERROR is defined).
void empty_status(MPI_Status* s) {
  if (s == MPI_STATUS_IGNORE) return;
  query_fn(nullptr, s);
  s->MPI_ERROR = MPI_SUCCESS;
}

MPI_Request insert(std::unique_ptr<RequestEntry> e) {
  const MPI_Request h = new_handle();
  const std::lock_guard lock(table_mutex);
  table.emplace(h, std::move(e));
  table_size.store(table.size(), std::memory_order_release);
  return h;
}

// Removes `it` from the table and frees its handle (table_mutex held).
void erase(std::unordered_map<MPI_Request, std::unique_ptr<RequestEntry>>::iterator it) {
  const MPI_Request h = it->first;
  table.erase(it);
  table_size.store(table.size(), std::memory_order_release);
  free_handle(h);
}

// Tests `e` once; true once cclx's part is complete (table_mutex held).
bool drive(RequestEntry& e) {
  if (!e.active || e.done) return e.done;
  try {
    const bool complete = e.persistent ? e.persistent->test() : e.request.test();
    if (!complete) return false;
    if (e.after) e.after();
  } catch (const std::exception& ex) {
    e.error = ex.what();
  } catch (...) {
    e.error = "libcclx-mpi: unknown exception";
  }
  e.done = true;
  return true;
}

// Tests every pending request of the process once, so that a wait never starves a collective
// another rank is waiting for (table_mutex held). Drops freed requests that are done.
void progress() {
  for (auto it = table.begin(); it != table.end();) {
    RequestEntry& e = *it->second;
    drive(e);
    if (e.freed && e.done)
      erase(it++);
    else
      ++it;
  }
}

RequestEntry* find(MPI_Request h) {
  const auto it = table.find(h);
  return it == table.end() ? nullptr : it->second.get();
}

// Whether any of `reqs` is ours (locks briefly; the fast path is an atomic read).
bool any_ours(int n, const MPI_Request* reqs) {
  if (table_size.load(std::memory_order_acquire) == 0 || reqs == nullptr) return false;
  const std::lock_guard lock(table_mutex);
  for (int i = 0; i < n; ++i)
    if (find(reqs[i])) return true;
  return false;
}

// Whether `h` may be completed now: done, or an inactive persistent request (table_mutex held).
bool ready(const RequestEntry& e) {
  return e.done || !e.active;
}

// Reports `*h`'s completion to the application: its status, its error as an MPI error code (the
// communicator's handler is called), the handle nulled (nonblocking) or made inactive
// (persistent). Returns the code (table_mutex held).
int complete(MPI_Request* h, MPI_Status* s) {
  const auto it = table.find(*h);
  RequestEntry& e = *it->second;
  empty_status(s);
  int rc = MPI_SUCCESS;
  if (!e.error.empty()) {
    count(e.name, Path::error, "-", "cclx::Error");
    rc = raise_error(e.target.get(), e.error);
    if (s != MPI_STATUS_IGNORE) s->MPI_ERROR = rc;
  }
  if (e.persistent) {
    e.active = false;
    e.done = false;
    e.error.clear();
  } else {
    erase(it);
    *h = MPI_REQUEST_NULL;
  }
  return rc;
}

// CCLX_TIMEOUT, as cclx's own wait() reads it (0: none). A bad value makes the first
// Communicator fail already; here it only means no deadline.
double timeout_s() {
  static const double t = [] {
    try {
      return engine::timeout_from_env();
    } catch (const Error&) {
      return 0.0;
    }
  }();
  return t;
}

// A wait's deadline: CCLX_TIMEOUT from the wait's start, as for cclx's own wait().
class Deadline {
 public:
  // True once CCLX_TIMEOUT has passed (the clock is read every 128th call).
  bool passed() {
    if (timeout_s() <= 0 || (++polls_ & 127u) != 0) return false;
    return waited() >= timeout_s();
  }
  [[nodiscard]] double waited() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  unsigned polls_ = 0;
};

std::string timeout_message(std::string_view call, std::string_view name, double waited) {
  return "libcclx-mpi: " + std::string(call) + ": " + std::string(name) +
         " did not complete within CCLX_TIMEOUT (" + engine::format_seconds(timeout_s()) +
         ", waited " + engine::format_seconds(waited) +
         "): a rank did not start it, or waits in a call that does not keep it moving "
         "(docs/preload.md, \"Progress\"); abandoned";
}

// Drops a cclx request without waiting for it: its destructor waits unless an exception is
// unwinding, and abandons (cancels what is posted) then, as cclx does after its own timeout.
template <class R>
void abandon(R& r) noexcept {
  try {
    const R dropped = std::move(r);
    throw 0;
  } catch (int) {
  }
}

// Fails `e` (running) after its wait's deadline passed: completing it raises the error.
void time_out(RequestEntry& e, std::string_view call, double waited) {
  if (!e.active || e.done) return;
  e.error = timeout_message(call, e.name, waited);
  if (e.target.roll_call) e.error += e.target.roll_call();
  e.done = true;
  if (e.persistent)
    abandon(*e.persistent);
  else
    abandon(e.request);
}

// The application's requests with ours replaced by MPI_REQUEST_NULL, for one PMPI call.
std::vector<MPI_Request> theirs(int n, const MPI_Request* reqs) {
  std::vector<MPI_Request> t(reqs, reqs + n);
  for (auto& r : t)
    if (find(r)) r = MPI_REQUEST_NULL;
  return t;
}

MPI_Status* at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses + i;
}

int wait_one(MPI_Request* h, MPI_Status* s) {
  Deadline deadline;
  for (Backoff b;; b.pause()) {
    const std::lock_guard lock(table_mutex);
    progress();
    RequestEntry& e = *find(*h);
    if (!ready(e) && deadline.passed()) time_out(e, "MPI_Wait", deadline.waited());
    if (ready(e)) return complete(h, s);
  }
}

// Whether a request of ours is still running (table_mutex held).
bool any_running() {
  for (const auto& [h, e] : table)
    if (e->active && !e->done) return true;
  return false;
}

// Also for requests that are all MPI's: while one of ours runs, MPI's are tested (not waited for)
// so that ours keep moving.
int wait_all(int n, MPI_Request* reqs, MPI_Status* statuses) {
  std::vector<MPI_Request> other;
  {
    const std::lock_guard lock(table_mutex);
    other = theirs(n, reqs);
  }
  bool others_done = false;
  int rc = MPI_SUCCESS;
  Deadline deadline;
  for (Backoff b;; b.pause()) {
    bool ours_ready = true, running = false;
    {
      const std::lock_guard lock(table_mutex);
      progress();
      for (int i = 0; i < n && ours_ready; ++i)
        if (const RequestEntry* e = find(reqs[i])) ours_ready = ready(*e);
      if (!ours_ready && deadline.passed()) {
        for (int i = 0; i < n; ++i)
          if (RequestEntry* e = find(reqs[i])) time_out(*e, "MPI_Waitall", deadline.waited());
        ours_ready = true;
      }
      running = any_running();
    }
    if (!others_done && ours_ready && !running) {
      rc = PMPI_Waitall(n, other.data(), statuses);
      break;
    }
    if (!others_done) {
      int flag = 0;
      rc = PMPI_Testall(n, other.data(), &flag, statuses);
      others_done = flag != 0 || rc != MPI_SUCCESS;
    }
    if (others_done && ours_ready) break;
  }
  const std::lock_guard lock(table_mutex);
  for (int i = 0; i < n; ++i) {
    if (find(reqs[i])) {
      if (const int r = complete(reqs + i, at(statuses, i)); r != MPI_SUCCESS) rc = r;
    } else {
      reqs[i] = other[static_cast<std::size_t>(i)];
    }
  }
  return rc;
}

bool none() {
  return table_size.load(std::memory_order_acquire) == 0;
}

// Fails ours among `reqs` that still run (a Waitany/Waitsome whose deadline passed).
void time_out_all(int n, const MPI_Request* reqs, std::string_view call, double waited) {
  const std::lock_guard lock(table_mutex);
  for (int i = 0; i < n; ++i)
    if (RequestEntry* e = find(reqs[i])) time_out(*e, call, waited);
}

// One round of MPI_Testany/MPI_Waitany: ours that are ready, then MPI's. False: none yet.
bool any_round(int n, MPI_Request* reqs, int* index, MPI_Status* s, int* rc) {
  std::vector<MPI_Request> other;
  bool ours_active = false;
  {
    const std::lock_guard lock(table_mutex);
    progress();
    for (int i = 0; i < n; ++i) {
      RequestEntry* e = find(reqs[i]);
      if (!e || !e->active) continue;
      ours_active = true;
      if (e->done) {
        *index = i;
        *rc = complete(reqs + i, s);
        return true;
      }
    }
    other = theirs(n, reqs);
  }
  int flag = 0, idx = MPI_UNDEFINED;
  *rc = PMPI_Testany(n, other.data(), &idx, &flag, s);
  if (*rc != MPI_SUCCESS || (flag && idx != MPI_UNDEFINED)) {
    if (idx != MPI_UNDEFINED) reqs[idx] = other[static_cast<std::size_t>(idx)];
    *index = idx;
    return true;
  }
  if (flag && !ours_active) {  // nothing active at all
    *index = MPI_UNDEFINED;
    empty_status(s);
    return true;
  }
  return false;
}

// One round of MPI_Testsome/MPI_Waitsome. False: none yet.
bool some_round(int n, MPI_Request* reqs, int* outcount, int* indices, MPI_Status* statuses,
                int* rc) {
  std::vector<MPI_Request> other;
  int found = 0;
  bool ours_active = false;
  *rc = MPI_SUCCESS;
  {
    const std::lock_guard lock(table_mutex);
    progress();
    for (int i = 0; i < n; ++i) {
      RequestEntry* e = find(reqs[i]);
      if (!e || !e->active) continue;
      ours_active = true;
      if (!e->done) continue;
      if (const int r = complete(reqs + i, at(statuses, found)); r != MPI_SUCCESS) *rc = r;
      indices[found++] = i;
    }
    other = theirs(n, reqs);
  }
  int more = 0;
  std::vector<int> idx(static_cast<std::size_t>(n));
  std::vector<MPI_Status> st(statuses == MPI_STATUSES_IGNORE ? 0 : static_cast<std::size_t>(n));
  const int r = PMPI_Testsome(n, other.data(), &more, idx.data(),
                              st.empty() ? MPI_STATUSES_IGNORE : st.data());
  if (r != MPI_SUCCESS) *rc = r;
  if (more == MPI_UNDEFINED) {
    if (!ours_active) {
      *outcount = MPI_UNDEFINED;
      return true;
    }
    more = 0;
  }
  for (int k = 0; k < more; ++k) {
    const int i = idx[static_cast<std::size_t>(k)];
    reqs[i] = other[static_cast<std::size_t>(i)];
    if (!st.empty()) statuses[found] = st[static_cast<std::size_t>(k)];
    indices[found++] = i;
  }
  *outcount = found;
  return found > 0;
}

int start_one(MPI_Request h) {
  RequestEntry* e = nullptr;
  {
    const std::lock_guard lock(table_mutex);
    e = find(h);
  }
  if (!e->persistent || e->active)
    return raise_error(e->target.get(), std::string("libcclx-mpi: MPI_Start on ") +
                                            (e->persistent ? "an active" : "a nonblocking") + " " +
                                            std::string(e->name) + " request");
  try {
    if (e->before) e->before();
    e->persistent->start();
  } catch (const std::exception& ex) {
    count(e->name, Path::error, "-", "cclx::Error");
    return raise_error(e->target.get(), ex.what());
  }
  const std::lock_guard lock(table_mutex);
  e->active = true;
  e->done = false;
  return MPI_SUCCESS;
}

}  // namespace

std::string_view label(sched::Collective c, Form f) {
  static const auto names = [] {
    std::array<std::array<std::string, 3>, coll::all_collectives.size()> t;
    for (const sched::Collective k : coll::all_collectives) {
      const std::string base(sched::to_string(k));
      auto& row = t[static_cast<std::size_t>(k)];
      row = {base, "i" + base, base + "_init"};
    }
    return t;
  }();
  return names[static_cast<std::size_t>(c)][static_cast<std::size_t>(f)];
}

bool requests_running() {
  if (table_size.load(std::memory_order_acquire) == 0) return false;
  const std::lock_guard lock(table_mutex);
  return any_running();
}

void complete_progressing(Request& r, std::string_view name,
                          const std::function<std::string()>& roll_call) {
  Deadline deadline;
  for (Backoff b;; b.pause()) {
    {
      const std::lock_guard lock(table_mutex);
      progress();
    }
    if (r.test()) return;
    if (deadline.passed()) {
      const double waited = deadline.waited();
      abandon(r);
      throw Error(
          timeout_message("a blocking collective started while requests run", name, waited) +
          roll_call());
    }
  }
}

void progress_requests() {
  if (table_size.load(std::memory_order_acquire) == 0) return;
  const std::lock_guard lock(table_mutex);
  progress();
}

void Backoff::pause() {
  if (++round_ > 64) std::this_thread::yield();
}

MPI_Request add_nonblocking(ErrorTarget target, sched::Collective c, Request r,
                            std::shared_ptr<void> keep, std::function<void()> after) {
  auto e = std::make_unique<RequestEntry>();
  e->target = std::move(target);
  e->name = label(c, Form::nonblocking);
  e->request = std::move(r);
  e->keep = std::move(keep);
  e->after = std::move(after);
  e->active = true;
  return insert(std::move(e));
}

MPI_Request add_persistent(ErrorTarget target, sched::Collective c, PersistentRequest p,
                           std::shared_ptr<void> keep, std::function<void()> before,
                           std::function<void()> after) {
  auto e = std::make_unique<RequestEntry>();
  e->target = std::move(target);
  e->name = label(c, Form::persistent);
  e->persistent = std::make_unique<PersistentRequest>(std::move(p));
  e->keep = std::move(keep);
  e->before = std::move(before);
  e->after = std::move(after);
  return insert(std::move(e));
}

void release_requests() {
  Deadline deadline;
  for (Backoff b;; b.pause()) {
    const std::lock_guard lock(table_mutex);
    progress();
    bool pending = false;
    for (const auto& [h, e] : table) pending = pending || (e->active && !e->done);
    if (!pending) break;
    if (deadline.passed()) {  // nobody is left to report it to but stderr
      for (const auto& [h, e] : table) {
        time_out(*e, "MPI_Finalize", deadline.waited());
        if (!e->error.empty()) std::fprintf(stderr, "%s\n", e->error.c_str());
      }
      break;
    }
  }
  const std::lock_guard lock(table_mutex);
  while (!table.empty()) erase(table.begin());
}

}  // namespace cclx::shim

using cclx::shim::Inside;
using cclx::shim::inside;

extern "C" {

// The wait calls go to MPI directly while the library has no requests; with one running, they
// test instead of blocking in MPI (requests.hpp). The test calls on MPI's requests test ours once.
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  if (inside() || r == nullptr || cclx::shim::none()) return PMPI_Wait(r, s);
  const Inside in;
  if (cclx::shim::any_ours(1, r)) return cclx::shim::wait_one(r, s);
  return cclx::shim::wait_all(1, r, s == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : s);
}

int MPI_Test(MPI_Request* r, int* flag, MPI_Status* s) {
  if (inside()) return PMPI_Test(r, flag, s);
  if (r == nullptr || !cclx::shim::any_ours(1, r)) {
    const Inside in;
    cclx::shim::progress_requests();
    return PMPI_Test(r, flag, s);
  }
  const Inside in;
  const std::lock_guard lock(cclx::shim::table_mutex);
  cclx::shim::progress();
  *flag = cclx::shim::ready(*cclx::shim::find(*r)) ? 1 : 0;
  return *flag ? cclx::shim::complete(r, s) : MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request r, int* flag, MPI_Status* s) {
  if (inside()) return PMPI_Request_get_status(r, flag, s);
  const Inside in;
  if (!cclx::shim::any_ours(1, &r)) {
    cclx::shim::progress_requests();
    return PMPI_Request_get_status(r, flag, s);
  }
  const std::lock_guard lock(cclx::shim::table_mutex);
  cclx::shim::progress();
  *flag = cclx::shim::ready(*cclx::shim::find(r)) ? 1 : 0;
  if (*flag) cclx::shim::empty_status(s);
  return MPI_SUCCESS;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (inside() || cclx::shim::none()) return PMPI_Waitall(n, reqs, statuses);
  const Inside in;
  return cclx::shim::wait_all(n, reqs, statuses);
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (inside()) return PMPI_Testall(n, reqs, flag, statuses);
  const Inside in;
  if (!cclx::shim::any_ours(n, reqs)) {
    cclx::shim::progress_requests();
    return PMPI_Testall(n, reqs, flag, statuses);
  }
  {
    const std::lock_guard lock(cclx::shim::table_mutex);
    cclx::shim::progress();
    for (int i = 0; i < n; ++i)
      if (const cclx::shim::RequestEntry* e = cclx::shim::find(reqs[i]);
          e && !cclx::shim::ready(*e)) {
        *flag = 0;  // none is completed unless all are
        return MPI_SUCCESS;
      }
  }
  // Ours are all ready: MPI's decide; only if they are complete too is anything completed.
  std::vector<MPI_Request> other;
  {
    const std::lock_guard lock(cclx::shim::table_mutex);
    other = cclx::shim::theirs(n, reqs);
  }
  int rc = PMPI_Testall(n, other.data(), flag, statuses);
  if (!*flag) return rc;
  const std::lock_guard lock(cclx::shim::table_mutex);
  for (int i = 0; i < n; ++i) {
    if (cclx::shim::find(reqs[i])) {
      if (const int r = cclx::shim::complete(reqs + i, cclx::shim::at(statuses, i));
          r != MPI_SUCCESS)
        rc = r;
    } else {
      reqs[i] = other[static_cast<std::size_t>(i)];
    }
  }
  return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* s) {
  if (inside() || cclx::shim::none()) return PMPI_Waitany(n, reqs, index, s);
  const Inside in;
  int rc = MPI_SUCCESS;
  cclx::shim::Deadline deadline;
  for (cclx::shim::Backoff b; !cclx::shim::any_round(n, reqs, index, s, &rc); b.pause())
    if (deadline.passed()) cclx::shim::time_out_all(n, reqs, "MPI_Waitany", deadline.waited());
  return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* s) {
  if (inside()) return PMPI_Testany(n, reqs, index, flag, s);
  const Inside in;
  if (!cclx::shim::any_ours(n, reqs)) {
    cclx::shim::progress_requests();
    return PMPI_Testany(n, reqs, index, flag, s);
  }
  int rc = MPI_SUCCESS;
  *flag = cclx::shim::any_round(n, reqs, index, s, &rc) ? 1 : 0;
  if (!*flag) *index = MPI_UNDEFINED;
  return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (inside() || cclx::shim::none()) return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
  const Inside in;
  int rc = MPI_SUCCESS;
  cclx::shim::Deadline deadline;
  for (cclx::shim::Backoff b; !cclx::shim::some_round(n, reqs, outcount, indices, statuses, &rc);
       b.pause())
    if (deadline.passed()) cclx::shim::time_out_all(n, reqs, "MPI_Waitsome", deadline.waited());
  return rc;
}

int MPI_Testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (inside()) return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  const Inside in;
  if (!cclx::shim::any_ours(n, reqs)) {
    cclx::shim::progress_requests();
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
  }
  int rc = MPI_SUCCESS;
  cclx::shim::some_round(n, reqs, outcount, indices, statuses, &rc);
  return rc;
}

int MPI_Start(MPI_Request* r) {
  if (inside() || r == nullptr || !cclx::shim::any_ours(1, r)) return PMPI_Start(r);
  const Inside in;
  return cclx::shim::start_one(*r);
}

// Ours are started in the order given, MPI's in one call after them.
int MPI_Startall(int n, MPI_Request reqs[]) {
  if (inside() || !cclx::shim::any_ours(n, reqs)) return PMPI_Startall(n, reqs);
  const Inside in;
  std::vector<MPI_Request> other;
  std::vector<int> where;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    bool mine = false;
    {
      const std::lock_guard lock(cclx::shim::table_mutex);
      mine = cclx::shim::find(reqs[i]) != nullptr;
    }
    if (mine) {
      if (const int r = cclx::shim::start_one(reqs[i]); r != MPI_SUCCESS) rc = r;
    } else {
      other.push_back(reqs[i]);
      where.push_back(i);
    }
  }
  if (!other.empty()) {
    if (const int r = PMPI_Startall(static_cast<int>(other.size()), other.data()); r != MPI_SUCCESS)
      rc = r;
    for (std::size_t k = 0; k < where.size(); ++k) reqs[where[k]] = other[k];
  }
  return rc;
}

// An active request is completed in the background (tested by later waits, at the latest at
// MPI_Finalize); an inactive persistent one goes at once.
int MPI_Request_free(MPI_Request* r) {
  if (inside() || r == nullptr || !cclx::shim::any_ours(1, r)) return PMPI_Request_free(r);
  const Inside in;
  const std::lock_guard lock(cclx::shim::table_mutex);
  const auto it = cclx::shim::table.find(*r);
  if (it->second->active)
    it->second->freed = true;
  else
    cclx::shim::erase(it);
  *r = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
