// Recursive halving / doubling (Rabenseifner; van de Geijn for bcast), message size s. Any n: with
// p the largest power of two <= n and rem = n - p, ranks 2i and 2i+1 (i < rem) pair up and 2i
// stands for both ("virtual rank" i), leaving p participants; virtual rank v stands for the ranks
// it covers and owns their blocks. For n = p there is no fold/unfold step.
//   allreduce (nblocks = p): [fold: 2i+1 hands In to 2i] + log2 p halving steps + log2 p doubling
//     steps + [unfold: 2i hands the result back]. n = p: 2 log2 n steps, 2(n-1)/n * s bytes per
//     rank, cost 2 log2 n α + 2(n-1)/n sβ. Otherwise +2 steps and +s bytes on the paired ranks.
//     Halving pairs distance 1 first, so every rank holds a contiguous interval of ranks and the
//     lower one is the left operand: rank order is preserved.
//   reduce (nblocks = p, Rabenseifner): [fold] + log2 p halving steps as in allreduce + log2 p
//     steps of a binomial gather of the reduced blocks onto the root (the reverse of the halving:
//     at distance m the partner further from the root hands over everything it holds and drops
//     out). The pair holding the root is folded onto the root itself, so there is no unfold step.
//     n = p: 2 log2 n steps; every rank sends (n-1)/n * s in the halving, and once more what it
//     holds when it drops out of the gather (at most s/2, the root nothing); the root receives
//     (n-1)/n * s in each phase. Cost 2 log2 n α + 2(n-1)/n sβ + (n-1)/n sγ. Otherwise +1 step and
//     +s bytes on the folded ranks. Rank order is preserved as in allreduce. Non-root ranks have no
//     Out and must leave In alone: their partial sums live in scratch copy 0 and messages land in
//     copy 1 once a partial sum exists (scratch_copies = 2 for n >= 4, and n = 3 with root 2).
//   reduce_scatter (nblocks = n): [fold] + log2 p halving steps (largest distance first, so each
//     virtual rank keeps its own blocks) + [unfold: one block back]; n = p: log2 n steps,
//     (n-1)/n * s bytes, cost log2 n α + (n-1)/n s(β + γ). In place, partial sums live in In (the
//     user buffer) and rank 1 takes one more local step to move its result into Out, which aliases
//     In block 0 that it still sends in the last halving step. Out of place, partial sums live in
//     scratch copy 0 and messages land in copy 1, except the first exchange (consumed in place in
//     copy 0) and the last one (consumed in place in Out): scratch_copies = 2 from n = 8 and for
//     every n that is not a power of two; n = 2 is one exchange straight into Out.
//   allgather (nblocks = n): [fold: one block] + log2 p doubling steps + [unfold: all but one
//     block]; n = p: log2 n steps, (n-1)/n * s bytes.
//   bcast (nblocks = n): binomial scatter (log2 p steps) + doubling allgather (log2 p steps) +
//     [unfold: the whole message]; n = p: 2 log2 n steps, the root sends about 2(n-1)/n * s.
// rhd_elimination (allreduce only): Rabenseifner and Traeff's elimination in place of the fold
//   (EuroPVM/MPI 2004). A pair (2i, 2i+1) first swaps halves of its vectors: the keeper 2i keeps
//   the half that virtual rank i keeps in the first halving step, the partner the other, each
//   reducing its half of the pair's two vectors (2i's the left operand). In the first halving step
//   the partner sends the half i gives and the keeper receives the half it keeps, so the partner
//   drops out there: against an unpaired peer three ranks become two (the 3-2 elimination), against
//   a pair four become two. The doubling mirrors it: in its last step (distance 1) each survivor
//   sends its half to the peer's partner (or the unpaired peer), and a last step swaps halves
//   within each pair. 2 log2 p + 2 steps like the fold, but the extra steps move s/2, not s: cost
//   2 ceil(log2 n) α + 2sβ(1.5 - 1/p) against the fold's 2 ceil(log2 n) α + 2sβ(2 - 1/p). Bytes
//   sent: keepers 2(p-1)/p * s + s/2, partners 1.5 s, the others 2(p-1)/p * s. Order is preserved
//   as in the fold. n = p: the rhd schedule.
//   reduce_scatterv, allgatherv: the reduce_scatter and allgather schedules (partners exchange
//     the same blocks, whatever their sizes; uneven blocks only unbalance the halves). In place,
//     reduce_scatterv's result (the buffer's first counts[r] elements) may cover In blocks other
//     than block 0: the final copy runs once nothing reads them (see reduce_scatter_rank).
#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

