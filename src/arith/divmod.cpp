// The non-polynomial atoms: floor division and modulo simplified with range
// reasoning (the rules that turn view index towers back into `i + m*j`), exact
// division, power, min, max and the conditional term.
#include <algorithm>

#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

namespace detail {

// The quotient of the monomial `m` by the monomial `d` when d's factors are a
// sub-multiset of m's.
static std::optional<Nat> mono_quotient(const Nat& m, const Nat& d) {
  std::vector<Nat> fm = factors(m);
  for (const Nat& f : factors(d)) {
    auto it = std::find(fm.begin(), fm.end(), f);
    if (it == fm.end()) return std::nullopt;
    fm.erase(it);
  }
  return make_mono(std::move(fm));
}

DivSplit split_divisible(const Nat& a, const Nat& b) {
  SumForm fa = sum_form(a);
  SumForm fb = sum_form(b);
  if (auto k = b.as_const()) {
    if (*k == 0) return {Nat(0), a};
    Poly q, r;
    Rational kk(*k);
    Rational qc = fa.constant / kk;
    if (qc.is_int()) {
      q.constant = qc;
    } else {
      r.constant = fa.constant;
    }
    for (const auto& [c, m] : fa.terms) {
      Rational cq = c / kk;
      if (cq.is_int()) {
        q.add_mono(m, cq);
      } else {
        r.add_mono(m, c);
      }
    }
    return {q.finish(), r.finish()};
  }
  // Symbolic divisor: divide by its leading term, then verify that the remainder
  // really shrank (polynomial division by one step).
  if (fb.terms.empty()) return {Nat(0), a};
  const auto& [kb, mb] = fb.terms.front();
  Poly q;
  size_t picked = 0;
  for (const auto& [c, m] : fa.terms) {
    Rational cq = c / kb;
    if (!cq.is_int()) continue;
    if (auto qm = mono_quotient(m, mb)) {
      q.add(*qm, cq);
      ++picked;
    }
  }
  if (picked == 0) return {Nat(0), a};
  Nat qn = q.finish();
  Nat r = a - b * qn;
  size_t a_size = fa.terms.size() + (fa.constant.is_zero() ? 0 : 1);
  SumForm fr = sum_form(r);
  size_t r_size = fr.terms.size() + (fr.constant.is_zero() ? 0 : 1);
  if (r_size >= a_size) return {Nat(0), a};
  return {qn, r};
}

bool all_integral(const Nat& a) {
  return denominator(a) == 1;
}

int64_t denominator(const Nat& a) {
  SumForm f = sum_form(a);
  int64_t l = f.constant.den();
  for (const auto& [c, m] : f.terms) l = lcm64(l, c.den());
  return l;
}

}  // namespace detail

// gcd of the constant and every coefficient (integers assumed).
static int64_t content(const Nat& a) {
  SumForm f = sum_form(a);
  int64_t g = f.constant.num();
  for (const auto& [c, m] : f.terms) g = gcd64(g, c.num());
  return g;
}

Nat floordiv(const Nat& a, const Nat& b) {
  if (b.is_const(0)) throw ArithError("division by zero");
  if (b.is_const(1)) return a;
  if (a.is_const(0)) return Nat(0);
  if (a.kind() == Kind::Const && b.kind() == Kind::Const) {
    Rational q = a.node().value / b.node().value;
    return Nat(q.floor());
  }
  // A negative constant divisor: floor(a / -k) == floor(-a / k).
  if (auto k = b.as_const(); k && *k < 0 && *k != INT64_MIN) return floordiv(-a, Nat(-*k));
  if (a == b && provably_pos(b)) return Nat(1);
  if (provably_pos(b)) {
    DivSplit s = split_divisible(a, b);
    if (!s.q.is_const(0)) return s.q + floordiv(s.r, b);
    if (provably_nonneg(a)) {
      if (provably_lt(a, b)) return Nat(0);
    } else if (provably_lt(a, Nat(0)) && provably_le(-b, a)) {
      return Nat(-1);  // -b <= a < 0
    }
    if (a.kind() == Kind::Div && provably_pos(a.node().args[1]))
      return floordiv(a.node().args[0], a.node().args[1] * b);
    if (auto k = b.as_const(); k && all_integral(a)) {
      int64_t g = gcd64(content(a), *k);
      if (g > 1) return floordiv(scale(Rational(1, g), a), Nat(*k / g));
    }
  }
  return make_node(Kind::Div, {a, b});
}

