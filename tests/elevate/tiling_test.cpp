// Tests of the tiling and loop-order rules (tile, tileND, reorder, the interchanges,
// blockTranspose) and of the reduction rules (fuseReduceMap, reduceMapFission,
// blockedReduce): each fires where it should, the result is well typed and computes
// what the input computes (interpreter, random inputs), and each refuses where it
// must, naming the condition that does not hold.
#include <functional>

#include "elevate/rule_util.h"
#include "elevate/tile_composed.h"
#include "rewrite_test_util.h"

namespace risec::elevate {
namespace {

using testing::apply_ok;
using testing::fails_with;
using testing::loops;
using testing::same_semantics;
using testing::typed;
using testing::well_typed;

Strategy S(const std::string& name, const std::vector<Arg>& args = {}) {
  return make_strategy(name, args);
}
Strategy N(const std::string& name, int64_t n) {
  return S(name, {n});
}
Strategy L(const std::string& name, std::vector<int64_t> l) {
  return S(name, {std::move(l)});
}
Strategy outer(const Strategy& p, const Strategy& s) {
  return S("outermost", {p, s});
}
Strategy inner(const Strategy& p, const Strategy& s) {
  return S("innermost", {p, s});
}
Strategy applied(const Strategy& p) {
  return S("isApplied", {p});
}
Strategy full(const Strategy& p) {
  return S("isFullyApplied", {p});
}

// s succeeds on the program, keeps it well typed and computes the same.
Expr check(const Strategy& s, const Expr& e, double rtol = 1e-4) {
  Expr out = apply_ok(s, e);
  EXPECT_TRUE(well_typed(out));
  EXPECT_TRUE(same_semantics(e, out, rtol, 1e-5));
  return out;
}

bool tiling_contains(const Expr& e, const std::string& prim) {
  if (e->kind == rise::ExprKind::Primitive && e->name == prim) return true;
  for (const Expr& k : children(e))
    if (tiling_contains(k, prim)) return true;
  return false;
}

const char* kMM = R"(
def mm = fun(A: 8.4.f32 => fun(B: 4.16.f32 =>
  A |> map(fun(rowA =>
    transpose(B) |> map(fun(colB =>
      zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f)))))))
)";

// ------------------------------------------------------------------ fuseReduceMap

TEST(FuseReduceMap, FusesTheMapIntoASequentialReduction) {
  auto p =
      typed("def f = fun(xs: 16.f32 => xs |> map(fun(x => x * 2.0f + 1.0f)) |> reduce(add)(0.0f))");
  Expr out = check(S("topDown", {S("fuseReduceMap")}), p.expr);
  EXPECT_TRUE(tiling_contains(out, "reduceSeq"));
  EXPECT_FALSE(tiling_contains(out, "map"));
  EXPECT_FALSE(tiling_contains(out, "reduce"));
}

TEST(FuseReduceMap, AliasAndReduceSeqInput) {
  auto p = typed(
      "def f = fun(xs: 16.f32 => xs |> map(fun(x => x * x)) |> reduceSeq(fun(a, y => a - "
      "y))(0.0f))");
  Expr out = check(S("topDown", {S("reduceMapFusion")}), p.expr);
  EXPECT_FALSE(tiling_contains(out, "map"));
}

TEST(FuseReduceMap, RefusesAReductionWithoutMap) {
  auto p = typed("def f = fun(xs: 16.f32 => xs |> reduce(add)(0.0f))");
  EXPECT_TRUE(fails_with(S("fuseReduceMap"), p.expr->fn, "reduction of a map"));
}

// ------------------------------------------------------------------ reduceMapFission

TEST(ReduceMapFission, SplitsOffTheMapAndRestoresReduce) {
  auto p = typed("def f = fun(xs: 16.f32 => xs |> reduceSeq(fun(acc, y => acc + y * 3.0f))(0.0f))");
  Expr out = check(S("topDown", {S("reduceMapFission")}), p.expr);
  EXPECT_TRUE(tiling_contains(out, "reduce"));
  EXPECT_TRUE(tiling_contains(out, "map"));
  EXPECT_FALSE(tiling_contains(out, "reduceSeq"));
}

