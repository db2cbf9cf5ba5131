// Ranks that describe the same data with different datatypes, written from the MPI standard
// against the plain MPI API (no cclx headers). MPI requires only that the type signatures match
// (MPI 4.0, 3.3 and 6.1), so one rank may send a vector where another receives contiguous
// doubles, a gather's root may receive in place while the others send, and a zero-size derived
// type may meet zero counts. Each collective runs in its three forms (forms: blocking, MPI_I*
// then MPI_Wait, MPI_*_init then MPI_Start/MPI_Wait), and in the nonblocking and persistent forms
// every derived datatype is freed right after the MPI_I*/MPI_*_init call, before the wait, as MPI
// allows. Also: communicators and user ops freed while a nonblocking call on them is pending, and
// several calls in flight at once, each freeing its type (MPI_Type_dup of MPI_INT).
//
// Every result is compared with a reference computed locally; the gaps of the receive layouts
// must stay untouched. The program prints one line per failure and, at the end, "datatypes: N
// checks, N failures" on rank 0; it exits non-zero on any failure. Run it with and without
// libcclx-mpi: both must pass, and the library must serve these calls (its report).
//
// Usage: mpiexec -n N shim-datatypes [--trace]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rank = 0, nranks = 1;
long long checks = 0, failures = 0;
bool trace = false;  // --trace: each rank names each call before it makes it

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok && failures++ < 20) std::fprintf(stderr, "rank %d: FAIL %s\n", rank, what.c_str());
}

constexpr double kGap = -7.5;  // the receive buffers' filler: gaps must keep it

// The value rank `r` contributes at element `i` (exact in a double and in an int).
double value(int r, int i) {
  return r * 1000 + i + 1;
}

enum class Form { blocking, nonblocking, persistent };
const char* name(Form f) {
  return f == Form::blocking ? "blocking" : f == Form::nonblocking ? "nonblocking" : "persistent";
}
std::vector<Form> forms() {
  if (MPI_VERSION >= 4) return {Form::blocking, Form::nonblocking, Form::persistent};
  return {Form::blocking, Form::nonblocking};
}

