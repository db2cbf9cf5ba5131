#include "call.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
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

void Call::reduction(MPI_Datatype type, int count, MPI_Op op) {
  if (!ok()) return;
  if (count < 0 || op == MPI_OP_NULL) return invalid();
  const std::optional<TypeShape> shape = shape_of(type);
  if (!shape) return invalid();
  const TypeShape& t = *shape;
  SideDesc d{true, type, t, 1, static_cast<std::size_t>(count)};
  if (is_predefined_op(op)) {
    // MPI defines its ops on predefined datatypes only, and makes a reduction's datatype the same
    // on every rank (MPI 4.0, 6.9.1 and 6.9.2).
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
      return pass_because("MPI_MAXLOC/MPI_MINLOC (pair types)");
    if (!t.predefined)
      return pass_because(
          "predefined op on a derived datatype (the MPI library reports the error)");
    if (!t.basic)
      return pass_because("predefined datatype cclx does not map (pair type, Fortran type, ...)");
    const char* why = nullptr;
    const std::optional<OpId> id = builtin_op(op, t.basic->cls, &why);
    if (!id) return pass_because(why);
    c_.kernel = builtin_kernel(t.basic->type, *id);
    c_.type = t.basic->type;
  } else {
    const std::optional<UserOp> u = find_user_op(op);
    if (!u) return pass_because("user-defined op not created through MPI_Op_create");
    if (t.size == 0) return pass_because("zero-size datatype (nothing to reduce)");
    // The application's function gets whole elements of its own datatype, as from MPI: served
    // where the buffer is the packed elements (MPI makes a reduction's datatype the same on every
    // rank, so every rank sees the same layout).
    if (!t.plain)
      return pass_because(
          "user-defined op on a datatype with gaps or another order (MPI applies it)");
    CallKept& k = kept();
    k.op_type = TypeRef(type, t, form_ != Form::blocking);
    k.user = {*u, k.op_type.get(), t.size};
    c_.kernel = user_kernel(k.user);
    const bool typed = t.predefined && t.basic && t.basic->cls != TypeClass::moved;
    c_.type = typed ? t.basic->type : DataType::u8;
    user_op_ = true;
  }
  in_ = out_ = d;
  c_.has_op = true;
}

void Call::side(Side s, MPI_Datatype type, int count) {
  if (!ok()) return;
  if (count < 0) return invalid();
  const std::optional<TypeShape> shape = shape_of(type);
  if (!shape) return invalid();
  // Moved as the signature's bytes.
  desc(s) = {true, type, *shape, shape->size, static_cast<std::size_t>(count)};
  c_.type = DataType::u8;
  c_.kernel.elem_size = 1;
}

void Call::buffers(const void* in, void* out, bool in_place, std::size_t in_blocks,
                   std::size_t out_blocks) {
  if (!ok()) return;
  if (in_place) {  // the one side described is both
    if (out_.given)
      in_ = out_;
    else
      out_ = in_;
  }
  c_.in = in;
  c_.out = out;
  c_.in_place = in_place;
  const std::size_t per_in = variable_ ? 1 : in_.count, per_out = variable_ ? 1 : out_.count;
  c_.in_size = in_blocks * per_in * in_.scale;
  c_.out_size = out_blocks * per_out * out_.scale;
  const std::size_t in_bytes = in_.count * in_.shape.size, out_bytes = out_.count * out_.shape.size;
  if (!variable_ && !in_place && in_blocks && out_blocks && in_bytes != out_bytes)
    mismatch_ = "libcclx-mpi: rank " + std::to_string(rank()) + ": the send side's " +
                std::to_string(in_bytes) + " bytes per block and the receive side's " +
                std::to_string(out_bytes) + " differ (MPI requires matching type signatures)";
}

void Call::result(std::size_t elems) {
  result_blocks_ = elems;
}

void Call::counts(Side s, const int* counts, const int* displs) {
  if (!ok()) return;
  if (!counts) return invalid();
  const std::size_t n = size();
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i] < 0) return invalid();
  CallKept& k = kept();
  std::vector<long long>& v = k.v;
  if (v.empty()) v.assign(4 * n, 0);
  const auto scale = static_cast<long long>(desc(s).scale);
  const std::size_t at = s == Side::receive ? 0 : 2 * n;
  for (std::size_t i = 0; i < n; ++i) v[at + i] = counts[i] * scale;
  bool packed = true;
  if (displs) {
    long long next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v[at + n + i] = displs[i] * scale;
      if (v[at + i] != 0 && v[at + n + i] != next) packed = false;
      next += v[at + i];
    }
  }
  (s == Side::receive ? k.out_packed : k.in_packed) = packed;
  if (s == Side::send) own_in_counts_ = true;
  using detail::IntArray;
  const auto arr = [&](std::size_t from) { return IntArray{v.data() + from, n, 8, true}; };
  k.blocks = {arr(own_in_counts_ ? 2 * n : 0), arr(0), IntArray{}, IntArray{}};
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

