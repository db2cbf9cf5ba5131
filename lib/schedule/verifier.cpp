// Symbolic execution of a schedule. Every block ("cell") of every rank's storage holds a value
// (source-block label, set of contributing ranks); sends, receives, copies and reduces move and
// combine those values exactly as schedule.hpp defines, and the collective's postcondition is
// checked on the final state.
//
// Deadlock: matching is per step, and an executor posts all of a step's transfers before waiting
// on any of them. So once every send of step s has its receive in step s (checked below), each
// step completes by itself and the whole schedule cannot deadlock; an unmatched send or receive
// is what would hang, and it is reported.
//
// Synchronizing collectives (barrier) have no data to follow; their postcondition is causal. Every
// rank also carries the set of ranks whose entry it depends on (initially itself): a message
// carries its sender's set as of the start of the step (when the engine posts it, the sender has
// finished the steps before), and landing it unites that into the receiver's. At the end every
// rank's set must hold every rank. Only receives count: a completed send says nothing about its
// receiver.
//
// Scratch holds `scratch_copies` copies of the partition: scratch block b + j * nblocks is block b
// of copy j, with block b's size. A region lies inside one copy; sizes are taken after mapping it
// back to the partition (copy_local).
//
// Reduction order: a schedule that claims Schedule::canonical_order is also followed as
// expressions. Every cell carries the tree in which its contributions were combined (hash-consed
// in ExprPool, operands unordered: the builtin floating-point ops are commutative bit for bit), and
// every reduced element must end as the canonical tree (canonical_order.hpp).
//
// Cost: contributor sets are bitsets of ceil(n/64) words kept in one reference-counted arena, so
// copies and transfers move 12-byte cells and only reduces touch words. That keeps n = 1024 with
// 1024 blocks in tens of MB.
#include "cclx/schedule/verifier.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>
#include <unordered_map>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/canonical_order.hpp"
#include "cclx/schedule/concat.hpp"
#include "cclx/schedule/format.hpp"
#include "cclx/schedule/partition.hpp"

namespace cclx::sched {

std::size_t VerifyReport::max_bytes_sent() const {
  std::size_t m = 0;
  for (auto b : bytes_sent) m = std::max(m, b);
  return m;
}

namespace {

constexpr std::size_t kMaxErrors = 20;

// Rank sets, reference counted so cells can share them. Slot 0 is the empty set.
class SetPool {
 public:
  explicit SetPool(std::size_t words) : w_(words) {
    pin(alloc());  // slot 0
  }
  std::uint32_t alloc() {
    std::uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
      std::fill_n(words_.begin() + static_cast<std::ptrdiff_t>(id * w_), w_, 0);
    } else {
      id = static_cast<std::uint32_t>(refs_.size());
      refs_.push_back(0);
      words_.resize(words_.size() + w_, 0);
    }
    return id;
  }
  void pin(std::uint32_t id) { ++refs_[id]; }
  void acquire(std::uint32_t id) { ++refs_[id]; }
  void release(std::uint32_t id) {
    if (--refs_[id] == 0) free_.push_back(id);
  }
  std::uint64_t* bits(std::uint32_t id) { return words_.data() + id * w_; }
  [[nodiscard]] std::size_t words() const { return w_; }

  bool intersects(std::uint32_t a, std::uint32_t b) {
    const auto *x = bits(a), *y = bits(b);
    for (std::size_t i = 0; i < w_; ++i)
      if (x[i] & y[i]) return true;
    return false;
  }
  bool equal(std::uint32_t a, std::uint32_t b) {
    return a == b || std::equal(bits(a), bits(a) + w_, bits(b));
  }
  // a \ b as a fresh slot (reference count 0).
  std::uint32_t minus(std::uint32_t a, std::uint32_t b) {
    const auto id = alloc();
    auto *d = bits(id), *x = bits(a), *y = bits(b);
    for (std::size_t i = 0; i < w_; ++i) d[i] = x[i] & ~y[i];
    return id;
  }
  // The union as a fresh slot (reference count 0: the caller stores it right away).
  std::uint32_t unite(std::uint32_t a, std::uint32_t b) {
    const auto id = alloc();  // may move the arena: take pointers afterwards
    auto *d = bits(id), *x = bits(a), *y = bits(b);
    for (std::size_t i = 0; i < w_; ++i) d[i] = x[i] | y[i];
    return id;
  }

  // Lowest and highest member and whether the members form one interval; empty: lo > hi.
  struct Span {
    long lo = 1, hi = 0;
    bool contiguous = false;
  };
  Span span(std::uint32_t id) {
    const auto* x = bits(id);
    Span s;
    long count = 0;
    bool seen = false;
    for (std::size_t i = 0; i < w_; ++i) {
      if (!x[i]) continue;
      const long base = static_cast<long>(i) * 64;
      if (!seen) s.lo = base + std::countr_zero(x[i]);
      seen = true;
      s.hi = base + 63 - std::countl_zero(x[i]);
      count += std::popcount(x[i]);
    }
    s.contiguous = seen && count == s.hi - s.lo + 1;
    return s;
  }
  // "{0-3,5}" with at most a few ranges, for messages.
  std::string describe(std::uint32_t id) {
    const auto* x = bits(id);
    std::ostringstream o;
    o << '{';
    int ranges = 0;
    const long n = static_cast<long>(w_ * 64);
    for (long i = 0; i < n;) {
      if (!(x[i / 64] >> (i % 64) & 1)) {
        ++i;
        continue;
      }
      long j = i;
      while (j + 1 < n && (x[(j + 1) / 64] >> ((j + 1) % 64) & 1)) ++j;
      if (ranges++ == 8) {
        o << ",...";
        break;
      }
      if (ranges > 1) o << ',';
      o << i;
      if (j > i) o << '-' << j;
      i = j + 1;
    }
    o << '}';
    return o.str();
  }