TEST(ReduceMapFission, KeepsASequentialReductionWhenInitIsNotNeutral) {
  auto p = typed("def f = fun(xs: 16.f32 => xs |> reduceSeq(fun(acc, y => acc + y * 3.0f))(1.0f))");
  Expr out = check(S("topDown", {S("reduceMapFission")}), p.expr);
  EXPECT_TRUE(tiling_contains(out, "reduceSeq"));
  EXPECT_FALSE(tiling_contains(out, "reduce"));
  EXPECT_TRUE(tiling_contains(out, "map"));
}

TEST(ReduceMapFission, PartialApplicationAsInThePaper) {
  auto p = typed(kMM);
  Expr base = apply_ok(seq(S("DFNF"), S("topDown", {S("fuseReduceMap")})), p.expr);
  Expr out = check(outer(applied(applied(S("isReduceSeq"))), S("reduceMapFission")), base);
  EXPECT_TRUE(tiling_contains(out, "reduce"));
}

TEST(ReduceMapFission, RefusesWhenTheMappedPartUsesTheAccumulator) {
  auto p = typed("def f = fun(xs: 16.f32 => xs |> reduceSeq(fun(acc, y => acc + acc * y))(0.0f))");
  Expr red = p.expr->fn;
  EXPECT_TRUE(fails_with(S("reduceMapFission"), red, "accumulator"));
  auto q = typed("def f = fun(xs: 16.f32 => xs |> reduceSeq(fun(acc, y => acc + y))(0.0f))");
  EXPECT_TRUE(fails_with(S("reduceMapFission"), q.expr->fn, "no map to split off"));
}

// ------------------------------------------------------------------ blockedReduce

TEST(BlockedReduce, SplitsAnAssociativeReduction) {
  auto p = typed("def f = fun(xs: 32.f32 => xs |> reduce(add)(0.0f))");
  Expr out = check(S("topDown", {N("blockedReduce", 8)}), p.expr);
  EXPECT_TRUE(tiling_contains(out, "split"));
  EXPECT_EQ(loops(out), "reduce[4] map[4](reduce[8])");
}

TEST(BlockedReduce, AliasSplitStrategyAndEtaExpandedOperators) {
  auto p = typed("def f = fun(xs: 24.i32 => xs |> reduce(fun(a, b => a * b))(1))");
  check(S("topDown", {N("splitStrategy", 4)}), p.expr);
  auto q =
      typed("def f = fun(xs: 24.f32 => xs |> reduce(fun(a, b => fmax(b, a)))(0.0f - 1.0f / 0.0f))");
  // -1/0 is not a literal: the neutral element cannot be checked
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), q.expr->fn, "neutral element"));
}

TEST(BlockedReduce, NamesTheConditionThatDoesNotHold) {
  auto p = typed("def f = fun(xs: 30.f32 => xs |> reduce(add)(0.0f))");
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), p.expr->fn, "length 30"));
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), p.expr->fn, "divisible by 4"));
  auto q = typed("def f = fun(xs: 32.f32 => xs |> reduce(add)(1.0f))");
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), q.expr->fn, "not the neutral element 0 of add"));
  auto r = typed("def f = fun(xs: 32.f32 => xs |> reduce(sub)(0.0f))");
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), r.expr->fn, "associative"));
  auto s = typed("def f = fun(xs: 32.f32 => xs |> map(fun(x => x)))");
  EXPECT_TRUE(fails_with(N("blockedReduce", 4), s.expr->fn, "reduce(op)(init)(x)"));
}

TEST(BlockedReduce, ThreadsASequentialReductionWithAnyOperator) {
  // not associative: blocking a reduceSeq continues the fold from block to block
  auto p = typed("def f = fun(xs: 32.f32 => xs |> reduceSeq(fun(acc, y => acc * 0.5f + y))(1.0f))");
  Expr out = check(S("topDown", {N("blockedReduce", 8)}), p.expr, 0);
  EXPECT_EQ(loops(out), "reduceSeq[4](reduceSeq[8])");
}

