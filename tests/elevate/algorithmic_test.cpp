// Tests of the algorithmic rules: for each rule a program where it fires (the result
// is well typed and computes the same on random inputs) and one where it must not;
// rules with conditions also report which condition failed.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

bool contains(const rise::Expr& e, const std::string& text) {
  return rise::print_expr(e).find(text) != std::string::npos;
}

int count(const rise::Expr& e, const std::string& text) {
  std::string s = rise::print_expr(e);
  int n = 0;
  for (size_t i = s.find(text); i != std::string::npos; i = s.find(text, i + 1)) ++n;
  return n;
}

// Every rule of the families written here is registered, with a description.
TEST(RuleLibrary, RegistersEveryRuleOfTheSpec) {
  struct Family {
    const char* family;
    std::vector<const char*> names;
  };
  const std::vector<Family> families = {
      {"normal form", {"betaEtaNF", "BENF", "DFNF", "RNF", "betaReduction", "etaReduction"}},
      {"algorithmic",
       {"mapFusion",
        "mapFission",
        "splitJoin",
        "idAfter",
        "liftId",
        "idToCopy",
        "createTransposePair",
        "transposePairAfter",
        "removeTransposePair",
        "removeSplitJoin",
        "mapOutsideZip",
        "zipSame",
        "zipShared",
        "slideOutsideZip",
        "zipRows",
        "fstReduction",
        "sndReduction",
        "fuseReductions",
        "slideOverlap",
        "separateDotHV",
        "separateDotVH",
        "mapFissionZip",
        "inlineLet",
        "expandReduce"}},
      {"movement",
       {"mapMapFBeforeTranspose", "transposeBeforeMapMapF", "slideBeforeMap", "slideBeforeMapMapF",
        "splitBeforeMap", "joinBeforeMapF", "mapMapFBeforeJoin", "dropBeforeMap", "takeBeforeMap",
        "transposeBeforeSlide", "mapSlideBeforeTranspose"}},
      {"lowering",
       {"mapSeq", "mapSeqUnroll", "mapPar", "reduceSeq", "reduceSeqUnroll", "reducePar", "unroll",
        "parallel", "mapGlobal", "mapWorkGroup", "mapLocal", "oclReduceSeq", "lowerToC"}},
      {"memory",
       {"toMemAfter", "storeInMemory", "circularBuffer", "rotateValues", "toGlobal", "toLocal",
        "toPrivate"}},
  };
  for (const Family& f : families)
    for (const char* name : f.names) {
      SCOPED_TRACE(name);
      const LibraryEntry* e = find_entry(name);
      ASSERT_NE(e, nullptr);
      EXPECT_STREQ(family_name(e->family), f.family);
      EXPECT_FALSE(e->description.empty());
    }
  EXPECT_EQ(find_entry("splitJoin")->params, std::vector<ParamKind>{ParamKind::Nat});
  EXPECT_EQ(find_entry("slideOverlap")->params, std::vector<ParamKind>{ParamKind::Nat});
  EXPECT_EQ(find_entry("storeInMemory")->params,
            (std::vector<ParamKind>{ParamKind::Strategy, ParamKind::Strategy}));
  EXPECT_EQ(find_entry("oclReduceSeq")->params, std::vector<ParamKind>{ParamKind::Addr});
  EXPECT_EQ(find_entry("DFNF")->cls, EntryClass::NormalForm);
}

const rise::SizeMap n8 = {{"n", 8}};
const rise::SizeMap nm = {{"n", 4}, {"m", 6}};

// ---------------------------------------------------------------- mapFusion

TEST(MapFusion, FusesTwoMaps) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => a + 1.0f)) |> map(fun(b => b * 2.0f))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("mapFusion")), p);
  EXPECT_EQ(count(r, "map("), 1) << rise::print_expr(r);
}

TEST(MapFusion, WorksWithSymbolicSizes) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(map(fun(a => a + 1.0f))) |> map(fun(r => r |> reduce(add)(0.0f)))))
)",
                      {});
  rise::Expr r = apply_ok(top_down(lib("mapFusion")), p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_EQ(count(r, "map("), 2) << rise::print_expr(r);
}

TEST(MapFusion, KeepsWorkSharedWhenTheOuterFunctionUsesItsArgumentTwice) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => exp(a))) |> map(fun(b => b * b))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("mapFusion")), p);
  EXPECT_EQ(count(r, "exp"), 1) << rise::print_expr(r);
}