namespace {

// The fold of n ranks onto p virtual ranks: real rank 2i and 2i+1 (i < rem) are virtual rank i,
// which is run by the even one ("keeper"), or by the odd one for the pair `odd_keeper` (reduce
// folds the root's pair onto the root).
struct Fold {
  int n, p, rem;
  int odd_keeper = -1;
  explicit Fold(int nranks, int odd_keeper_pair = -1)
      : n(nranks), p(1), rem(0), odd_keeper(odd_keeper_pair) {
    while (p * 2 <= n) p *= 2;
    rem = n - p;
  }
  // Virtual rank of real rank r, or -1 for the partner of a pair that is not its keeper.
  [[nodiscard]] int vrank(int r) const {
    if (r < 2 * rem) return r % 2 == (r / 2 == odd_keeper ? 1 : 0) ? r / 2 : -1;
    return r - rem;
  }
  [[nodiscard]] int real(int v) const {
    return v < rem ? 2 * v + (v == odd_keeper ? 1 : 0) : v + rem;
  }
  // First block of virtual rank v when every real rank owns one block (nblocks = n).
  [[nodiscard]] std::uint32_t start(int v) const {
    return static_cast<std::uint32_t>(v + (v < rem ? v : rem));
  }
  // Blocks of the virtual ranks [v, v + k).
  [[nodiscard]] Region group(Buf buf, int v, int k) const {
    return {buf, start(v), start(v + k) - start(v)};
  }
  [[nodiscard]] int levels() const {
    int l = 0;
    while ((1 << l) < p) ++l;
    return l;
  }
};

// Recursive halving over the p participants, distance 1 first so that every combine joins
// neighbouring rank intervals: after the step with mask m, v holds the contributions of the
// virtual ranks [v & ~(2m-1), +2m). Ends with v's blocks [lo, hi) reduced in home(...).
// `home(first, count)` is where v accumulates, `landing(first, count, has_acc)` where a message
// lands; `has_acc` says whether home already holds v's partial result (else it is still In).
// Returns the range each step started from, for the doubling or gather that mirrors it.
// `first_m` > 1 starts at that distance (the steps before it done by the caller).
template <class Home, class Landing>
std::vector<std::pair<std::uint32_t, std::uint32_t>> halving(ProgramBuilder& b, const Fold& f,
                                                             int v, bool& has_acc,
                                                             std::uint32_t& lo, std::uint32_t& hi,
                                                             Home home, Landing landing,
                                                             int first_m = 1) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  for (int m = first_m; m < f.p; m *= 2) {
    const int pv = v ^ m;
    const int peer = f.real(pv);
    const std::uint32_t mid = (lo + hi) / 2;
    const bool lower = (v & m) == 0;
    const std::uint32_t klo = lower ? lo : mid, khi = lower ? mid : hi;
    const std::uint32_t glo = lower ? mid : lo, ghi = lower ? hi : mid;
    ranges.emplace_back(lo, hi);
    b.send(peer, has_acc ? home(glo, ghi - glo) : in(glo, ghi - glo));
    const Region land = landing(klo, khi - klo, has_acc);
    b.recv(peer, land);
    const Region acc = has_acc ? home(klo, khi - klo) : in(klo, khi - klo);
    if (pv < v)
      b.reduce(home(klo, khi - klo), land, acc);
    else
      b.reduce(home(klo, khi - klo), acc, land);
    has_acc = true;
    b.end_step();
    lo = klo;
    hi = khi;
  }
  return ranges;
}

