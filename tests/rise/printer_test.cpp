// Tests of the RISE printer: parse(print(parse(x))) is alpha-equivalent to parse(x)
// for every .rise file of the repository, printing is idempotent, the layout uses
// pipes, infix operators and the sugar of the spec, literals re-read exactly, and a
// random property test over generated expressions checks the parenthesization, and
// another one parallel loops with schedules read back through name resolution.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "rise/lexer.h"
#include "rise/parser.h"
#include "rise/primitives.h"
#include "rise/printer.h"
#include "rise/resolve.h"

namespace risec::rise {
namespace {

namespace fs = std::filesystem;

SourceRef printer_src(const std::string& text, const std::string& name = "test.rise") {
  return std::make_shared<const SourceFile>(SourceFile{name, text});
}
Expr printer_pe(const std::string& text) {
  return parse_expr(printer_src(text));
}
Program printer_pp(const std::string& text) {
  return parse_program(printer_src(text));
}

std::string printer_read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> printer_rise_files() {
  std::vector<fs::path> out;
  fs::path root(RISEC_SOURCE_DIR);
  for (const auto& dir : fs::directory_iterator(root / "examples")) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path()))
      if (f.path().extension() == ".rise") out.push_back(f.path());
  }
  out.push_back(root / "src" / "rise" / "prelude.rise");
  // the tutorial's programs
  for (const fs::path& d : {root / "docs" / "tutorial"})
    for (const auto& f : fs::recursive_directory_iterator(d))
      if (f.path().extension() == ".rise") out.push_back(f.path());
  std::sort(out.begin(), out.end());
  return out;
}

Expr printer_id(const std::string& n) {
  return ident(n);
}
Expr printer_prim(PrimId prim_id) {
  return prim_expr(prim_id);
}
Expr printer_prim(const std::string& n) {
  return prim_expr(find_primitive(n)->id);
}
Expr printer_bin(const std::string& op, Expr a, Expr b) {
  return apps(printer_prim(op), {a, b});
}

// print, parse back, compare; returns the printed text.
std::string round_trip(const Expr& e) {
  std::string text = print_expr(e);
  Expr back;
  try {
    back = printer_pe(text);
  } catch (const Error& err) {
    ADD_FAILURE() << "printed text does not parse: " << text << "\n" << format_error(err);
    return text;
  }
  EXPECT_TRUE(alpha_equal(back, e)) << "printed: " << text << "\nre-printed: " << print_expr(back);
  return text;
}

const char* kSpecPrograms[] = {
    R"(def mv = depFun((n: Nat, m: Nat) =>
fun(M: Array[n, Array[m, f32]] =>
fun(x: Array[m, f32] =>
M |> map(fun(row =>
zip(row)(x) |>
map(fun(ax => fst(ax) * snd(ax))) |>
reduce(add)(0.0f) )) )) )
)",
    R"(def mm = depFun((n: Nat, m: Nat, k: Nat) =>
  fun(A: n.k.f32 => fun(B: k.m.f32 =>
    A |> map(fun(rowA =>
      transpose(B) |> map(fun(colB =>
        zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))))
)",
    R"(def blur3 = depFun(n: Nat => fun(x: n.f32 =>
  x |> padClamp(1)(1) |> slide(3)(1)
    |> map(fun(w => (w[0] + w[1] + w[2]) / 3.0f))))
)",
};

void check_program_round_trip(const std::string& text, const std::string& name,
                              bool short_lines = true) {
  SCOPED_TRACE(name);
  Program p;
  try {
    p = parse_program(printer_src(text, name));
  } catch (const Error& e) {
    FAIL() << format_error(e);
  }
  std::string printed = print_program(p);
  Program q;
  try {
    q = parse_program(printer_src(printed, "printed " + name));
  } catch (const Error& e) {
    FAIL() << "printed program does not parse:\n" << printed << "\n" << format_error(e);
  }
  ASSERT_EQ(p.defs.size(), q.defs.size()) << printed;
  for (size_t i = 0; i < p.defs.size(); ++i) {
    EXPECT_EQ(p.defs[i].name, q.defs[i].name);
    if (p.defs[i].body) {
      EXPECT_TRUE(alpha_equal(p.defs[i].body, q.defs[i].body)) << p.defs[i].name << " printed as:\n"
                                                               << printed;
    }
    if (p.defs[i].annot) {
      EXPECT_TRUE(equal(p.defs[i].annot, q.defs[i].annot));
    }
  }
  // Printing is a fixed point after one round.
  EXPECT_EQ(print_program(q), printed);
  // Lines stay short where the structure allows it.
  if (!short_lines) return;
  std::istringstream lines(printed);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 110u) << l;
}

