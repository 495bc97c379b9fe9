// A parallel loop's OpenMP schedule written in a program (`mapPar(dynamic, 4)(f)`,
// docs/language.md, "Parallel loops' schedules"): name resolution reads it into the
// primitive's schedule, a name the program binds stays that name, a bad chunk is an
// error at the literal, and a typed program with schedules prints and reads back the
// same.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rise/check.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"
#include "rise/resolve.h"
#include "support/diagnostics.h"

namespace risec::rise {
namespace {

SourceRef syntax_src(const std::string& text) {
  return std::make_shared<const SourceFile>(SourceFile{"sched.rise", text});
}
Expr resolved(const std::string& text) {
  return resolve_expr(parse_expr(syntax_src(text)));
}
// The primitive at the head of the first application of e's body (under lambdas).
Expr loop_head(Expr e) {
  while (e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) e = e->fn;
  return spine(e).head;
}

TEST(ScheduleSyntax, KindAndChunkAreTheLoopsFirstArguments) {
  struct Case {
    const char* text;
    PrimId prim;
    ParSchedule schedule;
  };
  using K = ParSchedule::Kind;
  const Case cases[] = {
      {"fun(f => fun(xs => mapPar(dynamic, 4)(f)(xs)))", PrimId::MapPar, {K::Dynamic, 4}},
      {"fun(f => fun(xs => mapPar(dynamic)(4)(f)(xs)))", PrimId::MapPar, {K::Dynamic, 4}},
      {"fun(f => fun(xs => xs |> mapPar(guided)(f)))", PrimId::MapPar, {K::Guided, 0}},
      {"fun(xs => xs |> reducePar(static, 8)(add)(0.0f))", PrimId::ReducePar, {K::Static, 8}},
      {"fun(xs => reducePar(static)(add, 0.0f, xs))", PrimId::ReducePar, {K::Static, 0}},
      {"fun(f => fun(xs => mapPar(f)(xs)))", PrimId::MapPar, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    Expr h = loop_head(resolved(c.text));
    ASSERT_EQ(h->kind, ExprKind::Primitive);
    EXPECT_TRUE(h->prim->is(c.prim));
    EXPECT_EQ(h->schedule, c.schedule);
  }
}

// A kind's name bound by the program is that binding: a lambda's parameter, a def.
TEST(ScheduleSyntax, ABoundNameIsNoKind) {
  Expr h = loop_head(resolved("fun(dynamic => fun(xs => xs |> mapPar(dynamic)))"));
  EXPECT_TRUE(h->schedule.is_default());
  Program p = parse_program(
      syntax_src("def dynamic = fun(a: f32 => a * 2.0f)\n"
                 "def f = depFun(n: Nat => fun(xs: n.f32 => xs |> mapPar(dynamic)))"));
  Checked c = check_program(p, "", nullptr);
  bool any = false;
  for_each_subexpr(c.expr, [&](const Expr& s) {
    any = any || !s->schedule.is_default();
    return true;
  });
  EXPECT_FALSE(any) << print_expr(c.expr);
  // A binder named mapPar is no primitive.
  Expr b = resolved("fun(mapPar => fun(dynamic => fun(xs => mapPar(dynamic, 4)(xs))))");
  for_each_subexpr(b, [](const Expr& s) {
    EXPECT_NE(s->kind, ExprKind::Primitive) << s->name;
    return true;
  });
}

TEST(ScheduleSyntax, ABadChunkIsAnErrorAtTheLiteral) {
  for (const char* chunk : {"0", "-4", "2147483648"}) {
    const std::string text =
        std::string("fun(f => fun(xs => xs |> mapPar(dynamic, ") + chunk + ")(f)))";
    SCOPED_TRACE(text);
    try {
      resolved(text);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      EXPECT_NE(e.message().find("the schedule's chunk must be a number of iterations from 1 to "
                                 "2147483647, not " +
                                 std::string(chunk)),
                std::string::npos)
          << e.message();
      EXPECT_EQ(e.span().begin, text.find(chunk, text.find("dynamic"))) << e.message();
    }
  }
}

// Gives every mapPar and reducePar of a tree a schedule, as the rule ompSchedule does.
struct Schedule : ExprMutator {
  Expr visit_primitive(const Expr& e) override {
    if (e->prim->is(PrimId::MapPar)) return with_schedule(e, {ParSchedule::Kind::Static, 2});
    if (e->prim->is(PrimId::ReducePar)) return with_schedule(e, {ParSchedule::Kind::Dynamic, 16});
    return e;
  }
};

// A typed program with schedules (what `risec rewrite` prints) and a binder named like a
// kind prints, reads back and types to the same program.
TEST(ScheduleSyntax, TypedProgramsReadBack) {
  const char* text =
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => fun(dynamic: f32 =>\n"
      "  x |> mapPar(fun(row => row |> map(fun(a => a * dynamic)) |>\n"
      "    reducePar(add)(0.0f))))))";
  Checked c = check_program(parse_program(syntax_src(text)), "", nullptr);
  Schedule schedule;
  const Expr e = schedule.mutate(c.expr);
  const std::string printed = print_expr(e);
  EXPECT_NE(printed.find("mapPar(static, 2)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("reducePar(dynamic, 16)"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("fun(dynamic"), std::string::npos) << printed;  // renamed
  Checked back = check_program(parse_program(syntax_src("def f = " + printed)), "", nullptr);
  EXPECT_TRUE(alpha_equal(back.expr, e)) << printed << "\nread back as\n" << print_expr(back.expr);
}

}  // namespace
}  // namespace risec::rise
