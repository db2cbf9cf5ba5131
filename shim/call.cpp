#include "call.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "cclx/collectives/collectives.hpp"
#include "cclx/detail/auto_dispatch.hpp"
#include "comm_cache.hpp"
#include "errors.hpp"
#include "mpi_map.hpp"
#include "policy.hpp"
#include "report.hpp"
#include "requests.hpp"

namespace cclx::shim {

namespace {

constexpr const char* invalid_args = "invalid arguments (the MPI library reports the error)";

// Why `t` is not in the table: a named type cclx does not map, or a derived one.
const char* type_reason(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return invalid_args;
  int ints = 0, addrs = 0, types = 0, combiner = 0;
  if (PMPI_Type_get_envelope(t, &ints, &addrs, &types, &combiner) != MPI_SUCCESS)
    return invalid_args;
  if (combiner == MPI_COMBINER_NAMED)
    return "predefined datatype cclx does not map (pair type, Fortran type, ...)";
  return "derived datatype";
}

// Copies `blocks` blocks of `fcount` x `ftype` at `from` to blocks of `tcount` x `ttype` at `to`
// (the same type signature), letting MPI convert: a send to self on a private MPI_COMM_SELF.
void convert(const void* from, MPI_Datatype ftype, int fcount, void* to, MPI_Datatype ttype,
             int tcount, int blocks) {
  MPI_Datatype fb = MPI_DATATYPE_NULL, tb = MPI_DATATYPE_NULL;
  PMPI_Type_contiguous(fcount, ftype, &fb);
  PMPI_Type_commit(&fb);
  PMPI_Type_contiguous(tcount, ttype, &tb);
  PMPI_Type_commit(&tb);
  const int rc =
      PMPI_Sendrecv(from, blocks, fb, 0, 0, to, blocks, tb, 0, 0, self_comm(), MPI_STATUS_IGNORE);
  PMPI_Type_free(&fb);
  PMPI_Type_free(&tb);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    PMPI_Error_string(rc, text, &len);
    throw Error("libcclx-mpi: converting the differently described side failed: " +
                std::string(text, static_cast<std::size_t>(len)));
  }
}

// Runs `f`, turning whatever it throws into an MPI error code raised on `comm`.
template <class F>
std::optional<int> guarded(MPI_Comm comm, std::string_view name, const std::string_view& algorithm,
                           F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    count(name, Path::error, algorithm, "cclx::Error");
    return raise_error(comm, e.what());
  } catch (const std::bad_alloc&) {
    count(name, Path::error, algorithm, "out of memory");
    return raise_error(comm, "libcclx-mpi: out of memory");
  } catch (const std::exception& e) {
    count(name, Path::error, algorithm, "exception");
    return raise_error(comm, std::string("libcclx-mpi: ") + e.what());
  } catch (...) {
    count(name, Path::error, algorithm, "exception");
    return raise_error(comm, "libcclx-mpi: unknown exception");
  }
}

}  // namespace

Call::Call(sched::Collective collective, MPI_Comm comm, Form form, MPI_Request* request)
    : collective_(collective), comm_(comm), form_(form), request_(request) {
  destroy_retired();
  c_.collective = collective;
  if (form != Form::blocking) {
    shared_ = std::make_shared<CallKept>();
    k_ = shared_.get();
  }
  if (!config().error.empty()) {
    pass_because("CCLX_ALGO is invalid");
    return;
  }
  if (form != Form::blocking && request == nullptr) {
    invalid();
    return;
  }
  v_ = view(comm);
  if (!v_.valid)
    pass_because(invalid_args);
  else if (v_.inter)
    pass_because("intercommunicator");
}

CallKept& Call::kept() {
  return k_ ? *k_ : *(k_ = &local_.emplace());
}

void Call::root(int root) {
  if (!ok()) return;
  if (root < 0 || root >= v_.size) return invalid();
  c_.root = root;
}

void Call::data(MPI_Datatype type, int count) {
  if (!ok()) return;
  if (count < 0) return invalid();
  const TypeInfo* t = predefined_type(type);
  if (!t) return pass_because(type_reason(type));
  type_ = type;
  count_ = count;
  scale_ = t->size;
  c_.type = DataType::u8;
  c_.kernel.elem_size = 1;
}

