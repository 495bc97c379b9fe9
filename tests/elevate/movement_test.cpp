// Tests of the movement rules: each fires on the composition it names (written
// directly and, for some, after DFNF) with a well-typed result that computes the
// same, and fails where the composition is not there.
#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

// A 2-D input x: n.m.f32 and the body `body` (a 2-D program).
rise::Expr movement_two_d(const std::string& body,
                          const rise::SizeMap& sizes = {{"n", 4}, {"m", 6}}) {
  return prog("def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => " + body + "))", sizes);
}

rise::Expr movement_one_d(const std::string& type, const std::string& body, int64_t n = 8) {
  return prog("def f = depFun(n: Nat => fun(x: " + type + " => " + body + "))", {{"n", n}});
}

// The first location (top down) where the rule applies, with DFNF first.
Strategy in_dfnf(const std::string& rule) {
  return seq(lib("DFNF"), top_down(lib(rule)));
}

// ---------------------------------------------------------------- transpose

TEST(MapMapFBeforeTranspose, MovesTheNestAfterTheTranspose) {
  rise::Expr p = movement_two_d("x |> map(map(fun(a => a * 2.0f))) |> transpose");
  rise::Expr r = check_rewrite(top_down(lib("mapMapFBeforeTranspose")), p);
  EXPECT_TRUE(top_down(lib("transposeBeforeMapMapF"))(r).ok());
  check_rewrite(in_dfnf("mapMapFBeforeTranspose"), p);
}

TEST(MapMapFBeforeTranspose, FailsWithoutANestOfMaps) {
  check_fails(top_down(lib("mapMapFBeforeTranspose")),
              movement_two_d("x |> map(fun(r => r)) |> transpose"));
  check_fails(body(lib("mapMapFBeforeTranspose")), movement_two_d("x |> transpose"), "transpose");
}

TEST(TransposeBeforeMapMapF, MovesTheNestBeforeTheTranspose) {
  rise::Expr p = movement_two_d("x |> transpose |> map(map(fun(a => a * 2.0f)))");
  check_rewrite(top_down(lib("transposeBeforeMapMapF")), p);
  check_rewrite(in_dfnf("transposeBeforeMapMapF"), p);
}

TEST(TransposeBeforeMapMapF, FailsWithoutATranspose) {
  check_fails(top_down(lib("transposeBeforeMapMapF")),
              movement_two_d("x |> map(map(fun(a => a * 2.0f)))"));
}

// ---------------------------------------------------------------- slide / split

TEST(SlideBeforeMapMapF, MovesTheInnerMapBeforeASlide) {
  rise::Expr p = movement_one_d("(n+2).f32", "x |> slide(3)(1) |> map(map(fun(a => a * 2.0f)))");
  check_rewrite(top_down(lib("slideBeforeMapMapF")), p);
  check_rewrite(in_dfnf("slideBeforeMapMapF"), p);
}

TEST(SlideBeforeMapMapF, MovesTheInnerMapBeforeASplit) {
  rise::Expr p = movement_one_d("n.f32", "x |> split(4) |> map(map(fun(a => a * 2.0f)))");
  check_rewrite(top_down(lib("slideBeforeMapMapF")), p);
}

TEST(SlideBeforeMapMapF, FailsWithoutASlideOrSplit) {
  check_fails(top_down(lib("slideBeforeMapMapF")),
              movement_two_d("x |> transpose |> map(map(fun(a => a * 2.0f)))"));
}

TEST(SlideBeforeMap, MovesTheSlideBeforeTheMap) {
  rise::Expr p = movement_one_d("(n+2).f32", "x |> map(fun(a => a * 2.0f)) |> slide(3)(1)");
  rise::Expr r = check_rewrite(top_down(lib("slideBeforeMap")), p);
  EXPECT_TRUE(top_down(lib("slideBeforeMapMapF"))(r).ok());
  check_rewrite(in_dfnf("slideBeforeMap"), p);
}

TEST(SlideBeforeMap, FailsWithoutAMap) {
  check_fails(top_down(lib("slideBeforeMap")), movement_one_d("(n+2).f32", "x |> slide(3)(1)"));
  check_fails(body(lib("slideBeforeMap")),
              movement_one_d("(n+2).f32", "x |> slide(3)(1) |> map(fun(w => w[0]))"), "slide");
}

