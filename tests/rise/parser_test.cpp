// Tests of the RISE lexer and parser: the spec's examples and every .rise file of the
// repository parse, the desugaring and precedence of spec/rise-syntax.md, types,
// located error messages, nesting limits, and robustness on truncated and mutated
// input (success or risec::Error, nothing else).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "build_info.h"
#include "rise/lexer.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"

namespace risec::rise {
namespace {

namespace fs = std::filesystem;

SourceRef src(const std::string& text, const std::string& name = "test.rise") {
  return std::make_shared<const SourceFile>(SourceFile{name, text});
}
Expr parser_pe(const std::string& text) {
  return parse_expr(src(text));
}
Program pp(const std::string& text) {
  return parse_program(src(text));
}
Type pt(const std::string& text) {
  return parse_type(src(text));
}

std::string parser_read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every .rise file of the repository: examples/*/*.rise and the prelude.
std::vector<fs::path> rise_files() {
  std::vector<fs::path> out;
  fs::path root(RISEC_SOURCE_DIR);
  for (const auto& dir : fs::directory_iterator(root / "examples")) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path()))
      if (f.path().extension() == ".rise") out.push_back(f.path());
  }
  out.push_back(root / "src" / "rise" / "prelude.rise");
  std::sort(out.begin(), out.end());
  return out;
}

Expr id(const std::string& n) {
  return ident(n);
}
Expr prim(PrimId id) {
  return prim_expr(id);
}
Expr prim(const std::string& n) {
  return prim_expr(find_primitive(n)->id);
}
Expr parser_bin(const std::string& op, Expr a, Expr b) {
  return apps(prim(op), {a, b});
}
Nat sv(const std::string& n) {
  return Nat::size_var(n);
}

struct ErrorAt {
  int line = 0, col = 0;
  std::string message;
  ErrorKind kind = ErrorKind::Internal;
};

ErrorAt program_error(const std::string& text) {
  try {
    pp(text);
  } catch (const Error& e) {
    LineCol lc = e.span().start();
    return {lc.line, lc.col, e.message(), e.kind()};
  }
  ADD_FAILURE() << "no error for: " << text;
  return {};
}

// The spec's "Examples that must parse" (mm with its missing closing parenthesis).
const char* kSpecMv = R"(// RISE & Shine paper, Listing 1, as printed there
def mv = depFun((n: Nat, m: Nat) =>
fun(M: Array[n, Array[m, f32]] =>
fun(x: Array[m, f32] =>
M |> map(fun(row =>
zip(row)(x) |>
map(fun(ax => fst(ax) * snd(ax))) |>
reduce(add)(0.0f) )) )) )
)";

const char* kSpecMm = R"(def mm = depFun((n: Nat, m: Nat, k: Nat) =>
  fun(A: n.k.f32 => fun(B: k.m.f32 =>
    A |> map(fun(rowA =>
      transpose(B) |> map(fun(colB =>
        zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))))
)";

const char* kSpecBlur3 = R"(def blur3 = depFun(n: Nat => fun(x: n.f32 =>
  x |> padClamp(1)(1) |> slide(3)(1)
    |> map(fun(w => (w[0] + w[1] + w[2]) / 3.0f))))
)";

// ---------------------------------------------------------------------------------
// The spec's examples and the repository's files
// ---------------------------------------------------------------------------------

TEST(Parser, SpecListing1) {
  Program p = pp(kSpecMv);
  ASSERT_EQ(p.defs.size(), 1u);
  const Definition& d = p.defs[0];
  EXPECT_EQ(d.name, "mv");
  EXPECT_EQ(d.span.start().line, 2);
  EXPECT_EQ(d.span.start().col, 5);
  Expr e = d.body;
  ASSERT_EQ(e->kind, ExprKind::DepLambda);
  EXPECT_EQ(e->name, "n");
  EXPECT_EQ(e->binder_kind, Kind::Nat);
  e = e->fn;
  ASSERT_EQ(e->kind, ExprKind::DepLambda);
  EXPECT_EQ(e->name, "m");
  e = e->fn;
  ASSERT_EQ(e->kind, ExprKind::Lambda);
  EXPECT_EQ(e->name, "M");
  ASSERT_TRUE(e->annot);
  EXPECT_TRUE(equal(e->annot, array(sv("n"), array(sv("m"), scalar(ScalarKind::F32)))));
  e = e->fn;
  ASSERT_EQ(e->kind, ExprKind::Lambda);
  EXPECT_EQ(e->name, "x");
  EXPECT_TRUE(equal(e->annot, array(sv("m"), scalar(ScalarKind::F32))));
  // M |> map(fun(row => zip(row)(x) |> map(...) |> reduce(add)(0.0f)))
  Expr body = e->fn;
  Expr row_fn = lambda(
      "row", apps(apps(id("reduce"), {id("add"), f32_lit(0.0)}),
                  {apps(apps(id("map"), {lambda("ax", parser_bin("mul", app(id("fst"), id("ax")),
                                                                 app(id("snd"), id("ax"))))}),
                        {apps(id("zip"), {id("row"), id("x")})})}));
  EXPECT_TRUE(alpha_equal(body, apps(id("map"), {row_fn, id("M")}))) << print_expr(body);
}

TEST(Parser, SpecMatrixMultiplication) {
  Program p = pp(kSpecMm);
  ASSERT_EQ(p.defs.size(), 1u);
  Expr e = p.defs[0].body;
  for (const char* n : {"n", "m", "k"}) {
    ASSERT_EQ(e->kind, ExprKind::DepLambda);
    EXPECT_EQ(e->name, n);
    e = e->fn;
  }
  ASSERT_EQ(e->kind, ExprKind::Lambda);
  EXPECT_TRUE(equal(e->annot, array(sv("n"), array(sv("k"), scalar(ScalarKind::F32)))));
  // p._1 * p._2 somewhere inside
  Expr expected_mul =
      parser_bin("mul", app(prim(PrimId::Fst), id("p")), app(prim(PrimId::Snd), id("p")));
  std::vector<Expr> stack{e};
  bool found = false;
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (x->kind == ExprKind::Lambda && x->name == "p")
      found = found || alpha_equal(x->fn, expected_mul);
    if (x->fn) stack.push_back(x->fn);
    if (x->arg) stack.push_back(x->arg);
  }
  EXPECT_TRUE(found);
}

TEST(Parser, SpecBlur3) {
  Program p = pp(kSpecBlur3);
  ASSERT_EQ(p.defs.size(), 1u);
  Expr e = p.defs[0].body;
  ASSERT_EQ(e->kind, ExprKind::DepLambda);
  e = e->fn;
  ASSERT_EQ(e->kind, ExprKind::Lambda);
  Expr w = id("w");
  auto at = [&](int i) { return apps(prim(PrimId::Idx), {int_lit(i), w}); };
  Expr avg =
      parser_bin("div", parser_bin("add", parser_bin("add", at(0), at(1)), at(2)), f32_lit(3.0));
  Expr chain = app(app(id("map"), lambda("w", avg)),
                   app(apps(id("slide"), {int_lit(3), int_lit(1)}),
                       app(apps(id("padClamp"), {int_lit(1), int_lit(1)}), id("x"))));
  EXPECT_TRUE(alpha_equal(e->fn, chain)) << print_expr(e->fn);
}

TEST(Parser, EveryRepositoryFileParses) {
  std::vector<fs::path> files = rise_files();
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    try {
      Program p = parse_program(src(parser_read_file(f), f.string()));
      EXPECT_FALSE(p.defs.empty());
      for (const Definition& d : p.defs) {
        EXPECT_TRUE(d.body || d.foreign);
        EXPECT_TRUE(d.span.known());
      }
      // Each example folder's program defines its folder's name.
      if (f.parent_path().parent_path().filename() == "examples") {
        EXPECT_NE(p.find(f.stem().string()), nullptr);
      }
    } catch (const Error& e) {
      ADD_FAILURE() << format_error(e);
    }
  }
}

TEST(Parser, ProgramStructure) {
  Program p =
      pp("// comment\ndef a = 1 /* block\n comment */ def b : f32 = 2.0f\n"
         "foreign def clamp(x: f32, lo: f32, hi: f32): f32 = "
         "\"{ return x < lo ? lo : (x > hi ? hi : x); }\"\n"
         "def c = clamp(a)");
  ASSERT_EQ(p.defs.size(), 4u);
  EXPECT_EQ(p.defs[0].name, "a");
  EXPECT_TRUE(alpha_equal(p.defs[0].body, int_lit(1)));
  EXPECT_TRUE(equal(p.defs[1].annot, scalar(ScalarKind::F32)));
  const Definition& f = p.defs[2];
  EXPECT_EQ(f.name, "clamp");
  EXPECT_EQ(f.body, nullptr);
  ASSERT_TRUE(f.foreign);
  EXPECT_EQ(f.foreign->params, (std::vector<std::string>{"x", "lo", "hi"}));
  ASSERT_EQ(f.foreign->param_types.size(), 3u);
  EXPECT_TRUE(equal(f.foreign->result, scalar(ScalarKind::F32)));
  EXPECT_EQ(f.foreign->body, "{ return x < lo ? lo : (x > hi ? hi : x); }");
  EXPECT_EQ(p.find("clamp"), &p.defs[2]);
  EXPECT_EQ(p.find("nope"), nullptr);
  EXPECT_TRUE(pp("").defs.empty());
  EXPECT_TRUE(pp("  // only a comment\n").defs.empty());
  EXPECT_EQ(pp("\xEF\xBB\xBF"
               "def a = 1")
                .defs.size(),
            1u);  // a byte order mark
}

