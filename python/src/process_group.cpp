#include "process_group.hpp"

#include <ATen/ATen.h>
#include <torch/csrc/utils/tensor_dtypes.h>

#include <limits>
#include <mutex>
#include <numeric>
#include <set>
#include <span>
#include <utility>

#include "reductions.hpp"

namespace cclx::torch_backend {

namespace {

using R = c10d::ReduceOp;
using Bytes = std::span<unsigned char>;
constexpr algo::Auto kAuto{};

Bytes bytes(const at::Tensor& t) {
  return {static_cast<unsigned char*>(t.data_ptr()), t.nbytes()};
}

std::string describe(const char* collective, const at::Tensor& t) {
  return std::string(collective) + " of " + std::to_string(t.nbytes()) + " bytes (" +
         dtype_name(t.scalar_type()) + ")";
}

void check_dense(const at::Tensor& t, int rank, const char* collective) {
  if (!t.device().is_cpu())
    throw Error(rank, std::string(collective) + ": a tensor on " + t.device().str() +
                          "; the cclx backend serves CPU tensors");
  if (t.layout() != at::kStrided)
    throw Error(rank, std::string(collective) + ": sparse tensors are not supported");
}

void check_all(const std::vector<at::Tensor>& ts, int rank, const char* collective) {
  for (const at::Tensor& t : ts) check_dense(t, rank, collective);
}

// torch's multi-device lists: cclx serves one CPU tensor per rank and call.
const at::Tensor& single(const std::vector<at::Tensor>& ts, int rank, const char* collective) {
  if (ts.size() != 1)
    throw Error(rank, std::string(collective) + ": one tensor per call (got " +
                          std::to_string(ts.size()) + ")");
  check_dense(ts[0], rank, collective);
  return ts[0];
}

void check_count(const std::vector<at::Tensor>& ts, int n, int rank, const char* collective,
                 const char* which) {
  if (static_cast<int>(ts.size()) != n)
    throw Error(rank, std::string(collective) + ": " + which + " must hold one tensor per rank (" +
                          std::to_string(n) + "), got " + std::to_string(ts.size()));
}

// A contiguous buffer for a user's tensor: the tensor itself, or a copy made now (an input is
// read as it is at submission) whose contents copy_back() returns.
struct Staged {
  at::Tensor user, buf;
  void copy_back() const {
    if (!buf.is_same(user)) user.copy_(buf);
  }
};
Staged stage(const at::Tensor& t) {
  return {t, t.is_contiguous() ? t : t.contiguous()};
}

// One contiguous buffer holding `ts` one after the other (as bytes: any dtypes).
at::Tensor flatten(const std::vector<at::Tensor>& ts) {
  std::size_t total = 0;
  for (const at::Tensor& t : ts) total += t.nbytes();
  at::Tensor flat = at::empty({static_cast<int64_t>(total)}, at::kByte);
  std::size_t at = 0;
  for (const at::Tensor& t : ts) {
    flat.narrow(0, static_cast<int64_t>(at), static_cast<int64_t>(t.nbytes()))
        .copy_(t.contiguous().view({-1}).view(at::kByte));
    at += t.nbytes();
  }
  return flat;
}
// The inverse: copies `flat`'s bytes from `offset` on into `ts`.
void unflatten(const at::Tensor& flat, std::size_t offset, const std::vector<at::Tensor>& ts) {
  for (const at::Tensor& t : ts) {
    const auto n = static_cast<int64_t>(t.nbytes());
    at::Tensor part = flat.narrow(0, static_cast<int64_t>(offset), n);
    if (t.is_contiguous())
      t.view({-1}).view(at::kByte).copy_(part);
    else
      t.copy_(part.view(t.scalar_type()).view(t.sizes()));
    offset += t.nbytes();
  }
}
std::size_t nbytes_of(const std::vector<at::Tensor>& ts) {
  std::size_t n = 0;
  for (const at::Tensor& t : ts) n += t.nbytes();
  return n;
}

// Whether AVG divides `t`'s type meaningfully (floating or complex); torch's integer AVG is NCCL's.
bool averagable(const at::Tensor& t) {
  return t.is_floating_point() || t.is_complex();
}

// The tensor cclx reduces: complex ones as their pairs of reals.
at::Tensor reducible(const at::Tensor& buf) {
  return buf.is_complex() ? at::view_as_real(buf) : buf;
}

// Throws now, on the calling thread, what the reduction would throw on the progress thread.
void check_reduction(const at::Tensor& t, R::RedOpType op, int rank) {
  if (t.is_complex() && op != R::SUM && op != R::AVG)
    throw Error(rank, op_name(op) + " on complex tensors: complex tensors take SUM and AVG");
  if (op == R::AVG && !averagable(t))
    throw Error(rank, "ReduceOp.AVG on " + dtype_name(t.scalar_type()) +
                          " tensors: AVG needs floating or complex tensors");
  at::ScalarType type = t.is_complex() ? c10::toRealValueType(t.scalar_type()) : t.scalar_type();
  with_reduction(type, op, rank, [](auto*, const auto&) {});
}

// Calls `f(span, op)` with `buf` (contiguous) as a span of cclx's element type for the reduction.
template <class F>
Request reduce_with(const at::Tensor& buf, R::RedOpType op, int rank, F&& f) {
  const at::Tensor r = reducible(buf);
  return with_reduction(r.scalar_type(), op, rank, [&](auto* tag, const auto& cclx_op) {
    using T = std::remove_pointer_t<decltype(tag)>;
    return f(std::span<T>(static_cast<T*>(r.data_ptr()), static_cast<std::size_t>(r.numel())),
             cclx_op);
  });
}

std::function<bool()> test_of(Request r) {
  return [req = std::make_shared<Request>(std::move(r))] { return req->test(); };
}

// An operation's start: a reduce-scatter of `src` into `dst` (both contiguous) under `red`; with
// `counts` (elements per rank) blocks of those sizes, else equal blocks.
std::function<std::function<bool()>(Comm&)> reduce_scatter_of(
    const at::Tensor& src, const at::Tensor& dst, R::RedOpType red, int rank,
    std::vector<std::size_t> counts = {}) {
  return [src, dst, red, rank, counts = std::move(counts)](Comm& c) {
    const at::Tensor out = reducible(dst);
    return test_of(reduce_with(src, red, rank, [&](auto span, const auto& o) {
      using T = typename decltype(span)::element_type;
      const std::span<T> result(static_cast<T*>(out.data_ptr()),
                                static_cast<std::size_t>(out.numel()));
      return counts.empty() ? c.ireduce_scatter(span, result, o, kAuto)
                            : c.ireduce_scatterv(span, result, counts, o, kAuto);
    }));
  };
}

// An operation's finish for a reduction into `s`: the result copied back, divided for AVG.
std::function<void()> reduction_result(const Staged& s, R::RedOpType red, int n) {
  return [s, red, n] {
    s.copy_back();
    if (red == R::AVG) s.user.div_(n);
  };
}

// An operation's start: an in-place allreduce of `buf` (contiguous) under `red`.
std::function<std::function<bool()>(Comm&)> allreduce_of(const at::Tensor& buf, R::RedOpType red,
                                                         int rank) {
  return [buf, red, rank](Comm& c) {
    return test_of(reduce_with(
        buf, red, rank, [&](auto span, const auto& o) { return c.iallreduce(span, o, kAuto); }));
  };
}

}  // namespace

std::string dtype_name(at::ScalarType type) {
  return "torch." + torch::utils::getDtypeNames(type).first;
}

std::string op_name(c10d::ReduceOp::RedOpType op) {
  switch (op) {
    case R::SUM:
      return "ReduceOp.SUM";
    case R::AVG:
      return "ReduceOp.AVG";
    case R::PRODUCT:
      return "ReduceOp.PRODUCT";
    case R::MIN:
      return "ReduceOp.MIN";
    case R::MAX:
      return "ReduceOp.MAX";
    case R::BAND:
      return "ReduceOp.BAND";
    case R::BOR:
      return "ReduceOp.BOR";
    case R::BXOR:
      return "ReduceOp.BXOR";
    case R::PREMUL_SUM:
      return "ReduceOp.PREMUL_SUM";
    default:
      return "ReduceOp " + std::to_string(static_cast<int>(op));
  }
}

namespace {
std::mutex live_mutex;
std::set<ProcessGroupCclx*> live;  // guarded by live_mutex
}  // namespace

ProcessGroupCclx::ProcessGroupCclx(std::unique_ptr<Comm> comm, std::chrono::milliseconds timeout)
    : c10d::ProcessGroup(comm->rank(), comm->size()), progress_(std::move(comm), timeout) {
  const std::lock_guard lock(live_mutex);
  live.insert(this);
}

ProcessGroupCclx::~ProcessGroupCclx() {
  {
    const std::lock_guard lock(live_mutex);
    live.erase(this);
  }
  progress_.shutdown();
}

void ProcessGroupCclx::shutdown_all() {
  const std::lock_guard lock(live_mutex);
  for (ProcessGroupCclx* g : live) g->shutdown();
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::run(c10d::OpType type, const char* title,
                                                     std::string what,
                                                     std::vector<at::Tensor> outputs,
                                                     Operation op) {
  auto work = c10::make_intrusive<Work>(rank_, type, title, std::move(outputs));
  op.work = work;
  op.what = std::move(what);
  progress_.submit(std::move(op));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::broadcast(std::vector<at::Tensor>& tensors,
                                                           const c10d::BroadcastOptions& opts) {
  const at::Tensor& t = single(tensors, rank_, "broadcast");
  const Staged s = stage(t);
  const int root = static_cast<int>(opts.rootRank);
  Operation op;
  op.start = [s, root](Comm& c) { return test_of(c.ibcast(bytes(s.buf), root, kAuto)); };
  op.finish = [s] { s.copy_back(); };
  return run(c10d::OpType::BROADCAST, "cclx:broadcast", describe("broadcast", t), {t},
             std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::allreduce(std::vector<at::Tensor>& tensors,
                                                           const c10d::AllreduceOptions& opts) {
  const at::Tensor& t = single(tensors, rank_, "allreduce");
  const R::RedOpType red = opts.reduceOp;
  check_reduction(t, red, rank_);
  const Staged s = stage(t);
  Operation op;
  op.start = allreduce_of(s.buf, red, rank_);
  op.finish = reduction_result(s, red, size_);
  return run(c10d::OpType::ALLREDUCE, "cclx:all_reduce", describe("allreduce", t), {t},
             std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::allreduce_coalesced(
    std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) {
  check_all(tensors, rank_, "allreduce_coalesced");
  if (tensors.empty()) throw Error(rank_, "allreduce_coalesced: no tensors");
  for (const at::Tensor& t : tensors)
    if (t.scalar_type() != tensors[0].scalar_type())
      throw Error(rank_, "allreduce_coalesced: the tensors must have one dtype (" +
                             dtype_name(tensors[0].scalar_type()) + " and " +
                             dtype_name(t.scalar_type()) + ")");
  const R::RedOpType red = opts.reduceOp;
  check_reduction(tensors[0], red, rank_);
  at::Tensor flat = flatten(tensors).view(tensors[0].scalar_type());
  const int n = size_;
  Operation op;
  op.start = allreduce_of(flat, red, rank_);
  op.finish = [flat, tensors, red, n] {
    if (red == R::AVG) flat.div_(n);
    unflatten(flat.view(at::kByte), 0, tensors);
  };
  return run(c10d::OpType::ALLREDUCE_COALESCED, "cclx:allreduce_coalesced",
             describe("allreduce_coalesced", flat), tensors, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::reduce(std::vector<at::Tensor>& tensors,
                                                        const c10d::ReduceOptions& opts) {
  const at::Tensor& t = single(tensors, rank_, "reduce");
  const R::RedOpType red = opts.reduceOp;
  check_reduction(t, red, rank_);
  const Staged s = stage(t);
  const int rank = rank_, root = static_cast<int>(opts.rootRank);
  Operation op;
  op.start = [s, red, rank, root](Comm& c) {
    return test_of(reduce_with(s.buf, red, rank, [&](auto span, const auto& o) {
      return c.ireduce(span, o, root, kAuto);
    }));
  };
  if (rank_ == root) op.finish = reduction_result(s, red, size_);  // non-roots' are only read
  return run(c10d::OpType::REDUCE, "cclx:reduce", describe("reduce", t), {t}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& /*opts*/) {
  const at::Tensor& in = single(inputs, rank_, "allgather");
  if (outputs.size() != 1)
    throw Error(rank_,
                "allgather: one output list per call (got " + std::to_string(outputs.size()) + ")");
  const std::vector<at::Tensor>& outs = outputs[0];
  check_count(outs, size_, rank_, "allgather", "the output list");
  check_all(outs, rank_, "allgather");
  for (const at::Tensor& o : outs)
    if (o.nbytes() != in.nbytes())
      throw Error(rank_, "allgather: every output tensor must have the input's size (" +
                             std::to_string(in.nbytes()) + " bytes), one has " +
                             std::to_string(o.nbytes()));
  const at::Tensor src = in.contiguous();
  at::Tensor flat = at::empty({static_cast<int64_t>(in.nbytes()) * size_}, at::kByte);
  Operation op;
  op.start = [src, flat](Comm& c) { return test_of(c.iallgather(bytes(src), bytes(flat), kAuto)); };
  op.finish = [flat, outs] { unflatten(flat, 0, outs); };
  return run(c10d::OpType::ALLGATHER, "cclx:all_gather", describe("allgather", in), outs,
             std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::_allgather_base(
    at::Tensor& output, at::Tensor& input, const c10d::AllgatherOptions& /*opts*/) {
  check_dense(input, rank_, "_allgather_base");
  check_dense(output, rank_, "_allgather_base");
  if (output.nbytes() != input.nbytes() * static_cast<std::size_t>(size_))
    throw Error(rank_, "_allgather_base: the output must be " + std::to_string(size_) +
                           " times the input's size (" + std::to_string(input.nbytes()) +
                           " bytes), it has " + std::to_string(output.nbytes()));
  const at::Tensor src = input.contiguous();
  const Staged s = stage(output);
  Operation op;
  op.start = [src, s](Comm& c) { return test_of(c.iallgather(bytes(src), bytes(s.buf), kAuto)); };
  op.finish = [s] { s.copy_back(); };
  return run(c10d::OpType::_ALLGATHER_BASE, "cclx:_allgather_base",
             describe("_allgather_base", input), {output}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::allgather_coalesced(
    std::vector<std::vector<at::Tensor>>& output_lists, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions& /*opts*/) {
  check_all(inputs, rank_, "allgather_coalesced");
  if (static_cast<int>(output_lists.size()) != size_)
    throw Error(rank_, "allgather_coalesced: one output list per rank (" + std::to_string(size_) +
                           "), got " + std::to_string(output_lists.size()));
  for (const auto& list : output_lists) {
    check_all(list, rank_, "allgather_coalesced");
    if (nbytes_of(list) != nbytes_of(inputs) || list.size() != inputs.size())
      throw Error(rank_, "allgather_coalesced: every output list must match the inputs");
  }
  const at::Tensor src = flatten(inputs);
  const std::size_t block = src.nbytes();
  at::Tensor flat = at::empty({static_cast<int64_t>(block) * size_}, at::kByte);
  std::vector<at::Tensor> all;
  for (const auto& list : output_lists) all.insert(all.end(), list.begin(), list.end());
  Operation op;
  op.start = [src, flat](Comm& c) { return test_of(c.iallgather(bytes(src), bytes(flat), kAuto)); };
  op.finish = [flat, output_lists, block] {
    for (std::size_t r = 0; r < output_lists.size(); ++r)
      unflatten(flat, r * block, output_lists[r]);
  };
  return run(c10d::OpType::ALLGATHER_COALESCED, "cclx:allgather_coalesced",
             describe("allgather_coalesced", src), all, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  const at::Tensor& in = single(inputs, rank_, "gather");
  const int root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= size_)
    throw Error(rank_, "gather: root " + std::to_string(root) + " is not a rank of the group");
  std::vector<at::Tensor> outs;
  if (rank_ == root) {
    if (outputs.size() != 1) throw Error(rank_, "gather: the root takes one output list");
    outs = outputs[0];
    check_count(outs, size_, rank_, "gather", "the root's output list");
    check_all(outs, rank_, "gather");
    for (const at::Tensor& o : outs)
      if (o.nbytes() != in.nbytes())
        throw Error(rank_, "gather: every output tensor must have the input's size");
  } else if (!outputs.empty() && !outputs[0].empty()) {
    throw Error(rank_,
                "gather: only the root (rank " + std::to_string(root) + ") takes output tensors");
  }
  const at::Tensor src = in.contiguous();
  at::Tensor flat =
      at::empty({rank_ == root ? static_cast<int64_t>(in.nbytes()) * size_ : 0}, at::kByte);
  Operation op;
  op.start = [src, flat, root](Comm& c) {
    return test_of(c.igather(bytes(src), bytes(flat), root, kAuto));
  };
  op.finish = [flat, outs] { unflatten(flat, 0, outs); };
  return run(c10d::OpType::GATHER, "cclx:gather", describe("gather", in), outs, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  const at::Tensor& out = single(outputs, rank_, "scatter");
  const int root = static_cast<int>(opts.rootRank);
  if (root < 0 || root >= size_)
    throw Error(rank_, "scatter: root " + std::to_string(root) + " is not a rank of the group");
  at::Tensor flat = at::empty({0}, at::kByte);
  if (rank_ == root) {
    if (inputs.size() != 1) throw Error(rank_, "scatter: the root takes one input list");
    check_count(inputs[0], size_, rank_, "scatter", "the root's input list");
    check_all(inputs[0], rank_, "scatter");
    for (const at::Tensor& i : inputs[0])
      if (i.nbytes() != out.nbytes())
        throw Error(rank_, "scatter: every input tensor must have the output's size");
    flat = flatten(inputs[0]);
  } else if (!inputs.empty() && !inputs[0].empty()) {
    throw Error(rank_,
                "scatter: only the root (rank " + std::to_string(root) + ") takes input tensors");
  }
  const Staged s = stage(out);
  Operation op;
  op.start = [flat, s, root](Comm& c) {
    return test_of(c.iscatter(bytes(flat), bytes(s.buf), root, kAuto));
  };
  op.finish = [s] { s.copy_back(); };
  return run(c10d::OpType::SCATTER, "cclx:scatter", describe("scatter", out), {out}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  const at::Tensor& out = single(outputs, rank_, "reduce_scatter");
  if (inputs.size() != 1) throw Error(rank_, "reduce_scatter: one input list per call");
  const std::vector<at::Tensor>& ins = inputs[0];
  check_count(ins, size_, rank_, "reduce_scatter", "the input list");
  check_all(ins, rank_, "reduce_scatter");
  const R::RedOpType red = opts.reduceOp;
  check_reduction(out, red, rank_);
  std::vector<std::size_t> counts;  // in elements of the reduced type, one block per rank
  const std::size_t elem = reducible(out.contiguous()).element_size();
  for (const at::Tensor& i : ins) {
    if (i.scalar_type() != out.scalar_type())
      throw Error(rank_, "reduce_scatter: the inputs must have the output's dtype");
    counts.push_back(i.nbytes() / elem);
  }
  if (ins[static_cast<std::size_t>(rank_)].nbytes() != out.nbytes())
    throw Error(rank_, "reduce_scatter: this rank's input block must have the output's size");
  const at::Tensor flat = flatten(ins).view(out.scalar_type());
  const Staged s = stage(out);
  Operation op;
  op.start = reduce_scatter_of(flat, s.buf, red, rank_, counts);
  op.finish = reduction_result(s, red, size_);
  return run(c10d::OpType::REDUCE_SCATTER, "cclx:reduce_scatter", describe("reduce_scatter", flat),
             {out}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  check_dense(input, rank_, "_reduce_scatter_base");
  check_dense(output, rank_, "_reduce_scatter_base");
  if (input.scalar_type() != output.scalar_type())
    throw Error(rank_, "_reduce_scatter_base: input and output must have one dtype");
  if (input.nbytes() != output.nbytes() * static_cast<std::size_t>(size_))
    throw Error(rank_, "_reduce_scatter_base: the input must be " + std::to_string(size_) +
                           " times the output's size");
  const R::RedOpType red = opts.reduceOp;
  check_reduction(output, red, rank_);
  const at::Tensor src = input.contiguous();
  const Staged s = stage(output);
  Operation op;
  op.start = reduce_scatter_of(src, s.buf, red, rank_);
  op.finish = reduction_result(s, red, size_);
  return run(c10d::OpType::_REDUCE_SCATTER_BASE, "cclx:_reduce_scatter_base",
             describe("_reduce_scatter_base", input), {output}, std::move(op));
}

namespace {
// Byte counts per rank of an alltoall_base side: its split sizes (rows of dim 0), or equal parts.
std::vector<std::size_t> split_bytes(const at::Tensor& t, const std::vector<int64_t>& splits, int n,
                                     int rank, const char* side) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(n));
  const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
  const std::size_t row_bytes = rows == 0 ? 0 : t.nbytes() / static_cast<std::size_t>(rows);
  if (splits.empty()) {
    if (rows % n != 0)
      throw Error(rank, std::string("alltoall_base: the ") + side + "'s first dimension (" +
                            std::to_string(rows) + ") must divide by the group size (" +
                            std::to_string(n) + ") when no split sizes are given");
    for (auto& c : counts) c = static_cast<std::size_t>(rows / n) * row_bytes;
    return counts;
  }
  if (static_cast<int>(splits.size()) != n ||
      std::accumulate(splits.begin(), splits.end(), int64_t{0}) != rows)
    throw Error(rank, std::string("alltoall_base: the ") + side +
                          " split sizes must be one per rank and add up to its first dimension");
  for (int i = 0; i < n; ++i)
    counts[static_cast<std::size_t>(i)] =
        static_cast<std::size_t>(splits[static_cast<std::size_t>(i)]) * row_bytes;
  return counts;
}
}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::alltoall_base(
    at::Tensor& output, at::Tensor& input, std::vector<int64_t>& output_splits,
    std::vector<int64_t>& input_splits, const c10d::AllToAllOptions& /*opts*/) {
  check_dense(input, rank_, "alltoall_base");
  check_dense(output, rank_, "alltoall_base");
  if (input.scalar_type() != output.scalar_type())
    throw Error(rank_, "alltoall_base: input and output must have one dtype");
  const at::Tensor src = input.contiguous();
  const Staged s = stage(output);
  Operation op;
  if (output_splits.empty() && input_splits.empty()) {
    if (input.nbytes() != output.nbytes() || input.numel() % size_ != 0)
      throw Error(rank_,
                  "alltoall_base: input and output must have one size, a multiple of the "
                  "group size");
    op.start = [src, s](Comm& c) { return test_of(c.ialltoall(bytes(src), bytes(s.buf), kAuto)); };
  } else {
    std::vector<std::size_t> send = split_bytes(input, input_splits, size_, rank_, "input");
    std::vector<std::size_t> recv = split_bytes(output, output_splits, size_, rank_, "output");
    op.start = [src, s, send, recv](Comm& c) {
      return test_of(c.ialltoallv(bytes(src), send, bytes(s.buf), recv, kAuto));
    };
  }
  op.finish = [s] { s.copy_back(); };
  return run(c10d::OpType::ALLTOALL_BASE, "cclx:all_to_all", describe("alltoall_base", input),
             {output}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::alltoall(std::vector<at::Tensor>& outputs,
                                                          std::vector<at::Tensor>& inputs,
                                                          const c10d::AllToAllOptions& /*opts*/) {
  check_count(inputs, size_, rank_, "alltoall", "the input list");
  check_count(outputs, size_, rank_, "alltoall", "the output list");
  check_all(inputs, rank_, "alltoall");
  check_all(outputs, rank_, "alltoall");
  std::vector<std::size_t> send, recv;
  for (const at::Tensor& t : inputs) send.push_back(t.nbytes());
  for (const at::Tensor& t : outputs) recv.push_back(t.nbytes());
  const at::Tensor src = flatten(inputs);
  at::Tensor flat = at::empty({static_cast<int64_t>(nbytes_of(outputs))}, at::kByte);
  Operation op;
  op.start = [src, flat, send, recv](Comm& c) {
    return test_of(c.ialltoallv(bytes(src), send, bytes(flat), recv, kAuto));
  };
  op.finish = [flat, outputs] { unflatten(flat, 0, outputs); };
  return run(c10d::OpType::ALLTOALL, "cclx:all_to_all", describe("alltoall", src), outputs,
             std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::barrier(const c10d::BarrierOptions& /*opts*/) {
  Operation op;
  op.start = [](Comm& c) { return test_of(c.ibarrier(kAuto)); };
  return run(c10d::OpType::BARRIER, "cclx:barrier", "barrier", {}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::send(std::vector<at::Tensor>& tensors, int dst,
                                                      int tag) {
  const at::Tensor src = single(tensors, rank_, "send").contiguous();
  Operation op;
  op.start = [src, dst, tag](Comm& c) { return test_of(c.isend(bytes(src), dst, tag)); };
  return run(c10d::OpType::SEND, "cclx:send",
             describe("send", src) + " to rank " + std::to_string(dst), {}, std::move(op));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::recv(std::vector<at::Tensor>& tensors, int src,
                                                      int tag) {
  const at::Tensor& t = single(tensors, rank_, "recv");
  const Staged s = stage(t);
  Operation op;
  op.start = [s, src, tag](Comm& c) { return test_of(c.irecv(bytes(s.buf), src, tag)); };
  auto work =
      c10::make_intrusive<Work>(rank_, c10d::OpType::RECV, "cclx:recv", std::vector<at::Tensor>{t});
  work->set_source(src);
  op.finish = [s] { s.copy_back(); };
  op.work = work;
  op.what = describe("recv", t) + " from rank " + std::to_string(src);
  progress_.submit(std::move(op));
  return work;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCclx::recvAnysource(std::vector<at::Tensor>& tensors,
                                                               int tag) {
  const at::Tensor& t = single(tensors, rank_, "recvAnysource");
  if (t.nbytes() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error(rank_, "recvAnysource: at most 2^31 - 1 bytes");
  const Staged s = stage(t);
  auto work = c10::make_intrusive<Work>(rank_, c10d::OpType::RECVANYSOURCE, "cclx:recvAnySource",
                                        std::vector<at::Tensor>{t});
  Operation op;
  // cclx's receives name their source; a receive from any rank is MPI's own on the group's
  // communicator (the application's tags live there, as for send and recv).
  op.start = [s, tag, w = work.get()](Comm& c) -> std::function<bool()> {
    auto req = std::make_shared<MPI_Request>(MPI_REQUEST_NULL);
    if (MPI_Irecv(s.buf.data_ptr(), static_cast<int>(s.buf.nbytes()), MPI_BYTE, MPI_ANY_SOURCE, tag,
                  c.native_handle(), req.get()) != MPI_SUCCESS)
      throw Error(c.rank(), "recvAnysource: MPI_Irecv failed");
    return [req, w, rank = c.rank()] {
      int done = 0;
      MPI_Status status;
      if (MPI_Test(req.get(), &done, &status) != MPI_SUCCESS)
        throw Error(rank, "recvAnysource: MPI_Test failed");
      if (done) w->set_source(status.MPI_SOURCE);
      return done != 0;
    };
  };
  op.finish = [s] { s.copy_back(); };
  op.work = work;
  op.what = describe("recvAnysource", t);
  progress_.submit(std::move(op));
  return work;
}

std::string ProcessGroupCclx::explain_allreduce(std::size_t count) {
  return progress_.call(
      [count](Comm& c) { return c.explain<float>(sched::Collective::allreduce, count); });
}

}  // namespace cclx::torch_backend