TEST(MapFusion, DoesNotFireWithoutTwoMaps) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a + 1.0f)) |> reduce(add)(0.0f)))
)",
                      n8);
  check_fails(top_down(lib("mapFusion")), p);
  // at the map itself: its input is not a map
  check_fails(body(argument(lib("mapFusion"))), p, "not a map");
}

// ---------------------------------------------------------------- mapFission

TEST(MapFission, SplitsTheLastFunctionOff) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => abs(a * 2.0f)))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("mapFission")), p);
  EXPECT_EQ(count(r, "map("), 2) << rise::print_expr(r);
}

TEST(MapFission, SplitsAMapThatIsNotAppliedToData) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(map(fun(a => reduce(add)(0.0f)(zip([a, a])([a, 1.0f]) |> map(fun(q => q._1 * q._2))))))))
)",
                      nm);
  check_rewrite(top_down(lib("mapFission")), p);
}

TEST(MapFission, DoesNotFireWhenTheLastFunctionUsesTheParameter) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a + 1.0f))))
)",
                      n8);
  check_fails(top_down(lib("mapFission")), p);
  check_fails(body(lib("mapFission")), p, "depends on the map's parameter");
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => abs(a)))))
)",
                      n8);
  check_fails(body(lib("mapFission")), q, "nothing to split off");
}

// ---------------------------------------------------------------- mapFissionZip

TEST(MapFissionZip, SplitsTheLoopOffAndKeepsTheElement) {
  // gemv's row function: the dot product is one loop, y[i] is used beside it
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(A: n.m.f32 => fun(x: m.f32 => fun(y: n.f32 =>
  zip(A)(y) |> map(fun(r => 2.0f * (zip(r._1)(x) |> map(fun(p => p._1 * p._2)) |>
    reduce(add)(0.0f)) + r._2))))))
)",
                      nm);
  rise::Expr r = check_rewrite(top_down(lib("mapFissionZip")), p);
  // the outer map runs over zip(map(dot)(rows))(rows)
  std::string text = rise::print_expr(r);
  EXPECT_NE(text.find("zip(zip(A)(y) |> map("), std::string::npos) << text;
  EXPECT_EQ(loops(r), "map[4] map[4](reduce[6] map[6])") << text;
}

TEST(MapFissionZip, WithoutTheZipWhenTheRestDoesNotUseTheElement) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(X: n.m.f32 =>
  X |> map(fun(r => 3.0f * (r |> reduce(add)(0.0f)) + 1.0f))))
)",
                      nm);
  rise::Expr r = check_rewrite(top_down(lib("mapFissionZip")), p);
  EXPECT_EQ(count(r, "zip("), 0) << rise::print_expr(r);
}

TEST(MapFissionZip, TakesOnlyLoopsOfTheElementAlone) {
  // at the outer map, the inner loops use the inner lambda's parameter b: they cannot
  // run as a map over X (at the map over r, the loop over c can)
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(X: n.m.f32 =>
  X |> map(fun(r => r |> map(fun(b => r |> map(fun(c => b * c)) |> reduce(add)(0.0f)))))))
)",
                      nm);
  check_fails(body(lib("mapFissionZip")), p, "no map or reduction");
  // the whole body is the only loop: nothing to split
  rise::Expr q = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(X: n.m.f32 => X |> map(fun(r => r |> reduce(add)(0.0f)))))
)",
                      nm);
  check_fails(top_down(lib("mapFissionZip")), q);
}

// ---------------------------------------------------------------- splitJoin

const char* kScale = R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * 3.0f))))
)";

TEST(SplitJoin, SplitsAMapIntoANest) {
  rise::Expr p = prog(kScale, n8);
  rise::Expr r = check_rewrite(outermost(is_applied(is_map()), lib("splitJoin", {int64_t{4}})), p);
  EXPECT_TRUE(contains(r, "split(4)")) << rise::print_expr(r);
  EXPECT_TRUE(contains(r, "join")) << rise::print_expr(r);
  // the applied form as well
  check_rewrite(outermost(is_fully_applied(is_map()), lib("splitJoin", {int64_t{2}})), p);
  // and a DFNF pass cleans the redex up
  rise::Expr clean = apply_ok(
      seq(outermost(is_applied(is_map()), lib("splitJoin", {int64_t{4}})), lib("DFNF")), p);
  EXPECT_TRUE(same_semantics(p, clean));
}

