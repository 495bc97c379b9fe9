// Tests of the shared traversal of RISE expressions (rise/expr.h): children and
// rebuild, the default ExprMutator (which must hand back unchanged trees as the
// same objects), a mutator that overrides one kind, ExprVisitor and the pre-order
// helpers, and free variables, which are computed on the visitor.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "rise/expr.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"

namespace risec::rise {
namespace {

Expr pe(const std::string& text) {
  return parse_expr(std::make_shared<const SourceFile>(SourceFile{"test.rise", text}));
}

TEST(ExprTraversal, ChildrenInOrder) {
  Expr f = ident("f"), x = ident("x");
  Expr a = app(f, x);
  EXPECT_EQ(children(a), (std::vector<Expr>{f, x}));
  Expr l = lambda("x", a);
  EXPECT_EQ(children(l), (std::vector<Expr>{a}));
  EXPECT_EQ(children(dep_lambda(Kind::Nat, "n", a)), (std::vector<Expr>{a}));
  EXPECT_EQ(children(dep_app(f, Nat(4))), (std::vector<Expr>{f}));
  EXPECT_EQ(children(annotation(x, nullptr)), (std::vector<Expr>{x}));
  EXPECT_TRUE(children(x).empty());
  EXPECT_TRUE(children(int_lit(3)).empty());
  EXPECT_TRUE(children(prim_expr(PrimId::Map)).empty());
}

TEST(ExprTraversal, RebuildSharesUnchangedNodes) {
  Expr f = ident("f"), x = ident("x"), y = ident("y");
  Expr a = app(f, x, Span{});
  EXPECT_EQ(rebuild(a, children(a)), a);
  EXPECT_EQ(rebuild(a, f, x), a);
  Expr leaf = int_lit(1);
  EXPECT_EQ(rebuild(leaf, {}), leaf);

  Expr b = rebuild(a, {f, y});
  ASSERT_NE(b, a);
  EXPECT_EQ(b->kind, ExprKind::App);
  EXPECT_EQ(b->fn, f);  // the unchanged child is the same node
  EXPECT_EQ(b->arg, y);

  // Everything but the children is kept: binder, annotation, type.
  Expr l = with_type(lambda("x", x, scalar(ScalarKind::F32)), nullptr);
  Expr l2 = rebuild(l, {y});
  EXPECT_EQ(l2->name, "x");
  EXPECT_EQ(l2->annot, l->annot);
  EXPECT_EQ(l2->fn, y);
  EXPECT_EQ(l2->arg, nullptr);

  EXPECT_THROW(rebuild(a, {f}), Error);
}

TEST(ExprTraversal, DefaultMutatorReturnsTheSameTree) {
  Expr e = pe("depFun((n: Nat) => fun(x => fun(y => map(fun(a => add(a)(y)))(x))))");
  ExprMutator identity;
  EXPECT_EQ(identity.mutate(e), e);
}

// Renames the free occurrences of one variable: only Ident and Lambda are overridden.
class Rename : public ExprMutator {
 public:
  Rename(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  Expr visit_ident(const Expr& e) override { return e->name == from_ ? ident(to_, e->span) : e; }
  Expr visit_lambda(const Expr& e) override {
    return e->name == from_ ? e : mutate_children(e);  // shadowed below
  }

 private:
  std::string from_, to_;
};

TEST(ExprTraversal, MutatorRenamesAVariable) {
  Expr e = pe("fun(y => add(x)(fun(x => x)(y)))");
  Expr r = Rename("x", "z").mutate(e);
  EXPECT_EQ(print_expr(r), print_expr(pe("fun(y => add(z)(fun(x => x)(y)))")));
  EXPECT_TRUE(alpha_equal(r, pe("fun(y => add(z)(fun(x => x)(y)))")));

  // The subtree without a free x is shared, not copied.
  const Expr& inner = e->fn->arg;  // fun(x => x)(y)
  EXPECT_EQ(r->fn->arg, inner);

  // Nothing to rename: the same object.
  EXPECT_EQ(Rename("w", "z").mutate(e), e);
}

// Counts nodes by kind.
class KindCount : public ExprVisitor {
 public:
  std::map<ExprKind, int> count;
  void visit(const Expr& e) override {
    ++count[e->kind];
    ExprVisitor::visit(e);
  }
};

TEST(ExprTraversal, VisitorCountsNodes) {
  // fun(x => map(f)(x)) with f a free variable: 1 lambda, 2 apps, 2 idents, 1 primitive.
  Expr e = lambda("x", app(app(prim_expr(PrimId::Map), ident("f")), ident("x")));
  KindCount c;
  c.visit(e);
  EXPECT_EQ(c.count[ExprKind::Lambda], 1);
  EXPECT_EQ(c.count[ExprKind::App], 2);
  EXPECT_EQ(c.count[ExprKind::Ident], 2);
  EXPECT_EQ(c.count[ExprKind::Primitive], 1);
  EXPECT_EQ(c.count.size(), 4u);

  // A visitor that stops at lambdas sees only what is outside them.
  struct OutsideLambdas : ExprVisitor {
    int idents = 0;
    void visit_ident(const Expr&) override { ++idents; }
    void visit_lambda(const Expr&) override {}
  } o;
  o.visit(app(e, ident("y")));
  EXPECT_EQ(o.idents, 1);
}

TEST(ExprTraversal, PreOrderHelpers) {
  Expr e = app(lambda("x", app(ident("g"), ident("x"))), int_lit(2));
  std::vector<ExprKind> order;
  for_each_subexpr(e, [&](const Expr& n) {
    order.push_back(n->kind);
    return n->kind != ExprKind::Lambda;  // do not enter lambdas
  });
  EXPECT_EQ(order, (std::vector<ExprKind>{ExprKind::App, ExprKind::Lambda, ExprKind::Literal}));

  int seen = 0;
  EXPECT_TRUE(any_subexpr(e, [&](const Expr& n) {
    ++seen;
    return n->kind == ExprKind::Ident && n->name == "g";
  }));
  EXPECT_EQ(seen, 4);  // app, lambda, app, g
  EXPECT_FALSE(any_subexpr(e, [](const Expr& n) { return n->kind == ExprKind::Foreign; }));
}

TEST(ExprTraversal, FreeVariables) {
  EXPECT_EQ(free_vars(pe("fun(x => f(x)(y)(f))")), (std::vector<std::string>{"f", "y"}));
  EXPECT_EQ(free_vars(pe("fun(x => fun(y => x(y)))")), (std::vector<std::string>{}));
  // A variable free in one branch and bound in another.
  EXPECT_EQ(free_vars(app(lambda("x", ident("x")), ident("x"))), (std::vector<std::string>{"x"}));
  // Shadowing: bound by the inner lambda, free again after it.
  EXPECT_EQ(free_vars(pe("fun(y => fun(x => x)(x)(fun(x => fun(x => x))))")),
            (std::vector<std::string>{"x"}));
}

TEST(ExprTraversal, OccursFree) {
  EXPECT_TRUE(occurs_free("y", pe("fun(x => f(x)(y))")));
  EXPECT_FALSE(occurs_free("x", pe("fun(x => f(x)(y))")));
  EXPECT_FALSE(occurs_free("z", pe("fun(x => f(x)(y))")));
  // Free in the argument of an application whose function binds it.
  EXPECT_TRUE(occurs_free("x", app(lambda("x", ident("x")), ident("x"))));
  EXPECT_FALSE(occurs_free("x", app(lambda("x", ident("x")), ident("y"))));
  // The answer agrees with free_vars on every sub-expression of a nested program.
  const Expr e = pe("fun(a => fun(b => a(fun(a => b(a))(c))(fun(c => c(a)))))");
  for_each_subexpr(e, [](const Expr& sub) {
    const std::vector<std::string> fv = free_vars(sub);
    for (const char* n : {"a", "b", "c", "d"})
      EXPECT_EQ(occurs_free(n, sub), std::find(fv.begin(), fv.end(), n) != fv.end()) << n;
    return true;
  });
}

}  // namespace
}  // namespace risec::rise
