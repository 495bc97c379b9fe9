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
#include <unordered_map>

#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

namespace detail {

static thread_local int g_depth = 0;
static thread_local uint64_t g_truncations = 0;
constexpr int kMaxDepth = 24;

DepthGuard::DepthGuard() {
  ++g_depth;
}
DepthGuard::~DepthGuard() {
  --g_depth;
}
bool DepthGuard::exceeded() const {
  if (g_depth <= kMaxDepth) return false;
  ++g_truncations;
  return true;
}
uint64_t DepthGuard::truncations() {
  return g_truncations;
}

bool contains_atom(const Nat& t, const Nat& atom) {
  if (t == atom) return true;
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
    case Kind::Var:
      return false;
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

// Range facts are memoised: constructors ask the same questions about the same
// subterms over and over (is the divisor positive? is the dividend below it?), and
// each answer may need the ranges of nested atoms. Keys compare with deep_equal
// (variable ranges included), so a cached fact is a fact about exactly that term.
// An answer is stored only when no depth limit was hit while computing it.
template <class V>
class Memo {
 public:
  std::optional<V> find(const Nat& t) const {
    auto it = map_.find(t);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  void put(const Nat& t, V v) {
    if (map_.size() >= kMaxEntries) map_.clear();
    map_.emplace(t, std::move(v));
  }

 private:
  struct DeepEq {
    bool operator()(const Nat& a, const Nat& b) const { return deep_equal(a, b); }
  };
  static constexpr size_t kMaxEntries = 1 << 14;
  std::unordered_map<Nat, V, NatHash, DeepEq> map_;
};

// Computes f() through the memo `memo` under key t.
template <class V, class F>
V memoised(Memo<V>& memo, const Nat& t, F&& f) {
  if (auto hit = memo.find(t)) return *hit;
  uint64_t before = DepthGuard::truncations();
  V v = f();
  if (DepthGuard::truncations() == before) memo.put(t, v);
  return v;
}

// Inclusive bounds of an atom, as terms (possibly symbolic).
struct AtomRange {
  std::optional<Nat> lo, hi;
};

std::optional<int64_t> const_of(const std::optional<Nat>& t) {
  if (!t) return std::nullopt;
  return t->as_const();
}

std::optional<Nat> bound(const Nat& t, bool upper, bool keep_params);

// An integer-valued bound from a bound with rational coefficients, for an integer
// quantity: an upper bound rounds down, a lower bound rounds up.
Nat integral(const Nat& t, bool upper) {
  int64_t l = denominator(t);
  if (l == 1) return t;
  Nat s = scale(Rational(l), t);
  return upper ? floordiv(s, Nat(l)) : -floordiv(-s, Nat(l));
}

// A linear relaxation of a division or modulo atom in terms of its own dividend, for
// when its range in terms of the dividend's bounds is again a division (`(n-1)/4`)
// and elimination would stall, or loses the dividend's correlation with the rest of
// the term: x/k - (|k|-1)/|k| <= floor(x/k) <= x/k for a constant k, floor(x/d)
// between min(x, 0) and max(x, 0) for d >= 1, and 0 <= x % d <= x for x >= 0.
AtomRange relaxed_range(const Nat& a) {
  AtomRange r;
  const Nat& x = a.node().args.empty() ? a : a.node().args[0];
  if (a.kind() == Kind::Mod) {
    // 0 <= x % d <= x for x >= 0 and d > 0.
    if (provably_pos(a.node().args[1]) && provably_nonneg(x)) {
      r.lo = Nat(0);
      r.hi = x;
    }
    return r;
  }
  if (a.kind() != Kind::Div) return r;
  const Nat& d = a.node().args[1];
  if (auto k = d.as_const(); k && *k != INT64_MIN) {
    int64_t mag = *k < 0 ? -*k : *k;
    Nat q = scale(Rational(1, *k), x);
    r.hi = q;
    r.lo = q - make_const(Rational(mag - 1, mag));
  } else if (provably_pos(d)) {
    if (provably_nonneg(x)) {
      r.lo = Nat(0);
      r.hi = x;
    } else if (provably_nonneg(-x)) {
      r.lo = x;
      r.hi = Nat(0);
    }
  }
  return r;
}

AtomRange atom_range_uncached(const Nat& a) {
  const Node& n = a.node();
  AtomRange r;
  switch (n.kind) {
    case Kind::Var:
      r.lo = n.lo;
      if (n.hi) r.hi = *n.hi - Nat(1);
      break;
    case Kind::Mod: {
      const Nat& x = n.args[0];
      const Nat& d = n.args[1];
      if (provably_pos(d)) {
        r.lo = Nat(0);
        r.hi = d - Nat(1);
        // x in [0, u] with u < d - 1 narrows the range to [0, u].
        if (provably_nonneg(x)) {
          if (auto u = upper_bound(x); u && provably_lt(*u, d - Nat(1))) r.hi = *u;
        }
      } else if (auto k = d.as_const(); k && *k < 0) {
        r.lo = d + Nat(1);
        r.hi = Nat(0);
      }
      break;
    }
    case Kind::Div: {
      const Nat& x = n.args[0];
      const Nat& d = n.args[1];
      // floor(x/d) is monotone in x for a fixed divisor: increasing for d > 0,
      // decreasing for d < 0. Bounds of x may be rational; x is an integer, so they
      // are rounded inwards first.
      std::optional<Nat> l = bound(x, false, true), u = bound(x, true, true);
      if (provably_pos(d)) {
        if (l) r.lo = floordiv(integral(*l, false), d);
        if (u) r.hi = floordiv(integral(*u, true), d);
      } else if (auto k = d.as_const(); k && *k < 0) {
        if (u) r.lo = floordiv(integral(*u, true), d);
        if (l) r.hi = floordiv(integral(*l, false), d);
      }
      break;
    }
    case Kind::ExactDiv:
      if (provably_pos(n.args[1]) && provably_nonneg(n.args[0])) {
        r.lo = Nat(0);
        // a/b <= a for a >= 0 and b >= 1.
        r.hi = upper_bound(n.args[0]);
      }
      break;
    case Kind::Pow:
      if (provably_le(Nat(1), n.args[0])) {
        r.lo = Nat(1);
      } else if (provably_nonneg(n.args[0])) {
        r.lo = Nat(0);
      }
      break;
    case Kind::Min: {
      // min(a, b) <= a, and >= the smaller of the lower bounds.
      r.hi = n.args[0];
      auto l0 = const_of(lower_bound(n.args[0])), l1 = const_of(lower_bound(n.args[1]));
      if (l0 && l1) r.lo = Nat(std::min(*l0, *l1));
      break;
    }
    case Kind::Max: {
      r.lo = n.args[0];
      auto u0 = const_of(upper_bound(n.args[0])), u1 = const_of(upper_bound(n.args[1]));
      if (u0 && u1) r.hi = Nat(std::max(*u0, *u1));
      break;
    }
    case Kind::Select: {
      auto l0 = const_of(lower_bound(n.args[0])), l1 = const_of(lower_bound(n.args[1]));
      if (l0 && l1) r.lo = Nat(std::min(*l0, *l1));
      auto u0 = const_of(upper_bound(n.args[0])), u1 = const_of(upper_bound(n.args[1]));
      if (u0 && u1) r.hi = Nat(std::max(*u0, *u1));
      break;
    }
    default:
      break;
  }
  return r;
}

thread_local Memo<AtomRange> g_atom_ranges;

// Range queries never fail: an intermediate that overflows 64 bits (huge constants)
// only means that nothing is known.
template <class V, class F>
V or_unknown(V unknown, F&& f) {
  try {
    return f();
  } catch (const ArithError&) {
    return unknown;
  }
}

AtomRange atom_range(const Nat& a) {
  if (a.kind() == Kind::Var) return or_unknown(AtomRange{}, [&] { return atom_range_uncached(a); });
  return memoised(g_atom_ranges, a,
                  [&] { return or_unknown(AtomRange{}, [&] { return atom_range_uncached(a); }); });
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

bool is_param(const Nat& a) {
  return a.kind() == Kind::Var && !a.node().hi;
}

bool nonneg(const Nat& t, bool round);

// The sign of a coefficient: 1 (>= 0), -1 (<= 0), 0 (zero) or nullopt (unknown).
// A coefficient with rational coefficients need not be an integer, so integer
// rounding is only used for integral ones.
std::optional<int> sign_of(const Nat& c) {
  if (c.is_const()) return c.node().value.sign();
  bool round = all_integral(c);
  if (nonneg(c, round)) return 1;
  if (nonneg(-c, round)) return -1;
  return std::nullopt;
}

// A bound of t (inclusive): the smallest (upper == false) or largest value for the
// given ranges. keep_params keeps size variables (no upper bound) symbolic, and then
// the result may still contain atoms that could not be eliminated: it is a bound
// pointwise, for every assignment within the ranges.
std::optional<Nat> bound_uncached(Nat t, bool upper, bool keep_params) {
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
        if (j != i && std::find(deps[j].begin(), deps[j].end(), v) != deps[j].end()) blocked = true;
      if (blocked) continue;
      auto lin = linear_in(t, v);
      if (!lin) continue;
      std::optional<int> sign = sign_of(lin->coefficient);
      if (!sign) continue;
      if (*sign == 0) {
        t = lin->rest;
        progressed = true;
        break;
      }
      bool use_hi = (*sign > 0) == upper;
      auto attempt = [&](const AtomRange& r) {
        const std::optional<Nat>& b = use_hi ? r.hi : r.lo;
        if (!b) return false;
        Nat next = lin->coefficient * *b + lin->rest;
        if (next == t) return false;  // the atom's range is the atom itself
        t = next;
        return true;
      };
      // A division or modulo whose dividend shares atoms with the rest of t (at its
      // top level) is relaxed in terms of the dividend first (i - i/m >= i - i),
      // which keeps the correlation; otherwise its range from the dividend's bounds
      // is tighter.
      bool correlated = false;
      if (v.kind() == Kind::Div || v.kind() == Kind::Mod) {
        std::vector<Nat> around = atoms_of(lin->rest);
        for (const Nat& a : atoms_of(lin->coefficient)) around.push_back(a);
        for (const Nat& a : atoms_of(v.node().args[0]))
          if (std::find(around.begin(), around.end(), a) != around.end()) correlated = true;
      }
      auto relaxed = [&] { return or_unknown(AtomRange{}, [&] { return relaxed_range(v); }); };
      if (correlated) {
        progressed = attempt(relaxed()) || attempt(atom_range(v));
      } else {
        progressed = attempt(atom_range(v)) || attempt(relaxed());
      }
    }
    if (!progressed) break;
  }
  if (keep_params || t.is_const()) return t;
  return std::nullopt;
}

thread_local Memo<std::optional<Nat>> g_bounds[2][2];

std::optional<Nat> bound(const Nat& t, bool upper, bool keep_params) {
  if (t.is_const()) return t;
  return memoised(g_bounds[upper][keep_params], t, [&] {
    return or_unknown(std::optional<Nat>(), [&] { return bound_uncached(t, upper, keep_params); });
  });
}

bool atom_nonneg(const Nat& a);

// Whether t >= 0 is evident from its form: every coefficient is >= 0 and every atom
// is >= 0 or occurs to an even power. With `round` (t is an integer) a constant
// above -1 is enough: t > -1 means t >= 0.
bool obviously_nonneg(const Nat& t, bool round) {
  SumForm f = sum_form(t);
  if (round ? !(Rational(-1) < f.constant) : f.constant.sign() < 0) return false;
  for (const auto& [c, m] : f.terms) {
    if (c.sign() < 0) return false;
    std::vector<Nat> fs = factors(m);  // sorted: equal factors are adjacent
    for (size_t i = 0; i < fs.size();) {
      size_t j = i;
      while (j < fs.size() && fs[j] == fs[i]) ++j;
      if ((j - i) % 2 == 1 && !atom_nonneg(fs[i])) return false;
      i = j;
    }
  }
  return true;
}

bool atom_nonneg(const Nat& a) {
  DepthGuard guard;
  if (guard.exceeded()) return false;
  const Node& n = a.node();
  switch (n.kind) {
    case Kind::Const:
      return n.value.sign() >= 0;
    case Kind::Var:
      return n.lo && provably_nonneg(*n.lo);
    case Kind::Mod:
      return provably_pos(n.args[1]);
    case Kind::Div:
    case Kind::ExactDiv:
      return provably_nonneg(n.args[0]) && provably_pos(n.args[1]);
    case Kind::Pow:
      return provably_nonneg(n.args[0]);
    case Kind::Min:
      return provably_nonneg(n.args[0]) && provably_nonneg(n.args[1]);
    case Kind::Max:
      return provably_nonneg(n.args[0]) || provably_nonneg(n.args[1]);
    case Kind::Select:
      return provably_nonneg(n.args[0]) && provably_nonneg(n.args[1]);
    default:
      return obviously_nonneg(a, true);
  }
}

bool nonneg_uncached(const Nat& t, bool round) {
  DepthGuard guard;
  if (guard.exceeded()) return false;
  if (obviously_nonneg(t, round)) return true;
  auto decided = [&](const Nat& b) {
    const Rational& v = b.node().value;
    return round ? Rational(-1) < v : v.sign() >= 0;
  };
  // Eliminate bounded atoms first, keeping sizes symbolic, then sizes too.
  if (auto lb = bound(t, false, true)) {
    if (lb->is_const()) return decided(*lb);
    if (obviously_nonneg(*lb, round)) return true;
    if (auto full = bound(*lb, false, false)) return decided(*full);
  }
  return false;
}

thread_local Memo<bool> g_nonneg[2];

bool nonneg(const Nat& t, bool round) {
  if (t.is_const()) return t.node().value.sign() >= 0;
  return memoised(g_nonneg[round], t,
                  [&] { return or_unknown(false, [&] { return nonneg_uncached(t, round); }); });
}

}  // namespace

// The public bounds are integer-valued: internal ones may have rational coefficients
// (from relaxing divisions), and are rounded inwards here.
std::optional<Nat> lower_bound(const Nat& t) {
  return or_unknown(std::optional<Nat>(), [&]() -> std::optional<Nat> {
    auto b = bound(t, false, true);
    if (b) b = integral(*b, false);
    return b;
  });
}
std::optional<Nat> upper_bound(const Nat& t) {
  return or_unknown(std::optional<Nat>(), [&]() -> std::optional<Nat> {
    auto b = bound(t, true, true);
    if (b) b = integral(*b, true);
    return b;
  });
}

// Terms are integer-valued, so the decision may round: t > -1 means t >= 0.
bool provably_nonneg(const Nat& t) {
  if (nonneg(t, true)) return true;
  // A min or max term is one of its operands: t is non-negative when it is with the
  // term replaced by every operand, and already when it is with one operand where
  // that gives a smaller t (min(a, b) <= a subtracted, max(a, b) >= a added). So
  // r - min(w, r) >= 0 (as r - r) and r - max(0, r - 1) >= 0 for r >= 0.
  return or_unknown(false, [&] {
    for (const auto& [c, m] : sum_form(t).terms) {
      if (m.kind() != Kind::Min && m.kind() != Kind::Max) continue;
      bool any = (m.kind() == Kind::Min) == (c.sign() < 0);
      bool all = true;
      for (const Nat& arg : m.node().args) {
        bool ok = nonneg(t - scale(c, m) + scale(c, arg), true);
        if (ok && any) return true;
        all = all && ok;
      }
      if (!any && all) return true;
    }
    return false;
  });
}

bool provably_pos(const Nat& t) {
  if (t.is_const()) return t.node().value.sign() > 0;
  return or_unknown(false, [&] { return provably_nonneg(t - Nat(1)); });
}
bool provably_lt(const Nat& a, const Nat& b) {
  if (a.is_const() && b.is_const()) return a.node().value < b.node().value;
  return or_unknown(false, [&] { return provably_nonneg(b - a - Nat(1)); });
}
bool provably_le(const Nat& a, const Nat& b) {
  if (a.is_const() && b.is_const()) return a.node().value <= b.node().value;
  return or_unknown(false, [&] { return provably_nonneg(b - a); });
}
bool provably_eq(const Nat& a, const Nat& b) {
  return a == b || or_unknown(false, [&] { return (a - b).is_const(0); });
}

bool provably_divides(const Nat& d, const Nat& t) {
  if (t.is_const(0)) return true;
  if (d.is_const(0)) return false;
  return or_unknown(false, [&] {
    Nat r = split_divisible(t, d).r;
    if (r.is_const(0)) return true;
    // x % d is x - d*(x/d): a remainder such as n - n%16 is a multiple of 16.
    SumForm f = sum_form(r);
    Nat e = scale(f.constant, Nat(1));
    bool changed = false;
    for (const auto& [c, m] : f.terms) {
      if (m.kind() == Kind::Mod && m.node().args.size() == 2 && m.node().args[1] == d) {
        const Nat& x = m.node().args[0];
        e = e + scale(c, x - d * floordiv(x, d));
        changed = true;
      } else {
        e = e + scale(c, m);
      }
    }
    return changed && split_divisible(e, d).r.is_const(0);
  });
}

}  // namespace risec::arith