// Form `f`'s call of an MPI collective with the arguments given: MPI_<CAP>(...) when the request
// `r` is null (blocking), else MPI_I<NAME>(..., r) or MPI_<CAP>_init(..., MPI_INFO_NULL, r).
#if MPI_VERSION >= 4
#define CCLX_FORM(NAME, CAP, ...)                         \
  (!r                       ? MPI_##CAP(__VA_ARGS__)      \
   : f == Form::nonblocking ? MPI_I##NAME(__VA_ARGS__, r) \
                            : MPI_##CAP##_init(__VA_ARGS__, MPI_INFO_NULL, r))
#else
#define CCLX_FORM(NAME, CAP, ...) (!r ? MPI_##CAP(__VA_ARGS__) : MPI_I##NAME(__VA_ARGS__, r))
#endif

// A block of `k` doubles as one datatype describes it: `count` elements of `type` per block, the
// j-th double of the type map at `pos(j)` doubles from the block's start, blocks `stride` doubles
// apart. The type is derived (then freed by its user) unless it is MPI_DOUBLE.
struct Layout {
  std::string kind;
  MPI_Datatype type = MPI_DOUBLE;
  int count = 0;
  int stride = 0;
  std::function<int(int)> pos;
  void free() {
    if (type != MPI_DOUBLE && type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
};

MPI_Datatype commit(MPI_Datatype t) {
  MPI_Type_commit(&t);
  return t;
}

// The kinds: MPI_DOUBLE x k; one contiguous type; a dup x k; a strided vector; doubles resized to
// a stride of 2; an indexed type listing the doubles in reverse order; a struct of one basic type
// with a gap.
const std::vector<std::string> kKinds = {"double",  "contiguous", "dup",   "vector",
                                         "resized", "indexed",    "struct"};

Layout layout(const std::string& kind, int k) {
  Layout l{kind};
  if (kind == "double") {
    l.count = k, l.stride = k, l.pos = [](int j) { return j; };
  } else if (kind == "contiguous") {
    MPI_Datatype t;
    MPI_Type_contiguous(k, MPI_DOUBLE, &t);
    l.type = commit(t), l.count = 1, l.stride = k, l.pos = [](int j) { return j; };
  } else if (kind == "dup") {
    MPI_Datatype t;
    MPI_Type_dup(MPI_DOUBLE, &t);
    l.type = t, l.count = k, l.stride = k, l.pos = [](int j) { return j; };
  } else if (kind == "vector") {  // k doubles, every other one; blocks 2k doubles apart
    MPI_Datatype v, t;
    MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, static_cast<MPI_Aint>(2 * k * sizeof(double)), &t);
    MPI_Type_free(&v);
    l.type = commit(t), l.count = 1, l.stride = 2 * k, l.pos = [](int j) { return 2 * j; };
  } else if (kind == "resized") {
    MPI_Datatype t;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &t);
    l.type = commit(t), l.count = k, l.stride = 2 * k, l.pos = [](int j) { return 2 * j; };
  } else if (kind == "indexed") {  // the type map lists the block's doubles last to first
    std::vector<int> len(static_cast<std::size_t>(k), 1), at(static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j) at[static_cast<std::size_t>(j)] = k - 1 - j;
    MPI_Datatype t;
    MPI_Type_indexed(k, len.data(), at.data(), MPI_DOUBLE, &t);
    l.type = commit(t), l.count = 1, l.stride = k, l.pos = [k](int j) { return k - 1 - j; };
  } else if (kind == "struct") {  // the first double, a gap of one, the other k - 1
    const int lens[2] = {k > 0 ? 1 : 0, k > 0 ? k - 1 : 0};
    const MPI_Aint at[2] = {0, 2 * static_cast<MPI_Aint>(sizeof(double))};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Datatype s, t;
    MPI_Type_create_struct(2, lens, at, types, &s);
    MPI_Type_create_resized(s, 0, static_cast<MPI_Aint>((k + 1) * sizeof(double)), &t);
    MPI_Type_free(&s);
    l.type = commit(t), l.count = 1, l.stride = k + 1;
    l.pos = [](int j) { return j == 0 ? 0 : j + 1; };
  }
  return l;
}

// n blocks of layout `l`, gaps filled.
std::vector<double> buffer(const Layout& l, int blocks) {
  return std::vector<double>(static_cast<std::size_t>(l.stride * blocks + 1), kGap);
}
void put(std::vector<double>& b, const Layout& l, int block, int k, int r, int first) {
  for (int j = 0; j < k; ++j)
    b[static_cast<std::size_t>(block * l.stride + l.pos(j))] = value(r, first + j);
}
// Whether block `block` holds value(r, first + j) and every other element of the buffer kept
// its filler (checked by the caller once per buffer via `touched`).
void check_block(const std::vector<double>& b, const Layout& l, int block, int k, int r, int first,
                 std::vector<bool>& touched, const std::string& what) {
  for (int j = 0; j < k; ++j) {
    const auto at = static_cast<std::size_t>(block * l.stride + l.pos(j));
    touched[at] = true;
    expect(b[at] == value(r, first + j), what + ": block " + std::to_string(block) + " element " +
                                             std::to_string(j) + " is " + std::to_string(b[at]));
  }
}
void check_gaps(const std::vector<double>& b, const std::vector<bool>& touched,
                const std::string& what) {
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!touched[i]) expect(b[i] == kGap, what + ": gap " + std::to_string(i) + " overwritten");
}

// Runs `call` (which makes the MPI call in form `f`, storing a request in `r`), frees the
// layouts' types right after it in the nonblocking and persistent forms, then completes it.
void run(Form f, const std::function<int(MPI_Request*)>& call, std::vector<Layout*> layouts,
         const std::string& what) {
  if (trace) std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = call(f == Form::blocking ? nullptr : &r);
  if (f != Form::blocking)
    for (Layout* l : layouts) l->free();  // MPI: the pending call keeps its own reference
  if (rc == MPI_SUCCESS && f == Form::persistent) rc = MPI_Start(&r);
  if (rc == MPI_SUCCESS && f != Form::blocking) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && f == Form::persistent) rc = MPI_Request_free(&r);
  if (f == Form::blocking)
    for (Layout* l : layouts) l->free();
  expect(rc == MPI_SUCCESS, what + ": returned " + std::to_string(rc));
}

std::string tag(const char* coll, Form f, const std::string& a, const std::string& b, bool ip) {
  std::ostringstream s;
  s << coll << " (" << name(f) << ") " << a << " / " << b << (ip ? " in place" : "")
    << " at N = " << nranks;
  return s.str();
}

// The kinds two groups of ranks use: each kind against contiguous doubles, and a few derived
// pairs; each rank takes `mine` or `theirs` by `odd`.
const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"vector", "double"}, {"double", "vector"},      {"indexed", "struct"},
    {"resized", "dup"},   {"contiguous", "indexed"}, {"struct", "resized"}};

constexpr int kK = 3;  // doubles per block