 private:
  std::size_t w_;
  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> free_;
};

// Reduction trees over ranks, hash-consed so that equal trees have equal ids. Id 0 is no tree,
// ids 1..n are the ranks' own contributions, later ids combinations of two trees (unordered).
class ExprPool {
 public:
  explicit ExprPool(int n) : n_(n) {}
  [[nodiscard]] static std::uint32_t leaf(int rank) { return static_cast<std::uint32_t>(rank) + 1; }
  std::uint32_t combine(std::uint32_t a, std::uint32_t b) {
    if (a > b) std::swap(a, b);
    const std::uint64_t key = (std::uint64_t{a} << 32) | b;
    const auto next = static_cast<std::uint32_t>(n_ + 1 + nodes_.size());
    const auto [it, added] = index_.try_emplace(key, next);
    if (added) {
      nodes_.emplace_back(a, b);
      lowest_.push_back(std::min(lowest(a), lowest(b)));
    }
    return it->second;
  }
  // The canonical tree over ranks [lo, hi).
  std::uint32_t canonical(int lo, int hi) {
    if (hi - lo == 1) return leaf(lo);
    const int m = canonical_split(lo, hi);
    return combine(canonical(lo, m), canonical(m, hi));
  }
  // The lowest rank in a tree (its printed form puts the operand with the lower one first).
  [[nodiscard]] int lowest(std::uint32_t id) const {
    if (id == 0) return -1;
    if (id <= static_cast<std::uint32_t>(n_)) return static_cast<int>(id) - 1;
    return lowest_[id - static_cast<std::uint32_t>(n_) - 1];
  }
  // "(0+1)+(2+3)", cut short after about `limit` characters.
  std::string describe(std::uint32_t id, std::size_t limit = 160) const {
    std::string s;
    append(s, id, false, limit);
    return s;
  }

 private:
  void append(std::string& s, std::uint32_t id, bool nested, std::size_t limit) const {
    if (s.size() > limit) {
      if (!s.ends_with("...")) s += "...";
      return;
    }
    if (id == 0) {
      s += '?';
    } else if (id <= static_cast<std::uint32_t>(n_)) {
      s += std::to_string(id - 1);
    } else {
      auto [a, b] = nodes_[id - static_cast<std::uint32_t>(n_) - 1];
      if (lowest(b) < lowest(a)) std::swap(a, b);
      if (nested) s += '(';
      append(s, a, true, limit);
      s += '+';
      append(s, b, true, limit);
      if (nested) s += ')';
    }
  }
  int n_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> nodes_;
  std::vector<int> lowest_;  // per node
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
};

// label < 0: undefined (never written). expr: the reduction tree (only with canonical_order).
struct Cell {
  std::int32_t label = -1;
  std::uint32_t set = 0;
  std::uint32_t expr = 0;
};

// A physical range of one rank's cells.
struct Span {
  std::size_t first = 0, count = 0;
  friend bool operator==(const Span&, const Span&) = default;
};

// A send or receive of the current step, for matching.
struct Xfer {
  int from = 0, to = 0;       // sender and receiver
  std::uint32_t op = 0;       // index within the owner's step
  Region region{};            // logical, as written in the program
  Span cells{};               // physical, on the owner
  std::size_t msg_first = 0;  // sends: snapshot of the cells in Verifier::msg_
  bool valid = false;         // region inside its window (nothing is moved otherwise)
  std::uint32_t heard = 0;    // sends of a synchronizing collective: the sender's set
};

class Verifier {
 public:
  Verifier(const Schedule& s, std::size_t count, std::size_t elem_size,
           const BlockSizes* sizes = nullptr)
      : s_(s),
        n_(s.nranks),
        nb_(s.nblocks),
        copies_(s.scratch_copies),
        part_{count, s.nblocks},
        elem_(elem_size),
        sizes_(sizes),
        pool_(static_cast<std::size_t>(s.nranks > 0 ? s.nranks + 63 : 64) / 64),
        exprs_(s.nranks),
        sync_(coll::synchronizes(s.collective)),
        track_order_(s.canonical_order) {}

  // Per rank: steps before user_from[r] must not touch In or Out (verify_phases).
  void forbid_user_buffers(const std::vector<std::size_t>& user_from) { user_from_ = &user_from; }