TEST(SplitJoin, FailsWhenTheLengthIsNotDivisible) {
  rise::Expr p = prog(kScale, {{"n", 10}});
  check_fails(outermost(is_applied(is_map()), lib("splitJoin", {int64_t{4}})), p);
  check_fails(body(function(lib("splitJoin", {int64_t{4}}))), p, "divisible by 4");
  check_fails(body(lib("splitJoin", {int64_t{4}})),
              prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> reduce(add)(0.0f)))
)",
                   n8),
              "map");
}

TEST(SplitJoin, OnASymbolicLengthTheResultNeedsTheDivisibility) {
  // a generic n: the rewrite applies, and its type records 4 | n (checked by generic
  // code on entry)
  rise::Expr p = prog(kScale, {});
  rise::Expr r = apply_ok(body(body(function(lib("splitJoin", {int64_t{4}})))), p);
  rise::Checked again = rise::infer_expr(r);
  ASSERT_EQ(again.conditions.size(), 1u);
  EXPECT_EQ(again.conditions[0].describe(), "4 divides n");
  // a length that is never a multiple of 4
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: (4*n+2).f32 => x |> map(fun(a => a * 3.0f))))
)",
                      {});
  check_fails(outermost(is_applied(is_map()), lib("splitJoin", {int64_t{4}})), q,
              "not divisible by 4");
  // a size bound inside the program (iterate's l): refused, it cannot be checked
  rise::Expr it = prog(R"(
def f = depFun((m: Nat, k: Nat) => fun(x: (m*(2^k)).f32 =>
  x |> iterate(k)(depFun((l: Nat) => fun(a: (l*2).f32 =>
    a |> split(2) |> map(fun(p => p[0] + p[1])))))))
)",
                       {{"m", 3}, {"k", 2}});
  check_fails(outermost(is_applied(is_map()), lib("splitJoin", {int64_t{4}})), it,
              "bound inside the program");
}

// ---------------------------------------------------------------- identities

const char* kTwoD = R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> map(map(fun(a => a + 1.0f)))))
)";

TEST(IdAfter, WrapsDataInId) {
  rise::Expr p = prog(kTwoD, nm);
  rise::Expr r = check_rewrite(body(lib("idAfter")), p);
  EXPECT_TRUE(contains(r, "id(")) << rise::print_expr(r);
}

TEST(IdAfter, FailsOnAFunction) {
  check_fails(lib("idAfter"), prog(kTwoD, nm), "data");
}

const char* kIdArray = R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => id(x) |> map(map(fun(a => a + 1.0f)))))
)";
const char* kIdScalar = R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => id(a) + 1.0f))))
)";

TEST(LiftId, MapsIdOverAnArray) {
  rise::Expr r = check_rewrite(top_down(lib("liftId")), prog(kIdArray, nm));
  EXPECT_TRUE(contains(r, "map(fun(y => id(y)))") || contains(r, "id(")) << rise::print_expr(r);
}

TEST(LiftId, FailsOnAScalar) {
  check_fails(top_down(lib("liftId")), prog(kIdScalar, n8));
  check_fails(lib("liftId"), prog(kIdScalar, n8)->fn->fn->arg->fn->fn->arg, "array");
}

TEST(IdToCopy, TurnsIdIntoAnIdentityMap) {
  rise::Expr r = check_rewrite(top_down(lib("idToCopy")), prog(kIdArray, nm));
  EXPECT_FALSE(contains(r, "id(")) << rise::print_expr(r);
}

TEST(IdToCopy, FailsOnAScalar) {
  check_fails(top_down(lib("idToCopy")), prog(kIdScalar, n8));
}

TEST(CreateTransposePair, ReplacesIdOfA2DArray) {
  rise::Expr r = check_rewrite(top_down(lib("createTransposePair")), prog(kIdArray, nm));
  EXPECT_EQ(count(r, "transpose"), 2) << rise::print_expr(r);
}

TEST(CreateTransposePair, FailsOnA1DArray) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => id(x) |> map(fun(a => a + 1.0f))))
)",
                      n8);
  check_fails(top_down(lib("createTransposePair")), p);
  check_fails(body(argument(lib("createTransposePair"))), p, "2-D");
}

TEST(TransposePairAfter, AddsATransposePair) {
  rise::Expr r = check_rewrite(body(lib("transposePairAfter")), prog(kTwoD, nm));
  EXPECT_EQ(count(r, "transpose"), 2) << rise::print_expr(r);
}

TEST(TransposePairAfter, FailsOnA1DArray) {
  check_fails(body(lib("transposePairAfter")), prog(kScale, n8), "2-D");
}

