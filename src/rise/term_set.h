// Sets of RISE terms that print alike: how the autoscheduler tells its candidates
// apart (driver/schedule_space.cpp, schedule_gpu.cpp).
#pragma once

#include <cstddef>
#include <unordered_set>

#include "rise/expr.h"

namespace risec::rise {

// Terms that print alike: alpha-equivalent (alpha_equal), with the same base name at
// each binder (the name without the `__N` of a generated one). The printer names a
// generated binder afresh from its base and prints a user's as written, so these are
// the terms whose printed text is the same, told apart without printing them: how
// the autoscheduler keys its candidates (printing each was a tenth of building a
// space). `print_key_hash` agrees with it (bound names and types do not change it).
bool print_alike(const Expr& a, const Expr& b);
size_t print_key_hash(const Expr& e);
struct PrintKeyHash {
  size_t operator()(const Expr& e) const { return print_key_hash(e); }
};
struct PrintAlike {
  bool operator()(const Expr& a, const Expr& b) const { return print_alike(a, b); }
};
using TermSet = std::unordered_set<Expr, PrintKeyHash, PrintAlike>;

}  // namespace risec::rise