  VerifyReport run() {
    if (!check_structure() || !setup_block_sizes()) return finish();
    setup();
    const std::size_t steps = s_.num_rounds();
    for (std::size_t st = 0; st < steps; ++st) run_step(st);
    check_postcondition();
    check_one_sender_claim();
    return finish();
  }

 private:
  // ---- errors -------------------------------------------------------------------------------
  void error(const std::string& msg) {
    if (report_.errors.size() < kMaxErrors) report_.errors.push_back(msg);
    ++nerrors_;
  }
  [[nodiscard]] bool saturated() const { return nerrors_ >= kMaxErrors; }
  static std::string where(int r, std::size_t st, std::size_t i, const Op& op) {
    std::ostringstream o;
    o << "rank " << r << " step " << st << " op " << i << " (" << to_string(op) << "): ";
    return o.str();
  }
  VerifyReport finish() {
    if (nerrors_ > report_.errors.size())
      report_.errors.push_back("... and " + std::to_string(nerrors_ - report_.errors.size()) +
                               " more errors");
    report_.ok = nerrors_ == 0;
    return std::move(report_);
  }

  // ---- layout -------------------------------------------------------------------------------
  [[nodiscard]] bool check_structure() {
    bool ok = true;
    if (n_ < 1) return error("nranks must be >= 1, got " + std::to_string(n_)), false;
    if (nb_ < 1) return error("nblocks must be >= 1"), false;
    if (copies_ < 1) return error("scratch_copies must be >= 1"), false;
    // Cells are allocated for every rank (8 bytes each): refuse absurd layouts up front.
    if (std::uint64_t{copies_} + 2 > (std::uint64_t{1} << 32) / nb_ / static_cast<unsigned>(n_))
      return error("scratch_copies " + std::to_string(copies_) + " x nblocks " +
                   std::to_string(nb_) + " is too large to verify"),
             false;
    if (s_.programs.size() != static_cast<std::size_t>(n_)) {
      error("schedule holds " + std::to_string(s_.programs.size()) + " programs for " +
            std::to_string(n_) + " ranks");
      ok = false;
    }
    coll::visit(s_.collective, [&](auto d) {
      if (d.rooted && (s_.root < 0 || s_.root >= n_)) {
        error("invalid root " + std::to_string(s_.root));
        ok = false;
      }
      if (d.blocks_are_ranks && nb_ != static_cast<std::uint32_t>(n_)) {
        error(std::string(d.name) + " needs nblocks == nranks, got " + std::to_string(nb_));
        ok = false;
      }
      // E.g. alltoall moves In block i of rank a to Out block a of rank i: blocks must be equal.
      if (d.equal_blocks && part_.count % nb_ != 0) {
        error(std::string(d.name) +
              " needs a count divisible by nblocks (blocks of equal size), got " +
              std::to_string(part_.count));
        ok = false;
      }
    });
    for (std::size_t r = 0; r < s_.programs.size(); ++r) {
      const auto& p = s_.programs[r];
      bool good =
          !p.step_begin.empty() && p.step_begin.front() == 0 && p.step_begin.back() == p.ops.size();
      for (std::size_t i = 1; good && i < p.step_begin.size(); ++i)
        good = p.step_begin[i - 1] <= p.step_begin[i];
      if (!good) {
        error("rank " + std::to_string(r) +
              ": malformed program (step_begin must start at 0, not decrease and end at the op "
              "count; ops added after the last end_step()?)");
        ok = false;
      }
    }
    return ok;
  }

  // Per-rank partitions of In and Out (v-collectives), from sizes_; without them every rank and
  // buffer has part_.
  bool setup_block_sizes() {
    if (!sizes_) return true;
    const auto N = static_cast<std::size_t>(n_);
    for (const auto* table : {&sizes_->in, &sizes_->out}) {
      bool good = table->size() == N;
      for (std::size_t r = 0; good && r < N; ++r) good = (*table)[r].size() == nb_;
      if (!good)
        return error("block sizes: expected " + std::to_string(n_) + " rows of " +
                     std::to_string(nb_) + " entries for In and Out"),
               false;
    }
    const std::size_t k = std::size_t{nb_} + 1;
    offsets_.resize(2 * N * k);
    for (std::size_t r = 0; r < N; ++r) {
      std::size_t* out = offsets_.data() + 2 * r * k;
      prefix_offsets(sizes_->out[r], nb_, out);
      // In place, the one buffer has Out's layout (In and Out alias it).
      const bool aliased = s_.in_place && coll::visit(s_.collective, [&](auto d) {
                             return d.in_place(static_cast<int>(r), s_.root).aliased;
                           });
      prefix_offsets(aliased ? sizes_->out[r] : sizes_->in[r], nb_, out + k);
    }
    return true;
  }
  // Rank r's partition of buffer `buf` (Scratch: Out's).
  [[nodiscard]] Partition partition(int r, Buf buf) const {
    if (!sizes_) return part_;
    const std::size_t k = std::size_t{nb_} + 1;
    const std::size_t* out = offsets_.data() + 2 * static_cast<std::size_t>(r) * k;
    const std::size_t* p = buf == Buf::in ? out + k : out;
    return {p[nb_], nb_, p};
  }

