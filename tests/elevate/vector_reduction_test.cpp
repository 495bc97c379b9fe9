// Tests of vectorizeReduction(n), vectorizeReduction2(n) and vectorizeReduction4(n):
// reductions of add, mul, fmax and fmin into one, two or four vector accumulators (their
// lanes combined as a tree), on many random reductions
// (vector_reduction_gen.h) compared with the original in the interpreter (exactly for
// fmax and fmin, NaN elements included; within a tolerance for add and mul, which are
// reassociated), with a scalar remainder where the vectors do not divide the length,
// and the refusals, each naming its reason.
#include <random>

#include "elevate/rule_util.h"
#include "rewrite_test_util.h"
#include "vector_reduction_gen.h"

namespace risec::elevate {
namespace {

using rise::PrimId;
using testing::apply_ok;
using testing::fails_with;
using testing::same_semantics;
using testing::typed;
using testing::well_typed;

Strategy reduction_S(const std::string& name, const std::vector<Arg>& args = {}) {
  return make_strategy(name, args);
}
Strategy at_reduce(const Strategy& s) {
  return reduction_S("outermost", {reduction_S("isFullyApplied", {reduction_S("isReduce")}), s});
}
Strategy rule_of(const std::string& name, int64_t width) {
  return reduction_S(name, {Arg(width)});
}

int reduction_count(const Expr& e, PrimId id) {
  int n = e->kind == rise::ExprKind::Primitive && e->prim && e->prim->is(id) ? 1 : 0;
  for (const Expr& k : children(e)) n += reduction_count(k, id);
  return n;
}

bool pick_plain(std::mt19937& rng) {
  return rng() % 2 == 0;
}

TEST(VectorizeReduction, ManyRandomReductionsComputeWhatTheyDid) {
  std::mt19937 rng(20261128);
  int rewritten = 0, refused = 0, remainders = 0;
  for (int i = 0; i < 300; ++i) {
    reduction_gen::ReductionCase c = reduction_gen::random_reduction(rng);
    SCOPED_TRACE(c.describe);
    rise::Checked p = typed(c.program);
    const bool divides = c.len % c.vectors == 0;
    // the plain rule: the vectors must divide the length
    if (!divides) {
      EXPECT_TRUE(fails_with(at_reduce(rule_of(c.rule, c.width)), p.expr, "is not divisible by"));
    }
    const std::string rule = divides && pick_plain(rng) ? c.rule : c.rule + "Remainder";
    Strategy s = at_reduce(rule_of(rule, c.width));
    if (c.len < c.vectors) {
      EXPECT_TRUE(fails_with(s, p.expr, "there is nothing to vectorise"));
      ++refused;
      continue;
    }
    Expr out = apply_ok(s, p.expr);
    EXPECT_TRUE(well_typed(out));
    if (c.exact)
      EXPECT_TRUE(same_semantics(p.expr, out, 0, 0));
    else
      EXPECT_TRUE(same_semantics(p.expr, out, 1e-4, 1e-5));
    EXPECT_GE(reduction_count(out, PrimId::AsVector), 1) << rise::print_expr(out);
    EXPECT_EQ(reduction_count(out, PrimId::Drop), divides ? 0 : 1) << rise::print_expr(out);
    remainders += !divides;
    // normalize ends: nothing the rule applies to is left (the lanes combined as a tree)
    Result again = reduction_S("normalize", {Arg(rule_of(rule, c.width))})(p.expr);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(rise::alpha_equal(again.expr(), out)) << rise::print_expr(again.expr());
    ++rewritten;
  }
  // the generator reaches every outcome
  EXPECT_GT(rewritten, 100);
  EXPECT_GT(refused, 0);
  EXPECT_GT(remainders, 50);
}

// The softmax: the max and the sum of each row on vectors.
TEST(VectorizeReduction, SoftmaxBothReductions) {
  rise::Checked p = typed(
      "def softmax = fun(x: 4.64.f32 => x |> map(fun(row =>\n"
      "  let mx = row |> reduce(fmax)(-inff) in\n"
      "  let e = row |> map(fun(v => exp(v - mx))) in\n"
      "  let s = e |> reduce(add)(0.0f) in\n"
      "  e |> map(fun(v => v / s)))))");
  Expr out = apply_ok(
      reduction_S("normalize", {reduction_S("vectorizeReduction", {Arg(int64_t{16})})}), p.expr);
  EXPECT_TRUE(well_typed(out));
  EXPECT_TRUE(same_semantics(p.expr, out));
  EXPECT_EQ(reduction_count(out, PrimId::AsVector), 2) << rise::print_expr(out);
  // each reduction's 16 lanes read once, combined as a tree: no asScalar array of lanes
  EXPECT_EQ(reduction_count(out, PrimId::Lane), 32) << rise::print_expr(out);
  EXPECT_EQ(reduction_count(out, PrimId::AsScalar), 0) << rise::print_expr(out);
}

// fmax and fmin ignore NaN operands: the vector lanes give exactly the sequential
// result, with NaN elements (sqrt of negative numbers) in every lane.
TEST(VectorizeReduction, MaxAndMinAreExactWithNaNs) {
  for (const char* op : {"fmax", "fmin"})
    for (const char* rule : {"vectorizeReductionRemainder", "vectorizeReduction2Remainder",
                             "vectorizeReduction4Remainder"}) {
      SCOPED_TRACE(std::string(op) + " " + rule);
      rise::Checked p = typed(std::string("def f = fun(xs: 8.45.f32 => xs |> map(fun(r => r |> "
                                          "map(fun(v => sqrt(v - 0.5f))) |> reduce(") +
                              op + ")(" + (std::string(op) == "fmax" ? "-inff" : "inff") + "))))");
      Expr out = apply_ok(at_reduce(reduction_S(rule, {Arg(int64_t{4})})), p.expr);
      EXPECT_TRUE(same_semantics(p.expr, out, 0, 0, 5));
    }
}

// A length the vectors do not divide: refused, or with the Remainder rules the last
// elements by a scalar loop continuing from the vectors' result; a symbolic length
// is a precondition, or with them none.
TEST(VectorizeReduction, RemainderForAnyLength) {
  rise::Checked p = typed("def f = fun(xs: 30.f32 => xs |> reduce(fmax)(-inff))");
  EXPECT_TRUE(fails_with(at_reduce(reduction_S("vectorizeReduction2", {Arg(int64_t{4})})), p.expr,
                         "the length 30 is not divisible by 8"));
  Expr out =
      apply_ok(at_reduce(reduction_S("vectorizeReduction2Remainder", {Arg(int64_t{4})})), p.expr);
  std::string text = rise::print_expr(out);
  EXPECT_NE(text.find("take(24)"), std::string::npos) << text;
  EXPECT_NE(text.find("drop(24)"), std::string::npos) << text;
  EXPECT_TRUE(same_semantics(p.expr, out, 0, 0));
  rise::Checked q = typed("def f = depFun(n: Nat => fun(xs: n.f32 => xs |> reduce(add)(0.0f)))");
  Expr sym =
      apply_ok(at_reduce(reduction_S("vectorizeReductionRemainder", {Arg(int64_t{8})})), q.expr);
  rise::Checked again = rise::infer_expr(sym);
  EXPECT_TRUE(again.conditions.empty()) << again.conditions[0].describe();
  // the plain rule: a precondition, 8 divides n
  Expr pre = apply_ok(at_reduce(reduction_S("vectorizeReduction", {Arg(int64_t{8})})), q.expr);
  EXPECT_FALSE(rise::infer_expr(pre).conditions.empty());
  EXPECT_NE(rise::print_expr(sym).find("take(n - n%8)"), std::string::npos)
      << rise::print_expr(sym);
}

TEST(VectorizeReduction, RefusalsNameTheReason) {
  Strategy v8 = at_reduce(reduction_S("vectorizeReduction", {Arg(int64_t{8})}));
  EXPECT_TRUE(fails_with(
      v8, typed("def f = fun(xs: 32.f32 => xs |> reduce(fun(a, b => a - b))(0.0f))").expr,
      "the operator must be add, mul, fmax or fmin"));
  EXPECT_TRUE(fails_with(at_reduce(reduction_S("vectorizeReductionRemainder", {Arg(int64_t{8})})),
                         typed("def f = fun(xs: 5.f32 => xs |> reduce(add)(0.0f))").expr,
                         "shorter than 8 lanes"));
  EXPECT_TRUE(fails_with(at_reduce(reduction_S("vectorizeReduction2Remainder", {Arg(int64_t{8})})),
                         typed("def f = fun(xs: 12.f32 => xs |> reduce(add)(0.0f))").expr,
                         "shorter than 2 x 8 lanes"));
  EXPECT_TRUE(fails_with(v8,
                         typed("def f = fun(xs: 32.32.f32 => xs |> reduce(fun(a, b => "
                               "zip(a)(b) |> map(fun(p => p._1 + p._2))))(generate(fun(i "
                               "=> 0.0f))))")
                             .expr,
                         "must be add, mul, fmax or fmin"));
  // an array viewed from vectors already
  EXPECT_TRUE(fails_with(v8,
                         typed("def f = fun(xs: 8.vec[f32, 8] => xs |> asScalar |> "
                               "reduce(add)(0.0f))")
                             .expr,
                         "asScalar"));
  EXPECT_TRUE(fails_with(at_reduce(reduction_S("vectorizeReduction4Remainder", {Arg(int64_t{8})})),
                         typed("def f = fun(xs: 31.f32 => xs |> reduce(add)(0.0f))").expr,
                         "shorter than 4 x 8 lanes"));
  EXPECT_TRUE(fails_with(at_reduce(reduction_S("vectorizeReduction", {Arg(int64_t{0})})),
                         typed("def f = fun(xs: 64.f32 => xs |> reduce(add)(0.0f))").expr,
                         "positive"));
}

}  // namespace
}  // namespace risec::elevate