// One side of a call in the application's buffer, and how it maps to the packed form cclx runs
// on: runs of elements of `type`, at the v-collective's displacements or one after the other.
struct SideCopy {
  std::byte* user = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  TypeShape shape;
  std::size_t scale = 1;              // cclx elements per element of `type`
  std::size_t elem = 1;               // bytes per cclx element
  detail::IntArray counts;            // v-collectives: cclx elements per block (else one run)
  const long long* displs = nullptr;  // their displacements in cclx elements; null: packed
  std::size_t total = 0;              // cclx elements
};

// Packs (`to_packed`) or unpacks the first `limit` cclx elements of the side.
void copy_side(const SideCopy& s, std::byte* packed, bool to_packed, std::size_t limit) {
  if (s.scale == 0) return;  // a zero-size datatype: no data
  limit = std::min(limit, s.total);
  const auto move = [&](std::size_t at, long long displ, std::size_t elems) {
    if (at >= limit) return;
    elems = std::min(elems, limit - at);
    std::byte* u =
        s.user + static_cast<MPI_Aint>(displ / static_cast<long long>(s.scale)) * s.shape.extent;
    std::byte* p = packed + at * s.elem;
    if (to_packed)
      pack(u, elems / s.scale, s.type, s.shape, p);
    else
      unpack(p, elems / s.scale, s.type, s.shape, u);
  };
  if (!s.counts.data) return move(0, 0, s.total);
  std::size_t at = 0;
  long long next = 0;
  for (std::size_t i = 0; i < s.counts.size; ++i) {
    const auto c = static_cast<std::size_t>(s.counts[i]);
    move(at, s.displs ? s.displs[i] : next, c);
    at += c;
    next += static_cast<long long>(c);
  }
}

}  // namespace