void allreduce_rank(ProgramBuilder& b, const Fold& f, int r, bool in_place) {
  const auto P = static_cast<std::uint32_t>(f.p);
  if (f.n == 1) {
    if (!in_place) b.copy(out(0, P), in(0, P)).end_step();
    return;
  }
  const int v = f.vrank(r);
  const int L = f.levels();
  if (v < 0) {
    // Odd partner: hand everything to r - 1, idle, take the result back.
    b.send(r - 1, in(0, P)).end_step();
    for (int i = 0; i < 2 * L; ++i) b.end_step();
    b.recv(r - 1, out(0, P)).end_step();
    return;
  }
  bool has_acc = false;
  if (f.rem > 0) {
    if (r < 2 * f.rem) {
      b.recv(r + 1, scratch(0, P));
      b.reduce(out(0, P), in(0, P), scratch(0, P));
      has_acc = true;
    }
    b.end_step();
  }
  std::uint32_t lo = 0, hi = P;
  const auto ranges = halving(
      b, f, v, has_acc, lo, hi,
      [](std::uint32_t first, std::uint32_t count) { return out(first, count); },
      [](std::uint32_t first, std::uint32_t count, bool) { return scratch(first, count); });
  // Doubling, in reverse: exchange the completed halves.
  for (int m = f.p / 2, i = L - 1; m >= 1; m /= 2, --i) {
    const int peer = f.real(v ^ m);
    const auto [plo, phi] = ranges[static_cast<std::size_t>(i)];
    const std::uint32_t other_lo = lo == plo ? hi : plo;
    const std::uint32_t other_hi = lo == plo ? phi : lo;
    b.send(peer, out(lo, hi - lo));
    b.recv(peer, out(other_lo, other_hi - other_lo));
    b.end_step();
    lo = plo;
    hi = phi;
  }
  if (f.rem > 0) {
    if (r < 2 * f.rem) b.send(r + 1, out(0, P));
    b.end_step();
  }
}