TEST(RemoveTransposePair, RemovesIt) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> transpose |> transpose |> map(map(fun(a => a + 1.0f)))))
)",
                      nm);
  rise::Expr r = check_rewrite(top_down(lib("removeTransposePair")), p);
  EXPECT_FALSE(contains(r, "transpose")) << rise::print_expr(r);
}

TEST(RemoveTransposePair, FailsOnASingleTranspose) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> transpose |> map(map(fun(a => a + 1.0f)))))
)",
                      nm);
  check_fails(top_down(lib("removeTransposePair")), p);
}

TEST(RemoveSplitJoin, RemovesASplitThatUndoesAJoin) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> join |> split(m) |> map(map(fun(a => a + 1.0f)))))
)",
                      nm);
  rise::Expr r = check_rewrite(top_down(lib("removeSplitJoin")), p);
  EXPECT_FALSE(contains(r, "split")) << rise::print_expr(r);
  EXPECT_FALSE(contains(r, "join")) << rise::print_expr(r);
}

TEST(RemoveSplitJoin, RemovesAJoinOfASplit) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat) => fun(x: (4*n).f32 => x |> split(4) |> join |> map(fun(a => a * 2.0f))))
)",
                      {{"n", 3}});
  rise::Expr r = check_rewrite(top_down(lib("removeSplitJoin")), p);
  EXPECT_FALSE(contains(r, "split")) << rise::print_expr(r);
}

TEST(RemoveSplitJoin, RefusesASplitOfAnotherWidth) {
  rise::Expr p = prog(R"(
def f = fun(x: 4.6.f32 => x |> join |> split(3) |> map(map(fun(a => a + 1.0f))))
)",
                      {});
  check_fails(body(argument(lib("removeSplitJoin"))), p, "does not undo the join");
}

// A sum over the join of a window's rows, blocked by the rows' length, is the sum of
// the rows' sums (a 3 x 3 box sum as three row sums).
TEST(RemoveSplitJoin, LeavesTheRowSumsOfABlockedReduction) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat) => fun(x: n.3.3.f32 => x |> map(fun(w => w |> join |> sum))))
)",
                      {{"n", 5}});
  rise::Expr r = check_rewrite(
      top_down(seq(lib("blockedReduce", {int64_t{3}}), argument(argument(lib("removeSplitJoin"))))),
      p);
  EXPECT_FALSE(contains(r, "split")) << rise::print_expr(r);
  EXPECT_FALSE(contains(r, "join")) << rise::print_expr(r);
  EXPECT_EQ(count(r, "reduce"), 2) << rise::print_expr(r);
}

// ---------------------------------------------------------------- zips and pairs

TEST(MapOutsideZip, MovesTheMapsOutOfTheZip) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x |> map(fun(a => a * 2.0f)))(y |> map(fun(b => exp(b)))) |> map(fun(p => p._1 - p._2)))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("mapOutsideZip")), p);
  EXPECT_TRUE(contains(r, "zip(x)(y)")) << rise::print_expr(r);
}

TEST(MapOutsideZip, FailsWhenOneSideIsNotAMap) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y |> map(fun(b => exp(b)))) |> map(fun(p => p._1 - p._2)))))
)",
                      n8);
  check_fails(top_down(lib("mapOutsideZip")), p);
}

TEST(ZipSame, ZipsAnArrayWithItself) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => zip(x)(x) |> map(fun(p => p._1 * p._2))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("zipSame")), p);
  EXPECT_FALSE(contains(r, "zip")) << rise::print_expr(r);
}

TEST(ZipSame, FailsOnDifferentArrays) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 => zip(x)(y) |> map(fun(p => p._1 * p._2)))))
)",
                      n8);
  check_fails(top_down(lib("zipSame")), p);
  check_fails(body(body(argument(lib("zipSame")))), p, "not the same");
}

// zipShared: x next to zip(x)(y) (or zip(x)(y) next to y) reads x once, through the pairs.
TEST(ZipShared, ReadsTheArrayZippedTwiceOnce) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(zip(x)(y)) |> map(fun(p => p._1 * p._2._2 - p._2._1)))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("zipShared")), p);
  EXPECT_EQ(count(r, "zip("), 1) << rise::print_expr(r);
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(zip(x)(y))(y) |> map(fun(p => p._1._1 * p._2 - p._1._2 * 2.0f)))))
)",
                      n8);
  rise::Expr rq = check_rewrite(top_down(lib("zipShared")), q);
  EXPECT_EQ(count(rq, "zip("), 1) << rise::print_expr(rq);
}