// Stages what cclx cannot run on in place: a side whose datatype is not its packed bytes (always),
// a v-collective's displaced blocks (a scheduled algorithm; the native path gets the
// displacements); k_->before packs at each start, k_->after unpacks the results.
void Call::stage(bool native) {
  const bool out_displaced = variable_ && !k_->out_packed;
  const bool in_displaced = variable_ && own_in_counts_ && !k_->in_packed;
  const bool stage_out = c_.out && out_.given && (!out_.shape.plain || (out_displaced && !native));
  const bool stage_in =
      !c_.in_place && c_.in && in_.given && (!in_.shape.plain || (in_displaced && !native));
  if (!k_ && !variable_ && !stage_out && !stage_in) return;  // nothing to keep or stage
  CallKept& k = kept();
  const std::size_t n = size();
  const std::size_t elem = c_.kernel.elem_size;
  k.before = nullptr;
  k.after = nullptr;
  std::vector<std::function<void()>> before, after;
  if (variable_) {
    using detail::IntArray;
    k.blocks.in_displs = k.blocks.out_displs = {};
    if (native) {
      const IntArray out_d{k.v.data() + n, n, 8, true}, in_d{k.v.data() + 3 * n, n, 8, true};
      if (out_displaced && !stage_out) k.blocks.out_displs = out_d;
      if (own_in_counts_) {
        if (in_displaced && !stage_in) k.blocks.in_displs = in_d;
      } else if (out_displaced && !stage_out) {
        k.blocks.in_displs = out_d;  // one array for both, as the API's blocks()
      }
    }
    c_.blocks = &k.blocks;
  }
  const bool keep = form_ != Form::blocking;
  const auto side_copy = [&](const SideDesc& d, const void* user, bool out) {
    SideCopy sc;
    sc.user = static_cast<std::byte*>(const_cast<void*>(user));
    sc.type = (out ? k.out_type : k.in_type).get();
    sc.shape = d.shape;
    sc.scale = d.scale;
    sc.elem = elem;
    sc.total = out ? c_.out_size : c_.in_size;
    if (out ? out_displaced : in_displaced) {  // else packed: one run
      sc.counts = out ? k.blocks.out_counts : k.blocks.in_counts;
      sc.displs = k.v.data() + (out ? n : 3 * n);
      sc.total = detail::counts_total(sc.counts);
    }
    return sc;
  };
  if (stage_out) {
    k.out_type = TypeRef(out_.type, out_.shape, keep);
    const SideCopy sc = side_copy(out_, c_.out, true);
    k.out_stage.resize(sc.total * elem);
    std::byte* st = k.out_stage.data();
    if (c_.in_place) {
      before.emplace_back([=] { copy_side(sc, st, true, sc.total); });
      c_.in = st;
    }
    const std::size_t limit = result_blocks_ ? *result_blocks_ * out_.scale : sc.total;
    if (limit > 0) after.emplace_back([=] { copy_side(sc, st, false, limit); });
    c_.out = st;
    c_.out_size = sc.total;
    if (c_.in_place) c_.in_size = sc.total;
  }
  if (stage_in) {
    k.in_type = TypeRef(in_.type, in_.shape, keep);
    const SideCopy sc = side_copy(in_, c_.in, false);
    k.in_stage.resize(sc.total * elem);
    std::byte* st = k.in_stage.data();
    before.emplace_back([=] { copy_side(sc, st, true, sc.total); });
    c_.in = st;
    c_.in_size = sc.total;
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
  const std::shared_ptr<Communicator<>>& held = communicator(comm_, v_);
  Communicator<>& comm = *held;
  if (form_ == Form::blocking) {
    if (k_ && k_->before) k_->before();
    bool started = false;
    // Served requests are running: a scheduled call waits as a nonblocking one, testing them
    // meanwhile (the same messages as run_call's). Not native: MPI does not match a
    // nonblocking collective with the blocking ones of the ranks that have none running.
    if constexpr (!algo::AdaptiveAlgorithm<P> && !std::is_same_v<P, algo::Native>) {
      if (requests_running()) {
        Request r = comm.start_call(c_, policy, nullptr);
        complete_progressing(r, label(collective_, Form::blocking),
                             [&comm] { return comm.roll_call(); });
        started = true;
      }
    }
    if (!started) comm.run_call(c_, policy);
    if (k_ && k_->after) k_->after();
    return;
  }
  CallKept& k = *k_;
  k.comm = held;
  // The request keeps the Communicator alive (k.comm), so the roll call may point to it.
  ErrorTarget target{comm_, comm.native_handle(), v_.entry->freed,
                     [c = held.get()] { return c->roll_call(); }};
  if (form_ == Form::nonblocking) {
    if (k.before) k.before();
    Request r = comm.start_call(c_, policy, shared_);
    *request_ = add_nonblocking(std::move(target), collective_, std::move(r), shared_, k.after);
  } else {
    PersistentRequest p = comm.init_call(c_, policy, shared_);
    *request_ =
        add_persistent(std::move(target), collective_, std::move(p), shared_, k.before, k.after);
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
  if (config().validate && v_.valid && !v_.inter)
    if (std::optional<int> rc = agree(name)) return rc;
  if (!ok()) {
    count(name, Path::passthrough, "-", reason_);
    return std::nullopt;
  }
  if (!mismatch_.empty()) {
    count(name, Path::error, "-", "cclx::Error");
    return raise_error(comm_, mismatch_);
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
    // decides on the sizes alone (alltoallv: one choice for every size, docs/tuning-alltoallv.md).
    Communicator<>& comm = *communicator(comm_, v_);
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

namespace {

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261U;
  for (const char ch : s) h = (h ^ static_cast<unsigned char>(ch)) * 16777619U;
  return h;
}

}  // namespace

std::optional<int> Call::agree(std::string_view name) {
  // The decision and its reason, as one hash each rank contributes; the reasons themselves only
  // when the ranks differ. Runs on the Communicator's duplicate, before anything else of the call.
  const std::string mine = reason_ ? std::string("passed through: ") + reason_ : "served";
  std::optional<std::string> message;
  const std::optional<int> rc = guarded(comm_, name, "-", [&]() -> std::optional<int> {
    Communicator<>& comm = *communicator(comm_, v_);
    const MPI_Comm dup = comm.native_handle();
    const int n = comm.size();
    const std::uint32_t h = fnv1a(mine);
    std::vector<std::uint32_t> all(static_cast<std::size_t>(n));
    if (PMPI_Allgather(&h, 1, MPI_UINT32_T, all.data(), 1, MPI_UINT32_T, dup) != MPI_SUCCESS)
      throw Error("libcclx-mpi: the decision check's MPI_Allgather failed");
    if (std::all_of(all.begin(), all.end(), [&](std::uint32_t x) { return x == all[0]; }))
      return std::nullopt;
    constexpr std::size_t kText = 160;
    std::vector<char> texts(kText * static_cast<std::size_t>(n), '\0');
    std::vector<char> own(kText, '\0');
    mine.copy(own.data(), kText - 1);
    if (PMPI_Allgather(own.data(), kText, MPI_CHAR, texts.data(), kText, MPI_CHAR, dup) !=
        MPI_SUCCESS)
      throw Error("libcclx-mpi: the decision check's MPI_Allgather failed");
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (int r = 0; r < n; ++r) {
      const std::string t(texts.data() + static_cast<std::size_t>(r) * kText);
      auto it =
          std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == t; });
      if (it == groups.end()) it = groups.insert(groups.end(), {t, {}});
      it->second.push_back(r);
    }
    std::string m = "libcclx-mpi: rank " + std::to_string(comm.rank()) + ": " + std::string(name) +
                    ": the ranks decided differently whether to serve the call (CCLX_VALIDATE):";
    for (const auto& [text, ranks] : groups) m += " " + rank_list(ranks) + " " + text + ";";
    m.pop_back();
    message = m;
    return std::nullopt;
  });
  if (rc) return rc;
  if (!message) return std::nullopt;
  count(name, Path::error, "-", "decisions differ (CCLX_VALIDATE)");
  return raise_error(comm_, *message);
}

void not_served(const char* collective, const char* why) {
  count(collective, Path::passthrough, "-", why);
}

}  // namespace cclx::shim
