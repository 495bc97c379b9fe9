// Helpers shared by the arith implementation files; not part of the public API.
#pragma once

#include <map>

#include "arith/nat.h"

namespace risec::arith {
// The total order on conditions behind `compare` (defined in cond.cpp).
int compare_cond(const Cond& a, const Cond& b);
}  // namespace risec::arith

namespace risec::arith::detail {

size_t hash_combine(size_t seed, size_t v);
size_t hash_rational(const Rational& r);
Nat make_const(const Rational& v);
Nat make_node(Kind kind, std::vector<Nat> args, std::shared_ptr<const CondNode> cond = nullptr);
Nat make_sum(const Rational& constant, std::vector<std::pair<Rational, Nat>> terms);
// A monomial from atoms (sorted): 1, the atom itself, or a Prod.
Nat make_mono(std::vector<Nat> factors);

// A sum under construction: constant + sum(coefficient * monomial).
struct Poly {
  Rational constant;
  std::map<Nat, Rational, NatLess> terms;
  void add(const Nat& t, const Rational& k);
  void add_mono(const Nat& m, const Rational& k);
  Nat finish();
};

// a == b*q + r with q collecting the terms of a that b divides syntactically.
struct DivSplit {
  Nat q;
  Nat r;
};
DivSplit split_divisible(const Nat& a, const Nat& b);

// Linear decomposition t == coefficient * atom + rest, where the atom occurs nowhere
// in coefficient or rest (not even nested). nullopt when t is not linear in atom.
struct Linear {
  Nat coefficient;
  Nat rest;
};
std::optional<Linear> linear_in(const Nat& t, const Nat& atom);
// Whether `atom` occurs anywhere inside t (including nested in other atoms).
bool contains_atom(const Nat& t, const Nat& atom);

// The least common denominator of t's coefficients and constant; 1 when all are
// integers (then t is integer-valued: monomials are products of integer atoms).
int64_t denominator(const Nat& t);
bool all_integral(const Nat& t);

// Structural equality that also compares the ranges of variables (Nat's operator==
// identifies variables by name). Range facts may be cached under this equality.
bool deep_equal(const Nat& a, const Nat& b);
bool deep_equal(const Cond& a, const Cond& b);

// Guards recursion between constructors and range analysis. When the limit is hit
// the answer is conservative ("not provable") and `truncations()` counts it, so that
// memoised range facts are only stored when they did not depend on the limit.
struct DepthGuard {
  DepthGuard();
  ~DepthGuard();
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  bool exceeded() const;
  static uint64_t truncations();
};

}  // namespace risec::arith::detail