void Call::reduction(MPI_Datatype type, int count, MPI_Op op) {
  if (!ok()) return;
  if (count < 0 || op == MPI_OP_NULL) return invalid();
  const TypeInfo* t = predefined_type(type);
  if (!t)
    return pass_because(op == MPI_MAXLOC || op == MPI_MINLOC ? "MPI_MAXLOC/MPI_MINLOC (pair types)"
                                                             : type_reason(type));
  if (is_predefined_op(op)) {
    const char* why = nullptr;
    const std::optional<OpId> id = builtin_op(op, t->cls, &why);
    if (!id) return pass_because(why);
    c_.kernel = builtin_kernel(t->type, *id);
  } else {
    const std::optional<UserOp> u = find_user_op(op);
    if (!u) return pass_because("user-defined op not created through MPI_Op_create");
    if (t->cls == TypeClass::moved)
      return pass_because("user-defined op on a type cclx has no element type for");
    kept().user = {*u, type, t->size};
    c_.kernel = user_kernel(kept().user);
    user_op_ = true;
  }
  type_ = type;
  count_ = count;
  scale_ = 1;
  c_.type = t->type;
  c_.has_op = true;
}

void Call::other_side(MPI_Datatype type, int count, Side side) {
  if (!ok() || (type == type_ && count == count_)) return;
  if (count < 0 || type == MPI_DATATYPE_NULL) return invalid();
  staged_ = side;
  other_type_ = type;
  other_count_ = count;
}

void Call::other_type(MPI_Datatype type) {
  if (!ok() || type == type_) return;
  const TypeInfo* t = predefined_type(type);
  if (type == MPI_DATATYPE_NULL) return invalid();
  // Moved as bytes: another predefined type of the same size moves the same bytes.
  if (!t || t->size != scale_ || c_.has_op)
    pass_because("send and receive sides in different datatypes (v-collective)");
}

void Call::buffers(const void* in, void* out, bool in_place, std::size_t in_elems,
                   std::size_t out_elems) {
  if (!ok()) return;
  c_.in = in;
  c_.out = out;
  c_.in_place = in_place;
  c_.in_size = in_elems * scale_;
  c_.out_size = out_elems * scale_;
}

void Call::counts(const int* out_counts, const int* out_displs, const int* in_counts,
                  const int* in_displs) {
  if (!ok()) return;
  if (!out_counts || (in_displs && !in_counts)) return invalid();
  const std::size_t n = size();
  for (std::size_t i = 0; i < n; ++i)
    if (out_counts[i] < 0 || (in_counts && in_counts[i] < 0)) return invalid();
  std::vector<long long>& v = kept().v;
  v.assign(4 * n, 0);
  const auto fill = [&](std::size_t at, const int* a) {
    for (std::size_t i = 0; i < n; ++i) v[at + i] = static_cast<long long>(a[i]) * scale_;
  };
  const auto packed = [&](std::size_t counts_at, const int* displs) {
    if (!displs) return true;
    fill(counts_at + n, displs);
    long long at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (v[counts_at + i] != 0 && v[counts_at + n + i] != at) return false;
      at += v[counts_at + i];
    }
    return true;
  };
  fill(0, out_counts);
  k_->out_packed = packed(0, out_displs);
  const bool own_in = in_counts != nullptr;
  if (own_in) {
    fill(2 * n, in_counts);
    k_->in_packed = packed(2 * n, in_displs);
  }
  using detail::IntArray;
  const auto arr = [&](std::size_t at) { return IntArray{v.data() + at, n, 8, true}; };
  const std::size_t in_at = own_in ? 2 * n : 0;
  k_->blocks = {arr(in_at), arr(0), IntArray{}, IntArray{}};
  variable_ = true;
}

void Call::invalid() {
  pass_because(invalid_args);
}

std::size_t spanned(std::size_t n, const int* counts, const int* displs) {
  if (!counts) return 0;
  long long end = 0, total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += counts[i];
    if (displs && counts[i] > 0) end = std::max(end, static_cast<long long>(displs[i]) + counts[i]);
  }
  return static_cast<std::size_t>(std::max(displs ? end : total, 0LL));
}