  // In, Out, then the scratch copies.
  [[nodiscard]] std::size_t cells_per_rank() const {
    return (2 + std::size_t{copies_}) * std::size_t{nb_};
  }
  // A region's place in the partition: scratch copy j's blocks map back to [0, nblocks). Only for
  // regions check_region accepted (a scratch region stays inside one copy).
  [[nodiscard]] Region copy_local(const Region& g) const {
    if (g.buf != Buf::scratch || g.first < nb_) return g;
    return {g.buf, g.first % nb_, g.count};
  }
  [[nodiscard]] std::size_t region_bytes(int r, const Region& g) const {
    return partition(r, g.buf).region_size(copy_local(g)) * elem_;
  }

  void setup() {
    const auto N = static_cast<std::size_t>(n_);
    report_.bytes_sent.assign(N, 0);
    report_.messages_sent.assign(N, 0);
    cells_.assign(N * cells_per_rank(), Cell{});
    send_mark_.assign(cells_per_rank(), 0);
    land_mark_.assign(cells_per_rank(), 0);
    land_op_.assign(cells_per_rank(), 0);
    layout_.resize(N);
    local_ok_.resize(N);
    for (std::size_t r = 0; r < N; ++r) local_ok_[r].assign(s_.programs[r].ops.size(), 0);
    singleton_.resize(N);
    for (int r = 0; r < n_; ++r) {
      singleton_[static_cast<std::size_t>(r)] = pool_.alloc();
      pool_.pin(singleton_[static_cast<std::size_t>(r)]);
      pool_.bits(singleton_[static_cast<std::size_t>(r)])[r / 64] |= std::uint64_t{1} << (r % 64);
    }
    all_ = pool_.alloc();
    pool_.pin(all_);
    for (int r = 0; r < n_; ++r) pool_.bits(all_)[r / 64] |= std::uint64_t{1} << (r % 64);
    if (sync_) {
      heard_ = singleton_;
      for (const auto id : heard_) pool_.acquire(id);
    }

    coll::visit(s_.collective, [&](auto d) {
      for (int r = 0; r < n_; ++r) {
        auto& L = layout_[static_cast<std::size_t>(r)];
        L.win = d.windows(n_, r, s_.root, nb_);
        // Segments: [0, nb) In / user buffer, [nb, 2nb) Out, [2nb, (2 + copies) nb) Scratch.
        L.in_base = 0;
        L.out_base = nb_;
        const coll::InPlaceLayout in_place = d.in_place(r, s_.root);
        L.in_writable = s_.in_place && in_place.aliased;
        // One user buffer: Out block b is its block b - out_shift (In block b is its block b).
        if (L.in_writable) L.out_base = -static_cast<std::int64_t>(in_place.out_shift);
        // Initial values.
        const auto base = static_cast<std::size_t>(r) * cells_per_rank();
        if (d.root_out_is_input) {
          if (r == s_.root)
            for (std::uint32_t b = 0; b < nb_; ++b) set(base + phys(L, Buf::out, b), label(b), r);
        } else {
          for (std::uint32_t b = L.win.in.first; b < L.win.in.first + L.win.in.count; ++b)
            set(base + phys(L, Buf::in, b), label(b), r);
        }
      }
    });
  }

  static std::int32_t label(std::uint32_t b) { return static_cast<std::int32_t>(b); }
  void set(std::size_t cell, std::int32_t lab, int rank) {
    assign(cells_[cell],
           Cell{lab, singleton_[static_cast<std::size_t>(rank)], ExprPool::leaf(rank)});
  }
  void assign(Cell& dst, Cell v) {
    pool_.acquire(v.set);  // before release: v may be dst's own value
    pool_.release(dst.set);
    dst = v;
  }

  struct Layout {
    Windows win;
    std::int64_t in_base = 0, out_base = 0;  // cell index of block 0 (may be negative: shift)
    bool in_writable = false;
  };
  [[nodiscard]] std::size_t phys(const Layout& L, Buf buf, std::uint32_t b) const {
    switch (buf) {
      case Buf::in:
        return static_cast<std::size_t>(L.in_base + b);
      case Buf::out:
        return static_cast<std::size_t>(L.out_base + b);
      case Buf::scratch:
        break;
    }
    return 2 * std::size_t{nb_} + b;
  }
  [[nodiscard]] Span span(int r, const Region& g) const {
    return {phys(layout_[static_cast<std::size_t>(r)], g.buf, g.first), g.count};
  }
  Cell& cell(int r, std::size_t c) {
    return cells_[static_cast<std::size_t>(r) * cells_per_rank() + c];
  }

