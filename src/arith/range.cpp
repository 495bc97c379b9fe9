// Range analysis: symbolic lower and upper bounds of a term from the ranges of its
// variables, and the decision procedures built on them. The method eliminates one
// atom at a time (a variable, or a division, modulo, ... treated as a variable with
// a derived range): while the term is linear in the atom, the atom is replaced by
// the end of its range that moves the term in the wanted direction, decided by the
// sign of its coefficient. Atoms are eliminated innermost first (an atom whose
// range mentions another goes before it), so `m - i - 1` with `i` in `[0, m)`
// becomes `m - (m-1) - 1 = 0`. Every step is sound, so "provable" answers are
// certain; anything undecided answers "not provable".
#include <algorithm>
#include <set>

#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

namespace detail {

static thread_local int g_depth = 0;
constexpr int kMaxDepth = 24;

DepthGuard::DepthGuard() { ++g_depth; }
DepthGuard::~DepthGuard() { --g_depth; }
bool DepthGuard::exceeded() const { return g_depth > kMaxDepth; }

bool contains_atom(const Nat& t, const Nat& atom) {
  if (t == atom) return true;
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
    case Kind::Var: return false;
    case Kind::Sum:
      for (const auto& [c, m] : n.terms)
        if (contains_atom(m, atom)) return true;
      return false;
    default:
      for (const Nat& a : n.args)
        if (contains_atom(a, atom)) return true;
      if (n.cond) {
        const CondNode& c = *n.cond;
        std::vector<const CondNode*> stack{&c};
        while (!stack.empty()) {
          const CondNode* x = stack.back();
          stack.pop_back();
          if (x->kind == CondKind::Lt || x->kind == CondKind::Le || x->kind == CondKind::Eq) {
            if (contains_atom(x->a, atom) || contains_atom(x->b, atom)) return true;
          }
          for (const Cond& s : x->args) stack.push_back(&s.node());
        }
      }
      return false;
  }
}

std::optional<Linear> linear_in(const Nat& t, const Nat& atom) {
  SumForm f = sum_form(t);
  Poly coef, rest;
  rest.constant = f.constant;
  for (const auto& [c, m] : f.terms) {
    std::vector<Nat> fs = factors(m);
    size_t count = 0;
    std::vector<Nat> others;
    for (const Nat& x : fs) {
      if (x == atom) {
        ++count;
      } else {
        if (contains_atom(x, atom)) return std::nullopt;
        others.push_back(x);
      }
    }
    if (count > 1) return std::nullopt;
    if (count == 1) {
      coef.add(make_mono(std::move(others)), c);
    } else {
      rest.add_mono(m, c);
    }
  }
  return Linear{coef.finish(), rest.finish()};
}

}  // namespace detail