// ------------------------------------------------------------------ tile

TEST(Tile, TilesTheMatrixProductNest) {
  auto p = typed(kMM);
  Expr base = apply_ok(seq(S("DFNF"), S("topDown", {S("fuseReduceMap")})), p.expr);
  Expr out = check(outer(N("mapNest", 2), S("tile", {int64_t(4), int64_t(8)})), base);
  EXPECT_EQ(loops(out), "map[2](map[2](map[4](map[8](reduceSeq[4]))))");
}

TEST(Tile, TheMatrixProductNestIsTiledByComposition) {
  // tile on two independent maps is splitJoin, mapFission, an interchange and
  // mapMapFBeforeJoin (tile_composed.cpp), with the nest of tiles the model builds
  auto p = typed(kMM);
  Expr base = apply_ok(seq(S("DFNF"), S("topDown", {S("fuseReduceMap")})), p.expr);
  Expr out = check(outer(N("mapNest", 2), composed_tile2("tile", 4, 8)), base);
  EXPECT_EQ(loops(out), "map[2](map[2](map[4](map[8](reduceSeq[4]))))");
  // an inner map over a view of the outer element: the views of a block, transposed
  auto q = typed("def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> map(fun(x => x + 1.0f)))))");
  Expr qo = check(body(composed_tile2("tile", 3, 4)), q.expr);
  EXPECT_EQ(loops(qo), "map[2](map[2](map[3](map[4])))");
  // a computed inner input is refused (tile then names the condition through the model)
  auto r = typed(
      "def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> map(fun(x => x + 1.0f)) |> map(fun(x "
      "=> x * 2.0f)))))");
  EXPECT_TRUE(fails_with(body(composed_tile2("tile", 3, 4)), r.expr, "computed"));
}

TEST(Tile, TilesATwoDimensionalMap) {
  auto p = typed("def f = fun(X: 6.8.f32 => X |> map(map(fun(x => x * 2.0f))))");
  Expr out = check(outer(N("mapNest", 2), S("tile", {int64_t(3), int64_t(4)})), p.expr);
  EXPECT_EQ(loops(out), "map[2](map[2](map[3](map[4])))");
}

TEST(Tile, TilesTheFunctionMapF) {
  auto p = typed("def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> map(fun(x => x + 1.0f)))))");
  // the map applied to its function only (the form outermost(isApplied(isMap)) finds)
  Expr out = check(outer(applied(S("isMap")), S("tile", {int64_t(2), int64_t(2)})), p.expr);
  EXPECT_EQ(loops(out), "map[3](map[4](map[2](map[2])))");
}

TEST(Tile, TileNDTilesADeeperNest) {
  auto p = typed(
      "def f = fun(X: 4.6.8.f32 => fun(y: f32 => X |> map(fun(a => a |> map(fun(b => b |> "
      "map(fun(x => x * y + 1.0f))))))))");
  Expr out = check(outer(N("mapNest", 3), L("tileND", {2, 3, 4})), p.expr);
  EXPECT_EQ(loops(out), "map[2](map[2](map[2](map[2](map[3](map[4])))))");
}

TEST(Tile, NamesTheConditionThatDoesNotHold) {
  auto p = typed("def f = fun(X: 6.8.f32 => X |> map(map(fun(x => x * 2.0f))))");
  EXPECT_TRUE(fails_with(S("tile", {int64_t(4), int64_t(4)}), p.expr->fn, "size 6 of dimension 1"));
  EXPECT_TRUE(fails_with(S("tile", {int64_t(3), int64_t(3)}), p.expr->fn, "size 8 of dimension 2"));
  auto q = typed("def f = fun(X: 6.f32 => X |> map(fun(x => x * 2.0f)))");
  EXPECT_TRUE(fails_with(S("tile", {int64_t(3), int64_t(3)}), q.expr->fn, "nest of 2 maps"));
  // the inner map's input is computed from the outer element: not a view
  auto r = typed(
      "def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> map(fun(x => x + 1.0f)) |> map(fun(x "
      "=> x * 2.0f)))))");
  EXPECT_TRUE(fails_with(S("tile", {int64_t(3), int64_t(4)}), r.expr->fn, "view"));
}