TEST(Printer, RoundTripEveryRepositoryFile) {
  for (const fs::path& f : printer_rise_files())
    check_program_round_trip(printer_read_file(f), f.string());
  // The fuzzers' seeds, which rise_check_fuzzer round-trips the same way (with-loops,
  // whose bounds desugar to natType(n - 2) values; long generated lines allowed).
  for (const auto& f :
       fs::directory_iterator(fs::path(RISEC_SOURCE_DIR) / "fuzz" / "seeds" / "rise"))
    if (f.path().extension() == ".rise")
      check_program_round_trip(printer_read_file(f.path()), f.path().string(), false);
}

TEST(Printer, RoundTripSpecExamples) {
  for (const char* p : kSpecPrograms) check_program_round_trip(p, "spec");
}

// A || or && whose operands are functions, applied further (the fuzzer's
// `[..] |> asVect || or(4)`): printed as (a || b)(x), whose `true`/`false` parse back as
// the operator's constant; written out as select(a)(true)(b)(x), they did not.
TEST(Printer, LogicOperatorsAppliedFurtherRoundTrip) {
  check_program_round_trip("def f = fun(a, b, x => x |> a || b)", "or applied");
  check_program_round_trip("def g = fun(a, b, x => x |> a && b)", "and applied");
  EXPECT_NE(print_program(printer_pp("def f = fun(a, b, x => x |> a || b)")).find("(a || b)(x)"),
            std::string::npos);
}

TEST(Printer, SpecExamplesLayout) {
  std::string mv = print_program(printer_pp(kSpecPrograms[0]));
  EXPECT_EQ(mv,
            "def mv = depFun((n: Nat, m: Nat) =>\n"
            "  fun(M: n.m.f32, x: m.f32 =>\n"
            "    M |> map(fun(row => zip(row)(x) |> map(fun(ax => fst(ax) * snd(ax))) |> "
            "reduce(add)(0.0f)))))\n");
  std::string mm = print_program(printer_pp(kSpecPrograms[1]));
  EXPECT_NE(mm.find("zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f)"),
            std::string::npos)
      << mm;
  EXPECT_NE(mm.find("transpose(B) |> map(fun(colB =>"), std::string::npos) << mm;
  std::string blur = print_program(printer_pp(kSpecPrograms[2]));
  EXPECT_EQ(blur,
            "def blur3 = depFun(n: Nat =>\n"
            "  fun(x: n.f32 => x |> padClamp(1)(1) |> slide(3)(1) |> map(fun(w => (w[0] + w[1] + "
            "w[2]) / 3.0f))))\n");
}

TEST(Printer, LongChainsBreakBeforePipes) {
  std::string text =
      "def f = fun(input => input |> map(fun(element => element * 2.0f + 1.0f)) |> "
      "padClamp(1)(1) |> slide(3)(1) |> map(fun(window => window[0] + window[1])))";
  std::string printed = print_program(printer_pp(text));
  EXPECT_EQ(printed,
            "def f = fun(input =>\n"
            "  input |> map(fun(element => element * 2.0f + 1.0f))\n"
            "    |> padClamp(1)(1)\n"
            "    |> slide(3)(1)\n"
            "    |> map(fun(window => window[0] + window[1])))\n");
}