TEST(Parser, StringEscapes) {
  Program p = pp(R"(foreign def f(): f32 = "a\n\t\"\\\x41")");
  EXPECT_EQ(p.defs[0].foreign->body, "a\n\t\"\\A");
}

// ---------------------------------------------------------------------------------
// Desugaring and precedence
// ---------------------------------------------------------------------------------

void parser_expect_same(const std::string& text, const Expr& expected) {
  Expr e = parser_pe(text);
  EXPECT_TRUE(alpha_equal(e, expected))
      << text << "\n  parsed as: " << print_expr(e) << "\n  expected:  " << print_expr(expected);
}

TEST(Parser, Arithmetic) {
  Expr a = id("a"), b = id("b"), c = id("c");
  parser_expect_same("a + b * c", parser_bin("add", a, parser_bin("mul", b, c)));
  parser_expect_same("a * b + c", parser_bin("add", parser_bin("mul", a, b), c));
  parser_expect_same("a - b - c", parser_bin("sub", parser_bin("sub", a, b), c));
  parser_expect_same("a / b % c", parser_bin("mod", parser_bin("div", a, b), c));
  parser_expect_same("(a - b) * c", parser_bin("mul", parser_bin("sub", a, b), c));
  parser_expect_same("a - (b - c)", parser_bin("sub", a, parser_bin("sub", b, c)));
  parser_expect_same("-a * b", parser_bin("mul", app(prim(PrimId::Neg), a), b));
  parser_expect_same("- -a", app(prim(PrimId::Neg), app(prim(PrimId::Neg), a)));
  parser_expect_same("!a", app(prim(PrimId::Not), a));
  parser_expect_same("!!a", app(prim(PrimId::Not), app(prim(PrimId::Not), a)));
}

TEST(Parser, Comparisons) {
  Expr a = id("a"), b = id("b");
  parser_expect_same("a < b", parser_bin("lt", a, b));
  parser_expect_same("a > b", parser_bin("gt", a, b));
  parser_expect_same("a == b", parser_bin("equal", a, b));
  parser_expect_same("a <= b", app(prim(PrimId::Not), parser_bin("gt", a, b)));
  parser_expect_same("a >= b", app(prim(PrimId::Not), parser_bin("lt", a, b)));
  parser_expect_same("a != b", app(prim(PrimId::Not), parser_bin("equal", a, b)));
  parser_expect_same("a + 1 < b * 2", parser_bin("lt", parser_bin("add", a, int_lit(1)),
                                                 parser_bin("mul", b, int_lit(2))));
}

