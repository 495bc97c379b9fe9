// Tests of the pipeline rules (elevate/rules_pipeline.cpp): zipMapFusion fires on a
// zip with a map on either side or both (the result is well typed and computes the
// same on random inputs) and fails on a zip of two plain arrays (zip2D's two levels:
// tests/e2e/pipeline_stages_test.cpp, on sharpen and random pipelines); parallelStages after
// lowerToC makes every stage parallel and nothing inside a loop, and fails before lowering;
// its threshold counts operations (iterateWhile's bounded steps, gathered elements as
// memory reads); parallelOutput and globalOutput find the map writing the result inside
// the prelude's definitions;
// zipJoin on generated zips of joined arrays (either side, both, rows of any length,
// plain or computed rows: an upsampling's pairs) computes the same, and with
// joinBeforeMapF, mapFusion and zipMapFusion leaves one loop nest where the joined rows
// were computed by a map.
#include <random>

#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

int pipeline_count(const rise::Expr& e, const std::string& text) {
  const std::string s = rise::print_expr(e);
  int n = 0;
  for (size_t i = s.find(text); i != std::string::npos; i = s.find(text, i + 1)) ++n;
  return n;
}

const rise::SizeMap pipeline_n8 = {{"n", 8}};

TEST(ZipMapFusion, FusesAMapOnEitherSideOrBoth) {
  for (const char* zip :
       {"zip(x)(y |> map(fun(b => exp(b))))", "zip(x |> map(fun(a => a * 2.0f)))(y)",
        "zip(x |> map(fun(a => a * 2.0f)))(y |> map(fun(b => exp(b))))"}) {
    SCOPED_TRACE(zip);
    rise::Expr p =
        prog(std::string("def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>\n  ") + zip +
                 " |> map(fun(p => p._1 - p._2)))))\n",
             pipeline_n8);
    rise::Expr r = check_rewrite(top_down(lib("zipMapFusion")), p);
    EXPECT_EQ(pipeline_count(r, "zip(x)(y)"), 1) << rise::print_expr(r);
    EXPECT_EQ(pipeline_count(r, "map("), 1) << rise::print_expr(r);  // one loop left
  }
  rise::Expr plain = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => p._1 - p._2)))))
)",
                          pipeline_n8);
  check_fails(top_down(lib("zipMapFusion")), plain);
}

TEST(ParallelStages, EveryStageAndNothingInsideALoop) {
  // Two stages: a row pass the lowering stores (it is read through transpose), then
  // a column pass writing the result. Each row's inner loop stays sequential.
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  img |> map(map(fun(v => v * 2.0f))) |> transpose |> map(map(fun(v => v + 1.0f)))))
)",
                      {{"n", 256}, {"m", 128}});
  check_fails(lib("parallelStages"), p, "the program is not lowered (apply lowerToC first)");
  rise::Expr lowered = apply_ok(lib("lowerToC"), p);
  rise::Expr r = check_rewrite(lib("parallelStages"), lowered);
  EXPECT_EQ(pipeline_count(r, "mapPar"), 2) << rise::print_expr(r);
  EXPECT_EQ(pipeline_count(r, "mapSeq"), 2) << rise::print_expr(r);
  // Twice: nothing left to do, and the message says why (held-out F8); parallelOutput
  // after lowering says the program is lowered.
  check_fails(lib("parallelStages"), r, "the outer loops are parallel already");
  check_fails(lib("parallelOutput"), lowered, "the program is lowered already");
  // A stage doing fewer than 32768 operations stays sequential: nothing to do.
  rise::Expr small = apply_ok(lib("lowerToC"), prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
)",
                                                    pipeline_n8));
  check_fails(lib("parallelStages"), small, "fewer than 32768 operations");
}

// The threshold counts work, not elements (held-out E, F8: a chain of 200 cheap
// stages of 2048 elements, each made parallel, ran several times slower than
// sequential code): the two one-operation stages above at 64 x 32 (2048 operations
// each) stay sequential, while a stage of 1024 elements that each sum 16 products
// (32 operations an element) is parallel, and one summing 4 products is not; likewise
// parallelOutput(w) before lowering.
TEST(ParallelStages, TheThresholdCountsOperationsNotElements) {
  rise::Expr cheap = apply_ok(lib("lowerToC"), prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  img |> map(map(fun(v => v * 2.0f))) |> transpose |> map(map(fun(v => v + 1.0f)))))
)",
                                                    {{"n", 64}, {"m", 32}}));
  check_fails(lib("parallelStages"), cheap, "every stage does fewer than 32768 operations (2");
  const char* dots = R"(