TEST(Printer, Operators) {
  Expr a = printer_id("a"), b = printer_id("b"), c = printer_id("c");
  EXPECT_EQ(round_trip(printer_bin("add", a, printer_bin("mul", b, c))), "a + b * c");
  EXPECT_EQ(round_trip(printer_bin("mul", printer_bin("add", a, b), c)), "(a + b) * c");
  EXPECT_EQ(round_trip(printer_bin("sub", printer_bin("sub", a, b), c)), "a - b - c");
  EXPECT_EQ(round_trip(printer_bin("sub", a, printer_bin("sub", b, c))), "a - (b - c)");
  EXPECT_EQ(round_trip(printer_bin("div", a, printer_bin("mul", b, c))), "a / (b * c)");
  EXPECT_EQ(round_trip(printer_bin("mod", printer_bin("div", a, b), c)), "a / b % c");
  EXPECT_EQ(round_trip(printer_bin("lt", printer_bin("add", a, b), c)), "a + b < c");
  EXPECT_EQ(round_trip(printer_bin("equal", printer_bin("lt", a, b), c)), "(a < b) == c");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Not), printer_bin("gt", a, b))), "a <= b");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Not), printer_bin("lt", a, b))), "a >= b");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Not), printer_bin("equal", a, b))), "a != b");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Not), a)), "!a");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Not), printer_bin("add", a, b))), "!(a + b)");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Neg), a)), "-a");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Neg), app(printer_prim(PrimId::Neg), a))), "--a");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Neg), int_lit(5))), "-(5)");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Neg), int_lit(-5))), "-(-5)");
  EXPECT_EQ(round_trip(printer_bin("mul", app(printer_prim(PrimId::Neg), a), b)), "-a * b");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Neg), printer_bin("mul", a, b))), "-(a * b)");
  EXPECT_EQ(round_trip(printer_bin("sub", a, int_lit(-1))), "a - -1");
  EXPECT_EQ(round_trip(printer_bin("add", int_lit(-1), a)), "-1 + a");
  // Names of primitives written by the user stay calls.
  EXPECT_EQ(round_trip(apps(printer_id("add"), {a, b})), "add(a)(b)");
}

TEST(Printer, PostfixAndSugar) {
  Expr x = printer_id("x"), i = printer_id("i"), p = printer_id("p");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Fst), p)), "p._1");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Snd), app(printer_prim(PrimId::Fst), p))),
            "p._1._2");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Fst), int_lit(-1))), "(-1)._1");
  EXPECT_EQ(round_trip(app(printer_prim(PrimId::Fst), int_lit(1))), "1._1");
  EXPECT_EQ(round_trip(apps(printer_prim(PrimId::Idx), {i, x})), "x[i]");
  EXPECT_EQ(round_trip(apps(printer_prim(PrimId::Idx),
                            {int_lit(1), apps(printer_prim(PrimId::Idx), {int_lit(0), x})})),
            "x[0][1]");
  EXPECT_EQ(round_trip(apps(printer_prim(PrimId::Idx), {i, printer_bin("add", x, x)})),
            "(x + x)[i]");
  EXPECT_EQ(round_trip(apps(printer_prim(PrimId::MakePair), {x, printer_bin("add", x, x)})),
            "(x, x + x)");
  EXPECT_EQ(round_trip(apps(make_array_prim(3), {int_lit(1), int_lit(2), int_lit(3)})),
            "[1, 2, 3]");
  EXPECT_EQ(round_trip(apps(printer_prim(PrimId::Let),
                            {int_lit(1), lambda("y", printer_bin("add", printer_id("y"), x))})),
            "let y = 1 in y + x");
  EXPECT_EQ(
      round_trip(printer_bin(
          "add", x, apps(printer_prim(PrimId::Let), {int_lit(1), lambda("y", printer_id("y"))}))),
      "x + (let y = 1 in y)");
  EXPECT_EQ(round_trip(annotation(x, scalar(ScalarKind::F32))), "(x : f32)");
  EXPECT_EQ(round_trip(annotation(printer_bin("add", x, x),
                                  array(Nat::size_var("n"), scalar(ScalarKind::F32)))),
            "((x + x) : n.f32)");
  EXPECT_EQ(round_trip(app(app(printer_id("f"), x), i)), "f(x)(i)");
  // a redex prints its value first (with-loop bodies are redexes)
  EXPECT_EQ(round_trip(app(lambda("y", printer_id("y")), x)), "x |> (fun(y => y))");
  EXPECT_EQ(round_trip(app(printer_bin("add", x, x), i)), "(x + x)(i)");
  // Over-applied sugar keeps its form and applies the rest.
  EXPECT_EQ(round_trip(app(app(printer_prim(PrimId::Fst), p), x)), "p._1(x)");
}

