// Solving an equation between sizes for one unknown, as type inference needs it
// (`m*4 = n` gives `m = n/4` with the side condition 4 | n).
#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

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
      s.conditions.push_back(Divisibility{p, scaled});
    return s;
  }
  s.value = exact_div(numerator, c);
  if (!c.is_const(1) && !c.is_const(-1) && !provably_divides(c, numerator))
    s.conditions.push_back(Divisibility{c, numerator});
  return s;
}

}  // namespace risec::arith