// ------------------------------------------------------------------ interchanges

TEST(Interchange, MapMapWithIndependentAndDependentInputs) {
  auto p = typed(
      "def f = fun(xs: 6.f32 => fun(ys: 4.f32 => xs |> map(fun(a => ys |> map(fun(b => a * 10.0f + "
      "b))))))");
  Expr out = check(S("topDown", {S("mapMapInterchange")}), p.expr);
  EXPECT_TRUE(tiling_contains(out, "transpose"));
  auto q = typed("def f = fun(X: 6.4.f32 => X |> map(fun(r => r |> map(fun(x => x - 1.0f)))))");
  check(S("topDown", {S("mapMapInterchange")}), q.expr);
}

TEST(Interchange, MapReduceAsInTheBrief) {
  // map(fun(i => reduce(op)(init)(xs_i))) == reduce over the rows of transpose(xs)
  // with an array accumulator
  auto p = typed("def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> reduce(add)(0.0f))))");
  Expr out = check(S("topDown", {S("mapReduceInterchange")}), p.expr);
  EXPECT_EQ(loops(out), "reduceSeq[8](map[6])");
  EXPECT_TRUE(tiling_contains(out, "generate"));
  // and back: the reduction inside the map again
  Expr back = check(S("topDown", {S("mapReduceInterchange")}), out);
  EXPECT_EQ(loops(back), "map[6](reduceSeq[8])");
}

TEST(Interchange, MapReduceWithAnyOperatorAndOuterValues) {
  // not associative, and the core uses the map's element directly
  auto p = typed(
      "def f = fun(xs: 6.f32 => fun(ys: 5.f32 => xs |> map(fun(a => ys |> reduceSeq(fun(acc, y => "
      "acc * 0.5f + a * y))(a)))))");
  // init depends on the map's element: not an interchangeable nest
  EXPECT_TRUE(fails_with(S("mapReduceInterchange"), p.expr->fn->fn, "two directly nested loops"));
  auto q = typed(
      "def f = fun(xs: 6.f32 => fun(ys: 5.f32 => xs |> map(fun(a => ys |> reduceSeq(fun(acc, y => "
      "acc * 0.5f + a * y))(1.0f)))))");
  Expr out = check(S("topDown", {S("mapReduceInterchange")}), q.expr, 0);
  EXPECT_EQ(loops(out), "reduceSeq[5](map[6])");
}

TEST(Interchange, ReduceReduceNeedsAnAssociativeCommutativeOperator) {
  auto p = typed(
      "def f = fun(X: 6.8.f32 => X |> reduceSeq(fun(acc, row => row |> reduceSeq(fun(a, x => a + "
      "x * x))(acc)))(0.0f))");
  Expr out = check(S("topDown", {S("reduceReduceInterchange")}), p.expr);
  EXPECT_EQ(loops(out), "reduceSeq[8](reduceSeq[6])");
  auto q = typed(
      "def f = fun(X: 6.8.f32 => X |> reduceSeq(fun(acc, row => row |> reduceSeq(fun(a, x => a - "
      "x))(acc)))(0.0f))");
  EXPECT_TRUE(fails_with(S("reduceReduceInterchange"), q.expr->fn, "associative and commutative"));
}

TEST(Interchange, InsideAReductionWithAnIncomingAccumulator) {
  // the maps of a reduction's body run over zip(acc)(..) and the inner reduction
  // starts from the accumulator's element: the nest carries the accumulator
  auto p = typed(
      "def f = fun(X: 4.6.f32 => fun(acc0: 4.f32 => zip(acc0)(X) |> map(fun(p => p._2 |> "
      "reduceSeq(fun(a, x => a + x * 2.0f))(p._1)))))");
  Expr out = check(S("topDown", {S("mapReduceInterchange")}), p.expr);
  EXPECT_EQ(loops(out), "reduceSeq[6](map[4])");
  Expr back = check(S("topDown", {S("mapReduceInterchange")}), out);
  EXPECT_EQ(loops(back), "map[4](reduceSeq[6])");
}