void gather_scatter_bcast(Form f) {
  const int root = nranks - 1;
  for (const auto& [rk, ok] : kPairs) {
    const std::string& mine = rank == root ? rk : ok;
    for (const bool ip : {false, true}) {
      // Gather: the root receives n blocks as `rk`, the others send one as `ok`.
      {
        Layout recv = layout(rk, kK), send = layout(mine, kK);
        std::vector<double> sb = buffer(send, 1), rb = buffer(recv, nranks);
        put(sb, send, 0, kK, rank, 0);
        if (rank == root && ip) put(rb, recv, root, kK, root, 0);
        const bool my_ip = ip && rank == root;
        const std::string what = tag("MPI_Gather", f, rk, ok, ip);
        run(
            f,
            [&](MPI_Request* r) {
              const void* s = my_ip ? MPI_IN_PLACE : sb.data();
              return CCLX_FORM(gather, Gather, s, send.count, send.type, rb.data(), recv.count,
                               recv.type, root, MPI_COMM_WORLD);
            },
            {&recv, &send}, what);
        if (rank == root) {
          std::vector<bool> touched(rb.size());
          for (int i = 0; i < nranks; ++i) check_block(rb, recv, i, kK, i, 0, touched, what);
          check_gaps(rb, touched, what);
        }
      }
      // Scatter: the root sends n blocks as `rk`, the others receive one as `ok`.
      {
        Layout send = layout(rk, kK), recv = layout(mine, kK);
        std::vector<double> sb = buffer(send, nranks), rb = buffer(recv, 1);
        if (rank == root)
          for (int i = 0; i < nranks; ++i) put(sb, send, i, kK, root, i * kK);
        const std::vector<double> sent = sb;
        const bool my_ip = ip && rank == root;
        const std::string what = tag("MPI_Scatter", f, rk, ok, ip);
        run(
            f,
            [&](MPI_Request* r) {
              void* d = my_ip ? MPI_IN_PLACE : rb.data();
              return CCLX_FORM(scatter, Scatter, sb.data(), send.count, send.type, d, recv.count,
                               recv.type, root, MPI_COMM_WORLD);
            },
            {&send, &recv}, what);
        expect(sb == sent, what + ": the send buffer changed");
        if (!my_ip) {
          std::vector<bool> touched(rb.size());
          check_block(rb, recv, 0, kK, root, rank * kK, touched, what);
          check_gaps(rb, touched, what);
        }
      }
    }
    // Bcast: the root's buffer as `rk`, the others' as `ok`.
    {
      Layout l = layout(mine, kK);
      std::vector<double> b = buffer(l, 1);
      if (rank == root) put(b, l, 0, kK, root, 0);
      const std::string what = tag("MPI_Bcast", f, rk, ok, false);
      run(
          f,
          [&](MPI_Request* r) {
            return CCLX_FORM(bcast, Bcast, b.data(), l.count, l.type, root, MPI_COMM_WORLD);
          },
          {&l}, what);
      std::vector<bool> touched(b.size());
      check_block(b, l, 0, kK, root, 0, touched, what);
      check_gaps(b, touched, what);
    }
  }
}

// Allgather and alltoall: even ranks use the pair's first kind on both sides, odd ranks the
// second; in place too (then only the receive side is described).
void allgather_alltoall(Form f) {
  for (const auto& [a, b] : kPairs) {
    const std::string& mine = rank % 2 == 0 ? a : b;
    const std::string& other = rank % 2 == 0 ? b : a;
    for (const bool ip : {false, true}) {
      {
        Layout send = layout(other, kK), recv = layout(mine, kK);
        std::vector<double> sb = buffer(send, 1), rb = buffer(recv, nranks);
        put(sb, send, 0, kK, rank, 0);
        if (ip) put(rb, recv, rank, kK, rank, 0);
        const std::string what = tag("MPI_Allgather", f, a, b, ip);
        run(
            f,
            [&](MPI_Request* r) {
              const void* s = ip ? MPI_IN_PLACE : sb.data();
              return CCLX_FORM(allgather, Allgather, s, send.count, send.type, rb.data(),
                               recv.count, recv.type, MPI_COMM_WORLD);
            },
            {&send, &recv}, what);
        std::vector<bool> touched(rb.size());
        for (int i = 0; i < nranks; ++i) check_block(rb, recv, i, kK, i, 0, touched, what);
        check_gaps(rb, touched, what);
      }
      {
        Layout send = layout(other, kK), recv = layout(mine, kK);
        std::vector<double> sb = buffer(send, nranks), rb = buffer(recv, nranks);
        // Block j of rank r's input: value(r, j * kK + ...).
        for (int j = 0; j < nranks; ++j) {
          put(sb, send, j, kK, rank, j * kK);
          if (ip) put(rb, recv, j, kK, rank, j * kK);
        }
        const std::string what = tag("MPI_Alltoall", f, a, b, ip);
        run(
            f,
            [&](MPI_Request* r) {
              const void* s = ip ? MPI_IN_PLACE : sb.data();
              return CCLX_FORM(alltoall, Alltoall, s, send.count, send.type, rb.data(), recv.count,
                               recv.type, MPI_COMM_WORLD);
            },
            {&send, &recv}, what);
        std::vector<bool> touched(rb.size());
        for (int i = 0; i < nranks; ++i) check_block(rb, recv, i, kK, i, rank * kK, touched, what);
        check_gaps(rb, touched, what);
      }
    }
  }
}

