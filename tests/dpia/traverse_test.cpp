// The traversal of imperative DPIA: every field that mentions a size is reached, and
// unchanged subtrees are shared. The hand-written substitution it replaced skipped an
// If's condition (a split or unrolled double-buffer loop kept the old loop variable
// there), an acceptor's data type and a Reorder's index function.
#include "dpia/traverse.h"
#include "rise/primitives.h"

#include <gtest/gtest.h>

#include "dpia/passes.h"

using namespace risec;
using namespace risec::dpia;
using arith::Nat;

namespace {

Type traverse_f32() {
  return rise::scalar(rise::ScalarKind::F32);
}

// Whether `var` occurs in any field of the command.
bool mentions(const CommandP& c, const std::string& var) {
  struct Find : Visitor {
    const std::string& var;
    bool found = false;
    explicit Find(const std::string& v) : var(v) {}
    void visit_nat(const Nat& n) override { found = found || arith::occurs(var, n); }
    void visit_type(const Type& t) override {
      if (t) found = found || rise::free_nat_vars(t).count(var) > 0;
    }
    void visit_fn(const rise::NatFun& f) override {
      found = found || (f.param != var && arith::occurs(var, f.body));
    }
  } find(var);
  find.visit(c);
  return find.found;
}

TEST(Traverse, SubstitutionReachesEveryField) {
  Nat i = Nat::var("i", Nat(0), Nat(8));
  Nat n = Nat::size_var("n");
  // a Reorder whose index function mentions i, read into an acceptor whose type does
  Expression r{Expression::View, rise::array(n, traverse_f32())};
  r.prim = &rise::primitive(rise::PrimId::Reorder);
  r.funs = {rise::NatFun{"k", Nat::var("k") + i}};
  r.args = {ex_var("x", rise::array(n, traverse_f32()))};
  ExpressionP read = ex_idx(ex_make(r), i);
  AcceptorP out = ac_idx(ac_var("y", rise::array(n + i, traverse_f32())), i);
  CommandP body = cm_if(arith::lt(i + Nat(2), Nat(8)), cm_assign(out, read), cm_seq({}));
  ASSERT_TRUE(mentions(body, "i"));
  CommandP s = substitute_nat(body, "i", Nat(3));
  EXPECT_FALSE(mentions(s, "i")) << print(s);
  // The condition is now constant.
  EXPECT_EQ(s->cond.as_const(), std::optional<bool>(true));
}

TEST(Traverse, MutatorSharesUnchangedNodes) {
  Nat n = Nat::size_var("n");
  CommandP a = cm_assign(ac_idx(ac_var("y", rise::array(n, traverse_f32())), Nat(0)),
                         ex_idx(ex_var("x", rise::array(n, traverse_f32())), Nat(0)));
  CommandP c = cm_seq({a, cm_comment("hi")});
  EXPECT_EQ(substitute_nat(c, "unused", Nat(1)), c);
  CommandP d = substitute_nat(c, "n", Nat(4));
  EXPECT_NE(d, c);
  EXPECT_EQ(d->body[1], c->body[1]);  // the comment is shared
}

TEST(Traverse, VisitorReachesMapViewTemplate) {
  // A map view's element acceptor (tmpl) is a child: a walk collecting sizes sees it.
  Nat m = Nat::size_var("m");
  Acceptor hole{Acceptor::Hole, rise::array(m, traverse_f32())};
  Acceptor t{Acceptor::View, rise::array(m, traverse_f32())};
  t.prim = &rise::primitive(rise::PrimId::Transpose);
  t.nats = {m};
  t.inner = ac_make(hole);
  Acceptor mv{Acceptor::MapView, rise::array(Nat(4), rise::array(m, traverse_f32()))};
  mv.inner = ac_var("y", rise::array(Nat(4), rise::array(m, traverse_f32())));
  mv.tmpl = ac_make(t);
  struct Count : Visitor {
    int acceptors = 0;
    void visit_acceptor(const Acceptor& a) override {
      ++acceptors;
      Visitor::visit_acceptor(a);
    }
  } count;
  count.visit(ac_make(mv));
  EXPECT_EQ(count.acceptors, 4);
}

TEST(Traverse, SubstituteVarReplacesReads) {
  Nat n = Nat::size_var("n");
  ExpressionP e = ex_idx(ex_var("x", rise::array(n, traverse_f32())), Nat(1));
  ExpressionP y = ex_var("y", rise::array(n, traverse_f32()));
  ExpressionP r = substitute_var(e, "x", y);
  EXPECT_EQ(r->args[0], y);
  EXPECT_EQ(substitute_var(e, "z", y), e);
}

TEST(Passes, ATemporaryReadOnlyInAConditionIsKept) {
  // The dead-temporary pass now sees reads in an If's condition.
  Nat n = Nat::size_var("n");
  CommandP write = cm_assign(ac_var("t", traverse_f32()), ex_var("x", traverse_f32()));
  CommandP use = cm_if(arith::lt(Nat::var("t"), n), cm_comment("a"), cm_comment("b"));
  CommandP prog = cm_new("t", traverse_f32(), Space::Default, cm_seq({write, use}));
  CommandP r = remove_dead_temporaries(prog);
  EXPECT_EQ(r->kind, Command::New);
}

TEST(Passes, ADeadTemporaryLosesEveryWriteWhereverItIs) {
  // Writes into a dead temporary inside a conditional and a scope go with its
  // allocation (the hand-written walk stopped at loops and allocations, leaving
  // writes to an undeclared name); containers left empty disappear.
  Nat n = Nat::size_var("n");
  Nat i = Nat::var("i", Nat(0), n);
  CommandP write = cm_assign(ac_var("t", traverse_f32()), ex_var("x", traverse_f32()));
  CommandP keep = cm_assign(ac_idx(ac_var("y", rise::array(n, traverse_f32())), i),
                            ex_var("x", traverse_f32()));
  Command block{Command::Block};
  block.body = {write};
  CommandP body = cm_seq({cm_if(arith::lt(i, Nat(1)), write, keep),
                          std::make_shared<const Command>(std::move(block)),
                          cm_if(arith::lt(i, Nat(2)), write, cm_seq({}))});
  CommandP prog = cm_new("t", traverse_f32(), Space::Default, cm_for("i", n, LoopKind::Seq, body));
  CommandP r = remove_dead_temporaries(prog);
  std::string text = print(r);
  EXPECT_EQ(text.find("t :="), std::string::npos) << text;
  EXPECT_EQ(text.find("new"), std::string::npos) << text;
  ASSERT_EQ(r->kind, Command::For) << text;
  EXPECT_EQ(r->body[0]->kind, Command::If) << text;  // the one with a live branch
  // Nothing but dead writes: nothing left.
  CommandP dead = cm_new("t", traverse_f32(), Space::Default, cm_for("i", n, LoopKind::Seq, write));
  EXPECT_EQ(remove_dead_temporaries(dead)->kind, Command::Seq);
  EXPECT_TRUE(remove_dead_temporaries(dead)->body.empty());
}

}  // namespace