TEST(Interchange, MapReduceThroughVectorViewsAndPairComponents) {
  // gemv's row blocks: rows are pairs (row, y[i]), each row's dot product with x
  // runs over 4-lane vectors. The reduction moves outside the map of rows with an
  // array of vector accumulators; x is read once per step for all rows.
  auto p = typed(
      "def f = fun(B: 3.(8.f32, f32) => fun(x: 8.f32 => B |> map(fun(r => zip(r._1 |> "
      "asVector(4))(x |> asVector(4)) |> reduceSeq(fun(acc, v => acc + v._1 * "
      "v._2))(vectorFromScalar(0.0f))))))");
  Expr out = check(S("topDown", {S("mapReduceInterchange")}), p.expr);
  EXPECT_EQ(loops(out), "reduceSeq[2](map[3])");
  Expr back = check(S("topDown", {S("mapReduceInterchange")}), out);
  EXPECT_EQ(loops(back), "map[3](reduceSeq[2])");
  // asScalar is a view too
  auto q = typed(
      "def f = fun(V: 3.2.vec[f32, 4] => V |> map(fun(r => r |> asScalar |> "
      "reduceSeq(fun(acc, x => acc + x))(0.0f))))");
  Expr qo = check(S("topDown", {S("mapReduceInterchange")}), q.expr);
  EXPECT_EQ(loops(qo), "reduceSeq[8](map[3])");
}

TEST(Interchange, RefusesLoopsOfTheWrongKind) {
  auto p = typed("def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> reduce(add)(0.0f))))");
  EXPECT_TRUE(fails_with(S("mapMapInterchange"), p.expr->fn, "not map and map"));
  EXPECT_TRUE(fails_with(S("reduceReduceInterchange"), p.expr->fn, "not reduce and reduce"));
  // a reduction of a computed array must be fused first
  auto q = typed(
      "def f = fun(X: 6.8.f32 => X |> map(fun(r => r |> map(fun(x => x * x)) |> "
      "reduce(add)(0.0f))))");
  EXPECT_TRUE(fails_with(S("mapReduceInterchange"), q.expr->fn, "fuseReduceMap"));
}

// ------------------------------------------------------------------ reorder

// The matrix product tiled, with its reduction split by 4 (the paper's blocking
// before the reorder): levels 1 i.o, 2 j.o, 3 i.i, 4 j.i, 5 k.o, 6 k.i.
Expr blocked_mm(const std::string& text) {
  auto p = typed(text);
  Strategy s = seq(seq(seq(seq(S("DFNF"), S("topDown", {S("fuseReduceMap")})),
                           outer(N("mapNest", 2), S("tile", {int64_t(4), int64_t(8)}))),
                       outer(applied(applied(S("isReduceSeq"))), S("reduceMapFission"))),
                   inner(full(S("isReduce")), N("splitStrategy", 2)));
  return apply_ok(s, p.expr);
}

TEST(Reorder, ThePapersPermutations) {
  Expr b = blocked_mm(kMM);
  auto p = typed(kMM);
  Expr r1 = apply_ok(L("reorder", {1, 2, 5, 6, 3, 4}), b);
  EXPECT_TRUE(well_typed(r1));
  EXPECT_TRUE(same_semantics(p.expr, r1));
  EXPECT_EQ(loops(r1), "map[2](map[2](reduceSeq[2](reduceSeq[2](map[4](map[8])))))");
  Expr r2 = apply_ok(L("reorder", {1, 2, 5, 3, 6, 4}), b);
  EXPECT_TRUE(well_typed(r2));
  EXPECT_TRUE(same_semantics(p.expr, r2));
  EXPECT_EQ(loops(r2), "map[2](map[2](reduceSeq[2](map[4](reduceSeq[2](map[8])))))");
}