TEST(ZipShared, FailsWhenNoArrayIsShared) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 => fun(z: n.f32 =>
  zip(x)(zip(y)(z)) |> map(fun(p => p._1 * p._2._2 - p._2._1))))))
)",
                      n8);
  check_fails(body(body(body(argument(lib("zipShared"))))), p, "expected zip(a)(zip(a)(b))");
}

// ---------------------------------------------------------------- slideOutsideZip, zipRows

TEST(SlideOutsideZip, SlidesTwoArraysTogether) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: (n+2).f32 => fun(y: (n+2).f32 =>
  zip(x |> slide(3)(1))(y |> slide(3)(1)) |> map(fun(p => p._1[0] * p._2[2])))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("slideOutsideZip")), p);
  EXPECT_EQ(count(r, "slide("), 1) << rise::print_expr(r);
  EXPECT_TRUE(contains(r, "zip(x)(y)")) << rise::print_expr(r);
}

TEST(SlideOutsideZip, FailsOnDifferentWindows) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: (n+2).f32 => fun(y: (n+1).f32 =>
  zip(x |> slide(3)(1))(y |> slide(2)(1)) |> map(fun(p => p._1[0] * p._2[1])))))
)",
                      n8);
  check_fails(body(body(argument(lib("slideOutsideZip")))), p, "different windows");
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 => zip(x)(y) |> map(fun(p => p._1 * p._2)))))
)",
                      n8);
  check_fails(top_down(lib("slideOutsideZip")), q);
}

TEST(ZipRows, MakesRowsOfPairs) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => fun(y: n.m.f32 =>
  zip(x)(y) |> map(fun(p => zip(p._1)(p._2) |> map(fun(q => q._1 - q._2)))))))
)",
                      nm);
  rise::Expr r = check_rewrite(body(body(argument(lib("zipRows")))), p);
  EXPECT_TRUE(contains(r, "zip(r._1)(r._2)")) << rise::print_expr(r);
}

TEST(ZipRows, FailsOnArraysOfScalars) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 => zip(x)(y) |> map(fun(p => p._1 * p._2)))))
)",
                      n8);
  check_fails(body(body(argument(lib("zipRows")))), p, "arrays of rows");
}

const char* kPairs = R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => (a * 2.0f, a + 1.0f)._1 - (a, exp(a))._2))))
)";

TEST(FstReduction, ProjectsAPair) {
  rise::Expr r = check_rewrite(top_down(lib("fstReduction")), prog(kPairs, n8));
  EXPECT_EQ(count(r, "._1"), 0) << rise::print_expr(r);
}

TEST(SndReduction, ProjectsAPair) {
  rise::Expr r = check_rewrite(top_down(lib("sndReduction")), prog(kPairs, n8));
  EXPECT_EQ(count(r, "._2"), 0) << rise::print_expr(r);
}

const char* kPairReduce = R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  (zip(x)(y) |> reduce(fun(a, b => (a._1 + b._1, a._2 * b._2)))((0.0f, 1.0f)))PROJ)))
)";

std::string with_proj(const char* text, const std::string& proj) {
  std::string s = text;
  s.replace(s.find("PROJ"), 4, proj);
  return s;
}

TEST(FstReduction, ReducesTheFirstComponentsOfAReductionOverPairs) {
  rise::Expr r =
      check_rewrite(body(body(lib("fstReduction"))), prog(with_proj(kPairReduce, "._1"), n8));
  EXPECT_EQ(count(r, "._2"), 0) << rise::print_expr(r);
  rise::Expr s =
      check_rewrite(body(body(lib("sndReduction"))), prog(with_proj(kPairReduce, "._2"), n8));
  EXPECT_EQ(count(s, "+"), 0) << rise::print_expr(s);
  // reduceSeq: the first component may use the whole element
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  (zip(x)(y) |> reduceSeq(fun(a, b => (a._1 + b._1 * b._2, a._2 + b._2)))((0.0f, 0.0f)))._1)))
)",
                      n8);
  check_rewrite(body(body(lib("fstReduction"))), q);
}

TEST(FstReduction, FailsWhenTheComponentsAreNotIndependent) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  (zip(x)(y) |> reduce(fun(a, b => (a._1 + a._2, a._2 * b._2)))((0.0f, 1.0f)))._1)))
)",
                      n8);
  check_fails(body(body(lib("fstReduction"))), p, "depends on the other component");
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  (zip(x)(y) |> reduce(fun(a, b => (a._1 + b._2, a._2 * b._2)))((0.0f, 1.0f)))._1)))
)",
                      n8);
  check_fails(body(body(lib("fstReduction"))), q, "reduceSeq");
}