// The v-collectives with per-rank kinds: rank i contributes (i % 3) + (i == 1 ? -1 : 0) elements
// (zeros included); the receive side's displacements leave a gap of one element between blocks
// and list the blocks last to first. Gatherv and scatterv too (the root's counts only).
int vcount(int i) {
  return i == 1 ? 0 : i % 3 + 1;
}

void vcollectives(Form f) {
  for (const auto& [a, b] : kPairs) {
    const std::string& mine = rank % 2 == 0 ? a : b;
    const std::string& other = rank % 2 == 0 ? b : a;
    // Elements of the receive kind, displaced.
    std::vector<int> counts(static_cast<std::size_t>(nranks)), displs(counts.size());
    int end = 0;
    for (int i = nranks - 1; i >= 0; --i) {
      counts[static_cast<std::size_t>(i)] = vcount(i);
      displs[static_cast<std::size_t>(i)] = end;
      end += vcount(i) + 1;
    }
    for (const bool ip : {false, true}) {
      Layout send = layout(other, 1), recv = layout(mine, 1);  // one double per element
      std::vector<double> sb = buffer(send, vcount(rank)), rb = buffer(recv, end);
      for (int j = 0; j < vcount(rank); ++j) put(sb, send, j, 1, rank, j);
      if (ip)
        for (int j = 0; j < vcount(rank); ++j)
          put(rb, recv, displs[static_cast<std::size_t>(rank)] + j, 1, rank, j);
      const std::string what = tag("MPI_Allgatherv", f, a, b, ip);
      run(
          f,
          [&](MPI_Request* r) {
            const void* s = ip ? MPI_IN_PLACE : sb.data();
            return CCLX_FORM(allgatherv, Allgatherv, s, vcount(rank), send.type, rb.data(),
                             counts.data(), displs.data(), recv.type, MPI_COMM_WORLD);
          },
          {&send, &recv}, what);
      std::vector<bool> touched(rb.size());
      for (int i = 0; i < nranks; ++i)
        for (int j = 0; j < vcount(i); ++j)
          check_block(rb, recv, displs[static_cast<std::size_t>(i)] + j, 1, i, j, touched, what);
      check_gaps(rb, touched, what);
    }
    // Alltoallv: rank r sends (r + j) % 3 elements to rank j, at displacements with gaps.
    for (const bool ip : {false, true}) {
      const auto amount = [ip](int from, int to) {
        return ip ? (from + to) % 3 : (from * 2 + to) % 3;
      };
      std::vector<int> sc(static_cast<std::size_t>(nranks)), sd(sc.size()), rc(sc.size()),
          rd(sc.size());
      int send_end = 0, recv_end = 0;
      for (int j = 0; j < nranks; ++j) {
        const auto u = static_cast<std::size_t>(j);
        sc[u] = amount(rank, j), sd[u] = send_end, send_end += sc[u] + 1;
        rc[u] = amount(j, rank);
      }
      for (int j = nranks - 1; j >= 0; --j) {
        const auto u = static_cast<std::size_t>(j);
        rd[u] = recv_end, recv_end += rc[u] + 1;
      }
      Layout send = layout(other, 1), recv = layout(mine, 1);
      std::vector<double> sb = buffer(send, send_end), rb = buffer(recv, recv_end);
      // Element e of the block rank r sends to rank j: value(r, 100 * j + e).
      for (int j = 0; j < nranks; ++j)
        for (int e = 0; e < sc[static_cast<std::size_t>(j)]; ++e)
          put(sb, send, sd[static_cast<std::size_t>(j)] + e, 1, rank, 100 * j + e);
      if (ip)  // in place: the input blocks are the receive layout's (the counts are symmetric)
        for (int j = 0; j < nranks; ++j)
          for (int e = 0; e < rc[static_cast<std::size_t>(j)]; ++e)
            put(rb, recv, rd[static_cast<std::size_t>(j)] + e, 1, rank, 100 * j + e);
      const std::string what = tag("MPI_Alltoallv", f, a, b, ip);
      run(
          f,
          [&](MPI_Request* r) {
            const void* s = ip ? MPI_IN_PLACE : sb.data();
            return CCLX_FORM(alltoallv, Alltoallv, s, sc.data(), sd.data(), send.type, rb.data(),
                             rc.data(), rd.data(), recv.type, MPI_COMM_WORLD);
          },
          {&send, &recv}, what);
      std::vector<bool> touched(rb.size());
      for (int j = 0; j < nranks; ++j)
        for (int e = 0; e < rc[static_cast<std::size_t>(j)]; ++e)
          check_block(rb, recv, rd[static_cast<std::size_t>(j)] + e, 1, j, 100 * rank + e, touched,
                      what);
      check_gaps(rb, touched, what);
    }
    // Gatherv and scatterv at root 0 (counts significant at the root only).
    {
      Layout send = layout(other, 1), recv = layout(mine, 1);
      std::vector<double> sb = buffer(send, vcount(rank)), rb = buffer(recv, end);
      for (int j = 0; j < vcount(rank); ++j) put(sb, send, j, 1, rank, j);
      const std::string what = tag("MPI_Gatherv", f, a, b, false);
      run(
          f,
          [&](MPI_Request* r) {
            return CCLX_FORM(gatherv, Gatherv, sb.data(), vcount(rank), send.type, rb.data(),
                             counts.data(), displs.data(), recv.type, 0, MPI_COMM_WORLD);
          },
          {&send, &recv}, what);
      if (rank == 0) {
        std::vector<bool> touched(rb.size());
        for (int i = 0; i < nranks; ++i)
          for (int j = 0; j < vcount(i); ++j)
            check_block(rb, recv, displs[static_cast<std::size_t>(i)] + j, 1, i, j, touched, what);
        check_gaps(rb, touched, what);
      }
    }
  }
}