TEST(Parser, NegativeLiterals) {
  parser_expect_same("-5", int_lit(-5));
  parser_expect_same("-2.5f", f32_lit(-2.5));
  parser_expect_same("-2.5", f64_lit(-2.5));
  parser_expect_same("-128i8", scalar_lit(ScalarKind::I8, -128, 0));
  parser_expect_same("a - 1", parser_bin("sub", id("a"), int_lit(1)));
  parser_expect_same("a - -1", parser_bin("sub", id("a"), int_lit(-1)));
  parser_expect_same("-9223372036854775808", int_lit(std::numeric_limits<int64_t>::min()));
  // A '-' before a literal that is called, indexed or projected negates the result.
  parser_expect_same("-5[0]",
                     app(prim(PrimId::Neg), apps(prim(PrimId::Idx), {int_lit(0), int_lit(5)})));
  parser_expect_same("-(5)", app(prim(PrimId::Neg), int_lit(5)));
  parser_expect_same("-x", app(prim(PrimId::Neg), id("x")));
}

TEST(Parser, Postfix) {
  Expr f = id("f"), x = id("x"), i = id("i"), p = id("p");
  parser_expect_same("f(x)", app(f, x));
  parser_expect_same("f(x, i)", app(app(f, x), i));
  parser_expect_same("f(x)(i)", app(app(f, x), i));
  parser_expect_same("x[i]", apps(prim(PrimId::Idx), {i, x}));
  parser_expect_same("x[i][0]",
                     apps(prim(PrimId::Idx), {int_lit(0), apps(prim(PrimId::Idx), {i, x})}));
  parser_expect_same("p._1", app(prim(PrimId::Fst), p));
  parser_expect_same("p._2._1", app(prim(PrimId::Fst), app(prim(PrimId::Snd), p)));
  parser_expect_same("f(x)._1[i]", apps(prim(PrimId::Idx), {i, app(prim(PrimId::Fst), app(f, x))}));
  parser_expect_same("-p._1", app(prim(PrimId::Neg), app(prim(PrimId::Fst), p)));
}

TEST(Parser, Annotations) {
  Type f32 = scalar(ScalarKind::F32);
  parser_expect_same("x : f32", annotation(id("x"), f32));
  parser_expect_same("a + b : f32", parser_bin("add", id("a"), annotation(id("b"), f32)));
  parser_expect_same("(a + b : f32)", parser_bin("add", id("a"), annotation(id("b"), f32)));
  parser_expect_same("f(x : n.f32)", app(id("f"), annotation(id("x"), array(sv("n"), f32))));
  parser_expect_same("f : f32 -> f32", annotation(id("f"), fun(f32, f32)));
  parser_expect_same("-1 : i64", annotation(int_lit(-1), scalar(ScalarKind::I64)));
}

TEST(Parser, PipesAndComposition) {
  Expr f = id("f"), g = id("g"), x = id("x");
  parser_expect_same("x |> f", app(f, x));
  parser_expect_same("x |> f |> g", app(g, app(f, x)));
  parser_expect_same("x |> map(f) |> reduce(add)(0.0f)",
                     app(apps(id("reduce"), {id("add"), f32_lit(0)}), app(app(id("map"), f), x)));
  parser_expect_same("a + b |> f", app(f, parser_bin("add", id("a"), id("b"))));
  parser_expect_same("x |> fun(y => y)", app(lambda("y", id("y")), x));
  // f >> g == fun(v => g(f(v))), with a fresh binder that cannot capture.
  Expr c = parser_pe("f >> g");
  ASSERT_EQ(c->kind, ExprKind::Lambda);
  EXPECT_TRUE(is_reserved_name(c->name));
  EXPECT_TRUE(alpha_equal(c, lambda("v", app(g, app(f, id("v"))))));
  parser_expect_same("f >> g >> h",
                     lambda("v", app(id("h"), app(lambda("w", app(g, app(f, id("w")))), id("v")))));
  // >> binds tighter than |>, looser than comparisons.
  parser_expect_same("x |> f >> g", app(lambda("v", app(g, app(f, id("v")))), x));
  parser_expect_same("a < b >> g",
                     lambda("v", app(g, app(parser_bin("lt", id("a"), id("b")), id("v")))));
  // A user name like `x` inside f is not captured by the fresh binder.
  parser_expect_same("fun(x => f(x) >> g)",
                     lambda("x", lambda("v", app(g, app(app(f, id("x")), id("v"))))));
}

TEST(Parser, LambdasAndLet) {
  Expr body = parser_bin("add", id("x"), id("y"));
  Expr curried = lambda("x", lambda("y", body));
  parser_expect_same("fun(x, y => x + y)", curried);
  parser_expect_same("fun((x, y) => x + y)", curried);
  parser_expect_same("fun(x => fun(y => x + y))", curried);
  Type f32 = scalar(ScalarKind::F32);
  parser_expect_same("fun(x: f32, y => x)", lambda("x", lambda("y", id("x")), f32));
  parser_expect_same("fun(f: f32 -> f32 => f)", lambda("f", id("f"), fun(f32, f32)));
  parser_expect_same("fun(x: Array[n, f32] => x)", lambda("x", id("x"), array(sv("n"), f32)));
  parser_expect_same(
      "let x = 1 in x + x",
      apps(prim(PrimId::Let), {int_lit(1), lambda("x", parser_bin("add", id("x"), id("x")))}));
  parser_expect_same(
      "let x = 1 in let y = x in y",
      apps(prim(PrimId::Let),
           {int_lit(1), lambda("x", apps(prim(PrimId::Let), {id("x"), lambda("y", id("y"))}))}));
  parser_expect_same("let x: f32 = 1.0f in x",
                     apps(prim(PrimId::Let), {f32_lit(1), lambda("x", id("x"), f32)}));
  parser_expect_same("f(let x = 1 in x)",
                     app(id("f"), apps(prim(PrimId::Let), {int_lit(1), lambda("x", id("x"))})));
  // Binders are alpha-renamable, names are not.
  EXPECT_TRUE(alpha_equal(parser_pe("fun(a => a)"), parser_pe("fun(b => b)")));
  EXPECT_FALSE(alpha_equal(parser_pe("fun(a => c)"), parser_pe("fun(b => d)")));
  EXPECT_FALSE(alpha_equal(parser_pe("fun(a, b => a)"), parser_pe("fun(a, b => b)")));
}

