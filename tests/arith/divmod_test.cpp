// Floor division and modulo: every simplification, where it must fire and, just as
// important, where it must not (a rewrite that is only valid under a range fact must
// not fire when the fact is not provable).
#include <gtest/gtest.h>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct DivMod : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat x = Nat::var("x");  // unbounded, may be negative
  Nat y = Nat::var("y");
  Nat b16 = Nat::var("b", Nat(0), Nat(16));
  Nat ge0 = Nat::var("g", Nat(0));  // [0, inf)
};

TEST_F(DivMod, ConstantsFoldWithFloorSemantics) {
  EXPECT_EQ(floordiv(Nat(7), Nat(2)), Nat(3));
  EXPECT_EQ(floordiv(Nat(-7), Nat(2)), Nat(-4));
  EXPECT_EQ(floordiv(Nat(7), Nat(-2)), Nat(-4));
  EXPECT_EQ(floordiv(Nat(-7), Nat(-2)), Nat(3));
  EXPECT_EQ(mod(Nat(7), Nat(3)), Nat(1));
  EXPECT_EQ(mod(Nat(-7), Nat(3)), Nat(2));
  EXPECT_EQ(mod(Nat(7), Nat(-3)), Nat(-2));
  EXPECT_EQ(mod(Nat(-6), Nat(3)), Nat(0));
}

TEST_F(DivMod, TrivialDivisors) {
  EXPECT_EQ(floordiv(x, 1), x);
  EXPECT_EQ(mod(x, 1), Nat(0));
  EXPECT_EQ(mod(x, -1), Nat(0));
  EXPECT_EQ(floordiv(Nat(0), n), Nat(0));
  EXPECT_EQ(mod(Nat(0), n), Nat(0));
  EXPECT_EQ(floordiv(n, n), Nat(1));
  EXPECT_EQ(mod(n, n), Nat(0));
}

TEST_F(DivMod, MultipleOfConstantDivisorSplitsOff) {
  // (a*n + b)/n -> a + b/n and (a*n + b)%n -> b%n, for any a and b.
  EXPECT_EQ(floordiv(4 * y + x, 4), y + floordiv(x, 4));
  EXPECT_EQ(mod(4 * y + x, 4), mod(x, 4));
  EXPECT_EQ(floordiv(8 * y + x + 5, 4), 2 * y + floordiv(x + 5, 4));
  EXPECT_EQ(floordiv(4 * x + 8, 4), x + 2);
  EXPECT_EQ(mod(4 * x + 8, 4), Nat(0));
  EXPECT_EQ(mod(4 * x + 9, 4), Nat(1));
  EXPECT_EQ(floordiv(-4 * x + 1, 4), -x);
}

TEST_F(DivMod, MultipleOfSymbolicDivisorSplitsOff) {
  EXPECT_EQ(floordiv(y * n + x, n), y + floordiv(x, n));
  EXPECT_EQ(mod(y * n + x, n), mod(x, n));
  EXPECT_EQ(floordiv(x + n * y * m, n), y * m + floordiv(x, n));
  EXPECT_EQ(floordiv(3 * n + x, n), floordiv(x, n) + 3);
  EXPECT_EQ(mod(3 * n + x, n), mod(x, n));
  EXPECT_EQ(floordiv(x * (n + 1) + y, n + 1), x + floordiv(y, n + 1));
}

TEST_F(DivMod, SymbolicDivisorMustBeProvablyPositive) {
  // x could be 0 or negative: nothing may be assumed.
  EXPECT_EQ(floordiv(y * x, x).kind(), Kind::Div);
  EXPECT_EQ(floordiv(y * x + 1, x).kind(), Kind::Div);
  EXPECT_EQ(mod(y * x + 1, x).kind(), Kind::Mod);
  Nat k = Nat::var("k", Nat(0), n);  // may be 0
  EXPECT_EQ(floordiv(i * k + 1, k).kind(), Kind::Div);
}

