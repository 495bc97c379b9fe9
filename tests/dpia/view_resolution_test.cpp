// View resolution on its own: reads and writes through views end at memory with the
// paths the primitive table's index maps give, and conditional views become guarded
// choices only where the guard is not known.
#include "dpia/view_resolution.h"

#include <gtest/gtest.h>

namespace risec::dpia {
namespace {

using arith::Nat;
using rise::PrimId;

const rise::PrimitiveInfo& prim(PrimId id) {
  return rise::primitive(id);
}

Type view_f32() {
  return rise::scalar(rise::ScalarKind::F32);
}

std::string show(const Path& p) {
  std::string s;
  for (const PathElem& e : p)
    s += e.kind == PathElem::Index ? "[" + arith::print(e.i) + "]"
                                   : (e.kind == PathElem::Fst ? "._1" : "._2");
  return s;
}

TEST(ViewResolution, ReverseReadsFromTheEnd) {
  ExpressionP x = ex_var("x", rise::array(Nat(8), view_f32()));
  ExpressionP r = ex_view(prim(PrimId::Reverse), x->dt, {}, {}, {x});
  ResolvedReadP a = resolve_read(ex_idx(r, Nat(2)), {});
  ASSERT_TRUE(a->is_leaf());
  EXPECT_EQ(a->source->name, "x");
  EXPECT_EQ(show(a->path), "[5]");
}

TEST(ViewResolution, SplitThenTransposeComposeTheirMaps) {
  Nat n = Nat::var("n");
  ExpressionP x = ex_var("x", rise::array(Nat(4) * n, view_f32()));
  ExpressionP s = ex_view(prim(PrimId::Split), rise::array(n, rise::array(Nat(4), view_f32())),
                          {Nat(4)}, {}, {x});
  ExpressionP t = ex_view(prim(PrimId::Transpose), rise::array(Nat(4), rise::array(n, view_f32())),
                          {}, {}, {s});
  Nat i = Nat::var("i", Nat(0), Nat(4)), j = Nat::var("j", Nat(0), n);
  ResolvedReadP a = resolve_read(ex_idx(ex_idx(t, i), j), {});
  ASSERT_TRUE(a->is_leaf());
  EXPECT_EQ(a->path.size(), 1u);
  EXPECT_EQ(a->path[0].i, j * Nat(4) + i);
}

TEST(ViewResolution, ConcatChoosesOnlyWhenTheIndexIsUnknown) {
  ExpressionP a = ex_var("a", rise::array(Nat(3), view_f32()));
  ExpressionP b = ex_var("b", rise::array(Nat(5), view_f32()));
  ExpressionP c = ex_view(prim(PrimId::Concat), rise::array(Nat(8), view_f32()), {}, {}, {a, b});
  ResolvedReadP known = resolve_read(ex_idx(c, Nat(4)), {});
  ASSERT_TRUE(known->is_leaf());
  EXPECT_EQ(known->source->name, "b");
  EXPECT_EQ(show(known->path), "[1]");
  ResolvedReadP unknown = resolve_read(ex_idx(c, Nat::var("i", Nat(0), Nat(8))), {});
  ASSERT_FALSE(unknown->is_leaf());
  EXPECT_EQ(unknown->then->source->name, "a");
  EXPECT_EQ(unknown->orelse->source->name, "b");
}

TEST(ViewResolution, WritesThroughZipAndReverseLandInTheDestination) {
  Type pairs = rise::array(Nat(6), rise::pair(view_f32(), view_f32()));
  AcceptorP out = ac_var("out", pairs);
  Type half = rise::array(Nat(6), view_f32());
  AcceptorP second = ac_view(prim(PrimId::Zip), 1, {half, half}, {}, {}, out);
  AcceptorP rev = ac_view(prim(PrimId::Reverse), 0, {half}, {}, {}, second);
  ResolvedWrite w = resolve_write(ac_idx(rev, Nat(1)), {});
  EXPECT_EQ(w.target->name, "out");
  EXPECT_EQ(show(w.path), "[4]._2");
}

}  // namespace
}  // namespace risec::dpia
