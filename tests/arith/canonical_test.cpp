// Canonical form by construction: sums of products with constant (rational)
// coefficients in a deterministic order, like terms collected, constants folded,
// neutral and absorbing elements removed; equality and hashing follow.
#include <gtest/gtest.h>

#include <unordered_set>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct Canonical : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat x = Nat::var("x");
  Nat y = Nat::var("y");
};

TEST_F(Canonical, ConstantsFold) {
  EXPECT_EQ(Nat(3) + Nat(4), Nat(7));
  EXPECT_EQ(Nat(3) * Nat(4), Nat(12));
  EXPECT_EQ(Nat(3) - Nat(4), Nat(-1));
  EXPECT_EQ(-Nat(5), Nat(-5));
  EXPECT_EQ((x + 3) + 4, x + 7);
  EXPECT_EQ(2 * (x + 3), 2 * x + 6);
  EXPECT_TRUE((Nat(3) + 4).is_const(7));
  EXPECT_EQ((Nat(3) * 4).as_const(), 12);
}

TEST_F(Canonical, NeutralAndAbsorbingElementsVanish) {
  EXPECT_EQ(x + 0, x);
  EXPECT_EQ(0 + x, x);
  EXPECT_EQ(x - 0, x);
  EXPECT_EQ(x * 1, x);
  EXPECT_EQ(1 * x, x);
  EXPECT_EQ(x * 0, Nat(0));
  EXPECT_EQ(0 * x, Nat(0));
  EXPECT_EQ(x - x, Nat(0));
  EXPECT_EQ(x + (-x), Nat(0));
  EXPECT_TRUE((x * 0).is_const(0));
  // The result is the very same kind of node, not a sum wrapping it.
  EXPECT_EQ((x + 0).kind(), Kind::Var);
  EXPECT_EQ((x * 1).kind(), Kind::Var);
  EXPECT_EQ((x * y * 1).kind(), Kind::Prod);
}

TEST_F(Canonical, LikeTermsAreCollected) {
  EXPECT_EQ(2 * i + 3 * i, 5 * i);
  EXPECT_EQ(i + i, 2 * i);
  EXPECT_EQ(i * j + j * i, 2 * (i * j));
  EXPECT_EQ(3 * i - 3 * i + j, j);
  EXPECT_EQ(print(2 * i + 3 * i), "5*i");
  SumForm f = sum_form(2 * i + 3 * j + 3 * i + 1);
  EXPECT_EQ(f.constant, Rational(1));
  ASSERT_EQ(f.terms.size(), 2u);
  EXPECT_EQ(f.terms[0], (std::pair<Rational, Nat>{Rational(5), i}));
  EXPECT_EQ(f.terms[1], (std::pair<Rational, Nat>{Rational(3), j}));
}

TEST_F(Canonical, ProductsDistributeOverSums) {
  EXPECT_EQ((x + 1) * (x - 1), x * x - 1);
  EXPECT_EQ((x + y) * (x + y), x * x + 2 * (x * y) + y * y);
  EXPECT_EQ((i + m * j) * n, i * n + j * m * n);
  EXPECT_EQ(factors(x * y * x).size(), 3u);
  EXPECT_EQ(x * y, y * x);
  EXPECT_EQ((x * y) * n, x * (y * n));
}

TEST_F(Canonical, CommutationAndAssociationGiveOneTerm) {
  std::vector<Nat> same = {
      x + y + i, y + x + i, i + (x + y), (i + y) + x, x + (i + y), (x - 5) + (y + i + 5),
  };
  for (const Nat& t : same) {
    EXPECT_EQ(t, same[0]) << t;
    EXPECT_EQ(t.hash(), same[0].hash()) << t;
    EXPECT_EQ(compare(t, same[0]), 0);
    EXPECT_EQ(print(t), print(same[0]));
  }
  EXPECT_EQ((x * y) * (n * 2), 2 * (n * (y * x)));
  EXPECT_EQ(((x * y) * n).hash(), (n * (y * x)).hash());
  EXPECT_EQ(min(x, y), min(y, x));
  EXPECT_EQ(max(x, y).hash(), max(y, x).hash());
  EXPECT_EQ(lt(x, y) && lt(y, n), lt(y, n) && lt(x, y));
  EXPECT_EQ((lt(x, y) && lt(y, n)) && lt(x, n), lt(x, y) && (lt(y, n) && lt(x, n)));
  EXPECT_EQ(lt(x, y) || eq(x, n), eq(n, x) || lt(x, y));
  EXPECT_EQ(eq(x, y), eq(y, x));
  EXPECT_EQ(select(lt(x, y) && lt(y, n), x, y), select(lt(y, n) && lt(x, y), x, y));
}