namespace {

// Copies the blocks of `counts` between `user` at `displs` and `packed` (cclx elements of
// `elem` bytes), in the direction `to_packed` says.
void copy_blocks(std::byte* packed, std::byte* user, const detail::IntArray& counts,
                 const long long* displs, std::size_t elem, bool to_packed) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < counts.size; ++i) {
    const auto bytes = static_cast<std::size_t>(counts[i]) * elem;
    if (bytes != 0) {
      std::byte* u =
          user + static_cast<std::ptrdiff_t>(displs[i]) * static_cast<std::ptrdiff_t>(elem);
      if (to_packed)
        std::memcpy(packed + at, u, bytes);
      else
        std::memcpy(u, packed + at, bytes);
    }
    at += bytes;
  }
}

}  // namespace

// Sets c_.blocks' displacements (native) or the staging that packs non-packed layouts (a
// scheduled algorithm), and the other side's conversion; k_->before and k_->after do the copies.
void Call::stage(bool native) {
  if (!k_ && !variable_ && !staged_) return;  // nothing to keep or stage
  CallKept& k = kept();
  const std::size_t n = size();
  const std::size_t elem = c_.kernel.elem_size;
  k.before = nullptr;
  k.after = nullptr;
  std::vector<std::function<void()>> before, after;
  if (variable_) {
    k.blocks.in_displs = k.blocks.out_displs = {};
    const bool own_in = k.blocks.in_counts.data != k.blocks.out_counts.data;
    const long long* out_displs = k.v.data() + n;
    const long long* in_displs = k.v.data() + 3 * n;
    if (native) {
      using detail::IntArray;
      if (!k.out_packed) k.blocks.out_displs = IntArray{out_displs, n, 8, true};
      if (own_in && !k.in_packed)
        k.blocks.in_displs = IntArray{in_displs, n, 8, true};
      else if (!own_in && !k.out_packed)
        k.blocks.in_displs = k.blocks.out_displs;  // one array for both, as the API's blocks()
    } else {
      const detail::IntArray oc = k.blocks.out_counts, ic = k.blocks.in_counts;
      if (!k.out_packed) {
        k.out_stage.resize(detail::counts_total(oc) * elem);
        auto* user = static_cast<std::byte*>(c_.out);
        std::byte* st = k.out_stage.data();
        if (c_.in_place) {
          before.emplace_back([=] { copy_blocks(st, user, oc, out_displs, elem, true); });
          c_.in = st;
        }
        after.emplace_back([=] { copy_blocks(st, user, oc, out_displs, elem, false); });
        c_.out = st;
        c_.out_size = k.out_stage.size() / elem;
        if (c_.in_place) c_.in_size = c_.out_size;
      }
      if (own_in && !k.in_packed && !c_.in_place) {
        k.in_stage.resize(detail::counts_total(ic) * elem);
        auto* user = static_cast<std::byte*>(const_cast<void*>(c_.in));
        std::byte* st = k.in_stage.data();
        before.emplace_back([=] { copy_blocks(st, user, ic, in_displs, elem, true); });
        c_.in = st;
        c_.in_size = k.in_stage.size() / elem;
      }
    }
    c_.blocks = &k.blocks;
  }
  if (staged_) {
    // The side described otherwise goes through staging laid out like data()'s side.
    const std::size_t bytes = (*staged_ == Side::receive ? c_.out_size : c_.in_size) * elem;
    const MPI_Datatype t = type_, ot = other_type_;
    const int tc = count_, oc = other_count_, blocks = static_cast<int>(n);
    if (*staged_ == Side::receive) {
      k.out_stage.resize(bytes);
      void* user = c_.out;
      std::byte* st = k.out_stage.data();
      after.emplace_back([=] { convert(st, t, tc, user, ot, oc, blocks); });
      c_.out = st;
    } else {
      k.in_stage.resize(bytes);
      const void* user = c_.in;
      std::byte* st = k.in_stage.data();
      before.emplace_back([=] { convert(user, ot, oc, st, t, tc, blocks); });
      c_.in = st;
    }
  }
  if (!before.empty())
    k.before = [b = std::move(before)] {
      for (const auto& f : b) f();
    };
  if (!after.empty())
    k.after = [a = std::move(after)] {
      for (const auto& f : a) f();
    };
}