// Zero-size derived types: every rank sends MPI_Type_contiguous(0, MPI_INT) and receives MPI_INT
// with zero counts (alltoallv, alltoall, allgather), and even and odd ranks call the in-place
// alltoallv with different but compatible types (MPI_INT and a contiguous pair of them).
void zero_size(Form f) {
  MPI_Datatype none;
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  std::vector<int> ones(static_cast<std::size_t>(nranks), 1), zeros(ones.size(), 0),
      at(ones.size());
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = static_cast<int>(i);
  std::vector<int> rb(ones.size() + 1, -3);
  int sb[1] = {5};
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = f == Form::blocking
               ? MPI_Alltoallv(sb, ones.data(), zeros.data(), none, rb.data(), zeros.data(),
                               at.data(), MPI_INT, MPI_COMM_WORLD)
               : MPI_Ialltoallv(sb, ones.data(), zeros.data(), none, rb.data(), zeros.data(),
                                at.data(), MPI_INT, MPI_COMM_WORLD, &r);
  if (rc == MPI_SUCCESS && f != Form::blocking) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  expect(rc == MPI_SUCCESS,
         std::string("zero-size MPI_Alltoallv (") + name(f) + ") returned " + std::to_string(rc));
  rc = MPI_Allgather(sb, 3, none, rb.data(), 0, MPI_INT, MPI_COMM_WORLD);
  expect(rc == MPI_SUCCESS, "zero-size MPI_Allgather returned " + std::to_string(rc));
  rc = MPI_Alltoall(sb, 2, none, rb.data(), 0, MPI_INT, MPI_COMM_WORLD);
  expect(rc == MPI_SUCCESS, "zero-size MPI_Alltoall returned " + std::to_string(rc));
  for (const int x : rb) expect(x == -3, "zero-size collectives wrote into the receive buffer");
  MPI_Type_free(&none);

  // In place, even ranks in MPI_INT x 2, odd ranks in one contiguous pair of MPI_INT.
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const bool even = rank % 2 == 0;
  std::vector<int> buf(2 * ones.size());
  for (int j = 0; j < nranks; ++j) {
    buf[static_cast<std::size_t>(2 * j)] = rank * 100 + j;
    buf[static_cast<std::size_t>(2 * j + 1)] = -(rank * 100 + j);
  }
  std::vector<int> c(ones.size(), even ? 2 : 1), d(ones.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int>(i) * c[i];
  rc = f == Form::blocking
           ? MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, buf.data(), c.data(),
                           d.data(), even ? MPI_INT : pair, MPI_COMM_WORLD)
           : MPI_Ialltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, buf.data(), c.data(),
                            d.data(), even ? MPI_INT : pair, MPI_COMM_WORLD, &r);
  if (f != Form::blocking) MPI_Type_free(&pair);
  if (rc == MPI_SUCCESS && f != Form::blocking) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (f == Form::blocking) MPI_Type_free(&pair);
  const std::string what =
      std::string("in-place MPI_Alltoallv, MPI_INT x 2 / contiguous pair (") + name(f) + ")";
  expect(rc == MPI_SUCCESS, what + " returned " + std::to_string(rc));
  for (int j = 0; j < nranks; ++j) {
    expect(buf[static_cast<std::size_t>(2 * j)] == j * 100 + rank,
           what + ": block " + std::to_string(j));
    expect(buf[static_cast<std::size_t>(2 * j + 1)] == -(j * 100 + rank),
           what + ": block " + std::to_string(j));
  }
}