// Allreduce with elimination instead of the fold (rhd_elimination, n != p): see the header comment.
void allreduce_elimination_rank(ProgramBuilder& b, const Fold& f, int r, bool in_place) {
  if (f.rem == 0 || f.n == 1) {
    allreduce_rank(b, f, r, in_place);
    return;
  }
  const auto P = static_cast<std::uint32_t>(f.p);
  const std::uint32_t half = P / 2;
  const int L = f.levels();
  const bool paired = r < 2 * f.rem;
  const int v = paired ? r / 2 : r - f.rem;  // both members of a pair act for its virtual rank
  const int pv = v ^ 1;                      // the peer of the first halving / last doubling
  // The half virtual rank u keeps in the first halving step, and the half it gives.
  auto kept = [&](Buf buf, int u) {
    return u % 2 == 0 ? Region{buf, 0, half} : Region{buf, half, P - half};
  };
  auto given = [&](Buf buf, int u) { return kept(buf, u ^ 1); };
  // Who sends u's given half in the first halving step, and receives its peer's kept half in the
  // last doubling step: the partner of a pair, else the rank itself. The keeper (f.real) does the
  // opposite: receives in the first halving step and sends in the last doubling step.
  auto partner_of = [&](int u) { return u < f.rem ? 2 * u + 1 : u + f.rem; };
  // Lower ranks' data is the left operand: pv's interval is below v's when pv < v.
  auto combine = [&](Region dst, Region mine, Region theirs) {
    if (pv < v)
      b.reduce(dst, theirs, mine);
    else
      b.reduce(dst, mine, theirs);
  };
  if (paired && r % 2 == 1) {
    // Partner: swap halves with the keeper and reduce the given half (the keeper's is the left
    // operand), hand it to the peer, idle, take the peer's half of the result, swap back.
    const int keeper = r - 1;
    b.send(keeper, kept(Buf::in, v)).recv(keeper, given(Buf::scratch, v));
    b.reduce(given(Buf::scratch, v), given(Buf::scratch, v), given(Buf::in, v)).end_step();
    b.send(f.real(pv), given(Buf::scratch, v)).end_step();
    for (int i = 0; i < 2 * L - 2; ++i) b.end_step();
    b.recv(f.real(pv), given(Buf::out, v)).end_step();
    b.send(keeper, given(Buf::out, v)).recv(keeper, kept(Buf::out, v)).end_step();
    return;
  }
  if (paired) {
    // Keeper: swap halves with the partner (own vector left), then the first halving step
    // receives only.
    const int partner = r + 1;
    b.send(partner, given(Buf::in, v)).recv(partner, kept(Buf::scratch, v));
    b.reduce(kept(Buf::out, v), kept(Buf::in, v), kept(Buf::scratch, v)).end_step();
    b.recv(partner_of(pv), kept(Buf::scratch, v));
    combine(kept(Buf::out, v), kept(Buf::out, v), kept(Buf::scratch, v));
  } else {
    // Unpaired: idle while pairs swap, then a halving step whose send and receive may have
    // different peers (the peer pair's keeper receives, its partner sends).
    b.end_step();
    b.send(f.real(pv), given(Buf::in, v)).recv(partner_of(pv), kept(Buf::scratch, v));
    combine(kept(Buf::out, v), kept(Buf::in, v), kept(Buf::scratch, v));
  }
  b.end_step();
  const Region k = kept(Buf::out, v);
  std::uint32_t lo = k.first, hi = k.end();
  bool has_acc = true;
  auto ranges = halving(
      b, f, v, has_acc, lo, hi,
      [](std::uint32_t first, std::uint32_t count) { return out(first, count); },
      [](std::uint32_t first, std::uint32_t count, bool) { return scratch(first, count); }, 2);
  ranges.insert(ranges.begin(), std::pair<std::uint32_t, std::uint32_t>{0, P});
  for (int m = f.p / 2, i = L - 1; m >= 2; m /= 2, --i) {
    const int peer = f.real(v ^ m);
    const auto [plo, phi] = ranges[static_cast<std::size_t>(i)];
    const std::uint32_t other_lo = lo == plo ? hi : plo;
    const std::uint32_t other_hi = lo == plo ? phi : lo;
    b.send(peer, out(lo, hi - lo)).recv(peer, out(other_lo, other_hi - other_lo)).end_step();
    lo = plo;
    hi = phi;
  }
  // Last doubling step: the kept half to the peer's partner (or the unpaired peer); an unpaired
  // rank also receives the given half from the peer's keeper.
  b.send(partner_of(pv), k);
  if (!paired) b.recv(f.real(pv), given(Buf::out, v));
  b.end_step();
  if (paired) b.send(r + 1, k).recv(r + 1, given(Buf::out, v)).end_step();
}

