// Sets of RISE terms up to alpha equivalence: how the autoscheduler tells its
// candidates apart (driver/schedule_space.cpp, schedule_gpu.cpp).
#pragma once

#include <cstddef>
#include <unordered_set>

#include "rise/expr.h"

namespace risec::rise {

// A hash that agrees with alpha_equal (bound names and types do not change it), and
// a set of terms told apart up to alpha equivalence: how the autoscheduler keys its
// candidates, rather than by the printed program (the printer also names bound
// variables afresh, so terms that print alike are alpha-equivalent), whose text is
// many allocations per candidate.
size_t alpha_hash(const Expr& e);
struct AlphaHash {
  size_t operator()(const Expr& e) const { return alpha_hash(e); }
};
struct AlphaEqual {
  bool operator()(const Expr& a, const Expr& b) const { return alpha_equal(a, b); }
};
using TermSet = std::unordered_set<Expr, AlphaHash, AlphaEqual>;

}  // namespace risec::rise