TEST(FstReduction, FailsOnAProjectionOfAVariable) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 => zip(x)(y) |> map(fun(p => p._1 * p._2)))))
)",
                      n8);
  check_fails(top_down(lib("fstReduction")), p);
  check_fails(top_down(lib("sndReduction")), p);
}

// ---------------------------------------------------------------- fuseReductions

// padCstBeforeMap: a padding of f's results that f computes from a padding of its
// inputs (zero rows of a row blur) moves before the map; checked by evaluation.
TEST(PadCstBeforeMap, MovesAZeroBorderBeforeARowBlur) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.6.f32 =>
  x |> map(fun(row => row |> padCst(1)(1)(0.0f) |> slide(3)(1) |> map(fun(w => w[lidx(0, 3)] * 0.25f + w[lidx(1, 3)] * 0.5f + w[lidx(2, 3)] * 0.25f))))
    |> padCst(2)(2)(generate(fun(i => 0.0f)))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("padCstBeforeMap")), p);
  // the input rows are padded, then blurred
  std::string text = rise::print_expr(r);
  EXPECT_NE(text.find("x |> padCst(2)(2)(generate"), std::string::npos) << text;
  // scalars: a map that keeps zero (x * 3) under a border of zeros
  check_rewrite(top_down(lib("padCstBeforeMap")),
                prog("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * 3.0f)) |> "
                     "padCst(2)(1)(0.0f)))",
                     n8));
}

TEST(PadCstBeforeMap, RefusesWhatItCannotProve) {
  // f(0) = 1: the border would change
  check_fails(body(lib("padCstBeforeMap")),
              prog("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a + 1.0f)) |> "
                   "padCst(2)(1)(0.0f)))",
                   n8),
              "does not map the padding");
  // -0.0 is not 0.0 (bits compared): a * -1 maps 0.0 to -0.0
  check_fails(body(lib("padCstBeforeMap")),
              prog("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * -1.0f)) |> "
                   "padCst(2)(1)(0.0f)))",
                   n8),
              "does not map the padding");
  // a padding that is not one scalar repeated
  check_fails(body(lib("padCstBeforeMap")),
              prog("def f = depFun(n: Nat => fun(x: n.2.f32 => x |> map(fun(r => r)) |> "
                   "padCst(1)(1)([0.0f, 1.0f])))",
                   n8),
              "not one scalar repeated");
  // the function uses a variable bound outside it
  check_fails(body(body(lib("padCstBeforeMap"))),
              prog("def f = depFun(n: Nat => fun(x: n.f32 => fun(k: f32 => x |> map(fun(a => a * "
                   "k)) |> padCst(2)(1)(0.0f))))",
                   n8),
              "variables bound outside");
  check_fails(body(lib("padCstBeforeMap")),
              prog("def f = depFun(n: Nat => fun(x: n.f32 => x |> padCst(2)(1)(0.0f)))", n8));
}

TEST(FuseReductions, FusesTwoReductionsOverOneArray) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  (x |> reduce(add)(0.0f), x |> map(fun(a => a * a)) |> reduce(add)(0.0f)) |> (fun(s => s._1 * s._2))))
)",
                      n8);
  // the second reduction reads map(..)(x), not x: a zip of the two arrays
  rise::Expr r = check_rewrite(top_down(lib("fuseReductions")), p);
  EXPECT_EQ(count(r, "reduceSeq("), 1) << rise::print_expr(r);
  EXPECT_EQ(count(r, "reduce("), 0) << rise::print_expr(r);
  EXPECT_EQ(count(r, "zip("), 1) << rise::print_expr(r);
  // the same array on both sides: no zip
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  (x |> reduce(add)(0.0f), x |> reduce(fun(a, b => a + b * b))(1.0f)) |> (fun(s => s._1 - s._2))))
)",
                      n8);
  rise::Expr rq = check_rewrite(top_down(lib("fuseReductions")), q);
  EXPECT_EQ(count(rq, "zip("), 0) << rise::print_expr(rq);
  EXPECT_EQ(count(rq, "reduceSeq("), 1) << rise::print_expr(rq);
}