TEST_F(Canonical, TermsHashIntoSetsByValue) {
  std::unordered_set<Nat> set;
  set.insert(i + m * j);
  set.insert(j * m + i);
  set.insert(i + j * m + 0);
  set.insert(i + j);
  EXPECT_EQ(set.size(), 2u);
}

TEST_F(Canonical, OrderIsTotalAndDeterministic) {
  std::vector<Nat> ts = {x, y, n, Nat(3), x * y, x + 1, floordiv(x, n), mod(x, n), min(x, y)};
  for (const Nat& a : ts) {
    EXPECT_EQ(compare(a, a), 0);
    for (const Nat& b : ts) {
      EXPECT_EQ(compare(a, b), -compare(b, a)) << a << " vs " << b;
      if (compare(a, b) == 0) {
        EXPECT_EQ(a, b);
      }
    }
  }
  // Printing follows the canonical order, whatever the construction order.
  EXPECT_EQ(print(y + x + n, Syntax::C), print(n + x + y, Syntax::C));
}

TEST_F(Canonical, RationalCoefficientsFromExactDivision) {
  Nat q = exact_div(n, 4);
  SumForm f = sum_form(q);
  ASSERT_EQ(f.terms.size(), 1u);
  EXPECT_EQ(f.terms[0].first, Rational(1, 4));
  EXPECT_EQ(q * 4, n);
  EXPECT_EQ(4 * q, n);
  EXPECT_EQ(q + q + q + q, n);
  EXPECT_EQ(exact_div(n * 6, 4), scale(Rational(3, 2), n));
  EXPECT_EQ(exact_div(n, 4) + exact_div(m, 4), exact_div(n + m, 4));
  EXPECT_EQ(exact_div(2 * n + 6, 2), n + 3);
  EXPECT_EQ(scale(Rational(1, 3), 3 * x), x);
}

TEST_F(Canonical, SymbolicExactDivisionCancels) {
  EXPECT_EQ(exact_div(n * m, m), n);
  EXPECT_EQ(exact_div(n, m) * m, n);
  EXPECT_EQ(m * exact_div(n, m), n);
  EXPECT_EQ(exact_div(n, n), Nat(1));
  EXPECT_EQ(exact_div(Nat(0), n), Nat(0));
  EXPECT_EQ(exact_div(n * m + m, m), n + 1);
  EXPECT_EQ(exact_div(n, 2 * m), scale(Rational(1, 2), exact_div(n, m)));
  EXPECT_EQ(exact_div(n, m).kind(), Kind::ExactDiv);
}

TEST_F(Canonical, PowerExpandsConstantExponents) {
  EXPECT_EQ(pow(x, Nat(0)), Nat(1));
  EXPECT_EQ(pow(x, Nat(1)), x);
  EXPECT_EQ(pow(x, Nat(3)), x * x * x);
  EXPECT_EQ(pow(x + 1, Nat(2)), x * x + 2 * x + 1);
  EXPECT_EQ(pow(Nat(2), Nat(10)), Nat(1024));
  EXPECT_EQ(pow(Nat(-1), Nat(3)), Nat(-1));
  EXPECT_EQ(pow(Nat(-1), Nat(4)), Nat(1));
  EXPECT_EQ(pow(Nat(-2), Nat(3)), Nat(-8));
  EXPECT_EQ(pow(Nat(1), n), Nat(1));
  EXPECT_EQ(pow(Nat(0), n), Nat(0));  // n >= 1
  EXPECT_EQ(pow(Nat(2), n).kind(), Kind::Pow);
  EXPECT_EQ(pow(Nat(2), n) * pow(Nat(2), n), pow(Nat(2), n) * pow(Nat(2), n));
  // Large exponents are not expanded, but stay exact.
  EXPECT_EQ(pow(Nat(1), Nat(int64_t{1} << 60)), Nat(1));
  EXPECT_EQ(pow(Nat(-1), Nat((int64_t{1} << 60) + 1)), Nat(-1));
}

