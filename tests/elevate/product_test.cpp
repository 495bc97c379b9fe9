// Tests of isProductNest, isLayerNest, productEpilogueFission and
// productEpilogueFusion (rules_product.cpp): for seeded random dense layers (a bias
// added before or after the product or none, a relu or none, the column map over the
// weights or over a zip with the bias), the fission leaves a product (isProductNest
// holds on it, not on the layer) and an elementwise map, well typed and computing what
// the layer computes; it refuses a bare product and a nest that is not a product. An
// elementwise map written after such a layer (an activation, an affine map) fuses into
// it: one layer nest (isLayerNest), well typed, computing the same; a map over
// anything but a product is refused.
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

TEST(Product, EpilogueFusionMakesOneLayerAndComputesTheSame) {
  const Strategy fusion = make_strategy("productEpilogueFusion", {});
  const Strategy is_layer = make_strategy("isLayerNest", {});
  const Strategy prep = make_strategy("DFNF", {});
  const Strategy fuse_at = make_strategy("normalize", {fusion});
  const Strategy layer_at = make_strategy("topDown", {is_layer});
  const std::vector<std::string> after = {"fmax(v)(0.0f)", "v * 2.0f + 1.0f", "fmin(v)(6.0f)"};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 12; ++i) {
    const bool bias = i % 3 != 0, relu = i % 2 == 0, bias_first = rng() % 2;
    const int64_t n = 1 + rng() % 4, k = 1 + rng() % 5, m = 1 + rng() % 6;
    // The layer's text with a map over its result appended to its body.
    std::string text = layer_text(bias, bias_first, relu);
    const size_t end = text.rfind("))))))))");
    ASSERT_NE(end, std::string::npos);
    const std::string g = after[static_cast<size_t>(i) % after.size()];
    text = text.substr(0, end + 4) + " |> map(map(fun(v => " + g + ")))" + text.substr(end + 4);
    SCOPED_TRACE(text);
    const Expr e = apply_ok(prep, typed(text, {{"n", n}, {"k", k}, {"m", m}}).expr);
    const Expr out = apply_ok(fuse_at, e);
    EXPECT_TRUE(well_typed(out));
    EXPECT_TRUE(same_semantics(e, out));
    EXPECT_TRUE(layer_at(out).ok()) << rise::print_expr(out);
    // One map nest over the rows is left: the map after the layer is gone.
    const Strategy again = make_strategy("topDown", {fusion});
    EXPECT_FALSE(again(out).ok()) << rise::print_expr(out);
    // The layer with its map fused is a product with an epilogue, not a bare one.
    EXPECT_FALSE(make_strategy("topDown", {make_strategy("isProductNest", {})})(out).ok());
  }
  // A map over data that is not a product is refused.
  const Expr plain = typed(
                         "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> map(fun(r => "
                         "r |> map(fun(c => c + 1.0f)))) |> map(map(fun(v => v * 2.0f)))))\n",
                         {{"n", 3}, {"m", 4}})
                         .expr;
  EXPECT_FALSE(make_strategy("topDown", {fusion})(plain).ok());
  EXPECT_FALSE(layer_at(plain).ok());
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