Nat mod(const Nat& a, const Nat& b) {
  if (b.is_const(0)) throw ArithError("modulo by zero");
  if (b.is_const(1) || b.is_const(-1)) return Nat(0);
  if (a.is_const(0)) return Nat(0);
  if (auto x = a.as_const()) {
    if (auto y = b.as_const()) return Nat(floor_mod(*x, *y));
  }
  if (a == b) return Nat(0);
  // A negative constant divisor: a mod -k == -((-a) mod k).
  if (auto k = b.as_const(); k && *k < 0 && *k != INT64_MIN) return -mod(-a, Nat(-*k));
  if (provably_pos(b)) {
    DivSplit s = split_divisible(a, b);
    if (!s.q.is_const(0)) return mod(s.r, b);
    if (provably_nonneg(a)) {
      if (provably_lt(a, b)) return a;
    } else if (provably_lt(a, Nat(0)) && provably_le(-b, a)) {
      return a + b;  // -b <= a < 0
    }
    if (a.kind() == Kind::Mod) {
      const Nat& inner = a.node().args[1];
      if (inner == b) return a;
      if (provably_pos(inner) && provably_divides(b, inner)) return mod(a.node().args[0], b);
    }
    if (auto k = b.as_const(); k && all_integral(a)) {
      int64_t g = gcd64(content(a), *k);
      if (g > 1) return scale(Rational(g), mod(scale(Rational(1, g), a), Nat(*k / g)));
    }
  }
  return make_node(Kind::Mod, {a, b});
}

// a / b where b divides a as a polynomial with rational coefficients (a = q b): q.
// Exact division's quotient need not have integer coefficients ((1/2)n / n is 1/2,
// (1/2)nm / m is (1/2)n), which split_divisible, made for floor division too, keeps
// apart; left as an ExactDiv node, the quotient printed as C's integer division
// truncated (slide(n/2)(n/2) had 2*((n/2)/n) + 1 windows, one in generic code).
static std::optional<Nat> polynomial_quotient(const Nat& a, const Nat& b) {
  SumForm fa = sum_form(a);
  SumForm fb = sum_form(b);
  if (fb.terms.empty() || !fa.constant.is_zero()) return std::nullopt;
  const auto& [kb, mb] = fb.terms.front();
  Poly q;
  for (const auto& [c, m] : fa.terms)
    if (auto qm = mono_quotient(m, mb)) q.add(*qm, c / kb);
  Nat qn = q.finish();
  if (qn.is_const(0) || !(a - b * qn).is_const(0)) return std::nullopt;
  return qn;
}

Nat exact_div(const Nat& a, const Nat& b) {
  if (b.is_const(0)) throw ArithError("division by zero");
  if (auto k = b.as_const()) {
    if (auto x = a.as_const()) {
      if (floor_mod(*x, *k) != 0)
        throw ArithError(std::to_string(*k) + " does not divide " + std::to_string(*x));
    }
    return scale(Rational(1, *k), a);
  }
  if (b.is_const()) return scale(Rational(1) / b.node().value, a);
  SumForm fb = sum_form(b);
  if (fb.constant.is_zero() && fb.terms.size() == 1 && !(fb.terms[0].first == Rational(1))) {
    // a / (k*m) == (a / m) / k
    return scale(Rational(1) / fb.terms[0].first, exact_div(a, fb.terms[0].second));
  }
  if (a == b) return Nat(1);
  if (a.is_const(0)) return Nat(0);
  if (auto q = polynomial_quotient(a, b)) return *q;
  DivSplit s = split_divisible(a, b);
  if (!s.q.is_const(0)) {
    if (s.r.is_const(0)) return s.q;
    return s.q + exact_div(s.r, b);
  }
  return make_node(Kind::ExactDiv, {a, b});
}

Nat pow(const Nat& a, const Nat& b) {
  if (auto e = b.as_const()) {
    if (*e < 0) throw ArithError("negative exponent in size arithmetic");
    if (*e == 0) return Nat(1);
    if (*e == 1) return a;
    if (auto base = a.as_const()) return Nat(checked_pow(*base, *e));
    if (*e <= 16) {
      Nat r = a;
      for (int64_t i = 1; i < *e; ++i) r = r * a;
      return r;
    }
  }
  if (a.is_const(1)) return Nat(1);
  if (a.is_const(0) && provably_pos(b)) return Nat(0);
  return make_node(Kind::Pow, {a, b});
}

Nat min(const Nat& a, const Nat& b) {
  if (a == b) return a;
  if (provably_le(a, b)) return a;
  if (provably_le(b, a)) return b;
  std::vector<Nat> args{a, b};
  std::sort(args.begin(), args.end(), NatLess());
  return make_node(Kind::Min, std::move(args));
}

Nat max(const Nat& a, const Nat& b) {
  if (a == b) return a;
  if (provably_le(a, b)) return b;
  if (provably_le(b, a)) return a;
  std::vector<Nat> args{a, b};
  std::sort(args.begin(), args.end(), NatLess());
  return make_node(Kind::Max, std::move(args));
}

Nat select(const Cond& c, const Nat& a, const Nat& b) {
  if (auto v = c.as_const()) return *v ? a : b;
  if (a == b) return a;
  return make_node(Kind::Select, {a, b}, c.ptr());
}

}  // namespace risec::arith
