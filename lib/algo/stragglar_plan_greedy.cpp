// StragglAR for any n: per-round greedy matchings driven by deadlines.
//
// The paper builds each round for non-powers of two as a maximum-weight matching (weight 2 when
// both partners gain a chunk, 1 when one does) and reports about n + 2 log2 n - 2 rounds. Counting
// gains is not enough to reach the lower bound R* = n + ceil(log2 n) - 2: what matters is which
// chunks and ranks run out of time. So every transfer is scored by its urgency against R*:
//   chunk slack = rounds left - rounds that perfect doubling needs to bring the chunk to every rank
//                 (the straggler helps only once it is free, after round n-2);
//   rank slack  = rounds in which the rank can still receive - chunks it still lacks.
// Receivers are served in order of urgency (least slack, then most chunks missing); each takes the
// free partner that gives it the most urgent chunk it lacks, preferring a partner that gains an
// urgent chunk in return. Variants differ in tie-breaking (which
// chunk among equally urgent ones, the order of equal-weight pairs); the best plan is kept and the
// search stops as soon as one reaches R*. O(n^2 * n/64) per round.
// Deterministic (no time budgets): every rank must generate the same plan.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "cclx/error.hpp"
#include "stragglar_planners.hpp"

namespace cclx::sched::stragglar_rounds::detail {

namespace {

using Word = std::uint64_t;

struct Variant {
  bool newest_first = false;   // among equally urgent chunks, send the newest (else the oldest)
  bool reverse_pairs = false;  // scan equal-weight pairs from the high ranks down
  std::uint64_t seed = 0;      // != 0: break ties among equally urgent receivers and partners
                               // pseudo-randomly (splitmix64, identical on every platform)
};

// splitmix64: a fixed, portable sequence (std:: distributions are implementation-defined).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

constexpr int kLevels = 3;  // urgency levels: 0 = no slack, 1, >= 2

class Greedy {
 public:
  Greedy(int n, int target, Variant v)
      : n_(n), m_(n - 1), S_(n - 1), W_((m_ + 63) / 64), target_(target), v_(v), rng_{v.seed} {}

  // Returns the plan, or an empty plan when it needs more than `give_up` rounds.
  Plan run(int give_up) {
    Plan p;
    p.n = n_;
    p.method = "greedy";
    have_.assign(static_cast<std::size_t>(n_) * static_cast<std::size_t>(W_), 0);
    holders_.assign(static_cast<std::size_t>(m_), 0);
    missing_.assign(static_cast<std::size_t>(n_), m_);
    missing_[static_cast<std::size_t>(S_)] = 0;  // the straggler completes everything itself
    int incomplete = m_;                         // non-stragglers still lacking chunks
    for (int t = 0; incomplete > 0; ++t) {
      if (t >= give_up) return {};
      p.rounds.push_back(round(t));
      // Apply the round.
      for (const auto& e : p.rounds.back()) {
        if (e.chunk_ab >= 0) give(e.b, e.chunk_ab);
        if (e.chunk_ba >= 0) give(e.a, e.chunk_ba);
      }
      incomplete = 0;
      for (int x = 0; x < m_; ++x) incomplete += missing_[static_cast<std::size_t>(x)] > 0;
    }
    return p;
  }

 private:
  Word* row(int x) { return have_.data() + static_cast<std::size_t>(x) * W_; }
  bool has(int x, int k) { return (row(x)[k / 64] >> (k % 64)) & 1u; }
  void give(int x, int k) {
    if (x == S_) return;  // the straggler's chunks are tracked through its exchanges
    row(x)[k / 64] |= Word{1} << (k % 64);
    --missing_[static_cast<std::size_t>(x)];
    ++holders_[static_cast<std::size_t>(k)];
  }

  // Rounds (from round t on) that doubling needs to bring a chunk with `h` non-straggler holders
  // (and the straggler) to all n ranks.
  int rounds_needed(int t, int h) const {
    int have = h + 1, r = 0;
    for (int j = t; have < n_; ++j, ++r)
      have += std::min(h + (j >= n_ - 1 ? 1 : 0), n_ - have), h = have - 1;
    return r;
  }