TEST(Parser, DependentLambdas) {
  Expr e = parser_pe("depFun((n: Nat, t: Data, a: Addr, f: Nat2Nat) => x)");
  std::vector<std::pair<std::string, Kind>> expected{
      {"n", Kind::Nat}, {"t", Kind::Data}, {"a", Kind::Addr}, {"f", Kind::Nat2Nat}};
  for (auto& [name, kind] : expected) {
    ASSERT_EQ(e->kind, ExprKind::DepLambda);
    EXPECT_EQ(e->name, name);
    EXPECT_EQ(e->binder_kind, kind);
    e = e->fn;
  }
  EXPECT_TRUE(alpha_equal(e, id("x")));
  parser_expect_same("depFun(n: Nat => x)", dep_lambda(Kind::Nat, "n", id("x")));
  parser_expect_same("depFun((n: Nat) => x)", dep_lambda(Kind::Nat, "n", id("x")));
  parser_expect_same(
      "depFun(n: Nat => fun(x: n.f32 => x))(4)",
      app(dep_lambda(Kind::Nat, "n", lambda("x", id("x"), array(sv("n"), scalar(ScalarKind::F32)))),
          int_lit(4)));
  // Dependent binders rename together with the types that mention them.
  EXPECT_TRUE(alpha_equal(parser_pe("depFun(n: Nat => fun(x: n.f32 => x))"),
                          parser_pe("depFun(m: Nat => fun(x: m.f32 => x))")));
  EXPECT_FALSE(alpha_equal(parser_pe("depFun(n: Nat => fun(x: n.f32 => x))"),
                           parser_pe("depFun(m: Nat => fun(x: n.f32 => x))")));
}

TEST(Parser, PairsAndArrays) {
  parser_expect_same("(a, b)", apps(prim(PrimId::MakePair), {id("a"), id("b")}));
  parser_expect_same(
      "((a, b), c)",
      apps(prim(PrimId::MakePair), {apps(prim(PrimId::MakePair), {id("a"), id("b")}), id("c")}));
  parser_expect_same("(a)", id("a"));
  parser_expect_same("[1, 2, 3]", apps(make_array_prim(3), {int_lit(1), int_lit(2), int_lit(3)}));
  parser_expect_same("[x]", app(make_array_prim(1), id("x")));
  EXPECT_FALSE(
      alpha_equal(parser_pe("[1, 2]"), apps(make_array_prim(3), {int_lit(1), int_lit(2)})));
}

TEST(Parser, NamesAreNeverResolved) {
  for (const char* n : {"add", "map", "reduce", "Local", "f32", "idx", "x", "_1", "sum"}) {
    Expr e = parser_pe(n);
    EXPECT_EQ(e->kind, ExprKind::Ident) << n;
    EXPECT_EQ(e->name, n);
  }
  parser_expect_same("toMem(Local)", app(id("toMem"), id("Local")));
  parser_expect_same("take(n - 2)", app(id("take"), parser_bin("sub", id("n"), int_lit(2))));
}

TEST(Parser, Literals) {
  auto lit = [](const std::string& s) {
    Expr e = parser_pe(s);
    EXPECT_EQ(e->kind, ExprKind::Literal) << s;
    return e->lit;
  };
  Literal l = lit("42");
  EXPECT_EQ(l.kind, LitKind::Int);
  EXPECT_EQ(l.i, 42);
  l = lit("42i64");
  EXPECT_EQ(l.kind, LitKind::Scalar);
  EXPECT_EQ(l.scalar, ScalarKind::I64);
  EXPECT_EQ(l.i, 42);
  EXPECT_EQ(lit("255u8").scalar, ScalarKind::U8);
  EXPECT_EQ(lit("7i16").scalar, ScalarKind::I16);
  EXPECT_EQ(lit("7i8").scalar, ScalarKind::I8);
  EXPECT_EQ(lit("7u16").scalar, ScalarKind::U16);
  EXPECT_EQ(lit("7u32").scalar, ScalarKind::U32);
  EXPECT_EQ(static_cast<uint64_t>(lit("18446744073709551615u64").i), ~uint64_t(0));
  l = lit("1.5");
  EXPECT_EQ(l.scalar, ScalarKind::F64);
  EXPECT_EQ(l.f, 1.5);
  l = lit("1.5f");
  EXPECT_EQ(l.scalar, ScalarKind::F32);
  EXPECT_EQ(l.f, 1.5);
  l = lit("0.1f");
  EXPECT_EQ(l.f, static_cast<double>(0.1f));  // rounded to the nearest float
  EXPECT_EQ(lit("0.1").f, 0.1);
  EXPECT_EQ(lit("2e-3f").f, static_cast<double>(2e-3f));
  EXPECT_EQ(lit("1E3").f, 1000.0);
  EXPECT_EQ(lit("1.5e+2f").f, 150.0);
  l = lit("true");
  EXPECT_EQ(l.scalar, ScalarKind::Bool);
  EXPECT_EQ(l.i, 1);
  EXPECT_EQ(lit("false").i, 0);
  l = lit("lidx(2, n + 1)");
  EXPECT_EQ(l.kind, LitKind::Index);
  EXPECT_EQ(l.nat, Nat(2));
  EXPECT_EQ(l.size, sv("n") + 1);
}

TEST(Parser, Spans) {
  SourceRef s = src("f(a)(b) + xs[i]");
  Expr e = parse_expr(s);
  auto text = [&](const Expr& x) {
    return s->text.substr(x->span.begin, x->span.end - x->span.begin);
  };
  EXPECT_EQ(text(e), "f(a)(b) + xs[i]");
  // add(f(a)(b))(xs[i])
  Expr partial = e->fn;
  EXPECT_EQ(text(partial->fn), "+");
  EXPECT_EQ(text(partial->arg), "f(a)(b)");
  EXPECT_EQ(text(partial->arg->fn), "f(a)");
  EXPECT_EQ(text(partial->arg->fn->fn), "f");
  EXPECT_EQ(text(e->arg), "xs[i]");
  EXPECT_EQ(text(e->arg->arg), "xs");
  SourceRef s2 = src("x |> map(fun(y => y))");
  Expr p = parse_expr(s2);
  EXPECT_EQ(p->span.begin, 0u);
  EXPECT_EQ(p->span.end, s2->text.size());
  EXPECT_EQ(s2->text.substr(p->fn->arg->span.begin, p->fn->arg->span.end - p->fn->arg->span.begin),
            "fun(y => y)");
}