// Reductions: MPI defines its predefined ops on predefined datatypes only (MPI 4.0, 6.9.2), so a
// derived datatype needs a user-defined op: here an addition, on a contiguous pair of ints (the
// elements are the buffer), on MPI_INT on odd ranks against MPI_Type_dup(MPI_INT) on even ones,
// and on a strided vector (gaps: the function sees the application's layout).
void add_pairs(void* in, void* inout, int* len, MPI_Datatype* t) {
  int size = 0;
  MPI_Type_size(*t, &size);
  const int ints = *len * size / static_cast<int>(sizeof(int));
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(*t, &lb, &extent);
  const int stride =
      static_cast<int>(extent / static_cast<MPI_Aint>(sizeof(int))) == 2 * 5 - 1 ? 2 : 1;
  for (int i = 0; i < ints; ++i)
    static_cast<int*>(inout)[i * stride] += static_cast<int*>(in)[i * stride];
}

void reductions(Form f) {
  constexpr int k = 5;
  MPI_Op add;
  MPI_Op_create(&add_pairs, 1, &add);
  for (const char* kind : {"pair", "dup", "vector"}) {
    const std::string kd = kind;
    MPI_Datatype t = MPI_INT;
    int count = k;
    if (kd == "pair") {
      MPI_Type_contiguous(1, MPI_INT, &t);  // one int per element: k elements
      MPI_Type_commit(&t);
    } else if (kd == "dup" && rank % 2 == 0) {
      MPI_Type_dup(MPI_INT, &t);
    } else if (kd == "vector") {
      MPI_Type_vector(k, 1, 2, MPI_INT, &t);
      MPI_Type_commit(&t);
      count = 1;
    }
    const auto at = [&](int j) { return static_cast<std::size_t>(kd == "vector" ? 2 * j : j); };
    std::vector<int> in(2 * k, -1), out(2 * k, -9);
    for (int j = 0; j < k; ++j) in[at(j)] = rank * 10 + j;
    const std::string what = std::string("MPI_Allreduce (") + name(f) + ") with a user op on " + kd;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = f == Form::blocking
                 ? MPI_Allreduce(in.data(), out.data(), count, t, add, MPI_COMM_WORLD)
                 : MPI_Iallreduce(in.data(), out.data(), count, t, add, MPI_COMM_WORLD, &r);
    if (t != MPI_INT) MPI_Type_free(&t);
    if (rc == MPI_SUCCESS && f != Form::blocking) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect(rc == MPI_SUCCESS, what + " returned " + std::to_string(rc));
    for (int j = 0; j < k; ++j) {
      int sum = 0;
      for (int q = 0; q < nranks; ++q) sum += q * 10 + j;
      expect(out[at(j)] == sum, what + ": element " + std::to_string(j));
    }
    if (kd == "vector")
      for (int j = 0; j < k - 1; ++j)
        expect(out[static_cast<std::size_t>(2 * j + 1)] == -9, what + ": gap overwritten");
  }
  MPI_Op_free(&add);
}

// Handles freed while calls are pending: four MPI_Igathers in flight, each on its own
// MPI_Type_dup(MPI_INT) freed right away; a communicator freed before the wait; a user op freed
// before the wait.
void add_ints(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}