TEST(SplitBeforeMap, MovesTheSplitBeforeTheMap) {
  rise::Expr p = movement_one_d("n.f32", "x |> map(fun(a => a * 2.0f)) |> split(4)");
  check_rewrite(top_down(lib("splitBeforeMap")), p);
  check_rewrite(in_dfnf("splitBeforeMap"), p);
}

TEST(SplitBeforeMap, FailsWithoutAMap) {
  check_fails(top_down(lib("splitBeforeMap")), movement_one_d("n.f32", "x |> split(4)"));
}

// ---------------------------------------------------------------- join

TEST(JoinBeforeMapF, MovesTheMapBeforeTheJoin) {
  rise::Expr p = movement_two_d("x |> join |> map(fun(a => a * 2.0f))");
  rise::Expr r = check_rewrite(top_down(lib("joinBeforeMapF")), p);
  EXPECT_TRUE(top_down(lib("mapMapFBeforeJoin"))(r).ok());
  check_rewrite(in_dfnf("joinBeforeMapF"), p);
}

TEST(JoinBeforeMapF, FailsWithoutAJoin) {
  check_fails(top_down(lib("joinBeforeMapF")),
              movement_one_d("n.f32", "x |> map(fun(a => a * 2.0f))"));
}

TEST(MapMapFBeforeJoin, MovesTheJoinBeforeTheMap) {
  rise::Expr p = movement_two_d("x |> map(map(fun(a => a * 2.0f))) |> join");
  check_rewrite(top_down(lib("mapMapFBeforeJoin")), p);
  check_rewrite(in_dfnf("mapMapFBeforeJoin"), p);
}

TEST(MapMapFBeforeJoin, FailsWithoutANestOfMaps) {
  check_fails(top_down(lib("mapMapFBeforeJoin")), movement_two_d("x |> join"));
  check_fails(top_down(lib("mapMapFBeforeJoin")),
              movement_two_d("x |> map(fun(r => take(2)(r))) |> join"));
}

// ---------------------------------------------------------------- drop / take

TEST(DropBeforeMap, MovesTheDropBeforeTheMap) {
  rise::Expr p = movement_one_d("(n+3).f32", "x |> map(fun(a => a * 2.0f)) |> drop(3)");
  check_rewrite(top_down(lib("dropBeforeMap")), p);
  check_rewrite(in_dfnf("dropBeforeMap"), p);
}

TEST(DropBeforeMap, FailsWithoutAMap) {
  check_fails(top_down(lib("dropBeforeMap")), movement_one_d("(n+3).f32", "x |> drop(3)"));
}

TEST(TakeBeforeMap, MovesTheTakeBeforeTheMap) {
  rise::Expr p = movement_one_d("(n+3).f32", "x |> map(fun(a => a * 2.0f)) |> take(n)");
  check_rewrite(top_down(lib("takeBeforeMap")), p);
  check_rewrite(in_dfnf("takeBeforeMap"), p);
}

TEST(TakeBeforeMap, FailsWithoutAMap) {
  check_fails(top_down(lib("takeBeforeMap")), movement_one_d("(n+3).f32", "x |> take(n)"));
  check_fails(top_down(lib("takeBeforeMap")),
              movement_one_d("(n+3).f32", "x |> map(fun(a => a * 2.0f)) |> drop(3)"));
}

// ---------------------------------------------------------------- slide and transpose

TEST(TransposeBeforeSlide, SlidesBeforeTransposing) {
  rise::Expr p = movement_two_d("x |> transpose |> slide(3)(1)", {{"n", 4}, {"m", 6}});
  check_rewrite(top_down(lib("transposeBeforeSlide")), p);
  rise::Expr q = movement_two_d("x |> transpose |> split(3)", {{"n", 4}, {"m", 6}});
  check_rewrite(top_down(lib("transposeBeforeSlide")), q);
  check_rewrite(in_dfnf("transposeBeforeSlide"), q);
}

TEST(TransposeBeforeSlide, FailsWithoutATranspose) {
  check_fails(top_down(lib("transposeBeforeSlide")), movement_two_d("x |> slide(3)(1)"));
}

TEST(MapSlideBeforeTranspose, TransposesBeforeSliding) {
  rise::Expr p = movement_two_d("x |> map(slide(3)(1)) |> transpose");
  check_rewrite(top_down(lib("mapSlideBeforeTranspose")), p);
  check_rewrite(in_dfnf("mapSlideBeforeTranspose"), p);
  check_rewrite(top_down(lib("mapSlideBeforeTranspose")),
                movement_two_d("x |> map(split(2)) |> transpose"));
}