TEST(Reorder, EveryInterchangeStepPreservesTheSemantics) {
  // reorder([1, 2, 5, 6, 3, 4]) is the composition of these adjacent interchanges
  // (each a map-reduce or reduce-reduce interchange); every prefix is checked.
  Expr b = blocked_mm(kMM);
  auto p = typed(kMM);
  for (std::vector<int64_t> perm : std::vector<std::vector<int64_t>>{{1, 2, 3, 4, 5, 6},
                                                                     {1, 2, 3, 5, 4, 6},
                                                                     {1, 2, 5, 3, 4, 6},
                                                                     {1, 2, 5, 3, 6, 4},
                                                                     {1, 2, 5, 6, 3, 4},
                                                                     {5, 6, 1, 2, 3, 4},
                                                                     {6, 5, 4, 3, 2, 1},
                                                                     {2, 1, 4, 3, 6, 5}}) {
    SCOPED_TRACE(::testing::PrintToString(perm));
    Expr r = apply_ok(L("reorder", perm), b);
    EXPECT_TRUE(well_typed(r));
    EXPECT_TRUE(same_semantics(p.expr, r));
  }
}

TEST(Reorder, AReductionStartingFromAnArray) {
  // the reduction's initial value C is an array over the maps inside it: maps moved
  // out of the reduction read it like an input
  auto p = typed(
      "def f = fun(X: 5.3.4.f32 => fun(C: 3.4.f32 => X |> reduceSeq(fun(acc, blk => zip(acc)(blk) "
      "|> map(fun(p => zip(p._1)(p._2) |> map(fun(q => q._1 + q._2 * 0.5f))))))(C)))");
  for (std::vector<int64_t> perm :
       std::vector<std::vector<int64_t>>{{2, 3, 1}, {2, 1, 3}, {1, 3, 2}, {3, 2, 1}, {3, 1, 2}}) {
    SCOPED_TRACE(::testing::PrintToString(perm));
    check(L("reorder", perm), p.expr);
  }
  Expr out = check(L("reorder", {2, 3, 1}), p.expr);
  EXPECT_EQ(loops(out), "map[3](map[4](reduceSeq[5]))");
}

TEST(Reorder, MapsAreTransposedBack) {
  auto p = typed("def f = fun(X: 6.4.f32 => X |> map(fun(r => r |> map(fun(x => x * 3.0f)))))");
  Expr out = check(L("reorder", {2, 1}), p.expr);
  EXPECT_EQ(loops(out), "map[4](map[6])");
  EXPECT_TRUE(tiling_contains(out, "transpose"));
}

TEST(Reorder, NamesTheConditionThatDoesNotHold) {
  auto p = typed("def f = fun(X: 6.4.f32 => X |> map(fun(r => r |> map(fun(x => x * 3.0f)))))");
  EXPECT_TRUE(fails_with(L("reorder", {1, 1}), p.expr, "not a permutation"));
  EXPECT_TRUE(fails_with(L("reorder", {1, 3, 2}), p.expr, "needs 3"));
  auto q = typed(
      "def f = fun(X: 6.8.f32 => X |> reduceSeq(fun(acc, row => row |> reduceSeq(fun(a, x => a - "
      "x))(acc)))(0.0f))");
  EXPECT_TRUE(fails_with(L("reorder", {2, 1}), q.expr, "associative"));
}

// ------------------------------------------------------------------ blockTranspose

TEST(BlockTranspose, ReadsTheTransposeThroughABlockedLayout) {
  auto p = typed("def f = fun(B: 6.8.f32 => transpose(B) |> map(map(fun(x => x + 1.0f))))");
  Expr out = check(outer(applied(S("isTranspose")), N("blockTranspose", 4)), p.expr);
  EXPECT_TRUE(tiling_contains(out, "split"));
  EXPECT_TRUE(fails_with(N("blockTranspose", 3), p.expr->fn->arg, "not divisible by 3"));
}

}  // namespace
}  // namespace risec::elevate