  std::vector<Exchange> round(int t) {
    std::vector<Exchange> ex;
    std::vector<char> busy(static_cast<std::size_t>(n_), 0);
    if (t <= n_ - 2) {
      ex.push_back({t, S_, t, t});
      busy[static_cast<std::size_t>(t)] = busy[static_cast<std::size_t>(S_)] = 1;
    }
    // Chunk urgency masks. Chunk k is fully reduced from the end of round k on.
    const int released = std::min(t, m_);
    masks_.assign(static_cast<std::size_t>(kLevels) * static_cast<std::size_t>(W_), 0);
    for (int k = 0; k < released; ++k) {
      const int h = holders_[static_cast<std::size_t>(k)];
      if (h + 1 >= n_) continue;
      const int slack = target_ - t - rounds_needed(t, h);
      const int lvl = std::clamp(slack, 0, kLevels - 1);
      masks_[static_cast<std::size_t>(lvl) * static_cast<std::size_t>(W_) +
             static_cast<std::size_t>(k / 64)] |= Word{1} << (k % 64);
    }
    // Rank urgency: a non-straggler that has not met the straggler loses one receiving round.
    rank_level_.assign(static_cast<std::size_t>(n_), kLevels - 1);
    for (int x = 0; x < m_; ++x) {
      const int lacks = missing_[static_cast<std::size_t>(x)] - (x >= t ? 1 : 0);
      const int can = target_ - t - (x >= t ? 1 : 0);
      rank_level_[static_cast<std::size_t>(x)] = std::clamp(can - lacks, 0, kLevels - 1);
    }
    std::vector<int> freel;
    for (int x = 0; x < n_; ++x)
      if (!busy[static_cast<std::size_t>(x)]) freel.push_back(x);
    if (v_.reverse_pairs) std::reverse(freel.begin(), freel.end());
    if (v_.seed != 0) {
      tie_.assign(static_cast<std::size_t>(n_), 0);
      for (auto& k : tie_) k = static_cast<std::uint32_t>(rng_.next());
      for (std::size_t i = freel.size(); i > 1; --i)
        std::swap(freel[i - 1], freel[static_cast<std::size_t>(rng_.next() % i)]);
    }
    auto take = [&](int a, int b, int ka, int kb) {
      busy[static_cast<std::size_t>(a)] = busy[static_cast<std::size_t>(b)] = 1;
      Exchange x{a, b, ka, kb};
      if (x.a > x.b) {
        std::swap(x.a, x.b);
        std::swap(x.chunk_ab, x.chunk_ba);
      }
      ex.push_back(x);
    };
    {
      // Receivers by urgency (least slack, then most missing); each takes the partner that gives
      // it the most urgent chunk, preferring one that gains too.
      std::vector<int> order;
      for (int x : freel)
        if (x != S_ && missing_[static_cast<std::size_t>(x)] > 0) order.push_back(x);
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        const auto xu = static_cast<std::size_t>(x), yu = static_cast<std::size_t>(y);
        if (rank_level_[xu] != rank_level_[yu]) return rank_level_[xu] < rank_level_[yu];
        if (missing_[xu] != missing_[yu]) return missing_[xu] > missing_[yu];
        return v_.seed != 0 && tie_[xu] < tie_[yu];
      });
      for (int b : order) {
        if (busy[static_cast<std::size_t>(b)]) continue;
        int best_a = -1, best_ka = -1, best_kb = -1, best_score = 0;
        for (int a : freel) {
          if (a == b || busy[static_cast<std::size_t>(a)]) continue;
          int ka = -1, kb = -1, wa = 0, wb = 0;
          best(a, b, ka, wa);
          if (ka < 0) continue;
          best(b, a, kb, wb);
          const int score = wa * 16 + wb;
          if (score > best_score) {
            best_score = score;
            best_a = a;
            best_ka = ka;
            best_kb = kb;
            if (score == kLevels * 17) break;  // cannot do better
          }
        }
        if (best_a >= 0) take(best_a, b, best_ka, best_kb);
      }
    }
    return ex;
  }

  // The most urgent chunk `from` can give `to` and the transfer's weight (0: nothing to give).
  void best(int from, int to, int& chunk, int& weight) {
    if (to == S_) return;
    const Word* hf = row(from);
    const Word* ht = row(to);
    const bool from_s = from == S_;
    for (int l = 0; l < kLevels; ++l) {
      const Word* m = masks_.data() + static_cast<std::size_t>(l) * W_;
      if (v_.newest_first) {
        for (int w = W_ - 1; w >= 0; --w) {
          const Word x = (from_s ? ~Word{0} : hf[w]) & ~ht[w] & m[w];
          if (x) {
            chunk = w * 64 + 63 - std::countl_zero(x);
            weight = kLevels - std::min(l, rank_level_[static_cast<std::size_t>(to)]);
            return;
          }
        }
      } else {
        for (int w = 0; w < W_; ++w) {
          const Word x = (from_s ? ~Word{0} : hf[w]) & ~ht[w] & m[w];
          if (x) {
            chunk = w * 64 + std::countr_zero(x);
            weight = kLevels - std::min(l, rank_level_[static_cast<std::size_t>(to)]);
            return;
          }
        }
      }
    }
  }

  int n_, m_, S_, W_, target_;
  Variant v_;
  Rng rng_;
  std::vector<std::uint32_t> tie_;
  std::vector<Word> have_, masks_;
  std::vector<int> holders_, missing_, rank_level_;
};

}  // namespace

Plan plan_greedy(int n, int seeds) {
  if (n < 2) throw Error("stragglar: plan_greedy needs n >= 2");
  const int target = round_lower_bound(n), stop = round_lower_bound_slots(n);
  Plan best;
  int best_rounds = 0;
  // Newest-first beat oldest-first on every n measured, and pairs taken by weight (the paper's
  // criterion) were far worse than urgent receivers first. Then seeded tie-breaking restarts;
  // a run is abandoned as soon as it reaches the best round count so far.
  std::vector<Variant> variants{Variant{true, false}, Variant{true, true}};
  for (int i = 1; i <= seeds; ++i)
    variants.push_back(Variant{true, (i & 1) != 0, 0x5eed0000ULL + static_cast<std::uint64_t>(i)});
  for (const Variant& v : variants) {
    Plan p = Greedy(n, target, v).run(best.rounds.empty() ? 4 * n + 64 : best_rounds);
    if (p.rounds.empty()) continue;
    if (best.rounds.empty() || static_cast<int>(p.rounds.size()) < best_rounds) {
      best = std::move(p);
      best_rounds = static_cast<int>(best.rounds.size());
    }
    if (best_rounds <= stop) break;
  }
  return best;
}

}  // namespace cclx::sched::stragglar_rounds::detail