  // Checks that `g` lies in its buffer on rank r (and may be written there); reports otherwise.
  bool check_region(int r, std::size_t st, std::size_t i, const Op& op, const Region& g, bool write,
                    const char* role) {
    const auto& L = layout_[static_cast<std::size_t>(r)];
    const std::uint64_t end = std::uint64_t{g.first} + g.count;
    auto inside = [&](const Window& w) {
      return w.present && g.first >= w.first && end <= std::uint64_t{w.first} + w.count;
    };
    std::string problem;
    if (user_from_ && g.buf != Buf::scratch && st < (*user_from_)[static_cast<std::size_t>(r)]) {
      error(where(r, st, i, op) + role + " " + to_string(g) +
            " touches a user buffer before step " +
            std::to_string((*user_from_)[static_cast<std::size_t>(r)]) +
            " (the rank has not started: Scratch only)");
      return false;
    }
    // "" when g lies in the user buffer's window w, else what is wrong.
    auto in_window = [&](const Window& w, const char* name) -> std::string {
      if (!w.present) return std::string("rank has no ") + name + " buffer for this collective";
      if (inside(w)) return {};
      return std::string("outside the ") + name + " window [" + std::to_string(w.first) + ".." +
             std::to_string(w.first + w.count) + ")";
    };
    switch (g.buf) {
      case Buf::in:
        problem = in_window(L.win.in, "In");
        if (problem.empty() && write && !L.in_writable)
          problem = s_.in_place ? "writes In, which this rank must leave untouched"
                                : "writes In in an out-of-place schedule";
        break;
      case Buf::out:
        problem = in_window(L.win.out, "Out");
        break;
      case Buf::scratch: {
        const std::uint64_t cap = std::uint64_t{nb_} * copies_;
        if (end > cap) {
          problem = "outside scratch [0.." + std::to_string(cap) + ")";
          if (copies_ > 1)
            problem +=
                " (" + std::to_string(copies_) + " copies of " + std::to_string(nb_) + " blocks)";
        } else if (g.count > 0 && g.first / nb_ != (end - 1) / nb_) {
          problem = "straddles scratch copies " + std::to_string(g.first / nb_) + " and " +
                    std::to_string((end - 1) / nb_) + " (a region stays inside one copy of " +
                    std::to_string(nb_) + " blocks)";
        }
        break;
      }
    }
    if (problem.empty()) return true;
    error(where(r, st, i, op) + role + " " + to_string(g) + " " + problem);
    return false;
  }

  bool check_peer(int r, std::size_t st, std::size_t i, const Op& op) {
    if (op.peer >= 0 && op.peer < n_ && op.peer != r) return true;
    error(where(r, st, i, op) + "invalid peer " + std::to_string(op.peer));
    return false;
  }

  // First undefined cell of a span on rank r, or -1.
  long first_undefined(int r, Span sp) {
    for (std::size_t k = 0; k < sp.count; ++k)
      if (cell(r, sp.first + k).label < 0) return static_cast<long>(k);
    return -1;
  }

  static bool overlap(Span a, Span b) {
    return a.count && b.count && a.first < b.first + b.count && b.first < a.first + a.count;
  }

  // ---- one step ------------------------------------------------------------------------------
  void run_step(std::size_t st) {
    sends_.clear();
    recvs_.clear();
    bool transfers = false;
    for (int r = 0; r < n_; ++r) transfers |= scan_rank(r, st);
    if (transfers) ++report_.rounds;
    match_and_land(st);
    for (int r = 0; r < n_; ++r) run_locals(r, st);
    for (const auto& c : msg_) pool_.release(c.set);
    msg_.clear();
    if (sync_)
      for (const auto& x : sends_) pool_.release(x.heard);
  }