// ---------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------

// The type texts of the primitive table (src/rise/primitives.cpp), written out so
// that this test does not depend on the table being buildable.
const char* kPrimitiveTypes[] = {
    "{t: Data} -> t -> t",
    "{t: Data} -> t -> t -> t",
    "bool -> bool",
    "{t: Data} -> t -> t -> bool",
    "{t: Data} -> bool -> t -> t -> t",
    "{s: Data} -> {t: Data} -> s -> t",
    "{n: Nat} -> idx[n] -> natType",
    "(n: Nat) -> natType -> idx[n]",
    "{s: Data} -> {t: Data} -> s -> (s -> t) -> t",
    "{t: Data} -> (a: Addr) -> t -> t",
    "{n: Nat} -> {t: Data} -> (idx[n] -> t) -> n.t",
    "{n: Nat} -> {t: Data} -> idx[n] -> n.t -> t",
    "(n: Nat) -> {m: Nat} -> {t: Data} -> (n+m).t -> n.t",
    "(n: Nat) -> {m: Nat} -> {t: Data} -> (n+m).t -> m.t",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> n.t -> m.t -> (n+m).t",
    "(n: Nat) -> {m: Nat} -> {t: Data} -> (m*n).t -> m.n.t",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> n.m.t -> (n*m).t",
    "{n: Nat} -> (sz: Nat) -> (sp: Nat) -> {t: Data} -> (sp*n+sz).t -> (1+n).sz.t",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> n.m.t -> m.n.t",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> m.idx[n] -> n.t -> m.t",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> n.idx[m] -> n.t -> m.t",
    "{t: Data} -> (n: Nat) -> (f: Nat2Nat) -> (finv: Nat2Nat) -> n.t -> n.t",
    "{n: Nat} -> (l: Nat) -> (r: Nat) -> {t: Data} -> t -> n.t -> (l+n+r).t",
    "{n: Nat} -> (l: Nat) -> (r: Nat) -> {t: Data} -> n.t -> (l+n+r).t",
    "{n: Nat} -> (r: Nat) -> {t: Data} -> n.t -> (n+r).t",
    "{n: Nat} -> {s: Data} -> {t: Data} -> n.s -> n.t -> n.(s, t)",
    "{n: Nat} -> {s: Data} -> {t: Data} -> n.(s, t) -> (n.s, n.t)",
    "{s: Data} -> {t: Data} -> s -> t -> (s, t)",
    "{s: Data} -> {t: Data} -> (s, t) -> s",
    "{s: Data} -> {t: Data} -> (s, t) -> t",
    "{s1: Data} -> {t: Data} -> {s2: Data} -> (s1 -> s2) -> (s1, t) -> (s2, t)",
    "{s: Data} -> {t1: Data} -> {t2: Data} -> (t1 -> t2) -> (s, t1) -> (s, t2)",
    "{n: Nat} -> {t: Data} -> t -> vec[t, n]",
    "(n: Nat) -> {m: Nat} -> {t: Data} -> (m*n).t -> m.vec[t, n]",
    "{n: Nat} -> {m: Nat} -> {t: Data} -> m.vec[t, n] -> (m*n).t",
    "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t",
    "{n: Nat} -> {t: Data} -> (t -> t -> t) -> t -> n.t -> t",
    "{n: Nat} -> {m: Nat} -> (k: Nat) -> {t: Data} -> ((l: Nat) -> (l*n).t -> l.t) -> "
    "(m*(n^k)).t -> m.t",
    "{n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t",
    "{n: Nat} -> {s: Data} -> {t: Data} -> (s -> t -> t) -> t -> n.s -> n.t",
    "{n: Nat} -> (alloc: Nat) -> (sz: Nat) -> {s: Data} -> {t: Data} -> (s -> t) -> "
    "(n-1+sz).s -> n.sz.t",
    "{n: Nat} -> (sz: Nat) -> {t: Data} -> (t -> t) -> (n-1+sz).t -> n.sz.t",
    "(dim: Nat) -> {n: Nat} -> {s: Data} -> {t: Data} -> (s -> t) -> n.s -> n.t",
    "(a: Addr) -> {n: Nat} -> {s: Data} -> {t: Data} -> (t -> s -> t) -> t -> n.s -> t",
    "(a: Addr) -> {n: Nat} -> {m: Nat} -> (k: Nat) -> {t: Data} -> ((l: Nat) -> (l*n).t -> "
    "l.t) -> (m*(n^k)).t -> m.t",
};

TEST(Types, EveryPrimitiveTypeParses) {
  for (const char* text : kPrimitiveTypes) {
    SCOPED_TRACE(text);
    Type t;
    EXPECT_NO_THROW(t = parse_type(std::string(text)));
    ASSERT_TRUE(t);
    // Types without vectors print and read back as the same type.
    if (std::string(text).find("vec[") == std::string::npos) {
      EXPECT_TRUE(equal(parse_type(print(t)), t)) << print(t);
    }
  }
}

TEST(Types, PrimitiveTableBuilds) {
  EXPECT_GT(primitives().size(), 50u);
  // makeArray's type depends on its element count (make_array_type)
  for (const PrimitiveInfo& p : primitives())
    EXPECT_TRUE(p.type || p.is(PrimId::MakeArray)) << p.name;
}