TEST_F(Canonical, MinMaxAndSelectFold) {
  EXPECT_EQ(min(x, x), x);
  EXPECT_EQ(max(x, x), x);
  EXPECT_EQ(min(i, n), i);  // i < n
  EXPECT_EQ(max(i, n), n);
  EXPECT_EQ(min(Nat(3), Nat(5)), Nat(3));
  EXPECT_EQ(max(Nat(3), Nat(5)), Nat(5));
  EXPECT_EQ(min(x + 1, x), x);
  EXPECT_EQ(max(x + 1, x), x + 1);
  EXPECT_EQ(min(x, y).kind(), Kind::Min);
  EXPECT_EQ(select(Cond::truth(true), x, y), x);
  EXPECT_EQ(select(Cond::truth(false), x, y), y);
  EXPECT_EQ(select(lt(x, y), n, n), n);
  EXPECT_EQ(select(lt(i, n), i, Nat(0)), i);  // the condition is decided by i's range
  EXPECT_EQ(select(lt(x, y), x, y).kind(), Kind::Select);
}

TEST_F(Canonical, ConditionsFold) {
  EXPECT_EQ(lt(i, n), Cond::truth(true));
  EXPECT_EQ(le(n, i), Cond::truth(false));
  EXPECT_EQ(eq(i, n), Cond::truth(false));
  EXPECT_EQ(eq(x, x), Cond::truth(true));
  EXPECT_EQ(le(x, x + 1), Cond::truth(true));
  EXPECT_EQ(lt(x, x), Cond::truth(false));
  Cond c = lt(x, y);
  EXPECT_EQ(c && Cond::truth(true), c);
  EXPECT_EQ(Cond::truth(true) && c, c);
  EXPECT_EQ(c && Cond::truth(false), Cond::truth(false));
  EXPECT_EQ(Cond::truth(false) && c, Cond::truth(false));
  EXPECT_EQ(c || Cond::truth(true), Cond::truth(true));
  EXPECT_EQ(Cond::truth(true) || c, Cond::truth(true));
  EXPECT_EQ(c || Cond::truth(false), c);
  EXPECT_EQ(Cond::truth(false) || c, c);
  EXPECT_EQ(c && c, c);
  EXPECT_EQ(c || c, c);
  EXPECT_EQ(!!c, c);
  EXPECT_EQ(!lt(x, y), le(y, x));
  EXPECT_EQ(!le(x, y), lt(y, x));
  EXPECT_EQ(!Cond::truth(true), Cond::truth(false));
  EXPECT_EQ(!eq(x, y), !eq(y, x));
  EXPECT_EQ((!eq(x, y)).kind(), CondKind::Not);
}

TEST_F(Canonical, VariablesAreIdentifiedByName) {
  EXPECT_EQ(Nat::var("x"), x);
  EXPECT_EQ(Nat::var("i", Nat(0), n), i);
  EXPECT_NE(x, y);
  EXPECT_EQ(x.var_name(), "x");
  EXPECT_TRUE(x.is_var());
  auto fv = free_vars(i + m * j + floordiv(x, 4));
  EXPECT_EQ(fv.size(), 4u);
  EXPECT_TRUE(fv.count("i") && fv.count("j") && fv.count("m") && fv.count("x"));
  EXPECT_TRUE(occurs("x", select(lt(x, y), Nat(1), Nat(2))));
  EXPECT_FALSE(occurs("n", i + j));
}

}  // namespace
}  // namespace risec::arith
