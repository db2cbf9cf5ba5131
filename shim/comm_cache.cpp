#include "comm_cache.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "guard.hpp"

namespace cclx::shim {

namespace {

struct Cache {
  std::mutex mu;
  std::set<CommEntry*> live;
  std::vector<std::unique_ptr<CommEntry>> retired;
  std::atomic<bool> has_retired{false};
  std::atomic<int> keyval{MPI_KEYVAL_INVALID};
  std::once_flag keyval_once;
  MPI_Comm self = MPI_COMM_NULL;
  std::once_flag self_once;
};

Cache& cache() {
  static Cache c;
  return c;
}

// MPI calls this when the application frees the communicator (or at MPI_Finalize, through
// release_all()); the entry is retired and destroyed outside MPI's MPI_Comm_free.
int on_delete(MPI_Comm, int, void* attr, void*) {
  auto* e = static_cast<CommEntry*>(attr);
  e->freed->store(true);
  Cache& c = cache();
  std::lock_guard lock(c.mu);
  c.live.erase(e);
  c.retired.emplace_back(e);
  c.has_retired = true;
  return MPI_SUCCESS;
}

int keyval() {
  Cache& c = cache();
  std::call_once(c.keyval_once, [&] {
    int kv = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &on_delete, &kv, nullptr) == MPI_SUCCESS)
      c.keyval = kv;
  });
  return c.keyval;
}

CommEntry& attach(MPI_Comm comm, std::unique_ptr<CommEntry> e) {
  const int kv = keyval();
  if (kv == MPI_KEYVAL_INVALID) throw Error("libcclx-mpi: MPI_Comm_create_keyval failed");
  e->user = comm;
  CommEntry* raw = e.get();
  {
    Cache& c = cache();
    std::lock_guard lock(c.mu);
    c.live.insert(raw);
  }
  if (PMPI_Comm_set_attr(comm, kv, raw) != MPI_SUCCESS) {
    Cache& c = cache();
    std::lock_guard lock(c.mu);
    c.live.erase(raw);
    throw Error("libcclx-mpi: MPI_Comm_set_attr failed");
  }
  return *e.release();
}

}  // namespace

CommView view(MPI_Comm comm) {
  CommView v;
  if (comm == MPI_COMM_NULL) return v;
  if (const int kv = cache().keyval; kv != MPI_KEYVAL_INVALID) {
    void* attr = nullptr;
    int found = 0;
    if (PMPI_Comm_get_attr(comm, kv, &attr, &found) != MPI_SUCCESS) return v;
    if (found) {
      auto* e = static_cast<CommEntry*>(attr);
      v.valid = true;
      v.entry = e;
      v.inter = e->inter;
      if (e->comm) {
        v.rank = e->comm->rank();
        v.size = e->comm->size();
      }
      return v;
    }
  }
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return v;
  v.valid = true;
  if (inter) {
    v.inter = true;
    try {  // remembered, so that the next call skips the test
      auto e = std::make_unique<CommEntry>();
      e->inter = true;
      v.entry = &attach(comm, std::move(e));
    } catch (const Error&) {
    }
    return v;
  }
  PMPI_Comm_rank(comm, &v.rank);
  PMPI_Comm_size(comm, &v.size);
  return v;
}

const std::shared_ptr<Communicator<>>& communicator(MPI_Comm comm, CommView& v) {
  if (v.entry && v.entry->comm) return v.entry->comm;
  auto e = std::make_unique<CommEntry>();
  e->comm = std::shared_ptr<Communicator<>>(new Communicator<>(comm, Ownership::duplicate),
                                            [](Communicator<>* c) {
                                              const Inside in;  // it frees its duplicates
                                              delete c;
                                            });
  v.entry = &attach(comm, std::move(e));
  return v.entry->comm;
}

void destroy_retired() {
  Cache& c = cache();
  if (!c.has_retired) return;
  std::vector<std::unique_ptr<CommEntry>> dead;
  {
    std::lock_guard lock(c.mu);
    dead.swap(c.retired);
    c.has_retired = false;
  }
  const Inside in;  // the Communicators free their duplicates through MPI
  dead.clear();
}

MPI_Comm self_comm() {
  Cache& c = cache();
  std::call_once(c.self_once, [&] { PMPI_Comm_dup(MPI_COMM_SELF, &c.self); });
  return c.self;
}

void release_all() {
  Cache& c = cache();
  if (c.self != MPI_COMM_NULL) PMPI_Comm_free(&c.self);
  const int kv = c.keyval;
  if (kv == MPI_KEYVAL_INVALID) return;
  std::vector<CommEntry*> entries;
  {
    std::lock_guard lock(c.mu);
    entries.assign(c.live.begin(), c.live.end());
  }
  for (CommEntry* e : entries) PMPI_Comm_delete_attr(e->user, kv);  // -> on_delete
  destroy_retired();
  int k = kv;
  PMPI_Comm_free_keyval(&k);
  c.keyval = MPI_KEYVAL_INVALID;
}

}  // namespace cclx::shim