def f = depFun((n: Nat, k: Nat) => fun(a: n.k.f32 => fun(w: k.f32 =>
  a |> map(fun(row => zip(row)(w) |> map(fun(p => p._1 * p._2))
                     |> reduce(fun(x, y => x + y))(0.0f))))))
)";
  rise::Expr costly = apply_ok(lib("lowerToC"), prog(dots, {{"n", 1024}, {"k", 16}}));
  rise::Expr r = check_rewrite(lib("parallelStages"), costly);
  EXPECT_EQ(pipeline_count(r, "mapPar"), 1) << rise::print_expr(r);
  rise::Expr fewer = apply_ok(lib("lowerToC"), prog(dots, {{"n", 1024}, {"k", 4}}));
  check_fails(lib("parallelStages"), fewer, "fewer than 32768 operations");
  // parallelStages(w) sets the threshold: 0 makes every stage parallel.
  EXPECT_EQ(pipeline_count(check_rewrite(lib("parallelStages", {int64_t{0}}), fewer), "mapPar"), 1);
  // parallelOutput(w), before lowering, counts the same way; bare, it makes every map
  // writing the result or a stored stage parallel.
  const char* lets = R"(
def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  let a = img |> map(map(fun(v => v * 2.0f))) in a |> map(map(fun(v => v + 1.0f)))))
)";
  rise::Expr small_lets = prog(lets, {{"n", 64}, {"m", 32}});
  check_fails(lib("parallelOutput", {int64_t{32768}}), small_lets,
              "does fewer than 32768 operations (2 map(s))");
  EXPECT_EQ(pipeline_count(check_rewrite(lib("parallelOutput"), small_lets), "mapPar"), 2);
  rise::Expr big_lets = prog(lets, {{"n", 256}, {"m", 128}});
  EXPECT_EQ(
      pipeline_count(check_rewrite(lib("parallelOutput", {int64_t{32768}}), big_lets), "mapPar"),
      2);
}

// Held-out F: iterateWhile(k) counted as large whatever k, so a map of two elements
// was parallel. It counts k steps of its condition and its step function (here 1 + 2
// operations): 2 elements x 4 steps stay sequential, 4096 x 4 x 3 = 49152 do not.
TEST(ParallelStages, IterateWhileCountsItsBoundedSteps) {
  const char* whiles = R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(c => c |> iterateWhile(4)(fun(z => z < 100.0f))(fun(z => z * 2.0f + 1.0f))))))
)";
  check_fails(lib("parallelStages"), apply_ok(lib("lowerToC"), prog(whiles, {{"n", 2}})),
              "fewer than 32768 operations");
  rise::Expr big =
      check_rewrite(lib("parallelStages"), apply_ok(lib("lowerToC"), prog(whiles, {{"n", 4096}})));
  EXPECT_EQ(pipeline_count(big, "mapPar"), 1) << rise::print_expr(big);
}

// Held-out F: a map over gathered elements was counted by its arithmetic alone (two
// operations an element), so 16000 reads at data-dependent places, cache misses in a
// large array, stayed sequential. A gathered element counts 8: 16000 x (8 + 2) is
// parallel, 1000 x 10 is not.
TEST(ParallelStages, GatheredElementsCountAsMemoryReads) {
  const char* gathers = R"(
def g = depFun((n: Nat, k: Nat) => fun(x: k.f32 => fun(is: n.idx[k] =>
  x |> gather(is) |> map(fun(v => v * 2.0f + 1.0f)))))
)";
  check_fails(lib("parallelStages"),
              apply_ok(lib("lowerToC"), prog(gathers, {{"n", 1000}, {"k", 64}})),
              "fewer than 32768 operations");
  rise::Expr big = check_rewrite(
      lib("parallelStages"), apply_ok(lib("lowerToC"), prog(gathers, {{"n", 16000}, {"k", 64}})));
  EXPECT_EQ(pipeline_count(big, "mapPar"), 1) << rise::print_expr(big);
}

// Held-out F: parallelOutput and globalOutput found no map in the tutorial's blur,
// written with the prelude's map2D and slide2D (inlined as lambdas applied to their
// arguments), unless simplify or DFNF ran first. They now find the pixel map (and,
// with dims 2, its rows and columns); the result computes the same.
TEST(ParallelStages, OutputMapsAreFoundThroughThePreludesDefinitions) {
  const char* blur = R"(
def blur = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  img |> padClamp2D(1)(1) |> slide2D(3)(1)
    |> map2D(fun(nbh => (nbh |> join |> reduce(add)(0.0f)) / 9.0f))))
)";
  const rise::Expr p = prog(blur, {{"n", 6}, {"m", 5}});
  EXPECT_EQ(pipeline_count(check_rewrite(lib("parallelOutput"), p), "mapPar"), 1);
  EXPECT_EQ(pipeline_count(check_rewrite(lib("globalOutput", {int64_t{1}}), p), "mapGlobal"), 1);
  EXPECT_EQ(pipeline_count(check_rewrite(lib("globalOutput", {int64_t{2}}), p), "mapGlobal"), 2);
  // a let's stage written with map2D too
  const rise::Expr two = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>
  let a = img |> map2D(fun(v => v * 2.0f)) |> toMem in a |> map2D(fun(v => v + 1.0f))))
)",
                              {{"n", 4}, {"m", 3}});
  EXPECT_EQ(pipeline_count(check_rewrite(lib("parallelOutput"), two), "mapPar"), 2);
}