TEST(MapSlideBeforeTranspose, FailsWithoutAMappedSlide) {
  check_fails(top_down(lib("mapSlideBeforeTranspose")),
              movement_two_d("x |> map(fun(r => r)) |> transpose"));
  check_fails(top_down(lib("mapSlideBeforeTranspose")),
              movement_two_d("x |> map(map(fun(a => a * 2.0f))) |> transpose"));
}

TEST(SlideBeforeMapTranspose, TransposesBeforeSliding) {
  rise::Expr p = movement_two_d("x |> slide(3)(1) |> map(transpose)");
  rise::Expr r = check_rewrite(top_down(lib("slideBeforeMapTranspose")), p);
  // The result is the left-hand side of mapSlideBeforeTranspose once the transposes
  // are read back: transpose(map(S)(transpose(x))).
  EXPECT_TRUE(top_down(lib("mapSlideBeforeTranspose"))(r).ok());
  check_rewrite(in_dfnf("slideBeforeMapTranspose"), p);
  check_rewrite(top_down(lib("slideBeforeMapTranspose")),
                movement_two_d("x |> split(2) |> map(transpose)"));
}

TEST(SlideBeforeMapTranspose, FailsWithoutASlideUnderTheTransposes) {
  check_fails(top_down(lib("slideBeforeMapTranspose")),
              movement_two_d("x |> split(2) |> map(fun(r => r))"));
  check_fails(top_down(lib("slideBeforeMapTranspose")),
              prog("def f = depFun((n: Nat, m: Nat) => fun(x: n.m.4.f32 => x |> map(transpose)))",
                   {{"n", 4}, {"m", 6}}));
}

TEST(MapPadBeforeTranspose, PadsRowsAfterTransposing) {
  rise::Expr p = movement_two_d("x |> map(padCst(2)(1)(0.5f)) |> transpose");
  check_rewrite(top_down(lib("mapPadBeforeTranspose")), p);
  check_rewrite(in_dfnf("mapPadBeforeTranspose"), p);
  check_rewrite(top_down(lib("mapPadBeforeTranspose")),
                movement_two_d("x |> map(padClamp(1)(2)) |> transpose"));
}

TEST(MapPadBeforeTranspose, FailsWithoutAMappedPadding) {
  check_fails(top_down(lib("mapPadBeforeTranspose")),
              movement_two_d("x |> map(slide(2)(1)) |> transpose"));
  check_fails(top_down(lib("mapPadBeforeTranspose")),
              movement_two_d("x |> padClamp(1)(1) |> transpose"));
}

TEST(PadClampBeforeMap, ClampsBeforeMapping) {
  rise::Expr p = movement_one_d("n.f32", "x |> map(fun(a => a * 2.0f + 1.0f)) |> padClamp(2)(1)");
  check_rewrite(top_down(lib("padClampBeforeMap")), p);
  check_rewrite(in_dfnf("padClampBeforeMap"), p);
  check_fails(top_down(lib("padClampBeforeMap")), movement_one_d("n.f32", "x |> padClamp(2)(1)"));
}

// ---------------------------------------------------------------- join and transpose

TEST(MapJoinBeforeTranspose, JoinsAfterTransposing) {
  rise::Expr p =
      prog("def f = depFun((n: Nat, m: Nat) => fun(x: n.m.3.f32 => x |> map(join) |> transpose))",
           {{"n", 4}, {"m", 5}});
  check_rewrite(top_down(lib("mapJoinBeforeTranspose")), p);
  check_rewrite(in_dfnf("mapJoinBeforeTranspose"), p);
}

TEST(MapJoinBeforeTranspose, FailsWithoutAMappedJoin) {
  check_fails(top_down(lib("mapJoinBeforeTranspose")),
              movement_two_d("x |> map(fun(r => r)) |> transpose"));
}

// ---------------------------------------------------------------- slide of slide