TEST(Types, Shapes) {
  Type f32 = scalar(ScalarKind::F32);
  Nat n = sv("n"), m = sv("m");
  EXPECT_TRUE(equal(pt("n.m.f32"), array(n, array(m, f32))));
  EXPECT_TRUE(equal(pt("Array[n, Array[m, f32]]"), array(n, array(m, f32))));
  EXPECT_TRUE(equal(pt("4.f32"), array(4, f32)));
  EXPECT_TRUE(equal(pt("3.4.f32"), array(3, array(4, f32))));
  EXPECT_TRUE(equal(pt("3.4.5.f32"), array(3, array(4, array(5, f32)))));
  EXPECT_TRUE(equal(pt("2.3.4.5.f32"), array(2, array(3, array(4, array(5, f32))))));
  EXPECT_TRUE(equal(pt("n.3.4.f32"), array(n, array(3, array(4, f32)))));
  EXPECT_TRUE(equal(pt("(n+2).f32"), array(n + 2, f32)));
  EXPECT_TRUE(equal(pt("(n).f32"), array(n, f32)));
  EXPECT_TRUE(equal(pt("min(n, m).f32"), array(arith::min(n, m), f32)));
  EXPECT_TRUE(equal(pt("(f32, n.i32)"), pair(f32, array(n, scalar(ScalarKind::I32)))));
  EXPECT_TRUE(equal(pt("n.(f32, f64)"), array(n, pair(f32, scalar(ScalarKind::F64)))));
  EXPECT_TRUE(equal(pt("vec[f32, 4]"), vector(ScalarKind::F32, 4)));
  EXPECT_TRUE(equal(pt("idx[n]"), index_type(n)));
  EXPECT_TRUE(equal(pt("natType"), nat_data()));
  EXPECT_TRUE(equal(pt("bool"), scalar(ScalarKind::Bool)));
  EXPECT_TRUE(equal(pt("u64"), scalar(ScalarKind::U64)));
  EXPECT_TRUE(equal(pt("t"), data_var("t")));
  EXPECT_TRUE(equal(pt("f32 -> f32 -> f32"), fun(f32, fun(f32, f32))));
  EXPECT_TRUE(equal(pt("(f32 -> f32) -> f32"), fun(fun(f32, f32), f32)));
  Type imp = pt("{n: Nat} -> n.f32 -> f32");
  ASSERT_EQ(imp->kind, TypeKind::DepFun);
  EXPECT_TRUE(imp->implicit);
  EXPECT_EQ(imp->name, "n");
  EXPECT_EQ(imp->binder_kind, Kind::Nat);
  Type exp = pt("(a: Addr) -> t -> t");
  ASSERT_EQ(exp->kind, TypeKind::DepFun);
  EXPECT_FALSE(exp->implicit);
  EXPECT_EQ(exp->binder_kind, Kind::Addr);
  // Comments and line breaks inside types.
  EXPECT_TRUE(equal(pt("n. /* rows */ f32 // end\n"), array(n, f32)));
}

TEST(Types, SizeExpressions) {
  Type f32 = scalar(ScalarKind::F32);
  Nat n = sv("n"), m = sv("m"), k = sv("k"), sp = sv("sp"), sz = sv("sz");
  auto size_of = [](const std::string& text) { return pt("(" + text + ").f32")->size; };
  EXPECT_EQ(size_of("sp*n+sz"), sp * n + sz);
  EXPECT_EQ(size_of("1+n"), n + 1);
  EXPECT_EQ(size_of("n-1+sz"), n - 1 + sz);
  EXPECT_EQ(size_of("m*(n^k)"), m * arith::pow(n, k));
  EXPECT_EQ(size_of("m*n^k"), m * arith::pow(n, k));
  EXPECT_EQ(size_of("2^3^2"), Nat(512));  // right associative
  EXPECT_EQ(size_of("n*m/m"), n);
  EXPECT_EQ(size_of("(n*4)/4"), n);
  EXPECT_EQ(size_of("n % 4 + 1"), arith::mod(n, 4) + 1);
  EXPECT_EQ(size_of("10 - 2 - 3"), Nat(5));
  EXPECT_EQ(size_of("max(n, 2*m)"), arith::max(n, 2 * m));
  EXPECT_TRUE(equal(pt("(n+m).(n*m).f32"), array(n + m, array(n * m, f32))));
  // Size variables are positive.
  EXPECT_TRUE(arith::provably_pos(size_of("n")));
}

// ---------------------------------------------------------------------------------
// Errors: located, with what was expected and what was found
// ---------------------------------------------------------------------------------

struct ErrorCase {
  const char* text;
  int line, col;
  const char* message;  // a substring of the message
};

