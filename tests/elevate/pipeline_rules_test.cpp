// Tests of the pipeline rules (elevate/rules_pipeline.cpp): zipMapFusion fires on a
// zip with a map on either side or both (the result is well typed and computes the
// same on random inputs) and fails on a zip of two plain arrays (zip2D's two levels:
// tests/e2e/pipeline_stages_test.cpp, on sharpen and random pipelines); parallelStages after
// lowerToC makes every stage parallel and nothing inside a loop, and fails before lowering.
#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

int count(const rise::Expr& e, const std::string& text) {
  const std::string s = rise::print_expr(e);
  int n = 0;
  for (size_t i = s.find(text); i != std::string::npos; i = s.find(text, i + 1)) ++n;
  return n;
}

const rise::SizeMap n8 = {{"n", 8}};

TEST(ZipMapFusion, FusesAMapOnEitherSideOrBoth) {
  for (const char* zip :
       {"zip(x)(y |> map(fun(b => exp(b))))", "zip(x |> map(fun(a => a * 2.0f)))(y)",
        "zip(x |> map(fun(a => a * 2.0f)))(y |> map(fun(b => exp(b))))"}) {
    SCOPED_TRACE(zip);
    rise::Expr p =
        prog(std::string("def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>\n  ") + zip +
                 " |> map(fun(p => p._1 - p._2)))))\n",
             n8);
    rise::Expr r = check_rewrite(top_down(lib("zipMapFusion")), p);
    EXPECT_EQ(count(r, "zip(x)(y)"), 1) << rise::print_expr(r);
    EXPECT_EQ(count(r, "map("), 1) << rise::print_expr(r);  // one loop left
  }
  rise::Expr plain = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => p._1 - p._2)))))
)",
                          n8);
  check_fails(top_down(lib("zipMapFusion")), plain);
}

TEST(ParallelStages, EveryStageAndNothingInsideALoop) {
  // Two stages: a row pass the lowering stores (it is read through transpose), then
  // a column pass writing the result. Each row's inner loop stays sequential.
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  img |> map(map(fun(v => v * 2.0f))) |> transpose |> map(map(fun(v => v + 1.0f)))))
)",
                      {{"n", 64}, {"m", 32}});
  check_fails(lib("parallelStages"), p, "lowerToC");
  rise::Expr lowered = apply_ok(lib("lowerToC"), p);
  rise::Expr r = check_rewrite(lib("parallelStages"), lowered);
  EXPECT_EQ(count(r, "mapPar"), 2) << rise::print_expr(r);
  EXPECT_EQ(count(r, "mapSeq"), 2) << rise::print_expr(r);
  // A stage under 1024 elements stays sequential: nothing to do.
  rise::Expr small = apply_ok(lib("lowerToC"), prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
)",
                                                    n8));
  check_fails(lib("parallelStages"), small);
}

}  // namespace
}  // namespace risec::elevate::testing
