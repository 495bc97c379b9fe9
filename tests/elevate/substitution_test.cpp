// Tests of capture-avoiding substitution (elevate/rule_util.h), which is written on
// the shared RISE traversal: values for variables and type-level arguments for
// dependent binders, with the binders that would capture renamed, and unchanged
// trees handed back as the same objects.
#include <gtest/gtest.h>

#include "elevate/rule_util.h"
#include "rise/expr.h"

namespace risec::elevate::util {

using rise::PrimId;
namespace {

using rise::Expr;
using rise::ident;
using rise::lambda;

Expr add(const Expr& a, const Expr& b) {
  return rise::apps(rise::prim_expr(PrimId::Add), {a, b});
}

TEST(Substitution, ReplacesFreeOccurrences) {
  // fun(y => add(x)(y))[x := z]
  Expr e = lambda("y", add(ident("x"), ident("y")));
  Expr r = substitute(e, "x", ident("z"));
  EXPECT_TRUE(rise::alpha_equal(r, lambda("y", add(ident("z"), ident("y")))));
  EXPECT_EQ(rise::free_vars(r), (std::vector<std::string>{"z"}));
}

TEST(Substitution, AvoidsCapture) {
  // fun(y => add(x)(y))[x := y]: the binder is renamed, so y stays free.
  Expr e = lambda("y", add(ident("x"), ident("y")));
  Expr r = substitute(e, "x", ident("y"));
  ASSERT_EQ(r->kind, rise::ExprKind::Lambda);
  EXPECT_NE(r->name, "y");
  EXPECT_TRUE(rise::alpha_equal(r, lambda("w", add(ident("y"), ident("w")))));
  EXPECT_EQ(rise::free_vars(r), (std::vector<std::string>{"y"}));
}

TEST(Substitution, RespectsShadowingAndSharesUnchangedTrees) {
  Expr shadowing = lambda("x", add(ident("x"), ident("y")));
  EXPECT_EQ(substitute(shadowing, "x", ident("z")), shadowing);
  Expr unrelated = rise::app(lambda("a", ident("a")), ident("b"));
  EXPECT_EQ(substitute(unrelated, "x", ident("z")), unrelated);

  // Only the path to the occurrence is rebuilt.
  Expr left = rise::app(ident("f"), ident("g"));
  Expr e = rise::app(left, ident("x"));
  Expr r = substitute(e, "x", ident("z"));
  EXPECT_EQ(r->fn, left);
  EXPECT_EQ(r->arg->name, "z");
}

TEST(Substitution, TypeLevelArgumentsAvoidCapture) {
  // depFun(n => fun(x: m.f32 => x))[m := n]: the dependent binder is renamed.
  rise::Type t = rise::array(rise::Nat::var("m"), rise::scalar(rise::ScalarKind::F32));
  Expr e = rise::dep_lambda(rise::Kind::Nat, "n", lambda("x", ident("x"), t));
  rise::TypeSubst s;
  s.nats["m"] = rise::Nat::var("n");
  Expr r = substitute_types(e, s);
  ASSERT_EQ(r->kind, rise::ExprKind::DepLambda);
  EXPECT_NE(r->name, "n");
  rise::Type want = rise::array(rise::Nat::var("n"), rise::scalar(rise::ScalarKind::F32));
  EXPECT_TRUE(rise::equal(r->fn->annot, want));

  // A binder named like the substituted variable shadows it.
  Expr shadow = rise::dep_lambda(rise::Kind::Nat, "m", lambda("x", ident("x"), t));
  Expr r2 = substitute_types(shadow, s);
  EXPECT_EQ(r2->name, "m");
  EXPECT_TRUE(rise::equal(r2->fn->annot, t));
}

}  // namespace
}  // namespace risec::elevate::util