TEST(Printer, PipesForPatterns) {
  Expr x = printer_id("x"), f = printer_id("f");
  EXPECT_EQ(round_trip(apps(printer_id("map"), {f, x})), "x |> map(f)");
  EXPECT_EQ(round_trip(app(apps(printer_id("reduce"), {printer_id("add"), f32_lit(0)}),
                           app(app(printer_id("map"), f), x))),
            "x |> map(f) |> reduce(add)(0.0f)");
  EXPECT_EQ(round_trip(apps(printer_id("split"), {int_lit(32), x})), "x |> split(32)");
  EXPECT_EQ(round_trip(apps(printer_id("zip"), {x, printer_id("y")})), "zip(x)(y)");
  EXPECT_EQ(round_trip(app(printer_id("transpose"), x)), "transpose(x)");
  EXPECT_EQ(round_trip(app(apps(printer_id("map"), {f}), printer_bin("add", x, x))),
            "x + x |> map(f)");
  EXPECT_EQ(round_trip(app(app(printer_id("map"), f), lambda("y", printer_id("y")))),
            "(fun(y => y)) |> map(f)");
  // A user function applied to sizes, then to data.
  EXPECT_EQ(round_trip(apps(printer_id("slide2D"), {int_lit(3), int_lit(1), x})),
            "x |> slide2D(3)(1)");
  EXPECT_EQ(round_trip(apps(printer_id("dot"), {x, printer_id("y")})), "dot(x)(y)");
}

TEST(Printer, DependentApplicationsAndLambdas) {
  Nat n = Nat::size_var("n");
  Expr x = printer_id("x");
  Expr split32 = dep_app(printer_prim(PrimId::Split), Nat(32));
  EXPECT_EQ(print_expr(app(split32, x)), "x |> split(32)");
  EXPECT_EQ(print_expr(app(dep_app(printer_prim(PrimId::Take), n - 2), x)), "x |> take(n - 2)");
  EXPECT_EQ(print_expr(dep_app(printer_prim(PrimId::Take), n - 2)), "take(n - 2)");
  EXPECT_EQ(print_expr(app(dep_app(printer_prim(PrimId::OclToMem), Addr{AddrSpace::Local, ""}), x)),
            "x |> oclToMem(Local)");
  // Dependent arguments fill the explicit parameters (the checker never applies
  // implicit ones), as in the checked treesum example.
  Expr iterate_k = dep_app(printer_prim(PrimId::Iterate), Nat::size_var("k"));
  EXPECT_EQ(print_expr(apps(iterate_k, {printer_id("f"), x})), "x |> iterate(k)(f)");
  Expr map0 = dep_app(printer_prim(PrimId::MapGlobal), Nat(0));
  EXPECT_EQ(print_expr(apps(map0, {printer_id("f"), x})), "x |> mapGlobal(0)(f)");
  Expr slide31 = dep_app(dep_app(printer_prim(PrimId::Slide), Nat(3)), Nat(1));
  EXPECT_EQ(print_expr(app(slide31, x)), "x |> slide(3)(1)");
  EXPECT_EQ(print_expr(dep_app(printer_id("g"), scalar(ScalarKind::F32))), "g(f32)");
  Expr dl = dep_lambda(Kind::Nat, "n", dep_lambda(Kind::Data, "t", lambda("x", x)));
  EXPECT_EQ(round_trip(dl), "depFun((n: Nat, t: Data) => fun(x => x))");
  EXPECT_EQ(round_trip(dep_lambda(Kind::Addr, "a", x)), "depFun(a: Addr => x)");
  EXPECT_EQ(round_trip(lambda("x", x, array(n, scalar(ScalarKind::F32)))), "fun(x: n.f32 => x)");
  EXPECT_EQ(round_trip(lambda("x", lambda("y", x), scalar(ScalarKind::F32))),
            "fun(x: f32, y => x)");
  Type f2f = fun(scalar(ScalarKind::F32), scalar(ScalarKind::F32));
  EXPECT_EQ(round_trip(lambda("f", printer_id("f"), f2f)), "fun(f: f32 -> f32 => f)");
}