const ErrorCase kErrors[] = {
    // missing `=>`
    {"def f = fun(x) x)", 1, 14, "expected '=>' after lambda parameters, found ')'"},
    {"def f = fun(x y => x)", 1, 15, "expected '=>' after lambda parameters, found name 'y'"},
    {"def f = depFun(n: Nat x)", 1, 23, "expected '=>' after depFun parameters, found name 'x'"},
    // unbalanced parentheses
    {"def f = g(a", 1, 12,
     "expected ')' to close the argument list opened at line 1, column 10, found end of file"},
    {"def f = g(a))", 1, 13, "unmatched ')'"},
    {"def f = (a, b", 1, 14, "expected ')' to close the pair opened at line 1, column 9"},
    {"def f = [1, 2", 1, 14, "expected ']' to close the array literal"},
    {"def f = fun(x => x", 1, 19, "expected ')' to close 'fun(' opened at line 1, column 12"},
    {"def f =\n  map(fun(x =>\n    x +))\n", 3, 8, "expected an expression, found ')'"},
    // bad literals
    {"def f = 1.5x", 1, 9, "invalid suffix 'x' on floating-point literal '1.5x'"},
    {"def f = 12abc", 1, 9, "invalid suffix 'abc' on integer literal '12abc'"},
    {"def f = 2f", 1, 9, "write 2.0f for an f32 literal"},
    {"def f = 300i8", 1, 9, "integer literal '300i8' does not fit in i8"},
    {"def f = -129i8", 1, 9, "integer literal '-129i8' does not fit in i8"},
    {"def f = -1u8", 1, 9, "does not fit in u8"},
    {"def f = 99999999999999999999", 1, 9, "is too large"},
    {"def f = 1e999f", 1, 9, "out of range for f32"},
    {"def f = lidx(3, 3)", 1, 9, "index literal 3 is out of range for idx[3]"},
    {"def f = \"text\"", 1, 9, "string literal is only allowed as the body of a foreign def"},
    {"def f = \"text", 1, 9, "unterminated string literal"},
    {"foreign def f(): f32 = \"\\q\"", 1, 25, "invalid escape sequence '\\q'"},
    // a foreign function is a scalar C function (held-out J: arrays and pairs were
    // internal errors or wrong code, an idx result unchecked)
    {"foreign def f(a: 4.f32): f32 = \"{ return 0; }\"", 1, 18, "its parameter 'a' has type 4.f32"},
    {"foreign def f(a: f32, b: (f32, f32)): f32 = \"{ return a; }\"", 1, 26,
     "its parameter 'b' has type (f32, f32)"},
    {"foreign def f(a: f32): 2.f32 = \"{ return a; }\"", 1, 24, "its result has type 2.f32"},
    {"foreign def f(a: f32): idx[8] = \"{ return 0; }\"", 1, 24,
     "make the index with natAsIndex, which checks that it is in range"},
    // unexpected end of file
    {"def f = ", 1, 8, "expected an expression, found end of file"},
    {"def f", 1, 6, "expected '=' after 'def f', found end of file"},
    {"def f = let x = 1 in", 1, 21, "expected an expression, found end of file"},
    {"def f = x /* never closed", 1, 11, "unterminated block comment"},
    // depFun kinds
    {"def f = depFun(n: Int => n)", 1, 19,
     "unknown kind 'Int' (expected Nat, Data, Addr or Nat2Nat)"},
    {"def f = depFun(n: Dat => n)", 1, 19, "did you mean 'Data'?"},
    {"def f = depFun(n => n)", 1, 18, "expected ':' and a kind (Nat, Data, Addr or Nat2Nat)"},
    // other syntax
    {"def f = let x = 1 x", 1, 19,
     "expected keyword 'in' after the value of 'let x', found name 'x'"},
    {"def f = a < b < c", 1, 15, "comparison operators do not chain"},
    {"def f = (a, b, c)", 1, 14, "a pair has exactly two components"},
    {"def f = x._3", 1, 11, "expected '_1' or '_2' after '.', found name '_3'"},
    {"def f = []", 1, 10, "an array literal needs at least one element"},
    {"def f = g()", 1, 11, "expected an argument, found ')'"},
    {"def f = a + let x = 1 in x", 1, 13, "a 'let' expression must be parenthesized here"},
    {"def f = x @ y", 1, 11, "unexpected character '@'"},
    {"def f = x\n\n  def", 3, 6, "expected a name after 'def', found end of file"},
    {"def in = 3", 1, 5, "expected a name after 'def', found keyword 'in'"},
    {"def f = x y", 1, 11,
     "expected an operator or the end of the expression in the definition of 'f', found name 'y'"},
    {"f = 3", 1, 1, "expected 'def' or 'foreign def' at the start of a definition, found name 'f'"},
    {"def f = 1\ndef f = 2", 2, 5,
     "duplicate definition of 'f' (first defined at line 1, column 5)"},
    {"def x__1 = 3", 1, 5, "the name 'x__1' is reserved"},
    {"def f = ) @", 1, 9, "expected an expression, found ')'"},  // the first error wins
    {"foreign def f(x f32): f32 = \"\"", 1, 17, "expected ':' and a type after parameter 'x'"},
    {"foreign def f(x: f32): f32 = 3", 1, 30, "expected a string with the C body of 'f'"},
    // types
    {"def f = fun(x: Array[n f32] => x)", 1, 24, "expected ',' after the size in 'Array[n, dt]'"},
    {"def f = fun(x: (n+).f32 => x)", 1, 19, "expected a size"},
    {"def f = fun(x: (4/0).f32 => x)", 1, 17, "division by zero"},
    {"def f = fun(x: (5/2).f32 => x)", 1, 17, "invalid size expression"},
    {"def f = fun(x: 4 => x)", 1, 18, "expected '.' after the array size"},
    {"def f = fun(x: f32.f32 => x)", 1, 16,
     "expected an array size before '.', found the type 'f32'"},
    {"def f = fun(x: n.(f32 -> f32) => x)", 1, 18, "array elements must be data types"},
    {"def f = fun(x: {n: Nat} f32 => x)", 1, 25, "expected '->' after the type parameter 'n'"},
    {"def f = fun(x: vec[n.f32, 4] => x)", 1, 21, "expected ',' after the element type"},
    {"def f = fun(x: 4i8.f32 => x)", 1, 16, "a size has no type suffix"},
    {"def f = fun(x: 1.5f.f32 => x)", 1, 16, "expected a type, found floating-point literal"},
};

TEST(ParserErrors, LocatedMessages) {
  for (const ErrorCase& c : kErrors) {
    SCOPED_TRACE(c.text);
    ErrorAt e = program_error(c.text);
    EXPECT_EQ(e.kind, ErrorKind::User);
    EXPECT_EQ(e.line, c.line) << e.message;
    EXPECT_EQ(e.col, c.col) << e.message;
    EXPECT_NE(e.message.find(c.message), std::string::npos) << e.message;
  }
}

TEST(ParserErrors, FormattedLikeClang) {
  try {
    parse_program(src("def f =\n  g(a\n", "prog.rise"));
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string s = format_error(e);
    EXPECT_EQ(s.rfind("prog.rise:2:6: error: expected ')' to close the argument list", 0), 0u) << s;
  }
}

TEST(ParserErrors, ParseTypeOfCompilerTextIsInternal) {
  try {
    parse_type(std::string("n.("));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    EXPECT_NE(e.message().find("n.("), std::string::npos);
  }
  EXPECT_THROW(parse_type(src("f32 f32")), Error);
  EXPECT_THROW(parse_expr(src("a b")), Error);
}