namespace {

// The top-level atoms of t (factors of its monomials), without duplicates.
std::vector<Nat> atoms_of(const Nat& t) {
  std::vector<Nat> out;
  for (const auto& [c, m] : sum_form(t).terms)
    for (const Nat& f : factors(m))
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  return out;
}

// Inclusive bounds of an atom, as terms (possibly symbolic).
struct AtomRange {
  std::optional<Nat> lo, hi;
};

AtomRange atom_range(const Nat& a) {
  const Node& n = a.node();
  AtomRange r;
  switch (n.kind) {
    case Kind::Var:
      r.lo = n.lo;
      if (n.hi) r.hi = *n.hi - Nat(1);
      break;
    case Kind::Mod:
      if (provably_pos(n.args[1])) {
        r.lo = Nat(0);
        r.hi = n.args[1] - Nat(1);
        if (provably_nonneg(n.args[0])) {
          if (auto u = upper_bound(n.args[0]); u && u->is_const() && n.args[1].is_const())
            r.hi = Nat(std::min(*u->as_const(), *n.args[1].as_const() - 1));
        }
      }
      break;
    case Kind::Div:
      if (provably_pos(n.args[1])) {
        if (auto l = lower_bound(n.args[0])) r.lo = floordiv(*l, n.args[1]);
        if (auto u = upper_bound(n.args[0])) r.hi = floordiv(*u, n.args[1]);
      }
      break;
    case Kind::ExactDiv:
      if (provably_pos(n.args[1]) && provably_nonneg(n.args[0])) r.lo = Nat(0);
      break;
    case Kind::Pow:
      if (provably_le(Nat(1), n.args[0])) {
        r.lo = Nat(1);
      } else if (provably_nonneg(n.args[0])) {
        r.lo = Nat(0);
      }
      break;
    case Kind::Min:
      r.hi = n.args[0];
      if (auto l0 = lower_bound(n.args[0]))
        if (auto l1 = lower_bound(n.args[1]))
          if (l0->is_const() && l1->is_const())
            r.lo = Nat(std::min(*l0->as_const(), *l1->as_const()));
      break;
    case Kind::Max:
      r.lo = n.args[0];
      if (auto u0 = upper_bound(n.args[0]))
        if (auto u1 = upper_bound(n.args[1]))
          if (u0->is_const() && u1->is_const())
            r.hi = Nat(std::max(*u0->as_const(), *u1->as_const()));
      break;
    case Kind::Select: {
      auto l0 = lower_bound(n.args[0]), l1 = lower_bound(n.args[1]);
      if (l0 && l1 && l0->is_const() && l1->is_const())
        r.lo = Nat(std::min(*l0->as_const(), *l1->as_const()));
      auto u0 = upper_bound(n.args[0]), u1 = upper_bound(n.args[1]);
      if (u0 && u1 && u0->is_const() && u1->is_const())
        r.hi = Nat(std::max(*u0->as_const(), *u1->as_const()));
      break;
    }
    default: break;
  }
  return r;
}

// Atoms mentioned by an atom's structure and by its range, transitively.
void deps_of(const Nat& a, std::vector<Nat>& out, int depth) {
  if (depth > 6) return;
  auto add = [&](const Nat& t) {
    std::vector<Nat> stack{t};
    while (!stack.empty()) {
      Nat x = stack.back();
      stack.pop_back();
      const Node& n = x.node();
      if (n.kind == Kind::Const) continue;
      if (n.kind == Kind::Sum) {
        for (const auto& [c, m] : n.terms) stack.push_back(m);
        continue;
      }
      if (n.kind == Kind::Prod) {
        for (const Nat& f : n.args) stack.push_back(f);
        continue;
      }
      if (std::find(out.begin(), out.end(), x) != out.end()) continue;
      out.push_back(x);
      deps_of(x, out, depth + 1);
    }
  };
  const Node& n = a.node();
  if (n.kind == Kind::Var) {
    if (n.lo) add(*n.lo);
    if (n.hi) add(*n.hi);
  } else {
    for (const Nat& x : n.args) add(x);
  }
}

bool is_param(const Nat& a) { return a.kind() == Kind::Var && !a.node().hi; }

// A bound of t (inclusive): the smallest (upper == false) or largest value for the
// given ranges. keep_params keeps size variables (no upper bound) symbolic.
std::optional<Nat> bound(Nat t, bool upper, bool keep_params) {
  DepthGuard guard;
  if (guard.exceeded()) return std::nullopt;
  for (int step = 0; step < 64; ++step) {
    if (t.is_const()) return t;
    std::vector<Nat> atoms = atoms_of(t);
    std::vector<std::vector<Nat>> deps(atoms.size());
    for (size_t i = 0; i < atoms.size(); ++i) deps_of(atoms[i], deps[i], 0);
    bool progressed = false;
    for (size_t i = 0; i < atoms.size() && !progressed; ++i) {
      const Nat& v = atoms[i];
      if (keep_params && is_param(v)) continue;
      bool blocked = false;
      for (size_t j = 0; j < atoms.size() && !blocked; ++j)
        if (j != i && std::find(deps[j].begin(), deps[j].end(), v) != deps[j].end())
          blocked = true;
      if (blocked) continue;
      auto lin = linear_in(t, v);
      if (!lin) continue;
      int sign = 0;
      if (auto c = lin->coefficient.as_const()) {
        sign = *c > 0 ? 1 : (*c < 0 ? -1 : 0);
      } else if (lin->coefficient.is_const()) {
        sign = lin->coefficient.node().value.sign();
      } else if (provably_nonneg(lin->coefficient)) {
        sign = 1;
      } else if (provably_nonneg(-lin->coefficient)) {
        sign = -1;
      } else {
        continue;
      }
      if (sign == 0) {
        t = lin->rest;
        progressed = true;
        break;
      }
      AtomRange r = atom_range(v);
      bool use_hi = (sign > 0) == upper;
      const std::optional<Nat>& b = use_hi ? r.hi : r.lo;
      if (!b) continue;
      t = lin->coefficient * *b + lin->rest;
      progressed = true;
    }
    if (!progressed) break;
  }
  if (keep_params) return t;
  if (t.is_const()) return t;
  return std::nullopt;
}

bool atom_nonneg(const Nat& a);

// Every coefficient and the constant are >= 0 and every atom is >= 0.
bool obviously_nonneg(const Nat& t) {
  SumForm f = sum_form(t);
  if (f.constant.sign() < 0) return false;
  for (const auto& [c, m] : f.terms) {
    if (c.sign() < 0) return false;
    for (const Nat& x : factors(m))
      if (!atom_nonneg(x)) return false;
  }
  return true;
}

bool atom_nonneg(const Nat& a) {
  DepthGuard guard;
  if (guard.exceeded()) return false;
  const Node& n = a.node();
  switch (n.kind) {
    case Kind::Const: return n.value.sign() >= 0;
    case Kind::Var: return n.lo && provably_nonneg(*n.lo);
    case Kind::Mod: return provably_pos(n.args[1]);
    case Kind::Div:
    case Kind::ExactDiv: return provably_nonneg(n.args[0]) && provably_pos(n.args[1]);
    case Kind::Pow: return provably_nonneg(n.args[0]);
    case Kind::Min: return provably_nonneg(n.args[0]) && provably_nonneg(n.args[1]);
    case Kind::Max: return provably_nonneg(n.args[0]) || provably_nonneg(n.args[1]);
    case Kind::Select: return provably_nonneg(n.args[0]) && provably_nonneg(n.args[1]);
    default: return obviously_nonneg(a);
  }
}

}  // namespace