TEST(SlideOfSlide, ReadsWindowsOfWindowsFromLargerWindows) {
  // Windows of 4 consecutive 3-windows, every second one: 6-windows with step 2.
  rise::Expr p = movement_one_d("(2*n+6).f32", "x |> slide(3)(1) |> slide(4)(2)");
  check_rewrite(top_down(lib("slideOfSlide")), p);
  check_rewrite(in_dfnf("slideOfSlide"), p);
  // An inner step of 2: pairs of 3-windows taken every 2 elements are 5-windows.
  check_rewrite(top_down(lib("slideOfSlide")),
                movement_one_d("(2*n+3).f32", "x |> slide(3)(2) |> slide(2)(1)"));
  // Tiles of windows (the overlapped tiling of a stencil's output).
  check_rewrite(top_down(lib("slideOfSlide")),
                movement_one_d("(4*n+2).f32", "x |> slide(3)(1) |> slide(4)(4)"));
}

TEST(SlideOfSlide, FailsWithoutTwoSlides) {
  check_fails(top_down(lib("slideOfSlide")), movement_one_d("(n+2).f32", "x |> slide(3)(1)"));
  check_fails(top_down(lib("slideOfSlide")),
              movement_one_d("(n+2).f32", "x |> slide(3)(1) |> map(fun(w => w[0]))"));
}

// ---------------------------------------------------------------- split of slide, split of zip

TEST(SplitOfSlide, ReadsBlocksOfWindowsFromOverlappingBlocks) {
  // Blocks of 4 consecutive 3-windows: 6-windows of x with step 4.
  rise::Expr p = movement_one_d("(4*n+2).f32", "x |> slide(3)(1) |> split(4)");
  check_rewrite(top_down(lib("splitOfSlide")), p);
  check_rewrite(in_dfnf("splitOfSlide"), p);
  // Windows with step 2 (a downsampling stencil): blocks of 2 are 7-windows, step 4.
  check_rewrite(top_down(lib("splitOfSlide")),
                movement_one_d("(4*n+3).f32", "x |> slide(5)(2) |> split(2)"));
}

TEST(SplitOfSlide, FailsWithoutASplitOfASlide) {
  check_fails(top_down(lib("splitOfSlide")), movement_one_d("(4*n).f32", "x |> split(4)"));
  check_fails(top_down(lib("splitOfSlide")),
              movement_one_d("(n+2).f32", "x |> slide(3)(1) |> slide(2)(2)"));
}

TEST(SplitOfJoin, ReadsBlocksOfAJoinAsJoinsOfBlocksOfRows) {
  // Rows of 6 joined, blocks of 12: the joins of pairs of rows.
  rise::Expr p = movement_two_d("x |> join |> split(12)");
  check_rewrite(top_down(lib("splitOfJoin")), p);
  check_rewrite(in_dfnf("splitOfJoin"), p);
  // Rows of 2 (an upsampling stage's pairs of output rows), blocks of 8.
  check_rewrite(
      top_down(lib("splitOfJoin")),
      movement_one_d("(8*n).f32", "x |> map(fun(a => [a, a * 0.5f])) |> join |> split(8)"));
  // Blocks as long as the rows: one row per block.
  check_rewrite(top_down(lib("splitOfJoin")), movement_two_d("x |> join |> split(6)"));
}

TEST(SplitOfJoin, FailsWhereTheRowsDoNotDivideTheBlocks) {
  check_fails(top_down(lib("splitOfJoin")), movement_two_d("x |> join |> split(4)"), "dividing");
  check_fails(top_down(lib("splitOfJoin")), movement_two_d("x |> join"));
  check_fails(top_down(lib("splitOfJoin")), movement_one_d("(4*n).f32", "x |> split(4)"));
}

TEST(SplitBeforeZip, SplitsBothArrays) {
  check_rewrite(top_down(lib("splitBeforeZip")),
                movement_one_d("(4*n).f32", "zip(x)(x |> map(fun(a => a * 2.0f))) |> split(4)"));
  check_rewrite(in_dfnf("splitBeforeZip"),
                movement_one_d("(4*n).f32", "zip(x)(x |> map(fun(a => a * 2.0f))) |> split(4)"));
  // Windows of a zip are zips of windows.
  check_rewrite(top_down(lib("splitBeforeZip")),
                movement_one_d("(n+2).f32", "zip(x)(x) |> slide(3)(1)"));
}

TEST(SplitBeforeZip, FailsWithoutAZip) {
  check_fails(top_down(lib("splitBeforeZip")), movement_one_d("(4*n).f32", "x |> split(4)"));
}

}  // namespace
}  // namespace risec::elevate::testing