TEST(ParserErrors, NestingLimits) {
  auto expect_limit = [](const std::string& text, const char* what) {
    try {
      parse_expr(src(text));
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << what;
      EXPECT_TRUE(e.span().known()) << what;
      EXPECT_TRUE(e.message().find("nest") != std::string::npos ||
                  e.message().find("too long") != std::string::npos)
          << what << ": " << e.message();
    }
  };
  const int deep = 20000;
  expect_limit(std::string(deep, '(') + "x" + std::string(deep, ')'), "parentheses");
  expect_limit(std::string(deep, '-') + "x", "unary minus");
  expect_limit(std::string(deep, '!') + "x", "not");
  expect_limit(std::string(deep, '[') + "x" + std::string(deep, ']'), "array literals");
  std::string lambdas;
  for (int i = 0; i < 5000; ++i) lambdas += "fun(x => ";
  expect_limit(lambdas + "x" + std::string(5000, ')'), "lambdas");
  std::string pipes = "x";
  for (int i = 0; i < deep; ++i) pipes += " |> f";
  expect_limit(pipes, "pipe chain");
  std::string sums = "x";
  for (int i = 0; i < deep; ++i) sums += " + x";
  expect_limit(sums, "sum chain");
  std::string calls = "f";
  for (int i = 0; i < deep; ++i) calls += "(x)";
  expect_limit(calls, "call chain");
  std::string elems = "[x";
  for (int i = 0; i < deep; ++i) elems += ", x";
  expect_limit(elems + "]", "long array literal");
  std::string fields = "p";
  for (int i = 0; i < deep; ++i) fields += "._1";
  expect_limit(fields, "projections");
  std::string indices = "x";
  for (int i = 0; i < deep; ++i) indices += "[0]";
  expect_limit(indices, "indexing");
  std::string dims;
  for (int i = 0; i < deep; ++i) dims += "2.";
  expect_limit("x : " + dims + "f32", "array type");
  std::string divs = "n";
  for (int i = 0; i < deep; ++i) divs += "/m";
  expect_limit("x : (" + divs + ").f32", "size expression");
  expect_limit("x : " + std::string(deep, '(') + "f32" + std::string(deep, ')'), "type parens");
  // Reasonable nesting is fine.
  std::string ok = "x";
  for (int i = 0; i < 300; ++i) ok += " |> f";
  EXPECT_NO_THROW(parse_expr(src(ok)));
  EXPECT_NO_THROW(parse_expr(src(std::string(100, '(') + "x" + std::string(100, ')'))));
}

// ---------------------------------------------------------------------------------
// Robustness: truncated and mutated input ends in success or risec::Error
// ---------------------------------------------------------------------------------

// Parses; on success also checks that the printed program reads back the same.
// Returns false (after reporting) on anything but success or risec::Error.
bool parses_or_fails_cleanly(const std::string& text, std::string* why) {
  try {
    Program p = parse_program(src(text));
    std::string printed = print_program(p);
    Program q = parse_program(src(printed, "printed"));
    if (q.defs.size() != p.defs.size()) {
      *why = "printed program has a different number of definitions:\n" + printed;
      return false;
    }
    for (size_t i = 0; i < p.defs.size(); ++i) {
      if (p.defs[i].body && !alpha_equal(p.defs[i].body, q.defs[i].body)) {
        *why = "printed program differs:\n" + printed;
        return false;
      }
    }
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::User) {
      *why = "non-user error: " + format_error(e);
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    *why = std::string("std::exception: ") + e.what();
    return false;
  } catch (...) {
    *why = "unknown exception";
    return false;
  }
}

// Under the sanitizers every third prefix, a different third in each file (the fuzz
// replays there cut and mutate the same files too).
TEST(ParserRobustness, EveryPrefixOfEveryFile) {
  const size_t stride = risec::test::per_build(1, 3);
  size_t index = 0;
  for (const fs::path& f : rise_files()) {
    std::string text = parser_read_file(f);
    for (size_t n = index++ % stride; n <= text.size(); n += stride) {
      std::string why;
      if (!parses_or_fails_cleanly(text.substr(0, n), &why)) {
        ADD_FAILURE() << f << " prefix of " << n << " bytes: " << why;
        return;
      }
    }
  }
}

TEST(ParserRobustness, RandomMutations) {
  std::vector<std::string> texts;
  for (const fs::path& f : rise_files()) texts.push_back(parser_read_file(f));
  texts.push_back(kSpecMv);
  texts.push_back(kSpecMm);
  texts.push_back(kSpecBlur3);
  texts.push_back(
      "foreign def clamp(x: f32, lo: f32, hi: f32): f32 = \"{ return x; }\"\n"
      "def g = fun(x: 3.4.f32, p: (n+2).(f32, i64) => lidx(2, n) + -128i8 + 2e-3f != 1u64)");
  const std::string alphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ \n\t()[]{},:.=>-|+*/%^<!"
      "\"\\'@#";
  const std::vector<std::string> words = {
      "def ", "fun(", "depFun(", "let ", " in ", "=>",     "->",   "|>",   ">>", "lidx(", "Nat",
      "Data", "f32",  ".",       "._1",  "(",    ")",      "[",    "]",    "//", "/*",    "*/",
      "\"",   "1.5f", "2e-3",    "i8",   "__1",  "Array[", "vec[", "idx[", ":",  ","};
  std::mt19937_64 rng(20240611);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string text = texts[rng() % texts.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits; ++k) {
      size_t pos = text.empty() ? 0 : rng() % (text.size() + 1);
      switch (rng() % 4) {
        case 0:  // delete a character or a short run
          if (!text.empty() && pos < text.size()) text.erase(pos, 1 + rng() % 3);
          break;
        case 1:  // insert a character of the RISE alphabet
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 2:  // replace a character
          if (pos < text.size()) text[pos] = alphabet[rng() % alphabet.size()];
          break;
        default:  // insert a token-like word
          text.insert(pos, words[rng() % words.size()]);
          break;
      }
    }
    std::string why;
    if (!parses_or_fails_cleanly(text, &why)) {
      ADD_FAILURE() << "mutation " << iter << ": " << why << "\n--- input:\n" << text;
      return;
    }
  }
}

TEST(ParserRobustness, ArbitraryBytes) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 500; ++iter) {
    std::string text(rng() % 64, '\0');
    for (char& c : text) c = static_cast<char>(rng() % 256);
    std::string why;
    if (!parses_or_fails_cleanly(text, &why)) {
      ADD_FAILURE() << "bytes " << iter << ": " << why;
      return;
    }
  }
}

}  // namespace
}  // namespace risec::rise
