// The strategy core on small hand-made trees: every combinator, traversal and
// predicate, including failure cases; and the .elv parser (lets, parameters, '@',
// located errors with suggestions, argument counts and kinds).
#include <gtest/gtest.h>

#include "elevate/library.h"
#include "elevate/parser.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {

using rise::PrimId;
namespace {

// x |> map(f) |> map(g) over 8 floats: two maps, one nested in the other's argument.
rise::Checked two_maps() {
  return typed("def f = fun(x: 8.f32 => x |> map(fun(a => a + 1.0f)) |> map(fun(b => b * 2.0f)))");
}

int count_prim(const rise::Expr& e, const std::string& name) {
  int n = e->kind == rise::ExprKind::Primitive && e->name == name ? 1 : 0;
  for (const rise::Expr& c : children(e)) n += count_prim(c, name);
  return n;
}

Strategy map_to_seq() {
  return make_strategy("mapSeq");
}

TEST(Combinators, IdFailSeqChoiceTry) {
  rise::Expr e = two_maps().expr;
  EXPECT_EQ(id()(e).expr(), e);
  EXPECT_FALSE(fail()(e).ok());
  EXPECT_FALSE(seq(id(), fail())(e).ok());
  EXPECT_FALSE(seq(fail(), id())(e).ok());
  EXPECT_TRUE(lchoice(fail(), id())(e).ok());
  EXPECT_EQ(lchoice(id(), fail())(e).expr(), e);
  EXPECT_EQ(try_(fail())(e).expr(), e);
  // try(s) = s <+ id: a failing rule leaves the program unchanged.
  EXPECT_EQ(try_(map_to_seq())(e).expr(), e);
}

TEST(Combinators, RepeatAndRepeatN) {
  rise::Expr e = two_maps().expr;
  rise::Expr all_seq = apply_ok(repeat(top_down(map_to_seq())), e);
  EXPECT_EQ(count_prim(all_seq, "map"), 0);
  EXPECT_EQ(count_prim(all_seq, "mapSeq"), 2);
  rise::Expr one = apply_ok(repeat_n(1, top_down(map_to_seq())), e);
  EXPECT_EQ(count_prim(one, "mapSeq"), 1);
  // Three applications are asked for but only two maps exist.
  EXPECT_FALSE(repeat_n(3, top_down(map_to_seq()))(e).ok());
  // repeat always succeeds, even when s never applies.
  EXPECT_TRUE(repeat(fail())(e).ok());
}

TEST(Traversals, TopDownAndBottomUpPickDifferentMaps) {
  rise::Expr e = two_maps().expr;
  // Top down reaches the outer map (applied last in the pipe) first.
  rise::Expr td = apply_ok(top_down(seq(is_applied(is_applied(is_map())), argument(id()))), e);
  EXPECT_EQ(td, e);
  // In a nest, the outermost map is the outer one and the innermost the inner one.
  rise::Expr nest =
      typed("def f = fun(x: 4.4.f32 => x |> map(fun(r => r |> map(fun(v => v + 1.0f)))))").expr;
  rise::Expr outer = apply_ok(outermost(is_applied(is_map()), map_to_seq()), nest);
  rise::Expr inner = apply_ok(innermost(is_applied(is_map()), map_to_seq()), nest);
  EXPECT_NE(rise::print_expr(outer).find("mapSeq(fun(r"), std::string::npos)
      << rise::print_expr(outer);
  EXPECT_NE(rise::print_expr(inner).find("mapSeq(fun(v"), std::string::npos)
      << rise::print_expr(inner);
  EXPECT_TRUE(same_semantics(nest, outer));
  EXPECT_TRUE(same_semantics(nest, inner));
  EXPECT_FALSE(top_down(fail())(e).ok());
  EXPECT_FALSE(bottom_up(fail())(e).ok());
}

TEST(Traversals, BodyFunctionArgument) {
  rise::Expr e = two_maps().expr;  // fun(x => ...)
  EXPECT_TRUE(body(id())(e).ok());
  EXPECT_FALSE(function(id())(e).ok());  // a lambda is not an application
  EXPECT_FALSE(argument(id())(e).ok());
  rise::Expr b = e->fn;  // map(g)(map(f)(x))
  EXPECT_TRUE(function(is_applied(is_map()))(b).ok());
  EXPECT_TRUE(argument(is_applied(is_applied(is_map())))(b).ok());
  EXPECT_FALSE(body(id())(b).ok());
}

TEST(Traversals, AllOneSome) {
  rise::Expr app = two_maps().expr->fn;  // two children: function and argument
  EXPECT_TRUE(all(id())(app).ok());
  EXPECT_FALSE(all(fail())(app).ok());
  EXPECT_TRUE(one(is_applied(is_map()))(app).ok());  // the function child
  EXPECT_FALSE(one(fail())(app).ok());
  EXPECT_TRUE(some(id())(app).ok());
  EXPECT_FALSE(some(fail())(app).ok());
  // A leaf has no children: all succeeds vacuously, one and some fail.
  rise::Expr leaf = rise::prim_expr(PrimId::Add);
  EXPECT_TRUE(all(fail())(leaf).ok());
  EXPECT_FALSE(one(id())(leaf).ok());
  EXPECT_FALSE(some(id())(leaf).ok());
}

TEST(Traversals, AllTopDownTryAllEverywhereNormalize) {
  rise::Expr e = two_maps().expr;
  EXPECT_FALSE(all_top_down(is_lambda())(e).ok());  // the body is not a lambda
  EXPECT_TRUE(all_top_down(id())(e).ok());
  rise::Expr both = apply_ok(try_all(map_to_seq()), e);
  EXPECT_EQ(count_prim(both, "mapSeq"), 2);
  EXPECT_TRUE(try_all(fail())(e).ok());
  EXPECT_EQ(count_prim(apply_ok(everywhere(map_to_seq()), e), "mapSeq"), 2);
  EXPECT_FALSE(everywhere(fail())(e).ok());
  EXPECT_EQ(count_prim(apply_ok(normalize(map_to_seq()), e), "mapSeq"), 2);
}

TEST(Predicates, OnSmallTerms) {
  rise::Expr e = two_maps().expr;
  rise::Expr b = e->fn;
  EXPECT_TRUE(is_lambda()(e).ok());
  EXPECT_FALSE(is_lambda()(b).ok());
  EXPECT_TRUE(is_fully_applied(is_map())(b).ok());
  EXPECT_FALSE(is_fully_applied(is_map())(b->fn).ok());  // map(g) misses its data
  EXPECT_TRUE(is_applied(is_map())(b->fn).ok());
  EXPECT_TRUE(is_primitive("map")(b->fn->fn).ok());
  EXPECT_FALSE(is_primitive("reduce")(b->fn->fn).ok());
  EXPECT_TRUE(contains_computation()(b).ok());
  EXPECT_FALSE(contains_computation()(typed("def f = fun(x: 4.4.f32 => transpose(x))").expr).ok());
  rise::Checked nest =
      typed("def f = fun(x: 4.4.f32 => x |> map(fun(r => r |> map(fun(v => v + 1.0f)))))");
  EXPECT_TRUE(map_nest(2)(nest.expr->fn).ok());
  EXPECT_FALSE(map_nest(3)(nest.expr->fn).ok());
}

// ---------------------------------------------------------------- .elv files

Error elv_error(const std::string& text) {
  try {
    parse_strategy(text, "s.elv");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an error for: " << text;
  return Error(ErrorKind::Internal, "none");
}

TEST(StrategyFiles, LetsParametersAndAt) {
  rise::Expr e = two_maps().expr;
  Strategy s = parse_strategy(
      "// comment\n"
      "let lower(s) = s @ outermost(isApplied(isMap));\n"
      "let twice = lower(mapSeq) ; lower(mapSeq);\n");
  EXPECT_EQ(count_prim(apply_ok(s, e), "mapSeq"), 2);
  // A file without lets is one strategy; `<+` and parentheses.
  Strategy t = parse_strategy("(fail <+ mapSeq) @ topDown ; try(fail)");
  EXPECT_EQ(count_prim(apply_ok(t, e), "mapSeq"), 1);
  // Names, numbers and lists as arguments.
  EXPECT_TRUE(parse_strategy("repeatN(1, topDown(isPrimitive(map)))")(e).ok());
  EXPECT_TRUE(parse_strategy("try(reorder([1, 2]))")(e).ok());
}

TEST(StrategyFiles, LocatedErrors) {
  Error e = elv_error("let a = id;\nlet b = a ; mapSeqq;\n");
  EXPECT_EQ(e.message(), "unknown strategy 'mapSeqq'; did you mean 'mapSeq'?");
  EXPECT_EQ(e.span().start().line, 2);
  EXPECT_EQ(e.span().start().col, 13);
  e = elv_error("tile(32)");
  EXPECT_NE(e.message().find("'tile' takes 2 argument(s), got 1"), std::string::npos)
      << e.message();
  e = elv_error("splitJoin(mapSeq)");
  EXPECT_NE(e.message().find("argument 1 of 'splitJoin' must be a number"), std::string::npos)
      << e.message();
  e = elv_error("try(3)");
  EXPECT_NE(e.message().find("must be a strategy"), std::string::npos) << e.message();
  e = elv_error("let f(x) = x;\nlet g = f;");
  EXPECT_NE(e.message().find("'f' takes 1 argument(s), got 0"), std::string::npos) << e.message();
  e = elv_error("id ;; id");
  EXPECT_EQ(e.span().start().col, 5);
  e = elv_error("");
  EXPECT_NE(e.message().find("empty"), std::string::npos);
}

TEST(StrategyFiles, FailuresAreLocatedAtTheCall) {
  rise::Expr e = two_maps().expr;
  Strategy s = parse_strategy(
      "let a = id;\nlet b = a ; (splitJoin(3) @ outermost(isApplied(isMap)));\n", "s.elv");
  Result r = s(e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure().where.start().line, 2);
  EXPECT_NE(r.failure().reason.find("divisible"), std::string::npos) << r.failure().reason;
}

// everywhere, like topDown, reports the refusal of a rule whose predicate matched
// (why the wanted location did not work), not only that no location was found; with
// no such refusal, the root's failure in parentheses.
TEST(StrategyFiles, EverywhereReportsTheRefusalAfterAMatch) {
  rise::Expr e = two_maps().expr;
  Strategy s = parse_strategy("let main = everywhere(isApplied(isMap) ; splitJoin(3));\n", "s.elv");
  Result r = s(e);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.failure().reason.find("divisible"), std::string::npos) << r.failure().reason;
  EXPECT_EQ(r.failure().reason.find("found no location"), std::string::npos) << r.failure().reason;
  Result root = everywhere(fail())(e);
  ASSERT_FALSE(root.ok());
  EXPECT_NE(root.failure().reason.find("found no location"), std::string::npos);
}

}  // namespace
}  // namespace risec::elevate::testing
