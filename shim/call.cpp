#include "call.hpp"

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "cclx/collectives/collectives.hpp"
#include "comm_cache.hpp"
#include "errors.hpp"
#include "mpi_map.hpp"
#include "policy.hpp"
#include "report.hpp"

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

Call::Call(sched::Collective collective, MPI_Comm comm) : collective_(collective), comm_(comm) {
  destroy_retired();
  c_.collective = collective;
  if (!config().error.empty()) {
    pass_because("CCLX_ALGO is invalid");
    return;
  }
  v_ = view(comm);
  if (!v_.valid)
    pass_because(invalid_args);
  else if (v_.inter)
    pass_because("intercommunicator");
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
    user_ = {*u, type, t->size};
    c_.kernel = user_kernel(user_);
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

void Call::buffers(const void* in, void* out, bool in_place, std::size_t in_elems,
                   std::size_t out_elems) {
  if (!ok()) return;
  c_.in = in;
  c_.out = out;
  c_.in_place = in_place;
  c_.in_size = in_elems * scale_;
  c_.out_size = out_elems * scale_;
}

void Call::invalid() {
  pass_because(invalid_args);
}

std::optional<int> Call::serve() {
  const std::string_view name = sched::to_string(collective_);
  if (!ok()) {
    count(name, Path::passthrough, "-", reason_);
    return std::nullopt;
  }
  const int n = v_.size;
  // The shim serves only equal-block collectives (v-variants pass through, passthrough.cpp).
  c_.count = coll::visit(collective_, [&](auto d) -> std::size_t {
    if constexpr (coll::variable_counts<decltype(d)>)
      return 0;
    else
      return d.count(c_.in_size, c_.out_size, c_.in_place, n, is_root());
  });
  tune::Workload w;
  w.collective = collective_;
  w.nranks = n;
  w.root = c_.root;
  w.in_place = c_.in_place;
  w.elem_size = c_.kernel.elem_size;
  w.bytes = coll::partition_count(collective_, c_.count, n) * w.elem_size;
  w.commutative = !c_.has_op || c_.kernel.commutative;

  Decision d;
  bool native_user_op = false;
  const std::optional<int> rc = guarded(comm_, name, d.algorithm, [&]() -> std::optional<int> {
    // The side described otherwise goes through staging laid out like data()'s side.
    std::vector<std::byte> staging;
    void* user_out = c_.out;
    const int n_blocks = n;
    if (staged_) {
      const std::size_t bytes =
          (*staged_ == Side::receive ? c_.out_size : c_.in_size) * c_.kernel.elem_size;
      staging.resize(bytes);
      if (*staged_ == Side::receive) {
        c_.out = staging.data();
      } else {
        convert(c_.in, other_type_, other_count_, staging.data(), type_, count_, n_blocks);
        c_.in = staging.data();
      }
    }
    with_chosen_policy(w, v_.rank, d, [&](const auto& policy) {
      // MPI applies a user-defined op itself faster than through cclx's trampoline.
      if constexpr (std::is_same_v<std::decay_t<decltype(policy)>, algo::Native>)
        if (user_op_) return void(native_user_op = true);
      communicator(comm_, v_).run_call(c_, policy);
    });
    if (staged_ == Side::receive)
      convert(staging.data(), type_, count_, user_out, other_type_, other_count_, n_blocks);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) return rc;
  if (native_user_op) {
    count(name, Path::passthrough, "-",
          d.fallback.empty() ? "user-defined op on the native path (MPI applies it)"
                             : "user-defined op, fallback from " + d.fallback);
    return std::nullopt;
  }
  if (!d.fallback.empty())
    count(name, Path::cclx, d.algorithm, "fallback from " + d.fallback);
  else
    count(name, Path::cclx, d.algorithm, d.rule.empty() ? "no CCLX_ALGO rule" : d.rule);
  return MPI_SUCCESS;
}

int barrier(MPI_Comm comm) {
  const Inside in;
  destroy_retired();
  CommView v;
  const char* reason = nullptr;
  if (!config().error.empty()) {
    reason = "CCLX_ALGO is invalid";
  } else {
    v = view(comm);
    if (!v.valid) reason = invalid_args;
    if (v.valid && v.inter) reason = "intercommunicator";
  }
  if (reason) {
    count("barrier", Path::passthrough, "-", reason);
    return PMPI_Barrier(comm);
  }
  const std::string_view native = "native";
  const std::optional<int> rc = guarded(comm, "barrier", native, [&]() -> std::optional<int> {
    communicator(comm, v).barrier();
    return MPI_SUCCESS;
  });
  if (rc == MPI_SUCCESS) count("barrier", Path::cclx, "native", "no scheduled barrier in cclx yet");
  return *rc;
}

void not_served(const char* collective) {
  count(collective, Path::passthrough, "-", "not served yet");
}

}  // namespace cclx::shim