// Rooted reduce: halving onto the virtual ranks as in allreduce_rank, then a binomial gather onto
// the root's virtual rank. Partial sums live in Out on the root and in scratch copy 0 elsewhere;
// messages land in scratch copy 0 on the root and, elsewhere, in copy 0 while no partial sum exists
// (consumed in place) and in copy 1 (blocks P + b) after that.
void reduce_rank(ProgramBuilder& b, const Fold& f, int r, int root, bool in_place) {
  const auto P = static_cast<std::uint32_t>(f.p);
  if (f.n == 1) {
    if (!in_place) b.copy(out(0, P), in(0, P)).end_step();
    return;
  }
  const int v = f.vrank(r);
  if (v < 0) {
    // Partner of a pair: hand everything to the keeper; done.
    b.send(r ^ 1, in(0, P)).end_step();
    return;
  }
  const bool is_root = r == root;
  auto home = [&](std::uint32_t first, std::uint32_t count) {
    return is_root ? out(first, count) : scratch(first, count);
  };
  auto landing = [&](std::uint32_t first, std::uint32_t count, bool has_acc) {
    return is_root || !has_acc ? scratch(first, count) : scratch(P + first, count);
  };
  bool has_acc = false;
  if (f.rem > 0) {
    if (r < 2 * f.rem) {
      const int partner = r ^ 1;
      const Region land = landing(0, P, false);
      b.recv(partner, land);
      if (partner < r)
        b.reduce(home(0, P), land, in(0, P));
      else
        b.reduce(home(0, P), in(0, P), land);
      has_acc = true;
    }
    b.end_step();
  }
  const int vroot = f.vrank(root);
  std::uint32_t lo = 0, hi = P;
  const auto ranges = halving(b, f, v, has_acc, lo, hi, home, landing);
  // Gather, largest distance first: at distance m the pairs agree with the root's virtual rank on
  // all higher bits; the one that also agrees on bit m receives the other's blocks.
  for (int m = f.p / 2, i = f.levels() - 1; m >= 1; m /= 2, --i) {
    const int peer = f.real(v ^ m);
    const auto [plo, phi] = ranges[static_cast<std::size_t>(i)];
    if (((v ^ vroot) & m) != 0) {
      b.send(peer, home(lo, hi - lo)).end_step();
      return;
    }
    const std::uint32_t other_lo = lo == plo ? hi : plo;
    const std::uint32_t other_hi = lo == plo ? phi : lo;
    b.recv(peer, home(other_lo, other_hi - other_lo)).end_step();
    lo = plo;
    hi = phi;
  }
}

// Out-of-place reduce_scatter on n > 2 ranks: the in-place schedule's exchanges, with partial sums
// in scratch copy 0 and messages landing in copy 1 (blocks N + b), except where a message can be
// consumed in place: the first exchange of a rank without a partial sum (in copy 0) and the last
// one of a rank that keeps only its own block (in Out).
void reduce_scatter_out_of_place_rank(ProgramBuilder& b, const Fold& f, int r) {
  const auto N = static_cast<std::uint32_t>(f.n);
  const auto self = static_cast<std::uint32_t>(r);
  const int v = f.vrank(r);
  if (v < 0) {
    b.send(r - 1, in(0, N)).end_step();
    for (int i = 0; i < f.levels(); ++i) b.end_step();
    b.recv(r - 1, out(self)).end_step();
    return;
  }
  const bool pair = r < 2 * f.rem;
  bool has_acc = false;
  if (f.rem > 0) {
    if (pair) {
      b.recv(r + 1, scratch(0, N));
      b.reduce(scratch(0, N), in(0, N), scratch(0, N));
      has_acc = true;
    }
    b.end_step();
  }
  for (int m = f.p / 2; m >= 1; m /= 2) {
    const int g = v & ~(2 * m - 1);
    const bool lower = (v & m) == 0;
    const Region give = f.group(Buf::scratch, lower ? g + m : g, m);
    const Region keep = f.group(Buf::scratch, lower ? g : g + m, m);
    const int peer = f.real(v ^ m);
    b.send(peer, has_acc ? give : Region{Buf::in, give.first, give.count});
    const Region acc = has_acc ? keep : Region{Buf::in, keep.first, keep.count};
    if (m == 1 && !pair) {
      // Only the own block is left: the message lands in Out and is consumed there.
      b.recv(peer, out(self)).reduce(out(self), acc, out(self));
    } else if (!has_acc) {
      b.recv(peer, keep).reduce(keep, acc, keep);
    } else {
      const Region land{Buf::scratch, N + keep.first, keep.count};
      b.recv(peer, land);
      if (m == 1) {
        // A pair's keeper: its own block goes to Out, the partner's stays for the unfold.
        b.reduce(out(self), scratch(self), scratch(N + self));
        b.reduce(scratch(self + 1), scratch(self + 1), scratch(N + self + 1));
      } else {
        b.reduce(keep, keep, land);
      }
    }
    has_acc = true;
    b.end_step();
  }
  if (f.rem > 0) {
    if (pair) b.send(r + 1, scratch(self + 1));
    b.end_step();
  }
}

