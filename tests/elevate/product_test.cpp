// Tests of isProductNest and productEpilogueFission (rules_product.cpp): for seeded
// random dense layers (a bias added before or after the product or none, a relu or
// none, the column map over the weights or over a zip with the bias), the fission
// leaves a product (isProductNest holds on it, not on the layer) and an elementwise
// map, well typed and computing what the layer computes; it refuses a bare product
// and a nest that is not a product.
#include <random>

#include "rewrite_test_util.h"

namespace risec::elevate {
namespace {

using testing::apply_ok;
using testing::fails_with;
using testing::same_semantics;
using testing::typed;
using testing::well_typed;

std::string layer_text(bool bias, bool bias_first, bool relu) {
  const std::string colv = bias ? "c._1" : "c";
  const std::string dot =
      "(zip(r)(" + colv + ") |> map(fun(t => t._1 * t._2)) |> reduce(add)(0.0f))";
  std::string e = dot;
  if (bias) e = bias_first ? "(c._2 + " + dot + ")" : "(" + dot + " + c._2)";
  if (relu) e = "fmax(" + e + ")(0.0f)";
  const std::string cols = bias ? "zip(transpose(w))(b)" : "transpose(w)";
  return "def layer = depFun((n: Nat, k: Nat, m: Nat) =>\n  fun(x: n.k.f32 => fun(w: k.m.f32 => "
         "fun(b: m.f32 =>\n    x |> map(fun(r => " +
         cols + " |> map(fun(c => " + e + "))))))))\n";
}

TEST(Product, EpilogueFissionLeavesAProductAndComputesTheSame) {
  const Strategy fission = make_strategy("productEpilogueFission", {});
  const Strategy is_product = make_strategy("isProductNest", {});
  const Strategy prep = make_strategy("DFNF", {});
  std::mt19937_64 rng(7);
  int fissioned = 0;
  for (int i = 0; i < 12; ++i) {
    const bool bias = i % 3 != 0, relu = i % 2 == 0, bias_first = rng() % 2;
    const int64_t n = 1 + rng() % 4, k = 1 + rng() % 5, m = 1 + rng() % 6;
    SCOPED_TRACE(layer_text(bias, bias_first, relu));
    const Expr e = apply_ok(
        prep, typed(layer_text(bias, bias_first, relu), {{"n", n}, {"k", k}, {"m", m}}).expr);
    // The layer's map nest, under the three parameters' lambdas.
    const Strategy at_nest = make_strategy(
        "outermost", {make_strategy("mapNest", {int64_t{2}}), make_strategy("id", {})});
    ASSERT_TRUE(at_nest(e).ok());
    const Strategy fission_at =
        make_strategy("outermost", {make_strategy("mapNest", {int64_t{2}}), fission});
    if (!bias && !relu) {
      EXPECT_TRUE(fails_with(fission_at, e, "no epilogue"));
      continue;
    }
    const Strategy product_at = make_strategy("topDown", {is_product});
    EXPECT_FALSE(product_at(e).ok()) << "the layer with its epilogue is not a bare product";
    const Expr out = apply_ok(fission_at, e);
    EXPECT_TRUE(well_typed(out));
    EXPECT_TRUE(same_semantics(e, out));
    EXPECT_TRUE(product_at(out).ok()) << rise::print_expr(out);
    ++fissioned;
  }
  EXPECT_GT(fissioned, 4);
}

TEST(Product, NotAProductIsRefused) {
  const Strategy fission = make_strategy("productEpilogueFission", {});
  // Both operands read the row: no column of a second operand.
  const Expr e = typed(
                     "def f = depFun((n: Nat, m: Nat, p: Nat) => fun(x: n.m.f32 => fun(y: p.f32 "
                     "=> x |> map(fun(r => y |> map(fun(c => (zip(r)(r) |> map(fun(t => t._1 * "
                     "t._2)) |> reduce(add)(0.0f)) + c)))))))\n",
                     {{"n", 3}, {"m", 4}, {"p", 2}})
                     .expr;
  const Strategy at = make_strategy("outermost", {make_strategy("mapNest", {int64_t{2}}), fission});
  EXPECT_TRUE(fails_with(at, e, "not a product"));
}

}  // namespace
}  // namespace risec::elevate