TEST(Printer, GeneratedNames) {
  // The parser's `>>` prints back as `>>`.
  EXPECT_EQ(round_trip(printer_pe("map(f) >> reduce(add)(0.0f) >> g")),
            "map(f) >> reduce(add)(0.0f) >> g");
  // A generated binder that is not a composition prints as a readable fresh name.
  std::string v = fresh_name("x");
  Expr e = lambda(v, printer_bin("add", printer_id(v), printer_id("x")));
  std::string text = round_trip(e);
  EXPECT_EQ(text.find("__"), std::string::npos) << text;
  EXPECT_EQ(text, "fun(x1 => x1 + x)");
  // A user lambda of the shape g(f(x)) stays a lambda.
  EXPECT_EQ(round_trip(printer_pe("fun(f => map(map(f)))")), "fun(f => map(map(f)))");
  // Names that are not identifiers are replaced too.
  EXPECT_EQ(round_trip(lambda("$t0", printer_id("$t0"))), "fun(t0 => t0)");
  EXPECT_EQ(round_trip(lambda("in", printer_id("in"))), "fun(in1 => in1)");
}

TEST(Printer, Literals) {
  auto lit_text = [](const Expr& e) { return print_literal(e->lit); };
  EXPECT_EQ(lit_text(int_lit(42)), "42");
  EXPECT_EQ(lit_text(int_lit(-42)), "-42");
  EXPECT_EQ(lit_text(f32_lit(0.0)), "0.0f");
  EXPECT_EQ(lit_text(f32_lit(0.1)), "0.1f");
  EXPECT_EQ(lit_text(f32_lit(-2.5)), "-2.5f");
  EXPECT_EQ(lit_text(f32_lit(1e20)), "1e+20f");
  EXPECT_EQ(lit_text(f64_lit(0.1)), "0.1");
  EXPECT_EQ(lit_text(f64_lit(3.0)), "3.0");
  EXPECT_EQ(lit_text(f64_lit(-0.0)), "-0.0");
  EXPECT_EQ(lit_text(scalar_lit(ScalarKind::I64, -5, 0)), "-5i64");
  EXPECT_EQ(lit_text(scalar_lit(ScalarKind::I32, 5, 0)), "5i32");
  EXPECT_EQ(lit_text(scalar_lit(ScalarKind::U64, -1, 0)), "18446744073709551615u64");
  EXPECT_EQ(lit_text(bool_lit(true)), "true");
  EXPECT_EQ(lit_text(bool_lit(false)), "false");
  Literal ix;
  ix.kind = LitKind::Index;
  ix.nat = 2;
  ix.size = Nat::size_var("n") + 1;
  EXPECT_EQ(print_literal(ix), "lidx(2, n + 1)");
  round_trip(literal(ix));
  for (const Expr& e : {int_lit(0), int_lit(std::numeric_limits<int64_t>::min()),
                        int_lit(std::numeric_limits<int64_t>::max()), f32_lit(-0.0),
                        scalar_lit(ScalarKind::I8, -128, 0), scalar_lit(ScalarKind::U8, 255, 0),
                        scalar_lit(ScalarKind::I16, -32768, 0), scalar_lit(ScalarKind::U16, 7, 0),
                        scalar_lit(ScalarKind::U32, 4294967295, 0),
                        scalar_lit(ScalarKind::I64, std::numeric_limits<int64_t>::min(), 0),
                        f64_lit(5e-324), f64_lit(1.7976931348623157e308), f32_lit(1.17549435e-38),
                        f32_lit(3.40282347e38), bool_lit(true)})
    round_trip(e);
}