// Harris' three box sums: the inner pair first, then the outer one; unrolled as the
// strategy does (fuseReductions ; unroll) and compiled: the three sums advance in one
// reduceSeqUnroll.
TEST(FuseReductions, FusesThreeSumsIntoOneUnrolledReduction) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.9.f32 => fun(y: n.9.f32 =>
  zip(x)(y) |> map(fun(w =>
    (w._1 |> map(fun(a => a * a)) |> reduce(add)(0.0f),
     (zip(w._1)(w._2) |> map(fun(q => q._1 * q._2)) |> reduce(add)(0.0f),
      w._2 |> map(fun(b => b * b)) |> reduce(add)(0.0f)))
    |> (fun(s => s._1 * s._2._2 - s._2._1 * s._2._1)))))))
)",
                      n8);
  rise::Expr r = check_rewrite(normalize(seq(lib("fuseReductions"), lib("unroll"))), p);
  EXPECT_EQ(count(r, "reduceSeqUnroll("), 1) << rise::print_expr(r);
  EXPECT_EQ(count(r, "reduce("), 0) << rise::print_expr(r);
}

TEST(FuseReductions, KeepsUnrollingOnlyWhenBothAreUnrolled) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  (x |> reduceSeqUnroll(add)(0.0f), x |> reduceSeqUnroll(mul)(1.0f)) |> (fun(s => s._1 + s._2))))
)",
                      n8);
  rise::Expr r = check_rewrite(top_down(lib("fuseReductions")), p);
  EXPECT_EQ(count(r, "reduceSeqUnroll("), 1) << rise::print_expr(r);
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  (x |> reduceSeqUnroll(add)(0.0f), x |> reduce(mul)(1.0f)) |> (fun(s => s._1 + s._2))))
)",
                      n8);
  rise::Expr rq = check_rewrite(top_down(lib("fuseReductions")), q);
  EXPECT_EQ(count(rq, "reduceSeqUnroll("), 0) << rise::print_expr(rq);
  EXPECT_EQ(count(rq, "reduceSeq("), 1) << rise::print_expr(rq);
}

TEST(FuseReductions, FailsOnDifferentLengthsAndOtherPairs) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: (n+1).f32 =>
  (x |> reduce(add)(0.0f), y |> reduce(add)(0.0f)) |> (fun(s => s._1 + s._2)))))
)",
                      n8);
  check_fails(top_down(lib("fuseReductions")), p);
  check_fails(body(body(argument(lib("fuseReductions")))), p, "different lengths");
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  (x |> reduce(add)(0.0f), 2.0f) |> (fun(s => s._1 + s._2))))
)",
                      n8);
  check_fails(top_down(lib("fuseReductions")), q);
  check_fails(body(argument(lib("fuseReductions"))), q, "second component");
}

// ---------------------------------------------------------------- slideOverlap

const char* kBlur = R"(
def f = depFun(n: Nat => fun(x: (n+2).f32 =>
  x |> slide(3)(1) |> map(fun(w => w[0] + w[1] + w[2]))))
)";

TEST(SlideOverlap, TilesASlide) {
  rise::Expr p = prog(kBlur, n8);  // 10 elements: outer windows of 6 with step 4
  rise::Expr r = check_rewrite(top_down(lib("slideOverlap", {int64_t{6}})), p);
  EXPECT_TRUE(contains(r, "slide(6)(4)")) << rise::print_expr(r);
  // the bare slide(3)(1), as a function
  rise::Expr q = prog(R"(
def f = depFun(n: Nat => fun(x: (n+2).f32 => x |> map(fun(a => a)) |> slide(3)(1) |> map(fun(w => w[1]))))
)",
                      n8);
  check_rewrite(top_down(function(lib("slideOverlap", {int64_t{4}}))), q);
}

TEST(SlideOverlap, ChecksItsConditions) {
  rise::Expr p = prog(kBlur, n8);
  check_fails(top_down(lib("slideOverlap", {int64_t{5}})), p);  // 10 - 5 not a multiple of 3
  check_fails(body(argument(lib("slideOverlap", {int64_t{5}}))), p, "length");
  check_fails(body(argument(lib("slideOverlap", {int64_t{2}}))), p, "at least");
  check_fails(body(function(lib("slideOverlap", {int64_t{6}}))), p, "slide");
}

// ---------------------------------------------------------------- separateDot