// A generated program zipping a joined array of n rows of k elements with a plain
// array of k * n elements (or with another joined array), then subtracting pairwise.
// The rows are an input, a map over an input's rows, or computed from windows of two
// elements of x (k values interpolated between them: an upsampling by k, clamped).
struct ZipJoinCase {
  std::string text;
  bool computed;  // the joined rows are computed by a map
  bool both;      // both sides joined (rows of the same length: no split)
};

ZipJoinCase zip_join_case(std::mt19937& rng, int k) {
  const int rows = static_cast<int>(rng() % 3);
  std::string b;
  if (rows == 0) b = "y";
  if (rows == 1) b = "y |> map(fun(r => r |> map(fun(v => v * 3.0f))))";
  if (rows == 2) {
    b = "x |> padClamp(0)(1) |> slide(2)(1) |> map(fun(w => [";
    for (int i = 0; i < k; ++i) {
      const std::string t = std::to_string(static_cast<double>(i) / k) + "f";
      b += (i ? ", " : "") + std::string("w[0] + (w[1] - w[0]) * ") + t;
    }
    b += "]))";
  }
  const std::string joined = "join(" + b + ")";
  std::string zip;
  const int form = static_cast<int>(rng() % 3);
  if (form == 0) zip = "zip(a)(" + joined + ")";
  if (form == 1) zip = "zip(" + joined + ")(a)";
  if (form == 2) zip = "zip(" + joined + ")(join(y))";
  const std::string K = std::to_string(k);
  return {"def f = depFun(n: Nat => fun(a: (" + K + "*n).f32 => fun(x: n.f32 => fun(y: n." + K +
              ".f32 =>\n  " + zip + " |> map(fun(p => p._1 - p._2 * 0.5f))))))\n",
          rows != 0, form == 2};
}

TEST(ZipJoin, GeneratedZipsOfJoinedRowsComputeTheSame) {
  std::mt19937 rng(34);
  // The stages decision's fusion (driver/schedule_pipeline.cpp): the zips of joins
  // opened, the consumer moved inside the join, then fused.
  const Strategy fuse = seq(normalize(lchoice(lib("zipJoin"), lib("joinBeforeMapF"))),
                            normalize(lchoice(lib("zipMapFusion"), lib("mapFusion"))));
  for (int trial = 0; trial < 40; ++trial) {
    const int k = 1 + static_cast<int>(rng() % 4);
    const int n = 1 + static_cast<int>(rng() % 5);
    ZipJoinCase c = zip_join_case(rng, k);
    SCOPED_TRACE(c.text + " n=" + std::to_string(n));
    rise::Expr p = prog(c.text, {{"n", n}});
    rise::Expr r = check_rewrite(top_down(lib("zipJoin")), p);
    EXPECT_EQ(pipeline_count(r, "split("), c.both ? 0 : 1) << rise::print_expr(r);
    // The consumer moved inside the join and fused with the rows' map: one loop nest.
    rise::Expr fused = apply_ok(fuse, p);
    EXPECT_TRUE(well_typed(fused));
    EXPECT_TRUE(same_semantics(p, fused));
    if (c.computed) {
      const std::string nests = loops(fused);
      EXPECT_FALSE(nests.empty());
      EXPECT_EQ(nests.find(' '), std::string::npos) << nests;
    }
  }
}

TEST(ZipJoin, RowsOfDifferentLengthsAndPlainZipsRefused) {
  // Rows of 2 against rows of 4: the first form, the other side split.
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(u: (2*n).2.f32 => fun(v: n.4.f32 =>
  zip(join(u))(join(v)) |> map(fun(p => p._1 - p._2)))))
)",
                      {{"n", 3}});
  rise::Expr r = check_rewrite(top_down(lib("zipJoin")), p);
  EXPECT_EQ(pipeline_count(r, "split("), 1) << rise::print_expr(r);
  rise::Expr plain = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => p._1 - p._2)))))
)",
                          pipeline_n8);
  check_fails(top_down(lib("zipJoin")), plain);
}

}  // namespace
}  // namespace risec::elevate::testing
