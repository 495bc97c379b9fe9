// Range analysis: lower and upper bounds of terms (symbolic in the sizes where
// needed) and the decision procedures, which answer "yes" only when certain.
#include <gtest/gtest.h>

#include <chrono>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct Range : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat x = Nat::var("x");
  Nat c8 = Nat::var("c", Nat(0), Nat(8));
  Nat neg = Nat::var("q", Nat(-4), Nat(4));

  static Nat get(const std::optional<Nat>& b) {
    EXPECT_TRUE(b.has_value());
    return b.value_or(Nat::var("<none>"));
  }
};

TEST_F(Range, BoundsOfConstantsAndVariables) {
  EXPECT_EQ(get(lower_bound(Nat(5))), Nat(5));
  EXPECT_EQ(get(upper_bound(Nat(5))), Nat(5));
  EXPECT_EQ(get(lower_bound(i)), Nat(0));
  EXPECT_EQ(get(upper_bound(i)), n - 1);
  EXPECT_EQ(get(lower_bound(c8)), Nat(0));
  EXPECT_EQ(get(upper_bound(c8)), Nat(7));
  EXPECT_EQ(get(lower_bound(n)), n);  // a size stays symbolic
  EXPECT_EQ(get(lower_bound(neg)), Nat(-4));
  EXPECT_EQ(get(upper_bound(neg)), Nat(3));
}

TEST_F(Range, BoundsOfLinearTerms) {
  EXPECT_EQ(get(upper_bound(i * m + j)), m * n - 1);
  EXPECT_EQ(get(lower_bound(i * m + j)), Nat(0));
  EXPECT_EQ(get(upper_bound(n - i - 1)), n - 1);
  EXPECT_EQ(get(lower_bound(n - i - 1)), Nat(0));
  EXPECT_EQ(get(upper_bound(2 * c8 + 1)), Nat(15));
  EXPECT_EQ(get(lower_bound(c8 - neg)), Nat(-3));
  EXPECT_EQ(get(upper_bound(c8 - neg)), Nat(11));
  EXPECT_EQ(get(upper_bound(c8 * neg)), Nat(21));
  EXPECT_EQ(get(lower_bound(c8 * neg)), Nat(-28));
}

TEST_F(Range, BoundsOfAtoms) {
  Nat k = Nat::var("k", Nat(0), n * 4);
  EXPECT_EQ(get(upper_bound(floordiv(k, 4))), n - 1);
  EXPECT_EQ(get(lower_bound(floordiv(k, 4))), Nat(0));
  EXPECT_EQ(get(upper_bound(mod(x, n))), n - 1);
  EXPECT_EQ(get(lower_bound(mod(x, n))), Nat(0));
  EXPECT_EQ(get(upper_bound(mod(c8, 16))), Nat(7));  // mod(c, 16) is c itself
  Nat c20 = Nat::var("d", Nat(0), Nat(20));
  EXPECT_EQ(get(upper_bound(mod(c20, 16))), Nat(15));
  EXPECT_EQ(get(upper_bound(min(c8, n))), Nat(7));
  EXPECT_EQ(get(lower_bound(max(c8, neg))), Nat(0));
  EXPECT_EQ(get(upper_bound(max(c8, neg))), Nat(7));
  EXPECT_EQ(get(upper_bound(select(lt(x, Nat(0)), c8, neg))), Nat(7));
  EXPECT_EQ(get(lower_bound(select(lt(x, Nat(0)), c8, neg))), Nat(-4));
  EXPECT_EQ(get(lower_bound(floordiv(neg, 2))), Nat(-2));
  EXPECT_EQ(get(upper_bound(floordiv(neg, 2))), Nat(1));
}

TEST_F(Range, UnknownBoundsAreNotInvented) {
  // An unbounded variable has no bound: the result is not a constant.
  auto lb = lower_bound(x + 1);
  EXPECT_TRUE(!lb || !lb->is_const());
  auto ub = upper_bound(n);
  EXPECT_TRUE(!ub || !ub->is_const());
  EXPECT_FALSE(provably_nonneg(x));
  EXPECT_FALSE(provably_nonneg(-n));
  EXPECT_FALSE(provably_nonneg(x * x - 1));
}

TEST_F(Range, ProvablyAnswersYesOnlyWhenCertain) {
  EXPECT_TRUE(provably_lt(i, n));
  EXPECT_FALSE(provably_lt(i, n - 1));
  EXPECT_TRUE(provably_le(i, n - 1));
  EXPECT_TRUE(provably_le(i, n));
  EXPECT_FALSE(provably_lt(n, i));
  EXPECT_TRUE(provably_lt(i * m + j, n * m));
  EXPECT_FALSE(provably_lt(i * m + j, n * m - 1));
  EXPECT_TRUE(provably_pos(n));
  EXPECT_TRUE(provably_pos(n * m));
  EXPECT_FALSE(provably_pos(i));
  EXPECT_TRUE(provably_nonneg(i));
  EXPECT_FALSE(provably_nonneg(i - 1));
  EXPECT_TRUE(provably_nonneg(n - i - 1));
  EXPECT_FALSE(provably_nonneg(m - i - 1));  // i < n says nothing about m
  EXPECT_TRUE(provably_nonneg(x * x));
  EXPECT_FALSE(provably_nonneg(neg));
  EXPECT_TRUE(provably_nonneg(neg + 4));
  EXPECT_FALSE(provably_nonneg(neg + 3));
  EXPECT_TRUE(provably_eq(i + 1, 1 + i));
  EXPECT_TRUE(provably_eq(floordiv(i * m + j, m), i));
  EXPECT_FALSE(provably_eq(i, j));
  EXPECT_FALSE(provably_eq(mod(c8, 8), c8 + 1));
}