void reduce_scatter_rank(ProgramBuilder& b, const Fold& f, int r, bool in_place) {
  const auto N = static_cast<std::uint32_t>(f.n);
  const auto self = static_cast<std::uint32_t>(r);
  if (f.n == 1) {
    if (!in_place) b.copy(out(0), in(0)).end_step();
    return;
  }
  if (!in_place && f.n == 2) {
    // n == 2: one exchange, the sum goes straight to Out.
    const auto other = 1 - self;
    b.send(1 - r, in(other)).recv(1 - r, scratch(self));
    b.reduce(out(self), in(self), scratch(self)).end_step();
    return;
  }
  if (!in_place) {
    reduce_scatter_out_of_place_rank(b, f, r);
    return;
  }
  // In place: partial sums live in In (the user buffer), messages land in Scratch; Out block r is
  // user block 0.
  const int v = f.vrank(r);
  if (v < 0) {
    b.send(r - 1, in(0, N)).end_step();
    for (int i = 0; i < f.levels(); ++i) b.end_step();
    b.recv(r - 1, out(self)).end_step();
    return;
  }
  if (f.rem > 0) {
    if (r < 2 * f.rem) {
      b.recv(r + 1, scratch(0, N));
      b.reduce(in(0, N), in(0, N), scratch(0, N));
    }
    b.end_step();
  }
  // Largest distance first, keeping the half that holds v's own blocks.
  bool sent_block0 = false;
  for (int m = f.p / 2; m >= 1; m /= 2) {
    const int g = v & ~(2 * m - 1);
    const bool lower = (v & m) == 0;
    const Region give = f.group(Buf::in, lower ? g + m : g, m);
    const Region keep = f.group(Buf::in, lower ? g : g + m, m);
    const Region land{Buf::scratch, keep.first, keep.count};
    const int peer = f.real(v ^ m);
    b.send(peer, give).recv(peer, land).reduce(keep, keep, land);
    sent_block0 = give.first == 0;
    if (m > 1) b.end_step();
  }
  const bool pair = r < 2 * f.rem;
  if (f.rem > 0) {
    b.end_step();
    if (pair) b.send(r + 1, in(self + 1));
    sent_block0 = false;  // the unfold step sends block r + 1 only
  }
  // Out block r is In block 0: move the result there once nothing reads block 0 any more.
  if (r != 0) {
    if (sent_block0) b.end_step();
    b.copy(out(self), in(self));
  }
  b.end_step();
}

void allgather_rank(ProgramBuilder& b, const Fold& f, int r, bool in_place) {
  const auto N = static_cast<std::uint32_t>(f.n);
  const auto self = static_cast<std::uint32_t>(r);
  if (f.n == 1) {
    if (!in_place) b.copy(out(0), in(0)).end_step();
    return;
  }
  const int v = f.vrank(r);
  const int L = f.levels();
  bool copied = in_place;
  if (f.rem > 0) {
    if (v < 0)
      b.send(r - 1, in(self));
    else if (r < 2 * f.rem)
      b.recv(r + 1, out(self + 1));
    if (!in_place) b.copy(out(self), in(self));
    copied = true;
    b.end_step();
  }
  if (v < 0) {
    for (int i = 0; i < L; ++i) b.end_step();
    // Everything but the own block, from the keeper.
    b.recv(r - 1, out(0, self)).recv(r - 1, out(self + 1, N - self - 1)).end_step();
    return;
  }
  for (int m = 1; m < f.p; m *= 2) {
    const int g = v & ~(m - 1);
    const int pg = g ^ m;
    const int peer = f.real(v ^ m);
    // Without a fold step the first send reads In directly (and the copy to Out rides along).
    b.send(peer, copied ? f.group(Buf::out, g, m) : in(self));
    b.recv(peer, f.group(Buf::out, pg, m));
    if (!copied) b.copy(out(self), in(self));
    copied = true;
    b.end_step();
  }
  if (f.rem > 0) {
    if (r < 2 * f.rem) b.send(r + 1, out(0, self + 1)).send(r + 1, out(self + 2, N - self - 2));
    b.end_step();
  }
}