  // Validates rank r's ops of step st, snapshots its sends and checks the step's hazards.
  // Returns whether the rank has a transfer in this step.
  bool scan_rank(int r, std::size_t st) {
    const auto& p = s_.programs[static_cast<std::size_t>(r)];
    if (st >= p.num_steps()) return false;
    const Op* ops = p.step_data(st);
    const std::size_t k = p.step_size(st);
    char* local_ok = local_ok_[static_cast<std::size_t>(r)].data() + p.step_begin[st];
    ++stamp_;
    bool transfers = false;

    // Sends read the pre-step state: snapshot them now.
    for (std::size_t i = 0; i < k; ++i) {
      const Op& op = ops[i];
      if (op.kind != OpKind::send) continue;
      transfers = true;
      if (!check_peer(r, st, i, op)) continue;
      Xfer x{r, op.peer, static_cast<std::uint32_t>(i), op.src, {}, msg_.size(), false};
      if (sync_) {
        x.heard = heard_[static_cast<std::size_t>(r)];
        pool_.acquire(x.heard);
      }
      if (check_region(r, st, i, op, op.src, false, "source")) {
        x.valid = true;
        x.cells = span(r, op.src);
        if (const long u = first_undefined(r, x.cells); u >= 0)
          error(where(r, st, i, op) + "sends undefined data (block " +
                std::to_string(op.src.first + u) + ")");
        for (std::size_t c = 0; c < x.cells.count; ++c) {
          const Cell v = cell(r, x.cells.first + c);
          pool_.acquire(v.set);
          msg_.push_back(v);
          send_mark_[x.cells.first + c] = stamp_;
        }
        // The engine posts an empty transfer only for a synchronizing collective.
        if (const auto bytes = region_bytes(r, op.src); bytes > 0 || sync_) {
          report_.bytes_sent[static_cast<std::size_t>(r)] += bytes;
          ++report_.messages_sent[static_cast<std::size_t>(r)];
        }
      }
      sends_.push_back(x);
    }
    // Receives: no two land on the same cell, none on a cell a send of the step reads.
    for (std::size_t i = 0; i < k; ++i) {
      const Op& op = ops[i];
      if (op.kind != OpKind::recv) continue;
      transfers = true;
      if (!check_peer(r, st, i, op)) continue;
      Xfer x{op.peer, r, static_cast<std::uint32_t>(i), op.dst, {}, 0, false};
      if (check_region(r, st, i, op, op.dst, true, "destination")) {
        x.valid = true;
        x.cells = span(r, op.dst);
        bool reported = false;
        for (std::size_t c = x.cells.first; c < x.cells.first + x.cells.count; ++c) {
          if (!reported && send_mark_[c] == stamp_) {
            error(where(r, st, i, op) + "lands on data a send of the same step reads");
            reported = true;
          } else if (!reported && land_mark_[c] == stamp_) {
            error(where(r, st, i, op) + "lands on the same block as receive op " +
                  std::to_string(land_op_[c]) + " of the step");
            reported = true;
          }
          land_mark_[c] = stamp_;
          land_op_[c] = static_cast<std::uint32_t>(i);
        }
      }
      recvs_.push_back(x);
    }
    // Local actions: valid regions, and no write to what a transfer of the step uses.
    for (std::size_t i = 0; i < k; ++i) {
      const Op& op = ops[i];
      if (op.is_transfer()) continue;
      bool ok = check_region(r, st, i, op, op.dst, true, "destination") &&
                check_region(r, st, i, op, op.src, false, "source");
      if (op.kind == OpKind::reduce)
        ok = check_region(r, st, i, op, op.src2, false, "source") && ok;
      if (!ok) continue;
      if (op.src.count != op.dst.count ||
          (op.kind == OpKind::reduce && op.src2.count != op.dst.count)) {
        error(where(r, st, i, op) + "operands and destination differ in length");
        continue;
      }
      // Same block counts, but blocks of different sizes (uneven or per-rank block sizes).
      if (region_bytes(r, op.src) != region_bytes(r, op.dst) ||
          (op.kind == OpKind::reduce && region_bytes(r, op.src2) != region_bytes(r, op.dst))) {
        error(where(r, st, i, op) + "operands and destination differ in size (" +
              std::to_string(region_bytes(r, op.dst)) + " bytes written)");
        continue;
      }
      const Span d = span(r, op.dst), a = span(r, op.src);
      const Span b = op.kind == OpKind::reduce ? span(r, op.src2) : Span{};
      if ((overlap(d, a) && d != a) || (overlap(d, b) && d != b)) {
        error(where(r, st, i, op) + "destination partially overlaps an operand");
        continue;
      }
      local_ok[i] = 1;
      for (std::size_t c = d.first; c < d.first + d.count; ++c) {
        if (send_mark_[c] == stamp_) {
          error(where(r, st, i, op) + "writes data a send of the same step reads");
          break;
        }
        if (land_mark_[c] != stamp_) continue;
        // Consuming a receive in place (dst == landing region == an operand) is the one legal
        // write to a landing region: an executor runs it after that receive has landed.
        const Op& landing = ops[land_op_[c]];
        const Span l = span(r, landing.dst);
        if (!(l == d && (a == d || (op.kind == OpKind::reduce && b == d)))) {
          error(where(r, st, i, op) + "writes data receive op " + std::to_string(land_op_[c]) +
                " of the same step lands on");
          break;
        }
      }
    }
    return transfers;
  }

  void match_and_land(std::size_t st) {
    auto key = [](const Xfer& x) { return std::pair{x.from, x.to}; };
    auto by_pair = [&](const Xfer& x, const Xfer& y) { return key(x) < key(y); };
    std::stable_sort(sends_.begin(), sends_.end(), by_pair);
    std::stable_sort(recvs_.begin(), recvs_.end(), by_pair);
    auto op_of = [&](int r, std::uint32_t i) -> const Op& {
      return s_.programs[static_cast<std::size_t>(r)].step_data(st)[i];
    };
    std::size_t i = 0, j = 0;
    while (i < sends_.size() || j < recvs_.size()) {
      const bool take_send =
          j == recvs_.size() || (i < sends_.size() && key(sends_[i]) < key(recvs_[j]));
      const bool take_recv =
          i == sends_.size() || (j < recvs_.size() && key(recvs_[j]) < key(sends_[i]));
      if (take_send) {
        const auto& x = sends_[i++];
        error(where(x.from, st, x.op, op_of(x.from, x.op)) + "no matching receive on rank " +
              std::to_string(x.to) + " in this step");
        continue;
      }
      if (take_recv) {
        const auto& y = recvs_[j++];
        error(where(y.to, st, y.op, op_of(y.to, y.op)) + "no matching send from rank " +
              std::to_string(y.from) + " in this step");
        continue;
      }
      const auto& x = sends_[i++];
      const auto& y = recvs_[j++];
      if (!x.valid || !y.valid) continue;  // already reported
      const auto sb = region_bytes(x.from, x.region);
      const auto rb = region_bytes(y.to, y.region);
      if (sb != rb) {
        error(where(y.to, st, y.op, op_of(y.to, y.op)) + "receives " + std::to_string(rb) +
              " bytes but rank " + std::to_string(x.from) + " op " + std::to_string(x.op) +
              " sends " + std::to_string(sb) + " (" + to_string(x.region) + ")");
        continue;
      }
      if (x.cells.count != y.cells.count) {
        error(where(y.to, st, y.op, op_of(y.to, y.op)) + "receives " +
              std::to_string(y.cells.count) + " blocks but rank " + std::to_string(x.from) +
              " op " + std::to_string(x.op) + " sends " + std::to_string(x.cells.count));
        continue;
      }
      for (std::size_t c = 0; c < y.cells.count; ++c)
        assign(cell(y.to, y.cells.first + c), msg_[x.msg_first + c]);
      if (sync_) {
        auto& h = heard_[static_cast<std::size_t>(y.to)];
        const std::uint32_t u = pool_.unite(h, x.heard);
        pool_.acquire(u);
        pool_.release(h);
        h = u;
      }
    }
  }

