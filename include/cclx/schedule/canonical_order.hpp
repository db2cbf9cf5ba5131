// The canonical reduction order: the one way of combining the ranks' contributions to an element
// that a schedule claiming Schedule::canonical_order computes, whatever its algorithm, segment
// size or channels, so that the builtin floating-point sum and product give the same bits.
//
// Ranks [lo, hi), hi - lo >= 2, combine as (ranks [lo, m)) (+) (ranks [m, hi)) with m = lo + the
// largest power of two below hi - lo: at a power of two the balanced binary tree in rank order,
// otherwise that tree over the first 2^k ranks beside the remainder's own tree ((0+1)+2 at n = 3,
// ((0+1)+(2+3))+4 at n = 5). It is the order of the binomial tree rooted at rank 0 and of
// recursive doubling at powers of two; its depth is ceil(log2 n).
//
// The two operands of each combination are unordered: IEEE addition and multiplication are
// commutative bit for bit (a + b == b + a) but not associative, so the tree's shape alone fixes
// the result. Operations that are not commutative (user-defined ones) need rank order as well
// (Schedule::preserves_order).
#pragma once

#include <string>

namespace cclx::sched {

/// Where ranks [lo, hi) split: lo + the largest power of two below hi - lo (hi - lo >= 2).
[[nodiscard]] int canonical_split(int lo, int hi);

/// The canonical expression over ranks [0, n), e.g. "((0+1)+(2+3))+4" for n = 5; "0" for n = 1.
[[nodiscard]] std::string canonical_expression(int n);

}  // namespace cclx::sched