void bcast_rank(ProgramBuilder& b, const Fold& f, int r, int root) {
  const auto N = static_cast<std::uint32_t>(f.n);
  if (f.n == 1) return;
  // Everything runs on ranks relative to the root, which is virtual rank 0.
  const int rr = (r - root + f.n) % f.n;
  auto real = [&](int rel) { return (rel + root) % f.n; };
  const int v = f.vrank(rr);
  const int L = f.levels();
  if (v < 0) {
    for (int i = 0; i < 2 * L; ++i) b.end_step();
    b.recv(real(rr - 1), out(0, N)).end_step();
    return;
  }
  // Binomial scatter: at mask m, a virtual rank that is a multiple of 2m gives the blocks of
  // [v + m, v + 2m) to v + m.
  for (int m = f.p / 2; m >= 1; m /= 2) {
    if (v % (2 * m) == 0) b.send(real(f.real(v + m)), f.group(Buf::out, v + m, m));
    if (v % (2 * m) == m) b.recv(real(f.real(v - m)), f.group(Buf::out, v, m));
    b.end_step();
  }
  // Recursive-doubling allgather of the scattered pieces.
  for (int m = 1; m < f.p; m *= 2) {
    const int g = v & ~(m - 1);
    const int peer = real(f.real(v ^ m));
    b.send(peer, f.group(Buf::out, g, m)).recv(peer, f.group(Buf::out, g ^ m, m)).end_step();
  }
  if (f.rem > 0) {
    if (rr < 2 * f.rem) b.send(real(rr + 1), out(0, N));
    b.end_step();
  }
}

}  // namespace

Schedule recursive_halving_doubling(const ScheduleRequest& req) {
  using C = Collective;
  const int n = req.nranks;
  const C shape = coll::shape_of(req.collective);
  const bool rooted = shape == C::reduce || shape == C::bcast;
  // Reduce folds the root's pair onto the root (an odd root keeps the pair instead of its partner).
  int odd_keeper = -1;
  if (shape == C::reduce && req.root < 2 * Fold(n).rem && req.root % 2 == 1)
    odd_keeper = req.root / 2;
  const Fold f(n, odd_keeper);
  const bool p_blocks = shape == C::allreduce || shape == C::reduce;
  Schedule s = begin_schedule<algo::RecursiveHalvingDoubling>(
      req, static_cast<std::uint32_t>(p_blocks ? f.p : n));
  if (!rooted) s.root = 0;
  // A second scratch copy where some rank without Out (and with In read-only) must keep a partial
  // sum while a message lands: see the header comment.
  if (shape == C::reduce && n > 2) {
    // Non-root ranks get a partial sum in the fold (keepers) or the first halving step, and hold
    // it while the next exchange lands.
    const bool nonroot_keeper = f.rem > 1 || (f.rem == 1 && req.root >= 2);
    if (f.levels() >= 2 || nonroot_keeper) s.scratch_copies = 2;
  }
  if (shape == C::reduce_scatter && !req.in_place && n > 2 && (f.rem > 0 || f.levels() >= 3))
    s.scratch_copies = 2;
  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    switch (shape) {
      case C::allreduce:
        allreduce_rank(b, f, r, req.in_place);
        break;
      case C::reduce:
        reduce_rank(b, f, r, req.root, req.in_place);
        break;
      case C::reduce_scatter:
        reduce_scatter_rank(b, f, r, req.in_place);
        break;
      case C::allgather:
        allgather_rank(b, f, r, req.in_place);
        break;
      case C::bcast:
        bcast_rank(b, f, r, req.root);
        break;
      default:
        break;
    }
  }
  return s;
}

Schedule rhd_elimination(const ScheduleRequest& req) {
  const Fold f(req.nranks);
  Schedule s = begin_schedule<algo::RhdElimination>(req, static_cast<std::uint32_t>(f.p));
  s.root = 0;
  for (int r = 0; r < req.nranks; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    allreduce_elimination_rank(b, f, r, req.in_place);
  }
  return s;
}

}  // namespace cclx::sched