  void run_locals(int r, std::size_t st) {
    const auto& p = s_.programs[static_cast<std::size_t>(r)];
    if (st >= p.num_steps()) return;
    const Op* ops = p.step_data(st);
    const char* local_ok = local_ok_[static_cast<std::size_t>(r)].data() + p.step_begin[st];
    for (std::size_t i = 0; i < p.step_size(st); ++i) {
      const Op& op = ops[i];
      if (op.is_transfer() || !local_ok[i]) continue;
      const Span d = span(r, op.dst), a = span(r, op.src);
      if (op.kind == OpKind::copy) {
        if (const long u = first_undefined(r, a); u >= 0)
          error(where(r, st, i, op) + "copies undefined data (block " +
                std::to_string(op.src.first + u) + ")");
        for (std::size_t c = 0; c < d.count; ++c)
          assign(cell(r, d.first + c), cell(r, a.first + c));
        continue;
      }
      const Span b = span(r, op.src2);
      bool reported = false;
      for (std::size_t c = 0; c < d.count; ++c) {
        const Cell x = cell(r, a.first + c), y = cell(r, b.first + c);
        if (x.label < 0 || y.label < 0) {
          if (!reported)
            error(where(r, st, i, op) + "reduces undefined data (block " +
                  std::to_string((x.label < 0 ? op.src.first : op.src2.first) + c) + ")");
          reported = true;
          assign(cell(r, d.first + c), Cell{});
          continue;
        }
        if (!reported && x.label != y.label) {
          error(where(r, st, i, op) + "combines different blocks (" + std::to_string(x.label) +
                " and " + std::to_string(y.label) + ")");
          reported = true;
        } else if (!reported && pool_.intersects(x.set, y.set)) {
          error(where(r, st, i, op) + "counts contributions twice: " + pool_.describe(x.set) +
                " (+) " + pool_.describe(y.set));
          reported = true;
        } else if (!reported && s_.preserves_order) {
          const auto l = pool_.span(x.set), rt = pool_.span(y.set);
          if (!l.contiguous || !rt.contiguous || l.hi >= rt.lo) {
            error(where(r, st, i, op) + "breaks rank order: " + pool_.describe(x.set) + " (+) " +
                  pool_.describe(y.set) + " (preserves_order needs left < right intervals)");
            reported = true;
          }
        }
        const std::uint32_t u = pool_.unite(x.set, y.set);
        const std::uint32_t e = track_order_ ? exprs_.combine(x.expr, y.expr) : 0;
        assign(cell(r, d.first + c), Cell{x.label, u, e});
      }
    }
  }

  // ---- postcondition -------------------------------------------------------------------------
  void expect(int r, Buf buf, std::uint32_t b, std::int32_t lab, std::uint32_t set,
              const std::string& what) {
    if (saturated()) return;
    const auto& L = layout_[static_cast<std::size_t>(r)];
    const Cell v = cell(r, phys(L, buf, b));
    if (v.label == lab && pool_.equal(v.set, set)) {
      if (track_order_ && set == all_ && v.expr != canonical_all_)
        error("postcondition: rank " + std::to_string(r) + " " + to_string(Region{buf, b, 1}) +
              " is reduced as " + exprs_.describe(v.expr) + ", not in the canonical order " +
              exprs_.describe(canonical_all_) + " (the schedule claims canonical_order)");
      return;
    }
    std::string got = v.label < 0
                          ? std::string("undefined")
                          : "block " + std::to_string(v.label) + " from " + pool_.describe(v.set);
    error("postcondition: rank " + std::to_string(r) + " " + to_string(Region{buf, b, 1}) +
          " holds " + got + ", expected block " + std::to_string(lab) + " " + what);
  }

  // The engine skips the receiver-ready handshake on the strength of this claim.
  void check_one_sender_claim() {
    if (!s_.one_sender_per_receiver) return;
    for (std::size_t r = 0; r < s_.programs.size(); ++r) {
      int from = -1;
      for (const Op& op : s_.programs[r].ops)
        if (op.kind == OpKind::recv) {
          if (from >= 0 && op.peer != from) {
            error("rank " + std::to_string(r) + " receives from ranks " + std::to_string(from) +
                  " and " + std::to_string(op.peer) + ", but the schedule claims " +
                  "one_sender_per_receiver");
            break;
          }
          from = op.peer;
        }
    }
  }