std::optional<Nat> lower_bound(const Nat& t) { return bound(t, false, true); }
std::optional<Nat> upper_bound(const Nat& t) { return bound(t, true, true); }

bool provably_nonneg(const Nat& t) {
  if (t.is_const()) return t.node().value.sign() >= 0;
  DepthGuard guard;
  if (guard.exceeded()) return false;
  if (obviously_nonneg(t)) return true;
  // Eliminate bounded atoms first, keeping sizes symbolic, then sizes too.
  if (auto lb = bound(t, false, true)) {
    if (lb->is_const()) return lb->node().value.sign() >= 0;
    if (obviously_nonneg(*lb)) return true;
    if (auto full = bound(*lb, false, false)) return full->node().value.sign() >= 0;
  }
  return false;
}

bool provably_pos(const Nat& t) { return provably_nonneg(t - Nat(1)); }
bool provably_lt(const Nat& a, const Nat& b) { return provably_nonneg(b - a - Nat(1)); }
bool provably_le(const Nat& a, const Nat& b) { return provably_nonneg(b - a); }
bool provably_eq(const Nat& a, const Nat& b) { return a == b || (a - b).is_const(0); }

bool provably_divides(const Nat& d, const Nat& t) {
  if (t.is_const(0)) return true;
  if (d.is_const(0)) return false;
  DivSplit s = split_divisible(t, d);
  return s.r.is_const(0);
}

}  // namespace risec::arith