TEST(Printer, FloatLiteralsReadBackBitExact) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 5000; ++i) {
    uint32_t fb = static_cast<uint32_t>(rng());
    float f = std::bit_cast<float>(fb);
    if (!std::isfinite(f)) continue;
    Expr e = f32_lit(static_cast<double>(f));
    std::string text = print_expr(e);
    Expr back = printer_pe(text);
    ASSERT_EQ(back->kind, ExprKind::Literal) << text;
    ASSERT_EQ(back->lit.scalar, ScalarKind::F32) << text;
    ASSERT_EQ(std::bit_cast<uint64_t>(back->lit.f), std::bit_cast<uint64_t>(e->lit.f)) << text;
    double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    Expr e2 = f64_lit(d);
    std::string t2 = print_expr(e2);
    Expr back2 = printer_pe(t2);
    ASSERT_EQ(back2->lit.scalar, ScalarKind::F64) << t2;
    ASSERT_EQ(std::bit_cast<uint64_t>(back2->lit.f), std::bit_cast<uint64_t>(d)) << t2;
  }
}

TEST(Printer, ProgramsWithForeignAndAnnotations) {
  std::string text =
      "foreign def clamp(x: f32, lo: f32, hi: f32): f32 = \"{ return x < lo ? lo : (x > hi ? hi "
      ": x); }\"\n"
      "\n"
      "def g : f32 -> f32 = fun(x => clamp(x)(0.0f)(1.0f))\n";
  Program p = printer_pp(text);
  EXPECT_EQ(print_program(p), text);
  std::string esc = "foreign def f(): f32 = \"a\\tb\\\"c\\\\d\\x01\n  e\"\n";
  EXPECT_EQ(print_program(printer_pp(esc)), esc);
}

TEST(Printer, TypesOption) {
  Type f32 = scalar(ScalarKind::F32);
  Expr lam =
      with_type(lambda("x", printer_bin("add", printer_id("x"), printer_id("x"))), fun(f32, f32));
  PrintOptions with_types;
  with_types.types = true;
  EXPECT_EQ(print_expr(lam, with_types), "fun(x: f32 => x + x)");
  EXPECT_EQ(print_expr(lam), "fun(x => x + x)");
  Program p;
  p.defs.push_back(Definition{"double", {}, nullptr, lam, nullptr});
  EXPECT_EQ(print_program(p, with_types),
            "// double : f32 -> f32\ndef double = fun(x: f32 => x + x)\n");
  EXPECT_EQ(print_program(p), "def double = fun(x => x + x)\n");
  // A let binder with its type.
  Expr let_e = apps(printer_prim(PrimId::Let),
                    {f32_lit(1), with_type(lambda("y", printer_id("y")), fun(f32, f32))});
  EXPECT_EQ(print_expr(let_e, with_types), "let y: f32 = 1.0f in y");
  EXPECT_TRUE(alpha_equal(
      printer_pe(print_expr(let_e, with_types)),
      apps(printer_prim(PrimId::Let), {f32_lit(1), lambda("y", printer_id("y"), f32)})));
}

// ---------------------------------------------------------------------------------
// Property test: random expressions of every construct the parser produces
// ---------------------------------------------------------------------------------

class PrinterGen {
 public:
  // `schedules`: also parallel loops with OpenMP schedules, and binders named like
  // their kinds.
  explicit PrinterGen(uint64_t seed, bool schedules = false) : rng_(seed), schedules_(schedules) {}