template <class P>
void Call::run(const P& policy) {
  Communicator<>& comm = communicator(comm_, v_);
  if (form_ == Form::blocking) {
    if (k_ && k_->before) k_->before();
    bool started = false;
    // Served requests are running: a scheduled call waits as a nonblocking one, testing them
    // meanwhile (the same messages as run_call's). Not native: MPI does not match a
    // nonblocking collective with the blocking ones of the ranks that have none running.
    if constexpr (!algo::AdaptiveAlgorithm<P> && !std::is_same_v<P, algo::Native>) {
      if (requests_running()) {
        Request r = comm.start_call(c_, policy, nullptr);
        complete_progressing(r, label(collective_, Form::blocking));
        started = true;
      }
    }
    if (!started) comm.run_call(c_, policy);
    if (k_ && k_->after) k_->after();
    return;
  }
  CallKept& k = *k_;
  if (form_ == Form::nonblocking) {
    if (k.before) k.before();
    Request r = comm.start_call(c_, policy, shared_);
    *request_ = add_nonblocking(comm_, collective_, std::move(r), shared_, k.after);
  } else {
    PersistentRequest p = comm.init_call(c_, policy, shared_);
    *request_ = add_persistent(comm_, collective_, std::move(p), shared_, k.before, k.after);
  }
}

// Runs the call with `policy` (a decision made): stages, starts or runs it. A user-defined op on
// the native path goes to MPI with the application's op (`passed`: its return code), which
// applies it faster than cclx's trampoline would.
template <class P>
void Call::serve_with(const P& policy, Decision& d, const PassRef& pass,
                      std::optional<int>& passed) {
  if constexpr (std::is_same_v<P, algo::Native>) {
    if (user_op_) return void(passed = pass());
    stage(true);
    run(policy);
  } else if constexpr (algo::AdaptiveAlgorithm<P>) {
    if (form_ != Form::blocking) {
      d.fallback = std::string(d.algorithm) + ": adaptive policies serve blocking calls only";
      d.algorithm = "native";
      return serve_with(algo::Native{}, d, pass, passed);
    }
    stage(false);
    run(policy);
  } else {
    stage(false);
    run(policy);
  }
}

std::optional<int> Call::serve(const PassRef& pass) {
  const std::string_view name = label(collective_, form_);
  if (!ok()) {
    count(name, Path::passthrough, "-", reason_);
    return std::nullopt;
  }
  const int n = v_.size;
  c_.count = coll::visit(collective_, [&](auto d) -> std::size_t {
    if constexpr (coll::variable_counts<decltype(d)>)
      return detail::counts_total(k_->blocks.out_counts);
    else
      return d.count(c_.in_size, c_.out_size, c_.in_place, n, is_root());
  });
  // The workload as algo::Auto states it: the same on every rank (alltoallv's has no size).
  const tune::Workload w = detail::auto_workload(c_, n);

  Decision d;
  std::optional<int> passed;  // set: the call went to MPI as the application made it
  const std::optional<int> rc = guarded(comm_, name, d.algorithm, [&]() -> std::optional<int> {
    // c_.blocks is still unset: the library packs displaced blocks itself (stage()), so Auto
    // decides on the sizes alone (alltoallv: one choice for every size, docs/tuning.md).
    Communicator<>& comm = communicator(comm_, v_);
    comm.with_auto_choice(c_, algo::Auto{}, form_ == Form::blocking,
                          [&](const tune::Candidate* chosen, const auto& policy) {
                            d.algorithm = algorithm_name(chosen);
                            serve_with(policy, d, pass, passed);
                          });
    if (d.fallback.empty()) set_auto_reason(w, d);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) return rc;
  if (passed) {
    count(name, Path::passthrough, "-",
          d.fallback.empty() ? "user-defined op on the native path (MPI applies it)"
                             : "user-defined op, fallback from " + d.fallback);
    return passed;
  }
  if (!d.fallback.empty())
    count(name, Path::cclx, d.algorithm, "fallback from " + d.fallback);
  else
    count(name, Path::cclx, d.algorithm, d.rule);
  return MPI_SUCCESS;
}

void not_served(const char* collective, const char* why) {
  count(collective, Path::passthrough, "-", why);
}

}  // namespace cclx::shim
