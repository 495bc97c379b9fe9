// Masks (docs/language.md, "Masks"; Sierra, issue 19): comparisons of vec[t, n] give
// vec[bool, n], select on a mask blends lane by lane, &&, || and ! combine masks, and
// any/all reduce them. Type checking infers masks from the operands and refuses a
// blend of vectors of another width, located; the interpreter computes lane by lane;
// generated C, OpenMP and OpenCL compute what the interpreter does, also for f64
// lanes (64-bit blends of a 32-bit mask) and for lengths that are not multiples of
// the width (vectorizeRemainder).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "e2e_util.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

rise::Checked check(const std::string& text) {
  return rise::check_program(
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"mask.rise", text})), "");
}

// Lane-wise logic on vectors of `t` (f32 or f64): a mask from comparisons, combined
// with &&, || and !, a blend, and any/all of masks (`lanes` wide).
std::string mask_program(const std::string& t, int lanes = 4) {
  std::string v = "vec[" + t + ", " + std::to_string(lanes) + "]";
  std::string c = [&] { return t == "f32" ? std::string("f") : std::string(""); }();
  auto b = [&](const std::string& x) { return "vectorFromScalar(" + x + c + ")"; };
  return "def f = depFun(n: Nat => fun(x: n." + v + " => fun(y: n." + v + " => zip(x)(y) |> " +
         "map(fun(p => let m = (p._1 < p._2 && !(p._1 > " + b("0.75") +
         ")) || p._2 == " + b("0.5") +
         " in select(m)(p._1 * p._2)(p._1 - p._2) + select(any(p._1 > " + b("0.9") + "))(" +
         b("1.0") + ")(" + b("0.0") + ") + select(all(p._2 > " + b("0.1") + "))(" + b("2.0") +
         ")(" + b("0.0") + "))))))\n";
}

TEST(Masks, ComparisonsOfVectorsAreMasks) {
  rise::Checked c = check(
      "def f = fun(x: vec[f32, 8] => fun(y: vec[f32, 8] => select(x < y && !(x == y))(x)(y)))");
  EXPECT_EQ(rise::print(c.type), "vec[f32, 8] -> vec[f32, 8] -> vec[f32, 8]");
  rise::Checked m = check("def f = fun(x: vec[i32, 4] => x > vectorFromScalar(2))");
  EXPECT_EQ(rise::print(m.type), "vec[i32, 4] -> vec[bool, 4]");
  rise::Checked s = check("def f = fun(x: f32 => x > 2.0f || x < 0.0f)");
  EXPECT_EQ(rise::print(s.type), "f32 -> bool");
  rise::Checked a = check("def f = fun(x: vec[f64, 2] => any(x < vectorFromScalar(1.0)))");
  EXPECT_EQ(rise::print(a.type), "vec[f64, 2] -> bool");
}

TEST(Masks, ABlendOfAnotherWidthIsRefusedLocated) {
  const std::string text =
      "def f = fun(x: vec[f32, 8] => fun(y: vec[f32, 4] => select(x < x)(y)(y)))";
  try {
    check(text);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("select on a mask"), std::string::npos) << e.message();
    EXPECT_EQ(e.span().start().line, 1);
  }
  try {
    check("def f = fun(x: vec[f32, 4] => select(x < x)(1.0f)(2.0f))");
    ADD_FAILURE() << "accepted a scalar blend";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("vectors of as many lanes"), std::string::npos) << e.message();
  }
}

TEST(Masks, GeneratedCodeMatchesTheInterpreterOnEveryTarget) {
  for (const char* t : {"f32", "f64"}) {
    SCOPED_TRACE(t);
    const std::string path = write_scratch(std::string("mask_") + t + ".rise", mask_program(t));
    EXPECT_TRUE(compile_and_check(path, "", "n=16", "c"));
    EXPECT_TRUE(compile_and_check(path, "(parallel @ outermost(isApplied(isMap))) ; lowerToC",
                                  "n=16", "openmp"));
    const std::string ocl = "(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC";
    EXPECT_TRUE(compile_and_check(path, ocl, "n=16", "opencl"));
    CheckReport r = run_and_compare(path, ocl, "n=16", CheckOptions{.target = "opencl"});
    EXPECT_NE(r.compiled.unit.kernel_source.find("select("), std::string::npos);
    EXPECT_NE(r.compiled.unit.kernel_source.find("any("), std::string::npos);
  }
}