void lifetimes() {
  constexpr int kInFlight = 4, n = 10;
  std::vector<std::vector<int>> send(kInFlight), recv(kInFlight);
  std::vector<MPI_Request> reqs(kInFlight);
  for (int c = 0; c < kInFlight; ++c) {
    send[c].resize(n);
    for (int j = 0; j < n; ++j) send[c][static_cast<std::size_t>(j)] = c * 10000 + rank * 100 + j;
    recv[c].assign(static_cast<std::size_t>(n * nranks), -1);
    MPI_Datatype t;
    MPI_Type_dup(MPI_INT, &t);
    MPI_Igather(send[c].data(), n, MPI_INT, recv[c].data(), n, t, 0, MPI_COMM_WORLD,
                &reqs[static_cast<std::size_t>(c)]);
    MPI_Type_free(&t);
  }
  const int rc = MPI_Waitall(kInFlight, reqs.data(), MPI_STATUSES_IGNORE);
  expect(rc == MPI_SUCCESS,
         "four MPI_Igathers in flight, types freed: returned " + std::to_string(rc));
  if (rank == 0)
    for (int c = 0; c < kInFlight; ++c)
      for (int q = 0; q < nranks; ++q)
        for (int j = 0; j < n; ++j)
          expect(recv[c][static_cast<std::size_t>(q * n + j)] == c * 10000 + q * 100 + j,
                 "MPI_Igather " + std::to_string(c) + " with a freed type");

  // A communicator and an op freed while the allreduce on them is pending.
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Op op;
  MPI_Op_create(&add_ints, 1, &op);
  std::vector<int> in(n), out(n, 0);
  for (int j = 0; j < n; ++j) in[static_cast<std::size_t>(j)] = rank + j;
  MPI_Request r;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, op, dup, &r);
  MPI_Op_free(&op);
  MPI_Comm_free(&dup);
  const int rc2 = MPI_Wait(&r, MPI_STATUS_IGNORE);
  expect(rc2 == MPI_SUCCESS,
         "MPI_Iallreduce with its communicator and op freed: returned " + std::to_string(rc2));
  for (int j = 0; j < n; ++j)
    expect(out[static_cast<std::size_t>(j)] == nranks * j + nranks * (nranks - 1) / 2,
           "MPI_Iallreduce with a freed communicator and op: element " + std::to_string(j));
#if MPI_VERSION >= 4
  // A persistent bcast whose communicator and type are freed after init, started twice.
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Datatype t;
  MPI_Type_vector(n, 1, 2, MPI_INT, &t);
  MPI_Type_commit(&t);
  std::vector<int> b(2 * n, -1);
  MPI_Bcast_init(b.data(), 1, t, 0, dup, MPI_INFO_NULL, &r);
  MPI_Type_free(&t);
  MPI_Comm_free(&dup);
  for (int round = 0; round < 2; ++round) {
    for (int j = 0; j < n; ++j)
      b[static_cast<std::size_t>(2 * j)] = rank == 0 ? round * 100 + j : -5;
    MPI_Start(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int j = 0; j < n; ++j)
      expect(b[static_cast<std::size_t>(2 * j)] == round * 100 + j &&
                 b[static_cast<std::size_t>(2 * j + 1)] == -1,
             "MPI_Bcast_init with its type and communicator freed, round " + std::to_string(round));
  }
  MPI_Request_free(&r);
#endif
}

