// Solving an equation between sizes for one unknown, as type inference needs it
// (`m*4 = n` gives `m = n/4` with the side condition 4 | n).
#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

// The dividend of `d divides t` (d a positive constant) written plainly: each integer
// coefficient and the constant taken to its representative nearest 0 modulo d, and the
// whole negated when its first term's coefficient is negative, so that a condition
// reads `3 divides m`, not `3 divides -m - 3` (held-out I F2). d divides the result
// exactly when it divides t, for every value of t's variables.
Nat plain_dividend(int64_t d, const Nat& t) {
  SumForm f = sum_form(t);
  if (!f.constant.is_int()) return t;
  for (const auto& term : f.terms)
    if (!term.first.is_int()) return t;
  auto nearest = [d](int64_t v) {
    const int64_t r = ((v % d) + d) % d;
    return r > d / 2 ? r - d : r;
  };
  int sign = 0;
  for (const auto& [c, m] : f.terms) {
    const int64_t k = nearest(c.num());
    if (k != 0 && sign == 0) sign = k < 0 ? -1 : 1;
  }
  if (sign == 0) sign = 1;
  Nat out(sign * nearest(f.constant.num()));
  for (const auto& [c, m] : f.terms)
    if (const int64_t k = sign * nearest(c.num()); k != 0) out = out + scale(Rational(k), m);
  return out;
}

Solution solve(const Nat& lhs, const Nat& rhs, const std::string& unknown) {
  Solution s;
  Nat d = lhs - rhs;
  auto vars = free_vars(d);
  auto it = vars.find(unknown);
  if (it == vars.end()) {
    if (d.is_const(0)) {
      s.status = Solution::Status::Trivial;
    } else if (d.is_const()) {
      s.status = Solution::Status::Unsatisfiable;
    } else {
      s.status = Solution::Status::NotLinear;
    }
    return s;
  }
  auto lin = linear_in(d, it->second);
  if (!lin || lin->coefficient.is_const(0)) {
    s.status = Solution::Status::NotLinear;
    return s;
  }
  Nat numerator = -lin->rest;
  const Nat& c = lin->coefficient;
  if (c.is_const()) {
    if (auto k = numerator.as_const()) {
      Rational q = Rational(*k) / c.node().value;
      if (!q.is_int()) {
        s.status = Solution::Status::Unsatisfiable;
        return s;
      }
      s.status = Solution::Status::Solved;
      s.value = Nat(q.num());
      return s;
    }
  }
  s.status = Solution::Status::Solved;
  if (c.is_const()) {
    // u = numerator * (q/p) for c = p/q: integral when p divides numerator*q.
    Rational cv = c.node().value;
    s.value = scale(Rational(1) / cv, numerator);
    Nat scaled = scale(Rational(cv.den()), numerator);
    Nat p(cv.num() < 0 ? checked_sub(0, cv.num()) : cv.num());
    if (!p.is_const(1) && !provably_divides(p, scaled))
      s.conditions.push_back(Divisibility{p, plain_dividend(*p.as_const(), scaled)});
    return s;
  }
  s.value = exact_div(numerator, c);
  if (!c.is_const(1) && !c.is_const(-1) && !provably_divides(c, numerator))
    s.conditions.push_back(Divisibility{c, numerator});
  return s;
}

}  // namespace risec::arith
