// Evaluation, substitution and the error cases: 64-bit overflow, division by zero,
// missing variables and inexact divisions are ArithErrors with clear messages,
// never undefined behaviour.
#include <gtest/gtest.h>

#include <climits>

#include "arith/nat.h"

namespace risec::arith {
namespace {

struct Eval : ::testing::Test {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat x = Nat::var("x");
  Nat y = Nat::var("y");
  Nat big = Nat(INT64_MAX);
  Nat small = Nat(INT64_MIN);
};

// The message of the ArithError that f throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ArithError& e) {
    return e.what();
  }
  return "";
}

TEST_F(Eval, EvaluatesEveryKind) {
  Assignment a{{"n", 10}, {"m", 4}, {"i", 3}, {"j", 2}, {"x", -7}, {"y", 5}};
  EXPECT_EQ(evaluate(i * m + j, a), 14);
  EXPECT_EQ(evaluate(floordiv(x, 2), a), -4);
  EXPECT_EQ(evaluate(mod(x, 3), a), 2);
  EXPECT_EQ(evaluate(exact_div(n, m) * 0 + exact_div(n * m, m), a), 10);
  EXPECT_EQ(evaluate(exact_div(n, 2), a), 5);
  EXPECT_EQ(evaluate(pow(Nat(2), n), a), 1024);
  EXPECT_EQ(evaluate(pow(x, y), a), -16807);
  EXPECT_EQ(evaluate(min(x, y), a), -7);
  EXPECT_EQ(evaluate(max(x, y), a), 5);
  EXPECT_EQ(evaluate(select(lt(x, y), n, m), a), 10);
  EXPECT_EQ(evaluate(select(lt(y, x) || eq(x, y), n, m), a), 4);
  EXPECT_TRUE(evaluate(lt(x, y) && !eq(x, y), a));
  EXPECT_FALSE(evaluate(le(y, x), a));
}

TEST_F(Eval, MissingVariableNamesTheVariable) {
  std::string msg = error_of([&] { evaluate(i + x, {{"i", 1}}); });
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  msg = error_of([&] { evaluate(lt(x, y), {{"x", 1}}); });
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
  msg = error_of([&] { evaluate(select(lt(x, Nat(0)), Nat(1), floordiv(y, 2)), {{"x", 1}}); });
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
}

TEST_F(Eval, DivisionByZeroAtRunTime) {
  std::string msg = error_of([&] { evaluate(floordiv(x, y), {{"x", 1}, {"y", 0}}); });
  EXPECT_NE(msg.find("division by zero"), std::string::npos) << msg;
  msg = error_of([&] { evaluate(mod(x, y), {{"x", 1}, {"y", 0}}); });
  EXPECT_NE(msg.find("by zero"), std::string::npos) << msg;
  msg = error_of([&] { evaluate(exact_div(x, y), {{"x", 1}, {"y", 0}}); });
  EXPECT_NE(msg.find("division by zero"), std::string::npos) << msg;
  msg = error_of([&] { evaluate(exact_div(x, y), {{"x", 7}, {"y", 2}}); });
  EXPECT_NE(msg.find("does not divide"), std::string::npos) << msg;
  // A rational coefficient that does not give an integer for these sizes.
  msg = error_of([&] { evaluate(exact_div(n, 4), {{"n", 6}}); });
  EXPECT_NE(msg.find("not an integer"), std::string::npos) << msg;
}

TEST_F(Eval, DivisionByZeroConstant) {
  EXPECT_THROW(floordiv(x, 0), ArithError);
  EXPECT_THROW(mod(x, Nat(0)), ArithError);
  EXPECT_THROW(exact_div(x, Nat(0)), ArithError);
  EXPECT_THROW(floordiv(Nat(0), Nat(0)), ArithError);
  EXPECT_THROW(substitute(floordiv(x, y), {{"y", Nat(0)}}), ArithError);
}

TEST_F(Eval, OverflowIsDetectedInConstruction) {
  EXPECT_THROW(big + 1, ArithError);
  EXPECT_THROW(small - 1, ArithError);
  EXPECT_THROW(-small, ArithError);
  EXPECT_THROW(big * 2, ArithError);
  EXPECT_THROW(small * -1, ArithError);
  EXPECT_THROW(pow(Nat(2), Nat(63)), ArithError);
  EXPECT_THROW(pow(Nat(3), Nat(40)), ArithError);
  EXPECT_THROW(pow(Nat(-1), Nat(-1)), ArithError);
  EXPECT_THROW(big * x + big * x, ArithError);  // coefficient overflow
  EXPECT_THROW(scale(Rational(INT64_MAX), x) + x, ArithError);
  EXPECT_EQ(pow(Nat(2), Nat(62)), Nat(int64_t{1} << 62));
  EXPECT_EQ(pow(Nat(-2), Nat(63)), small);
  EXPECT_EQ(big + 0, big);
  EXPECT_EQ(small + big, Nat(-1));
  EXPECT_EQ(floordiv(small, Nat(1)), small);
  EXPECT_THROW(floordiv(small, Nat(-1)), ArithError);
  EXPECT_EQ(mod(small, Nat(-1)), Nat(0));
  EXPECT_THROW(Rational(1, INT64_MIN), ArithError);
  EXPECT_THROW(exact_div(x, small), ArithError);
}