  Expr expr(int depth) {
    if (depth <= 0) return leaf();
    if (schedules_ && pick(5) == 0) return scheduled_loop(depth);
    switch (pick(20)) {
      case 0:
      case 1:
        return leaf();
      case 2: {
        static const char* ops[] = {"add", "sub", "mul", "div", "mod", "lt", "gt", "equal"};
        return printer_bin(ops[pick(8)], expr(depth - 1), expr(depth - 1));
      }
      case 3: {
        static const char* ops[] = {"gt", "lt", "equal"};
        return app(printer_prim(PrimId::Not),
                   printer_bin(ops[pick(3)], expr(depth - 1), expr(depth - 1)));
      }
      case 4:
        return app(printer_prim(pick(2) ? "neg" : "not"), expr(depth - 1));
      case 5:
        return app(printer_prim(pick(2) ? "fst" : "snd"), expr(depth - 1));
      case 6:
        return apps(printer_prim(PrimId::Idx), {expr(depth - 1), expr(depth - 1)});
      case 7:
        return apps(printer_prim(PrimId::MakePair), {expr(depth - 1), expr(depth - 1)});
      case 8: {
        int n = 1 + pick(3);
        std::vector<Expr> xs;
        for (int i = 0; i < n; ++i) xs.push_back(expr(depth - 1));
        return apps(make_array_prim(n), xs);
      }
      case 9:
        return apps(printer_prim(PrimId::Let),
                    {expr(depth - 1), lambda(name(), expr(depth - 1), type())});
      case 10:
        return lambda(name(), expr(depth - 1), type());
      case 11:
        return app(expr(depth - 1), expr(depth - 1));
      case 12:
        return apps(printer_id(pattern()), {expr(depth - 1), expr(depth - 1)});
      case 13:
        return annotation(expr(depth - 1), scalar(ScalarKind::F32));
      case 14:
        return dep_lambda(pick(2) ? Kind::Nat : Kind::Data, pick(2) ? "n" : "t", expr(depth - 1));
      case 15: {
        // f >> g as the parser builds it.
        std::string v = fresh_name("x");
        return lambda(v, app(expr(depth - 1), app(expr(depth - 1), printer_id(v))));
      }
      case 16: {
        std::string v = fresh_name("y");
        return lambda(v, printer_bin("add", printer_id(v), expr(depth - 1)));
      }
      case 17:
        return apps(printer_id("reduce"), {printer_id("add"), expr(depth - 1), expr(depth - 1)});
      case 18:
        return apps(printer_id("slide"), {int_lit(pick(5)), int_lit(1), expr(depth - 1)});
      default:
        return app(printer_id("f"), expr(depth - 1));
    }
  }

  // The names the generated expressions use free.
  std::vector<std::string> free_names() const {
    std::vector<std::string> out = {"a", "b", "x", "y", "x1", "in_", "_1", "f", "g"};
    if (schedules_) out.insert(out.end(), {"static", "dynamic", "guided"});
    return out;
  }

 private:
  std::mt19937_64 rng_;
  bool schedules_ = false;
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  std::string name() {
    static const char* names[] = {"a",   "b",  "x",      "y",       "x1",
                                  "in_", "_1", "static", "dynamic", "guided"};
    return names[pick(schedules_ ? 10 : 7)];
  }
  // mapPar(kind, chunk)(f)(xs) or reducePar(kind, chunk)(op)(init)(xs).
  Expr scheduled_loop(int depth) {
    static const ParSchedule::Kind kinds[] = {ParSchedule::Kind::Static, ParSchedule::Kind::Dynamic,
                                              ParSchedule::Kind::Guided};
    static const int64_t chunks[] = {0, 1, 4, 64, kMaxScheduleChunk};
    const ParSchedule s{kinds[pick(3)], chunks[pick(5)]};
    if (pick(2))
      return apps(with_schedule(printer_prim(PrimId::MapPar), s),
                  {lambda(name(), expr(depth - 1), type()), expr(depth - 1)});
    Expr op = pick(2) ? printer_id("add") : lambda(name(), lambda(name(), expr(depth - 1)));
    return apps(with_schedule(printer_prim(PrimId::ReducePar), s),
                {op, expr(depth - 1), expr(depth - 1)});
  }
  std::string pattern() {
    static const char* names[] = {"map", "zip", "split", "g", "padCst", "add"};
    return names[pick(6)];
  }
  Type type() {
    switch (pick(4)) {
      case 0:
        return scalar(ScalarKind::F32);
      case 1:
        return array(Nat::size_var("n") + 2, scalar(ScalarKind::I64));
      default:
        return nullptr;
    }
  }
  Expr leaf() {
    switch (pick(10)) {
      case 0:
        return int_lit(static_cast<int64_t>(rng_() % 200) - 100);
      case 1:
        return f32_lit(static_cast<double>(static_cast<int64_t>(rng_() % 2000) - 1000) / 8);
      case 2:
        return f64_lit(static_cast<double>(static_cast<int64_t>(rng_() % 2000) - 1000) / 3);
      case 3:
        return bool_lit(pick(2));
      case 4:
        return scalar_lit(ScalarKind::I64, static_cast<int64_t>(rng_() % 200) - 100, 0);
      case 5:
        return printer_id("map");
      default:
        return printer_id(name());
    }
  }
};