TEST_F(DivMod, SmallDividendsVanishOnlyWhenProvable) {
  // 0 <= b < n provable: b/n -> 0, b%n -> b.
  EXPECT_EQ(floordiv(i, n), Nat(0));
  EXPECT_EQ(mod(i, n), i);
  EXPECT_EQ(floordiv(b16, 16), Nat(0));
  EXPECT_EQ(mod(b16, 16), b16);
  EXPECT_EQ(floordiv(b16, 17), Nat(0));
  EXPECT_EQ(floordiv(j, m * n), Nat(0));
  EXPECT_EQ(mod(j, m * n), j);
  // b in [0, 16) divided by 8: not provably below 8.
  EXPECT_EQ(mod(b16, 8), mod(b16, Nat(8)));
  EXPECT_EQ(mod(b16, 8).kind(), Kind::Mod);
  EXPECT_NE(mod(b16, 8), b16);
  EXPECT_EQ(floordiv(b16, 8).kind(), Kind::Div);
  // Unbounded or possibly negative dividends stay.
  EXPECT_EQ(floordiv(x, n).kind(), Kind::Div);
  EXPECT_EQ(mod(x, n).kind(), Kind::Mod);
  EXPECT_EQ(mod(ge0, n).kind(), Kind::Mod);
  Nat q = Nat::var("q", Nat(-1), Nat(3));
  EXPECT_EQ(mod(q, 4).kind(), Kind::Mod);
  EXPECT_EQ(floordiv(q, 4).kind(), Kind::Div);
  // i < n but not i < m.
  EXPECT_EQ(mod(i, m).kind(), Kind::Mod);
  EXPECT_EQ(floordiv(i, m).kind(), Kind::Div);
}

TEST_F(DivMod, NestedDivisionsMerge) {
  // (x/a)/b -> x/(a*b) for positive a and b.
  EXPECT_EQ(floordiv(floordiv(x, 3), 4), floordiv(x, 12));
  EXPECT_EQ(floordiv(floordiv(x, n), m), floordiv(x, n * m));
  EXPECT_EQ(floordiv(floordiv(x, n), 4), floordiv(x, 4 * n));
  EXPECT_EQ(floordiv(floordiv(x, 2), 2), floordiv(x, 4));
  // Not with a divisor of unknown sign.
  EXPECT_EQ(floordiv(floordiv(x, y), 4).node().args[0], floordiv(x, y));
}

TEST_F(DivMod, NestedModuliMerge) {
  EXPECT_EQ(mod(mod(x, n), n), mod(x, n));
  EXPECT_EQ(mod(mod(x, 8), 4), mod(x, 4));  // 4 | 8
  EXPECT_EQ(mod(mod(x, n * m), n), mod(x, n));
  EXPECT_EQ(mod(mod(x, 4), 8), mod(x, 4));  // already below 8
  // 3 does not divide 8: (x%8)%3 is not x%3 (x = 8: 0 vs 2).
  EXPECT_NE(mod(mod(x, 8), 3), mod(x, 3));
}

TEST_F(DivMod, DivModPairsRecombine) {
  // (x/n)*n + x%n -> x, constant and symbolic n, in every construction order.
  EXPECT_EQ(floordiv(x, 4) * 4 + mod(x, 4), x);
  EXPECT_EQ(mod(x, 4) + 4 * floordiv(x, 4), x);
  EXPECT_EQ(floordiv(x, n) * n + mod(x, n), x);
  EXPECT_EQ(mod(x, n) + n * floordiv(x, n), x);
  EXPECT_EQ(floordiv(x, n + 1) * (n + 1) + mod(x, n + 1), x);
  EXPECT_EQ(floordiv(x, n * m) * (n * m) + mod(x, n * m), x);
  // Inside a larger sum, and scaled.
  EXPECT_EQ(y + floordiv(x, 4) * 4 + 1 + mod(x, 4), x + y + 1);
  EXPECT_EQ(3 * (floordiv(x, n) * n + mod(x, n)), 3 * x);
  EXPECT_EQ(floordiv(x, 4) * 4 + mod(x, 4) - x, Nat(0));
  // The partner must match exactly.
  EXPECT_NE(floordiv(x, 4) * 4 + mod(x, 8), x);
  EXPECT_NE(floordiv(x, 4) * 2 + mod(x, 4), x);
  EXPECT_NE(floordiv(x, n) * m + mod(x, n), x);
  EXPECT_NE(2 * (floordiv(x, 4) * 4) + mod(x, 4), x);
}

TEST_F(DivMod, CommonFactorsOfConstantDivisionsCancel) {
  EXPECT_EQ(floordiv(2 * x, 4), floordiv(x, 2));
  EXPECT_EQ(floordiv(6 * x + 3, 9), floordiv(2 * x + 1, 3));
  EXPECT_EQ(mod(2 * x, 4), 2 * mod(x, 2));
  EXPECT_EQ(mod(6 * x + 3, 9), 3 * mod(2 * x + 1, 3));
}

TEST_F(DivMod, NegativeConstantDivisorsAreNormalised) {
  EXPECT_EQ(floordiv(x, -1), -x);
  EXPECT_EQ(floordiv(x, -4), floordiv(-x, 4));
  EXPECT_EQ(mod(x, -4), -mod(-x, 4));
  EXPECT_EQ(floordiv(i, -1) + i, Nat(0));
  // floor(i / -4) for i in [0, n) is in [-(n-1)/4 - 1, 0].
  EXPECT_FALSE(provably_nonneg(floordiv(i, -4)));
  EXPECT_TRUE(provably_nonneg(-floordiv(i, -4)));
}