  // Synchronizing collectives: every rank's completion depends on every rank's entry.
  void check_causal() {
    for (int r = 0; r < n_ && !saturated(); ++r) {
      const auto h = heard_[static_cast<std::size_t>(r)];
      if (pool_.equal(h, all_)) continue;
      const std::uint32_t missing = pool_.minus(all_, h);
      pool_.acquire(missing);
      error("postcondition: rank " + std::to_string(r) + " finishes without having heard, " +
            "directly or through others, from ranks " + pool_.describe(missing) + ": it could " +
            "leave the " + std::string(to_string(s_.collective)) + " before they enter");
      pool_.release(missing);
    }
  }

  void check_postcondition() {
    if (sync_) check_causal();
    if (track_order_) canonical_all_ = exprs_.canonical(0, n_);
    coll::visit(s_.collective, [&](auto d) {
      for (int r = 0; r < n_; ++r)
        for (std::uint32_t b = 0; b < nb_; ++b) {
          const coll::Expectation e = d.expected(r, s_.root, b);
          if (e.from == coll::Expectation::From::all_ranks)
            expect(r, Buf::out, b, label(e.block), all_, "from all ranks");
          else if (e.from == coll::Expectation::From::one_rank)
            expect(r, Buf::out, b, label(e.block), singleton_[static_cast<std::size_t>(e.rank)],
                   e.rank == s_.root && d.rooted ? "from the root"
                                                 : "from rank " + std::to_string(e.rank));
        }
    });
  }

  const Schedule& s_;
  int n_;
  std::uint32_t nb_;
  std::uint32_t copies_;
  Partition part_;
  std::size_t elem_;
  const BlockSizes* sizes_;
  const std::vector<std::size_t>* user_from_ = nullptr;
  std::vector<std::size_t> offsets_;  // per rank: Out's, then In's prefix offsets
  SetPool pool_;
  ExprPool exprs_;
  VerifyReport report_;
  std::size_t nerrors_ = 0;

  std::vector<Cell> cells_;
  std::vector<Layout> layout_;
  std::vector<std::uint32_t> singleton_;
  std::uint32_t all_ = 0;
  bool sync_;                         // coll::synchronizes(collective)
  bool track_order_;                  // Schedule::canonical_order: follow reduction trees
  std::uint32_t canonical_all_ = 0;   // the canonical tree over all ranks (track_order_ only)
  std::vector<std::uint32_t> heard_;  // per rank: whose entry it depends on (sync_ only)

  // Per-step scratch.
  std::vector<Xfer> sends_, recvs_;
  std::vector<Cell> msg_;
  std::vector<std::uint64_t> send_mark_, land_mark_;
  std::vector<std::uint32_t> land_op_;
  // Per rank and op: a local action that passed scan_rank's checks and may run.
  std::vector<std::vector<char>> local_ok_;
  std::uint64_t stamp_ = 0;
};

}  // namespace

VerifyReport verify(const Schedule& schedule, std::size_t count, std::size_t elem_size) {
  return Verifier(schedule, count, elem_size).run();
}

VerifyReport verify(const Schedule& schedule, const BlockSizes& sizes, std::size_t elem_size) {
  std::size_t count = 0;
  if (!sizes.out.empty())
    for (std::size_t c : sizes.out.front()) count += c;
  return Verifier(schedule, count, elem_size, &sizes).run();
}

VerifyReport verify_phases(const Schedule& phase1, const Schedule& phase2,
                           const std::vector<bool>& started, std::size_t count,
                           std::size_t elem_size) {
  VerifyReport bad;
  bad.ok = false;
  if (started.size() != static_cast<std::size_t>(phase1.nranks)) {
    bad.errors.push_back("started has " + std::to_string(started.size()) + " entries for " +
                         std::to_string(phase1.nranks) + " ranks");
    return bad;
  }
  Schedule both;
  try {
    both = concat_phases(phase1, phase2);
  } catch (const Error& e) {
    bad.errors.emplace_back(e.what());
    return bad;
  }
  // Phase 1 is the first L1 steps of every rank's program.
  const std::size_t l1 = phase1.num_rounds();
  std::vector<std::size_t> user_from(started.size(), 0);
  for (std::size_t r = 0; r < started.size(); ++r) user_from[r] = started[r] ? 0 : l1;
  Verifier v(both, count, elem_size);
  v.forbid_user_buffers(user_from);
  return v.run();
}

void verify_or_throw(const Schedule& schedule, std::size_t count, std::size_t elem_size) {
  auto rep = verify(schedule, count, elem_size);
  if (rep.ok) return;
  std::ostringstream msg;
  msg << "schedule '" << schedule.algorithm << "' (" << to_string(schedule.collective)
      << ", n=" << schedule.nranks << (schedule.in_place ? ", in place" : "") << ", count=" << count
      << ") failed verification:";
  for (const auto& e : rep.errors) msg << "\n  " << e;
  throw Error(msg.str());
}

}  // namespace cclx::sched