TEST_F(Eval, OverflowIsDetectedInEvaluation) {
  Assignment a{{"x", INT64_MAX}, {"y", 2}};
  EXPECT_THROW(evaluate(x + 1, a), ArithError);
  EXPECT_THROW(evaluate(x * y, a), ArithError);
  EXPECT_THROW(evaluate(pow(y, x), a), ArithError);  // fast, not 2^63 iterations
  EXPECT_THROW(evaluate(x * x, a), ArithError);
  EXPECT_THROW(evaluate(-x - 2, a), ArithError);
  EXPECT_EQ(evaluate(pow(Nat(-1), x), a), -1);
  EXPECT_EQ(evaluate(pow(Nat(1), x), a), 1);
  EXPECT_EQ(evaluate(pow(Nat(0), x), a), 0);
  EXPECT_THROW(evaluate(floordiv(x, y), {{"x", INT64_MIN}, {"y", -1}}), ArithError);
  EXPECT_EQ(evaluate(mod(x, y), {{"x", INT64_MIN}, {"y", -1}}), 0);
  EXPECT_THROW(evaluate(exact_div(x, y), {{"x", INT64_MIN}, {"y", -1}}), ArithError);
  EXPECT_THROW(solve(small * x, y, "x"), ArithError);
  // Dividing by INT64_MIN cannot be normalised (its negation overflows), but range
  // analysis and printing of such a term must not misbehave either.
  Nat d = floordiv(x, small);
  EXPECT_EQ(d.kind(), Kind::Div);
  EXPECT_NO_THROW(upper_bound(d + floordiv(d, 2)));
  EXPECT_FALSE(provably_nonneg(d));
  EXPECT_EQ(evaluate(d, {{"x", 5}}), -1);
  EXPECT_EQ(evaluate(x - 1, a), INT64_MAX - 1);
}

TEST_F(Eval, RationalArithmeticIsChecked) {
  EXPECT_EQ(Rational(2, 4), Rational(1, 2));
  EXPECT_EQ(Rational(3, -6), Rational(-1, 2));
  EXPECT_EQ(Rational(1, 2) + Rational(1, 3), Rational(5, 6));
  EXPECT_EQ(Rational(1, 2) * Rational(2, 3), Rational(1, 3));
  EXPECT_EQ(Rational(7, 2).floor(), 3);
  EXPECT_EQ(Rational(-7, 2).floor(), -4);
  EXPECT_TRUE(Rational(-1, 2) < Rational(1, 3));
  EXPECT_TRUE(Rational(INT64_MAX, 3) < Rational(INT64_MAX, 2));
  EXPECT_THROW(Rational(1, 0), ArithError);
  EXPECT_THROW(Rational(1) / Rational(0), ArithError);
  EXPECT_THROW(Rational(INT64_MAX, 2) + Rational(INT64_MAX, 3), ArithError);
  EXPECT_EQ(gcd64(INT64_MIN, 6), 2);
  EXPECT_THROW(gcd64(INT64_MIN, 0), ArithError);
  EXPECT_THROW(lcm64(INT64_MAX, INT64_MAX - 1), ArithError);
  EXPECT_EQ(checked_pow(-3, 3), -27);
  EXPECT_EQ(checked_pow(0, 0), 1);
}

TEST_F(Eval, SubstitutionRebuildsCanonically) {
  Nat t = floordiv(x * m + y, m);
  EXPECT_EQ(t, x + floordiv(y, m));
  // y := j (in [0, m)) makes y/m vanish.
  EXPECT_EQ(substitute(t, {{"y", j}}), x);
  EXPECT_EQ(substitute(i * m + j, {{"i", Nat(2)}, {"j", Nat(3)}, {"m", Nat(10)}}), Nat(23));
  EXPECT_EQ(substitute(x + y, {{"x", y}}), 2 * y);
  EXPECT_EQ(substitute(x + y, {{"x", y}, {"y", x}}), x + y);  // simultaneous
  EXPECT_EQ(substitute(select(lt(x, y), x, y), {{"x", Nat(1)}, {"y", Nat(2)}}), Nat(1));
  EXPECT_EQ(substitute(min(x, y), {{"y", x + 1}}), x);
  EXPECT_EQ(substitute(pow(Nat(2), n), {{"n", Nat(5)}}), Nat(32));
  EXPECT_EQ(substitute(lt(x, y), {{"x", Nat(1)}, {"y", Nat(2)}}), Cond::truth(true));
  EXPECT_EQ(substitute(x, {{"z", y}}), x);
}

TEST_F(Eval, SubstitutionRewritesRanges) {
  // i in [0, n); n := m + 1 gives i in [0, m + 1), so i/(m+1) is 0.
  Nat t = floordiv(i, n);
  EXPECT_EQ(t, Nat(0));
  Nat u = floordiv(i + x, n);
  Nat v = substitute(u, {{"n", m + 1}, {"x", Nat(0)}});
  EXPECT_EQ(v, Nat(0));
  Nat w = substitute(i, {{"n", m + 1}});
  ASSERT_TRUE(w.node().hi.has_value());
  EXPECT_EQ(*w.node().hi, m + 1);
  // substitute_fn sees every variable.
  int seen = 0;
  substitute_fn(i * m + j, [&](const Nat&) -> std::optional<Nat> {
    ++seen;
    return std::nullopt;
  });
  EXPECT_GE(seen, 3);
}

}  // namespace
}  // namespace risec::arith