TEST(Printer, RandomExpressionsRoundTrip) {
  PrinterGen gen(1234);
  for (int i = 0; i < 3000; ++i) {
    Expr e = gen.expr(5);
    std::string text = print_expr(e);
    Expr back;
    try {
      back = printer_pe(text);
    } catch (const Error& err) {
      FAIL() << "case " << i << ": printed text does not parse:\n"
             << text << "\n"
             << format_error(err);
    }
    ASSERT_TRUE(alpha_equal(back, e))
        << "case " << i << ":\n  printed:    " << text << "\n  re-printed: " << print_expr(back);
    ASSERT_EQ(print_expr(back), text) << "case " << i;
  }
}

// A scheduled parallel loop prints as `mapPar(dynamic, 4)(f)` (docs/language.md), which
// name resolution reads back as the same loop; a binder named like a kind is shown
// renamed where a loop has a schedule. Random expressions, their free names bound (the
// kinds' names among them), printed as `risec rewrite` prints a resolved program.
TEST(Printer, RandomScheduledLoopsRoundTripThroughResolution) {
  PrinterGen gen(4321, true);
  int scheduled = 0, renamed = 0;
  for (int i = 0; i < 2000; ++i) {
    Expr e = gen.expr(5);
    for (const std::string& n : gen.free_names()) e = lambda(n, e);
    const Expr want = resolve_expr(e);
    const std::string text = print_expr(want);
    Expr back;
    try {
      back = resolve_expr(printer_pe(text));
    } catch (const Error& err) {
      FAIL() << "case " << i << ": printed text does not read back:\n"
             << text << "\n"
             << format_error(err);
    }
    ASSERT_TRUE(alpha_equal(back, want))
        << "case " << i << ":\n  printed:    " << text << "\n  re-printed: " << print_expr(back);
    ASSERT_EQ(print_expr(back), text) << "case " << i;
    scheduled += text.find("Par(") != std::string::npos;
    renamed += text.find("dynamic1") != std::string::npos;
  }
  EXPECT_GT(scheduled, 500);
  EXPECT_GT(renamed, 100);
}

TEST(Printer, DeepTreesPrint) {
  // The deepest trees the parser accepts print (chains are printed iteratively).
  std::string sums = "x";
  for (int i = 0; i < 1000; ++i) sums += " + x";
  Expr e = printer_pe(sums);
  EXPECT_EQ(print_expr(e), sums);
  std::string pipes = "x";
  for (int i = 0; i < 2000; ++i) pipes += " |> map(f)";
  EXPECT_TRUE(alpha_equal(printer_pe(print_expr(printer_pe(pipes))), printer_pe(pipes)));
  // Chains printed recursively, close to the parser's depth limit.
  std::string calls = "x";
  for (int i = 0; i < 1900; ++i) calls += " |> f + x";
  Expr c = printer_pe(calls);
  EXPECT_TRUE(alpha_equal(printer_pe(print_expr(c)), c));
  std::string nested = "x";
  for (int i = 0; i < 1900; ++i) nested += " |> f(x < y)";
  Expr n = printer_pe(nested);
  EXPECT_TRUE(alpha_equal(printer_pe(print_expr(n)), n));
  // Shallow nesting stays calls.
  EXPECT_EQ(print_expr(printer_pe("f(g(h(x)))")), "f(g(h(x)))");
}

}  // namespace
}  // namespace risec::rise