std::string read_example(const std::string& name) {
  std::ifstream in(std::filesystem::path(RISEC_SOURCE_DIR) / "examples" / name / (name + ".rise"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SeparateDot, SeparatesTheGaussianKernel) {
  rise::Expr p = apply_ok(lib("DFNF"), prog(read_example("gaussian"), {{"n", 6}, {"m", 5}}));
  rise::Expr hv = check_rewrite(top_down(lib("separateDotHV")), p);
  rise::Expr vh = check_rewrite(top_down(lib("separateDotVH")), p);
  EXPECT_TRUE(contains(vh, "transpose(nbh)") || count(vh, "transpose") > count(p, "transpose"))
      << rise::print_expr(vh);
  EXPECT_FALSE(rise::alpha_equal(hv, vh));
  // also from betaEtaNF (reduce(add) not eta-expanded)
  check_rewrite(top_down(lib("separateDotHV")),
                apply_ok(lib("betaEtaNF"), prog(read_example("gaussian"), {{"n", 6}, {"m", 5}})));
}

TEST(InlineLet, RecomputesTheValueAtEveryUse) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => a * 2.0f)) in zip(y)(y) |> map(fun(p => p._1 + p._2))))
)",
                      n8);
  rise::Expr r = check_rewrite(normalize(lib("inlineLet")), p);
  EXPECT_FALSE(contains(r, "let")) << rise::print_expr(r);
  EXPECT_EQ(count(r, "a * 2.0f"), 2) << rise::print_expr(r);
  check_fails(top_down(lib("inlineLet")), prog(kPairs, n8));
}

TEST(ExpandReduce, TurnsAWeightedWindowIntoOneTerm) {
  rise::Expr p = apply_ok(lib("DFNF"), prog(read_example("blur5"), {{"n", 6}, {"m", 5}}));
  rise::Expr r = check_rewrite(seq(normalize(lib("expandReduce")), lib("partialEval")), p);
  EXPECT_FALSE(contains(r, "reduce")) << rise::print_expr(r);
  EXPECT_FALSE(contains(r, "zip")) << rise::print_expr(r);
  EXPECT_TRUE(contains(r, "* 0.375f")) << rise::print_expr(r);  // the weight is a literal
}

TEST(ExpandReduce, RefusesLongReductionsAndRepeatedAccumulators) {
  const char* sum = R"(
def f = depFun(n: Nat => fun(x: n.f32 => reduce(fun(a, b => a + b))(0.0f)(x)))
)";
  check_rewrite(body(lib("expandReduce")), prog(sum, n8));
  check_fails(body(lib("expandReduce")), prog(sum, {{"n", 100}}), "at most 64");
  check_fails(body(lib("expandReduce")),
              prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => reduce(fun(a, b => a * a + b))(0.0f)(x)))
)",
                   n8),
              "more than once");
}

const char* kStencil = R"(
def f = depFun((n: Nat, m: Nat) => fun(img: (n+2).(m+2).f32 =>
  img |> slide2D(3)(1) |> map2D(fun(nbh =>
    dot(join(nbh))(join([[1.0f, 2.0f, 1.0f], [2.0f, 4.0f, 2.0f], [1.0f, 2.0f, 2.0f]]))))))
)";

TEST(SeparateDot, FailsOnANonSeparableKernel) {
  rise::Expr p = apply_ok(lib("DFNF"), prog(kStencil, nm));
  check_fails(top_down(lib("separateDotHV")), p);
  check_fails(top_down(lib("separateDotVH")), p);
  // at the dot itself the reason names the condition
  Result r = top_down(lib("separateDotHV"))(p);
  ASSERT_FALSE(r.ok());
}

TEST(SeparateDot, FailsWithoutConstantWeights) {
  rise::Expr p = apply_ok(lib("DFNF"), prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(img: (n+2).(m+2).f32 => fun(w: 3.3.f32 =>
  img |> slide2D(3)(1) |> map2D(fun(nbh => dot(join(nbh))(join(w)))))))
)",
                                            nm));
  check_fails(top_down(lib("separateDotHV")), p);
}

TEST(SeparateDot, ReportsWhyAKernelIsNotSeparable) {
  // the dot alone, so that the rule is tried at the root of the body
  rise::Expr p = apply_ok(lib("DFNF"), prog(R"(
def f = fun(nbh: 3.3.f32 =>
  dot(join(nbh))(join([[1.0f, 2.0f, 1.0f], [2.0f, 4.0f, 2.0f], [1.0f, 2.0f, 2.0f]])))
)",
                                            {}));
  check_fails(body(lib("separateDotHV")), p, "not separable");
  rise::Expr q = apply_ok(lib("DFNF"), prog(R"(
def f = fun(nbh: 3.3.f32 =>
  dot(join(nbh))(join([[1.0f, 2.0f, 1.0f], [2.0f, 4.0f, 2.0f], [1.0f, 2.0f, 1.0f]])))
)",
                                            {}));
  check_rewrite(body(lib("separateDotHV")), q);
  check_rewrite(body(lib("separateDotVH")), q);
}

}  // namespace
}  // namespace risec::elevate::testing