TEST_F(Range, SymbolicLowerBounds) {
  // A triangular loop: t in [i, n).
  Nat t = Nat::var("t", i, n);
  EXPECT_TRUE(provably_le(i, t));
  EXPECT_TRUE(provably_lt(t, n));
  EXPECT_TRUE(provably_nonneg(t));
  EXPECT_TRUE(provably_nonneg(t - i));
  EXPECT_FALSE(provably_pos(t - i));
  EXPECT_EQ(get(lower_bound(t - i)), Nat(0));
  EXPECT_EQ(get(upper_bound(t - i)), n - 1);
  // A size with a symbolic lower bound: s >= n.
  Nat s = Nat::var("s", n);
  EXPECT_TRUE(provably_le(n, s));
  EXPECT_TRUE(provably_lt(i, s));
}

TEST_F(Range, FactsAreNotSharedBetweenSameNamedVariablesWithOtherRanges) {
  // Range facts are memoised; a variable rebuilt with another range (substitution
  // does this) must not see the facts of the old one.
  Nat a = Nat::var("a", Nat(0), n);
  EXPECT_TRUE(provably_lt(a, n));
  EXPECT_EQ(floordiv(a, n), Nat(0));
  Nat wider = Nat::var("a", Nat(0), n + 5);
  EXPECT_FALSE(provably_lt(wider, n));
  EXPECT_EQ(floordiv(wider, n).kind(), Kind::Div);
  EXPECT_EQ(get(upper_bound(wider)), n + 4);
  Nat shifted = substitute(a, {{"n", m}});
  EXPECT_FALSE(provably_lt(shifted, n));
  EXPECT_TRUE(provably_lt(shifted, m));
}

TEST_F(Range, DivisibilityIsSyntactic) {
  EXPECT_TRUE(provably_divides(Nat(4), 8 * x + 4));
  EXPECT_FALSE(provably_divides(Nat(4), 8 * x + 2));
  EXPECT_TRUE(provably_divides(n, n * x + n * m));
  EXPECT_FALSE(provably_divides(n, n * x + 1));
  EXPECT_TRUE(provably_divides(Nat(3), Nat(0)));
  // x - x%d is a multiple of d (what vectorizeRemainder's vector part has)
  EXPECT_TRUE(provably_divides(Nat(16), n - mod(n, Nat(16))));
  EXPECT_TRUE(provably_divides(Nat(4), 2 * n - 2 * mod(n, Nat(4)) + 8));
  EXPECT_FALSE(provably_divides(Nat(16), n - mod(n, Nat(8))));
  EXPECT_FALSE(provably_divides(Nat(16), n - mod(n, Nat(16)) + 1));
}

TEST_F(Range, DeepTermsStayFast) {
  // Towers of nested div/mod by positive divisors (what views produce) must not
  // make range analysis explode.
  auto start = std::chrono::steady_clock::now();
  Nat t = x;
  for (int d = 0; d < 12; ++d) {
    t = floordiv(mod(t + i, n) + floordiv(t, 3) + j, 2);
    (void)provably_nonneg(t);
    (void)upper_bound(t);
  }
  Nat u = i;
  for (int d = 0; d < 30; ++d) u = mod(floordiv(u * m + j, m) + 1, n + 1);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 5.0);
  EXPECT_TRUE(provably_nonneg(u));
}

// A min or max is one of its operands (the tail of a with-loop's step: r = n % 3 rows,
// min(w, r) of them covered).
TEST_F(Range, MinAndMaxAreOneOfTheirOperands) {
  Nat r = mod(n, 3);
  for (int w = 1; w <= 3; ++w) {
    EXPECT_TRUE(provably_nonneg(r - min(Nat(w), r))) << w;
    EXPECT_TRUE(provably_nonneg(r - max(Nat(0), r - w))) << w;
    EXPECT_TRUE(provably_le(min(Nat(w), r), r)) << w;
    EXPECT_FALSE(provably_nonneg(min(Nat(w), r) - r - 1)) << w;
    EXPECT_FALSE(provably_nonneg(r - max(Nat(w), r))) << w;  // false at r = 0
  }
  EXPECT_TRUE(provably_nonneg(max(n, m) - m));
  EXPECT_FALSE(provably_nonneg(min(n, m) - m));
}

}  // namespace
}  // namespace risec::arith