TEST_F(DivMod, SmallNegativeDividends) {
  // -d <= a < 0 gives a/d == -1 and a%d == a + d.
  Nat k = Nat::var("k", Nat(0), Nat(8));
  EXPECT_EQ(floordiv(-1 - k, 8), Nat(-1));
  EXPECT_EQ(mod(-1 - k, 8), 7 - k);
  EXPECT_EQ(floordiv(Nat(-1), m), Nat(-1));
  EXPECT_EQ(mod(Nat(-1), m), m - 1);
  EXPECT_EQ(floordiv(i - n, n), Nat(-1));
  EXPECT_EQ(mod(i - n, n), i);
  // -9 <= -1 - k is not provable against 8 when k may reach 8.
  Nat k9 = Nat::var("k", Nat(0), Nat(9));
  EXPECT_EQ(floordiv(-1 - k9, 8).kind(), Kind::Div);
}

TEST_F(DivMod, IntegerRoundingInDecisions) {
  // n/4 is an integer (exact division) and positive since n >= 1.
  Nat q = exact_div(n, 4);
  EXPECT_TRUE(provably_pos(q));
  EXPECT_EQ(floordiv(j, q).kind(), Kind::Div);
  EXPECT_EQ(print(floordiv(j, q), Syntax::C), "j/(n/4)");
  Nat a = Nat::var("a", Nat(0), q);
  EXPECT_EQ(floordiv(a, q), Nat(0));
  EXPECT_EQ(mod(a, q), a);
  // i/4 < n needs the relaxation floor(i/4) <= i/4 <= (n-1)/4.
  EXPECT_TRUE(provably_lt(floordiv(i, 4), n));
  EXPECT_TRUE(provably_le(floordiv(i, m), i));
  EXPECT_FALSE(provably_lt(floordiv(i, m), i));
  EXPECT_TRUE(provably_le(mod(i, m), i));
  EXPECT_TRUE(provably_le(floordiv(i, 4) * 4, i));
  EXPECT_TRUE(provably_le(i, floordiv(i, 4) * 4 + 3));
  EXPECT_FALSE(provably_le(i, floordiv(i, 4) * 4 + 2));
}

TEST_F(DivMod, DivisionByZeroIsAnError) {
  EXPECT_THROW(floordiv(x, 0), ArithError);
  EXPECT_THROW(mod(x, 0), ArithError);
  EXPECT_THROW(floordiv(Nat(5), Nat(0)), ArithError);
  EXPECT_THROW(mod(Nat(5), Nat(0)), ArithError);
  EXPECT_THROW(exact_div(x, 0), ArithError);
  EXPECT_THROW(floordiv(x, n - n), ArithError);
}

TEST_F(DivMod, ExactDivisionOfConstants) {
  EXPECT_EQ(exact_div(Nat(12), Nat(4)), Nat(3));
  EXPECT_EQ(exact_div(Nat(-12), Nat(4)), Nat(-3));
  EXPECT_THROW(exact_div(Nat(6), Nat(4)), ArithError);
  EXPECT_THROW(exact_div(Nat(7), Nat(-2)), ArithError);
  try {
    exact_div(Nat(6), Nat(4));
  } catch (const ArithError& e) {
    EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos) << e.what();
  }
}

TEST_F(DivMod, RangeOfDivAndModAtoms) {
  // x%n is in [0, n); i/4 with i in [0, n) is in [0, (n-1)/4].
  EXPECT_TRUE(provably_nonneg(mod(x, n)));
  EXPECT_TRUE(provably_lt(mod(x, n), n));
  EXPECT_FALSE(provably_lt(mod(x, n), n - 1));
  EXPECT_TRUE(provably_nonneg(floordiv(i, 4)));
  EXPECT_TRUE(provably_lt(floordiv(i, 4), n));
  EXPECT_FALSE(provably_nonneg(floordiv(x, 4)));
  EXPECT_EQ(mod(mod(x, n), n), mod(x, n));
  EXPECT_EQ(floordiv(mod(x, n), n), Nat(0));
  EXPECT_EQ(mod(mod(x, 4), 4), mod(x, 4));
  EXPECT_EQ(floordiv(mod(x, 4), 4), Nat(0));
  EXPECT_EQ(floordiv(mod(x, 4), 2).kind(), Kind::Div);
}

}  // namespace
}  // namespace risec::arith
