// Printing: C expressions with minimal but sufficient parentheses (C reads `x*a/b` as
// `(x*a)/b`, and its `/` and `%` truncate), and RISE type syntax.
#include <gtest/gtest.h>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct Print : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat x = Nat::var("x");
  Nat y = Nat::var("y");
  Nat g = Nat::var("g", Nat(0));  // [0, inf)

  static std::string c(const Nat& t) { return print(t, Syntax::C); }
  static std::string rise(const Nat& t) { return print(t, Syntax::Rise); }
};

TEST_F(Print, SumsAndProducts) {
  EXPECT_EQ(c(Nat(0)), "0");
  EXPECT_EQ(c(Nat(-3)), "-3");
  EXPECT_EQ(c(i + m * j), "i + j*m");
  EXPECT_EQ(c(i * m + j), "j + i*m");
  EXPECT_EQ(c(n - 1), "n - 1");
  EXPECT_EQ(c(1 - n), "-n + 1");
  EXPECT_EQ(c(-n - m), "-m - n");
  EXPECT_EQ(c(2 * i + 3), "2*i + 3");
  EXPECT_EQ(c(n - 2 * i), "n - 2*i");
  EXPECT_EQ(c(x * y * n), "n*x*y");
  EXPECT_EQ(c(-(x * y)), "-x*y");
}

TEST_F(Print, DivisionKeepsItsParentheses) {
  // x*(a/b) must not print as x*a/b.
  EXPECT_EQ(c(i * floordiv(j, 4)), "i*(j/4)");
  EXPECT_EQ(c(floordiv(j, 4) * i), "i*(j/4)");
  EXPECT_EQ(c(2 * floordiv(j, 4)), "2*(j/4)");
  EXPECT_EQ(c(2 * mod(j, 4)), "2*(j%4)");
  EXPECT_EQ(c(i * exact_div(n, m)), "i*(n/m)");
  EXPECT_EQ(c(floordiv(j, 4) * mod(i, 3)), "(j/4)*(i%3)");
  // A leading minus is not read as part of the dividend.
  EXPECT_EQ(c(-floordiv(j, 4)), "-(j/4)");
  EXPECT_EQ(c(-mod(j, 4)), "-(j%4)");
  EXPECT_EQ(c(i - floordiv(j, 4)), "i - j/4");
  // Dividends and divisors that are sums or products.
  EXPECT_EQ(c(floordiv(i + j, 4)), "(i + j)/4");
  EXPECT_EQ(c(floordiv(i * j, 4)), "i*j/4");
  EXPECT_EQ(c(floordiv(g, n * m)), "g/(m*n)");
  EXPECT_EQ(c(mod(j, n + 1)), "j%(n + 1)");
  EXPECT_EQ(c(floordiv(floordiv(j, n) + i, m)), "(i + j/n)/m");
  EXPECT_EQ(c(mod(floordiv(g, n), m)), "g/n%m");
  EXPECT_EQ(c(floordiv(mod(g, n), m)), "g%n/m");
  EXPECT_EQ(c(floordiv(j, 4) + mod(j, 4)), "j/4 + j%4");
}

TEST_F(Print, FloorDivisionOfPossiblyNegativeValuesUsesHelpers) {
  // C's `/` truncates: -7/2 is -3 in C but floor(-7/2) is -4.
  EXPECT_EQ(c(floordiv(x, 4)), "risec_floordiv(x, 4)");
  EXPECT_EQ(c(mod(x, n)), "risec_floormod(x, n)");
  EXPECT_EQ(c(floordiv(j - 1, 2)), "risec_floordiv(j - 1, 2)");
  EXPECT_EQ(c(floordiv(j, y)), "risec_floordiv(j, y)");
  EXPECT_EQ(c(2 * floordiv(x, 4)), "2*risec_floordiv(x, 4)");
  EXPECT_EQ(rise(floordiv(x, 4)), "x/4");
}

TEST_F(Print, RationalCoefficientsPrintAsExactDivisions) {
  EXPECT_EQ(c(exact_div(n, 4)), "n/4");
  EXPECT_EQ(c(exact_div(3 * n, 4)), "3*n/4");
  EXPECT_EQ(c(exact_div(n + m, 4)), "(m + n)/4");
  EXPECT_EQ(c(exact_div(n, 4) + 1), "(n + 4)/4");
  EXPECT_EQ(c(-exact_div(n, 4)), "-n/4");
  EXPECT_EQ(c(i * exact_div(n, 4)), "i*n/4");
  EXPECT_EQ(c(floordiv(j, exact_div(n, 4))), "j/(n/4)");
}

TEST_F(Print, AtomsAndConditions) {
  EXPECT_EQ(c(min(x, y)), "risec_min(x, y)");
  EXPECT_EQ(c(max(x, y) + 1), "risec_max(x, y) + 1");
  EXPECT_EQ(c(pow(Nat(2), n)), "risec_pow(2, n)");
  EXPECT_EQ(c(select(lt(x, y), x, y + 1)), "(x < y ? x : y + 1)");
  EXPECT_EQ(c(2 * select(lt(x, y), x, y)), "2*(x < y ? x : y)");
  EXPECT_EQ(print(lt(x, y) && le(y, n), Syntax::C), "x < y && y <= n");
  EXPECT_EQ(print(!(lt(x, y) && le(y, n)), Syntax::C), "!(x < y && y <= n)");
  EXPECT_EQ(print((lt(x, y) && le(y, n)) || eq(x, m), Syntax::C), "m == x || (x < y && y <= n)");
  EXPECT_EQ(print(Cond::truth(true), Syntax::C), "1");
  EXPECT_EQ(print(Cond::truth(false), Syntax::Rise), "false");
}

TEST_F(Print, RiseSyntax) {
  EXPECT_EQ(rise(i + m * j), "i + j*m");
  EXPECT_EQ(rise(exact_div(n, 4)), "n/4");
  EXPECT_EQ(rise(min(x, y)), "min(x, y)");
  EXPECT_EQ(rise(max(n, m)), "max(m, n)");
  EXPECT_EQ(rise(pow(Nat(2), n)), "2^n");
  EXPECT_EQ(rise(pow(n + 1, m)), "(n + 1)^m");
  EXPECT_EQ(rise(3 * pow(Nat(2), n)), "3*(2^n)");
  EXPECT_EQ(rise(-floordiv(x, 4)), "-(x/4)");
  EXPECT_EQ(n.to_string(), "n");
  std::ostringstream os;
  os << (n + 1) << " " << lt(i, j);
  EXPECT_EQ(os.str(), "n + 1 i < j");
}

TEST_F(Print, Deterministic) {
  Nat a = (x + y) * (n + 1) + floordiv(x, 4) * m;
  Nat b = m * floordiv(x, 4) + (n + 1) * (y + x);
  EXPECT_EQ(c(a), c(b));
  EXPECT_EQ(rise(a), rise(b));
  EXPECT_EQ(c(a), c(a));
}

}  // namespace
}  // namespace risec::arith