// A bool operand of && or || beside a mask stands for all its lanes, on either side
// (held-out M F15: `m || b` and `m && b` were refused, "select on a mask ... not bool");
// a scalar && keeps its bool type, and select itself still refuses a bool beside a mask.
TEST(Masks, ABoolOperandOfAndOrBesideAMaskIsBroadcast) {
  for (const char* op : {"&&", "||"}) {
    std::string o = op;
    rise::Checked l = check("def f = fun(x: vec[f32, 4] => fun(b: bool => x < x " + o + " b))");
    EXPECT_EQ(rise::print(l.type), "vec[f32, 4] -> bool -> vec[bool, 4]");
    rise::Checked r = check("def f = fun(x: vec[f32, 4] => fun(b: bool => b " + o + " x < x))");
    EXPECT_EQ(rise::print(r.type), "vec[f32, 4] -> bool -> vec[bool, 4]");
    rise::Checked s = check("def f = fun(x: f32 => fun(b: bool => x < x " + o + " b))");
    EXPECT_EQ(rise::print(s.type), "f32 -> bool -> bool");
    // the condition's type known only from the map the lambda is given to
    const std::string path = write_scratch(
        "mask_bool_" + std::string(o == "&&" ? "and" : "or") + ".rise",
        "def f = depFun(n: Nat => fun(xs: n.f32 => fun(b: bool => xs |> split(4) |> "
        "map(asVector(4) >> map(fun(v => select(v > v * v " +
            o + " b " + o + " (v < v + v || !b))(v)(v - v * v))) >> asScalar) |> join)))\n");
    EXPECT_TRUE(compile_and_check(path, "", "n=16", "c"));
    EXPECT_TRUE(compile_and_check(path, "", "n=16", "opencl"));
  }
  try {
    check("def f = fun(x: vec[f32, 4] => fun(b: bool => select(x < x)(b)(false)))");
    ADD_FAILURE() << "select accepted a bool beside a mask";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("vectors of as many lanes"), std::string::npos) << e.message();
  }
}

// any/all of masks of one x86 register (8 lanes: AVX's vptest and movemask; 16:
// AVX-512's vptestmd), where the machine has them (else the loop over 64-bit words);
// with 24 vectors of random inputs, both answers almost surely occur.
TEST(Masks, AnyAndAllOfWideMasksMatchTheInterpreter) {
  for (int lanes : {8, 16}) {
    SCOPED_TRACE(lanes);
    const std::string path =
        write_scratch("mask_f32x" + std::to_string(lanes) + ".rise", mask_program("f32", lanes));
    EXPECT_TRUE(compile_and_check(path, "", "n=24", "c"));
  }
}

// vectorize turns a scalar map with lane-dependent conditions into masked vector code
// that computes what the scalar map computes, at a length that is not a multiple of
// the width.
TEST(Masks, VectorizeIfConvertsLaneDependentConditions) {
  const std::string path = write_scratch(
      "mask_vectorize.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => fun(c: f32 => x |> map(fun(a => "
      "select(a > c && a < 0.9f || a == 0.5f)(a * a)(select(a < 0.1f)(0.0f)(-a)))))))\n");
  const std::string s = "(vectorizeRemainder(8) @ outermost(isFullyApplied(isMap))) ; lowerToC";
  EXPECT_TRUE(compile_and_check(path, s, "n=43", "c"));
  CheckReport r = run_and_compare(path, s, "n=43");
  EXPECT_TRUE(r.comparison.ok);
  EXPECT_NE(r.compiled.unit.source.find("risec_f32x8_blend("), std::string::npos);
}

}  // namespace
}  // namespace risec::e2e