// Every collective on a communicator duplicated for the call, with its datatype (a dup of
// MPI_INT) and op (a user-defined addition: MPI's predefined ops are defined on predefined types
// only) freed right after the MPI_I* or MPI_*_init call, before it completes.
void every_collective_freed(Form f) {
  constexpr int k = 4;
  const int n = nranks;
  const auto v = [](int q, int i) { return q * 1000 + i; };
  const auto call =
      [&](const char* coll,
          const std::function<int(MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request*)>& make,
          const std::function<void(const std::string&)>& check) {
        const std::string what =
            std::string(coll) + " (" + name(f) + ") with its type, op and communicator freed";
        if (trace) std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Datatype t;
        MPI_Type_dup(MPI_INT, &t);
        MPI_Op op;
        MPI_Op_create(&add_pairs, 1, &op);
        MPI_Request r = MPI_REQUEST_NULL;
        int rc = make(comm, t, op, &r);
        MPI_Type_free(&t);
        MPI_Op_free(&op);
        MPI_Comm_free(&comm);
        if (rc == MPI_SUCCESS && f == Form::persistent) rc = MPI_Start(&r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && f == Form::persistent) rc = MPI_Request_free(&r);
        expect(rc == MPI_SUCCESS, what + ": returned " + std::to_string(rc));
        check(what);
      };
  const bool nb = f == Form::nonblocking;
  std::vector<int> in(static_cast<std::size_t>(n * k)), out(static_cast<std::size_t>(n * k), -1);
  const auto reset = [&] {
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = v(rank, static_cast<int>(i));
    std::fill(out.begin(), out.end(), -1);
  };
  const auto sum = [&](int i) {
    int x = 0;
    for (int q = 0; q < n; ++q) x += v(q, i);
    return x;
  };
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  std::vector<int> counts(at(n), k), displs(at(n));
  for (int i = 0; i < n; ++i) displs[at(i)] = i * k;
  reset();
  call(
      "MPI_Iallreduce",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op op, MPI_Request* r) {
        return CCLX_FORM(allreduce, Allreduce, in.data(), out.data(), k, t, op, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < k; ++i) expect(out[at(i)] == sum(i), w);
      });
  reset();
  call(
      "MPI_Ireduce",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op op, MPI_Request* r) {
        return CCLX_FORM(reduce, Reduce, in.data(), out.data(), k, t, op, n - 1, c);
      },
      [&](const std::string& w) {
        if (rank == n - 1)
          for (int i = 0; i < k; ++i) expect(out[at(i)] == sum(i), w);
      });
  reset();
  call(
      "MPI_Ireduce_scatter_block",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op op, MPI_Request* r) {
        return CCLX_FORM(reduce_scatter_block, Reduce_scatter_block, in.data(), out.data(), k, t,
                         op, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < k; ++i) expect(out[at(i)] == sum(rank * k + i), w);
      });
  reset();
  call(
      "MPI_Ireduce_scatter",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op op, MPI_Request* r) {
        return CCLX_FORM(reduce_scatter, Reduce_scatter, in.data(), out.data(), counts.data(), t,
                         op, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < k; ++i) expect(out[at(i)] == sum(rank * k + i), w);
      });
  reset();
  if (rank != 0) std::fill(in.begin(), in.end(), -2);
  call(
      "MPI_Ibcast",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(bcast, Bcast, in.data(), k, t, 0, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < k; ++i) expect(in[at(i)] == v(0, i), w);
      });
  reset();
  call(
      "MPI_Iallgather",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(allgather, Allgather, in.data(), k, t, out.data(), k, t, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < n * k; ++i) expect(out[at(i)] == v(i / k, i % k), w);
      });
  reset();
  call(
      "MPI_Ialltoall",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(alltoall, Alltoall, in.data(), k, t, out.data(), k, t, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < n * k; ++i) expect(out[at(i)] == v(i / k, rank * k + i % k), w);
      });
  reset();
  call(
      "MPI_Igather",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(gather, Gather, in.data(), k, t, out.data(), k, t, 0, c);
      },
      [&](const std::string& w) {
        if (rank == 0)
          for (int i = 0; i < n * k; ++i) expect(out[at(i)] == v(i / k, i % k), w);
      });
  reset();
  call(
      "MPI_Iscatter",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(scatter, Scatter, in.data(), k, t, out.data(), k, t, 0, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < k; ++i) expect(out[at(i)] == v(0, rank * k + i), w);
      });
  reset();
  call(
      "MPI_Iallgatherv",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(allgatherv, Allgatherv, in.data(), k, t, out.data(), counts.data(),
                         displs.data(), t, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < n * k; ++i) expect(out[at(i)] == v(i / k, i % k), w);
      });
  reset();
  call(
      "MPI_Ialltoallv",
      [&](MPI_Comm c, MPI_Datatype t, MPI_Op, MPI_Request* r) {
        return CCLX_FORM(alltoallv, Alltoallv, in.data(), counts.data(), displs.data(), t,
                         out.data(), counts.data(), displs.data(), t, c);
      },
      [&](const std::string& w) {
        for (int i = 0; i < n * k; ++i) expect(out[at(i)] == v(i / k, rank * k + i % k), w);
      });
  call(
      "MPI_Ibarrier",
      [&](MPI_Comm c, MPI_Datatype, MPI_Op, MPI_Request* r) {
#if MPI_VERSION >= 4
        return nb ? MPI_Ibarrier(c, r) : MPI_Barrier_init(c, MPI_INFO_NULL, r);
#else
        return MPI_Ibarrier(c, r);
#endif
      },
      [](const std::string&) {});
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  trace = argc > 1 && std::string(argv[1]) == "--trace";
  for (const Form f : forms()) {
    gather_scatter_bcast(f);
    allgather_alltoall(f);
    vcollectives(f);
    zero_size(f);
    reductions(f);
    if (f != Form::blocking) every_collective_freed(f);
  }
  lifetimes();
  long long all = 0, total = 0;
  MPI_Reduce(&failures, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&checks, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("datatypes: %lld checks, %lld failures\n", total, all);
  MPI_Bcast(&all, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
