// The language additions of spec/rise-syntax.md "Literals and sizes as values":
// inf/-inf/inff/-inff/nan literals, sizes as values (natAsScalar(n) and a size name
// where a number is expected) and && / || with short-circuit meaning. Each is
// checked in the checker, the printer (print, parse, print again gives the same
// text), the interpreter and the generated C (run --check on both targets), over
// many generated variants.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <unistd.h>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "runtime/npy.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

std::string write_program(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/risec_additions_" + std::to_string(::getpid()) + "_" +
                     name + ".rise";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "";
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

rise::Program additions_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"a.rise", text}));
}

// print(parse(text)) is a fixed point, and so is the printed checked entry.
void expect_round_trip(const std::string& text) {
  std::string once = rise::print_program(additions_parse(text));
  EXPECT_EQ(rise::print_program(additions_parse(once)), once) << text;
  rise::Program p = additions_parse(text);
  rise::Checked c = rise::check_program(p, "");
  std::string checked = "def main = " + rise::print_expr(c.expr) + "\n";
  rise::Checked again = rise::check_program(additions_parse(checked), "");
  EXPECT_EQ(rise::print(again.type), rise::print(c.type)) << checked;
  EXPECT_EQ("def main = " + rise::print_expr(again.expr) + "\n", checked);
}

// The program compiles and agrees with the interpreter on both targets.
void expect_runs(const std::string& name, const std::string& text, const std::string& sizes,
                 const std::string& strategy = "", bool opencl = false) {
  std::string path = write_program(name, text);
  ASSERT_FALSE(path.empty());
  for (const char* target : {"c", "openmp", "opencl"}) {
    if (!opencl && std::string(target) == "opencl") continue;
    EXPECT_TRUE(compile_and_check(path, strategy, sizes, target)) << target << ": " << text;
  }
}

const char* kReducePar = "(reducePar @ outermost(isFullyApplied(isReduce))) ; lowerToC";

TEST(LiteralAdditions, InfinityLiteralsMakeMaxAndMinReductions) {
  int k = 0;
  for (const char* t : {"f32", "f64"}) {
    for (const char* op : {"fmax", "fmin"}) {
      bool max = std::string(op) == "fmax";
      std::vector<std::string> inits = {max ? "-inf" : "inf"};
      if (std::string(t) == "f32") inits.push_back(max ? "-inff" : "inff");
      for (const std::string& init : inits) {
        std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                           " => x |> reduce(" + op + ")(" + init + ")))";
        expect_round_trip(text);
        EXPECT_EQ(rise::print(rise::check_program(additions_parse(text), "").type),
                  "(n: Nat) -> n." + std::string(t) + " -> " + t);
        expect_runs("inf" + std::to_string(k++), text, "n=37");
        // the neutral element lets reducePar apply (OpenMP reduction clause)
        std::string path = write_program("infpar" + std::to_string(k++), text);
        EXPECT_TRUE(compile_and_check(path, kReducePar, "n=64", "openmp")) << text;
      }
    }
  }
}

TEST(LiteralAdditions, InfAndNanTakeTheirTypeFromContext) {
  // f64 unless the context says f32; nan compares unequal to itself
  EXPECT_EQ(rise::print(rise::check_program(additions_parse("def f = inf"), "").type), "f64");
  EXPECT_EQ(rise::print(rise::check_program(additions_parse("def f = nan"), "").type), "f64");
  EXPECT_EQ(rise::print(rise::check_program(additions_parse("def f = inff"), "").type), "f32");
  EXPECT_EQ(
      rise::print(rise::check_program(additions_parse("def f = fun(x: f32 => x + inf)"), "").type),
      "f32 -> f32");
  for (const char* bad : {"def f = fun(x: i32 => x + inf)", "def f = fun(x: f64 => x + inff)",
                          "def f = fun(x: bool => select(x)(nan)(true))"}) {
    try {
      rise::check_program(additions_parse(bad), "");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User);
      EXPECT_EQ(e.span().start().line, 1) << e.message();
    }
  }
  int k = 0;
  for (const char* t : {"f32", "f64"}) {
    for (const char* lit : {"inf", "-inf", "nan"}) {
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                         " => x |> map(fun(v => select(v > 0.5" +
                         (std::string(t) == "f32" ? "f" : "") + ")(" + lit + ")(v)))))";
      expect_round_trip(text);
      expect_runs("ctx" + std::to_string(k++), text, "n=16");
    }
  }
}

TEST(LiteralAdditions, SizesAsValues) {
  int k = 0;
  for (const char* t : {"f32", "f64", "i32", "i64", "u32"}) {
    bool flt = t[0] == 'f';
    std::string zero = std::string(t) == "f32" ? "0.0f"
                       : flt                   ? "0.0"
                             : std::string("0") + (std::string(t) == "i32" ? "" : t);
    for (const char* form : {"n", "natAsScalar(n)"}) {
      // a mean (float) or a scaled sum (integer), and the size in an element-wise map
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                         " => (x |> reduce(add)(" + zero + ")) " + (flt ? "/ " : "+ ") + form +
                         "))";
      expect_round_trip(text);
      ++k;
      expect_runs("size" + std::to_string(k), text, "n=" + std::to_string(3 + k));
      std::string text2 = "def main = depFun((n: Nat, m: Nat) => fun(x: n.m." + std::string(t) +
                          " => x |> map(map(fun(v => v * " + form + " + m)))))";
      expect_round_trip(text2);
      ++k;
      expect_runs("size" + std::to_string(k), text2, "n=3,m=" + std::to_string(k));
    }
  }
}

TEST(LiteralAdditions, AndOrShortCircuit) {
  // precedence: && binds tighter than ||, both looser than comparisons
  for (const char* e : {"a && b || c", "a || b && c", "(a || b) && c", "a && (b || c)",
                        "!a || b && !c", "a && b && c", "a || b || c"}) {
    std::string text =
        std::string("def f = fun(a: bool => fun(b: bool => fun(c: bool => ") + e + ")))";
    expect_round_trip(text);
    // the truth table agrees with C's meaning
    for (int bits = 0; bits < 8; ++bits) {
      bool a = bits & 1, b = bits & 2, c = bits & 4;
      bool want = std::string(e) == "a && b || c"     ? (a && b) || c
                  : std::string(e) == "a || b && c"   ? a || (b && c)
                  : std::string(e) == "(a || b) && c" ? (a || b) && c
                  : std::string(e) == "a && (b || c)" ? a && (b || c)
                  : std::string(e) == "!a || b && !c" ? !a || (b && !c)
                  : std::string(e) == "a && b && c"   ? a && b && c
                                                      : a || b || c;
      auto lit = [](bool v) { return v ? std::string("true") : std::string("false"); };
      std::string applied = std::string("def g = fun(a: bool => fun(b: bool => fun(c: bool => ") +
                            e + ")))\ndef main = g(" + lit(a) + ")(" + lit(b) + ")(" + lit(c) + ")";
      std::string path = write_program("tt", applied);
      CheckReport r = run_and_compare(path, "", "");
      EXPECT_EQ(r.expected.to_string(), lit(want)) << applied;
    }
  }
  // the right operand runs only when it decides: integer division by zero is guarded
  int k = 0;
  for (const char* t : {"i32", "i64", "u8", "i16"}) {
    std::string z = std::string("0") + (std::string(t) == "i32" ? "" : t);
    std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                       " => x |> map(fun(v => v != " + z + " && 100" +
                       (std::string(t) == "i32" ? "" : t) + " / v > " + z + " || v == " + z +
                       "))))";
    expect_round_trip(text);
    for (uint64_t seed : {1, 2, 3}) {
      std::string path = write_program("sc" + std::to_string(k++), text);
      CheckOptions o;
      o.seed = seed;
      EXPECT_TRUE(run_and_compare(path, "", "n=300", o).comparison.mismatches == 0) << text;
    }
  }
}

// The right operand of && and || (and a branch of select) that needs commands, not
// just an expression (a reduction), runs only when it decides: a run-time `if` in the
// generated code, not a value computed before the choice. Guards against a division by
// zero (seeded data holds zeros) and an out-of-bounds read (x[i - 1] at i = 0, under
// the sanitizers), for every integer type, both operators and both targets.
TEST(LiteralAdditions, ShortCircuitWhenTheRightOperandNeedsCommands) {
  int k = 0;
  for (const char* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
    const std::string sfx = std::string(t) == "i32" ? "" : t;
    const std::string zero = "0" + sfx;
    // sum of p._1 / p._2 over 4 copies: a loop, computed only where p._2 != 0
    const std::string sum =
        "(generate(fun(j: idx[4] => p._1 / p._2)) |> reduce(add)(" + zero + ")) > " + zero;
    for (const std::string& cond :
         {"p._2 != " + zero + " && " + sum, "p._2 == " + zero + " || " + sum,
          "!(p._2 == " + zero + ") && (" + sum + " || p._1 == " + zero + ")"}) {
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) + ", y: n." + t +
                         " => zip(x)(y) |> map(fun(p => select(" + cond + ")(1)(0)))))";
      std::string path = write_program("scc" + std::to_string(k++), text);
      for (const char* target : {"c", "openmp"}) {
        CheckOptions o;
        o.target = target;
        EXPECT_TRUE(compile_and_check(path, "", "n=2000", o)) << text;
      }
    }
  }
  // x[i - 1] is read only for i > 0 (a reduction over a generated window of it).
  const std::string text =
      "def main = depFun(n: Nat => fun(x: n.f32 => generate(fun(i: idx[n] => select(i > 0 && "
      "(generate(fun(j: idx[3] => x[i - 1])) |> reduce(add)(0.0f)) > 1.5f)(1.0f)(0.0f)))))";
  std::string path = write_program("oob", text);
  CheckOptions o;
  o.sanitize = true;
  EXPECT_TRUE(compile_and_check(path, "", "n=64", o)) << text;
  o.generic = true;
  EXPECT_TRUE(compile_and_check(path, "", "n=64", o)) << text;
}

// Selects nested in branches that need commands (an if / else-if chain) translate each
// branch once: 200 levels compile in linear time and agree with the interpreter.
TEST(LiteralAdditions, NestedSelectsWithCommandsStayLinear) {
  // AddressSanitizer's frames are several times larger
  const int deepest = risec::test::sanitized_build() ? 50 : 200;
  for (int depth : {1, 10, deepest}) {
    std::string body = "0.0f";
    for (int d = depth; d >= 1; --d)
      body = "select(v > " + std::to_string(d) + ".0f)((generate(fun(j: idx[2] => v * " +
             std::to_string(d) + ".0f)) |> reduce(add)(0.0f)))(" + body + ")";
    std::string text =
        "def main = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => " + body + "))))";
    std::string path = write_program("nest" + std::to_string(depth), text);
    CheckOptions o;
    o.atol = 1e-3;
    EXPECT_TRUE(compile_and_check(path, "", "n=64", o)) << depth;
  }
}

// fmax and fmin of integers (an integer max or min reduction, a lane-by-lane max) are
// compiled as comparisons: every integer type, both functions, as a reduction and in
// a map, on both targets.
TEST(LiteralAdditions, IntegerMaxAndMinCompile) {
  int k = 0;
  for (const char* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})
    for (const char* f : {"fmax", "fmin"}) {
      const std::string sfx = std::string(t) == "i32" ? "" : t;
      const std::string init = std::string(f) == "fmax" ? "0" + sfx : "100" + sfx;
      for (const std::string& body :
           {"x |> reduce(" + std::string(f) + ")(" + init + ")",
            "zip(x)(y) |> map(fun(p => " + std::string(f) + "(p._1)(p._2)))"}) {
        std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) + ", y: n." +
                           t + " => " + body + "))";
        expect_runs("imax" + std::to_string(k++), text, "n=257");
      }
    }
}

// An integer maximum or minimum whose initial value is the type's least or largest
// value (what -infinity and +infinity are on floats) is a parallel reduction
// (held-out N F8: reducePar asked for -infinity, which no integer writes).
TEST(LiteralAdditions, IntegerMaxAndMinFromTheTypesBoundsAreParallel) {
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> bounds = {
      {"i8", {"-128i8", "127i8"}},
      {"i32", {"-2147483648", "2147483647"}},
      {"i64", {"-9223372036854775808i64", "9223372036854775807i64"}},
      {"u16", {"0u16", "65535u16"}},
      {"u64", {"0u64", "18446744073709551615u64"}}};
  int k = 0;
  for (const auto& [t, b] : bounds)
    for (const char* f : {"fmax", "fmin"}) {
      const std::string init = std::string(f) == "fmax" ? b.first : b.second;
      const std::string path = write_program("ibound" + std::to_string(k++),
                                             "def main = depFun(n: Nat => fun(x: n." + t +
                                                 " => x |> reduce(" + f + ")(" + init + ")))");
      EXPECT_TRUE(compile_and_check(path, kReducePar, "n=300", "openmp")) << t << " " << f;
    }
  // another value is still refused
  const std::string path = write_program(
      "ibound_no", "def main = depFun(n: Nat => fun(x: n.i32 => x |> reduce(fmax)(-5)))");
  EXPECT_FALSE(compile_and_check(path, kReducePar, "n=30", "openmp"));
}

// The other math functions are the C library's, on f32 and f64 (spec/rise-syntax.md):
// of integers, natType, indices and bools they are refused where they are applied. Of
// an integer they once computed in double, truncated, in C, and in float on OpenCL
// (held-out M F21: tanh(19) was 0 in C, 1 on OpenCL). abs of every integer type runs on
// every target, scalar and in vectors (OpenCL's abs of an integer vector is unsigned).
TEST(LiteralAdditions, IntegerMathFunctionsAreRefusedExceptAbsMinAndMax) {
  std::vector<std::string> operands = {"i8",  "i16", "i32", "i64", "u8",
                                       "u16", "u32", "u64", "bool"};
  for (const char* f :
       {"sqrt", "rsqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "erf", "pow"})
    for (const std::string& t : operands) {
      std::string call = std::string(f) + (std::string(f) == "pow" ? "(x)(x)" : "(x)");
      std::string text = "def f = fun(x: " + t + " =>\n  " + call + ")";
      try {
        rise::check_program(additions_parse(text), "");
        ADD_FAILURE() << "accepted: " << text;
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        EXPECT_EQ(e.span().start().line, 2) << e.message();
        EXPECT_NE(e.message().find(std::string(f) + " is defined on f32 and f64"),
                  std::string::npos)
            << e.message();
      }
    }
  for (const char* text :
       {"def f = depFun(n: Nat => generate(fun(i: idx[n] => abs(i))))",
        "def f = depFun(n: Nat => generate(fun(i: idx[n] => sqrt(indexAsNat(i)))))",
        "def f = fun(x: natType => fmax(x)(x))",
        "def f = depFun(n: Nat => fun(x: n.i32 =>\n  x |> split(4) |> map(asVector(4) >> "
        "map(fun(v => exp(v))) >> asScalar) |> join))"}) {
    try {
      rise::check_program(additions_parse(text), "");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
      EXPECT_NE(e.message().find(" is defined on "), std::string::npos) << e.message();
    }
  }
  int k = 0;
  for (const char* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
    expect_runs("iabs" + std::to_string(k++),
                "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                    " => x |> split(8) |> map(asVector(8) >> map(fun(v => abs(v) + "
                    "fmax(v)(v - abs(v)) + fmin(v)(abs(v)))) >> asScalar) |> join |> "
                    "map(fun(a => abs(a - 100" +
                    t + ")))))",
                "n=64", "", /*opencl=*/true);
  }
}

// 8- and 16-bit integer arithmetic wraps to its type after each operation, as in the
// interpreter: C computes it in int, so (u8)(a - b) / 2 divided a negative number and
// (i8)(a * b) / 3 an unwrapped product. Every narrow type, several expressions.
TEST(LiteralAdditions, NarrowIntegerArithmeticWraps) {
  int k = 0;
  for (const char* t : {"i8", "i16", "u8", "u16"})
    for (const char* e : {"(a - b) / 2T", "(a * b) / 3T", "(a * b * a) % 7T", "-(a + b) / 5T",
                          "select((a - b) > 10T)(a)(b)", "(a * a) == (b * b)"}) {
      std::string expr = e;
      for (size_t at; (at = expr.find('T')) != std::string::npos;) expr.replace(at, 1, t);
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) + ", y: n." + t +
                         " => zip(x)(y) |> map(fun(p => let a = p._1 in let b = p._2 in " + expr +
                         "))))";
      expect_runs("narrow" + std::to_string(k++), text, "n=300");
    }
}

// Casts from float to integer saturate to the type (NaN gives 0), as the interpreter
// computes them: C's conversion of a value out of range is undefined. Both float
// types, every integer type, values in range, beyond it either way, infinite and NaN.
TEST(LiteralAdditions, FloatToIntegerCastsSaturate) {
  int k = 0;
  for (const char* f : {"f32", "f64"})
    for (const char* t : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}) {
      const std::string sfx = std::string(f) == "f32" ? "f" : "";
      std::string elems;
      for (const char* e : {"v * 100.0", "v * 300.0", "v * -70000.0", "v * 10000000000.0",
                            "v * -100000000000000000000.0", "v / 0.0", "v / 0.0 - v / 0.0"}) {
        std::string x = e;
        for (size_t at = 0; (at = x.find(".0", at)) != std::string::npos; at += 2 + sfx.size())
          x.insert(at + 2, sfx);
        elems += std::string(elems.empty() ? "" : ", ") + "(cast(" + x + ") : " + t + ")";
      }
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(f) +
                         " => x |> map(fun(v => [" + elems + "]))))";
      expect_runs("fcast" + std::to_string(k++), text, "n=100", "", /*opencl=*/true);
    }
}

// 32- and 64-bit signed +, -, * and negation wrap as in the interpreter, without C's
// undefined signed overflow: run under the sanitizers (UBSan reports an overflow), in
// maps and in a sum that overflows.
TEST(LiteralAdditions, SignedOverflowWrapsWithoutUndefinedBehaviour) {
  int k = 0;
  for (const char* t : {"i32", "i64"}) {
    const std::string sfx = std::string(t) == "i32" ? "" : t;
    const std::string big = std::string(t) == "i32" ? "2000000000" : "9000000000000000000i64";
    for (const std::string& body :
         {"x |> map(fun(v => v * " + big + " + " + big + "))",
          "x |> map(fun(v => -(v - " + big + ") - " + big + " - " + big + "))",
          "x |> map(fun(v => v * " + big + ")) |> reduce(add)(0" + sfx + ")"}) {
      std::string text =
          "def main = depFun(n: Nat => fun(x: n." + std::string(t) + " => " + body + "))";
      std::string path = write_program("ovf" + std::to_string(k++), text);
      CheckOptions o;
      o.sanitize = true;
      EXPECT_TRUE(compile_and_check(path, "", "n=64", o)) << text;
    }
  }
}

// abs of every signed type, the least value included (its own absolute value, as in
// the interpreter), under the sanitizers, used in further arithmetic.
TEST(LiteralAdditions, AbsOfTheLeastValue) {
  const std::pair<const char*, const char*> least[] = {{"i8", "(-127i8 - 1i8)"},
                                                       {"i16", "(-32767i16 - 1i16)"},
                                                       {"i32", "(-2147483647 - 1)"},
                                                       {"i64", "(-9223372036854775807i64 - 1i64)"}};
  int k = 0;
  for (const auto& [t, lit] : least) {
    const std::string sfx = std::string(t) == "i32" ? "" : t;
    std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(t) +
                       " => x |> map(fun(v => [abs(v - 50" + sfx + ") / 2" + sfx + ", abs(" + lit +
                       " + v - v) / 2" + sfx + "]))))";
    std::string path = write_program("abs" + std::to_string(k++), text);
    CheckOptions o;
    o.sanitize = true;
    EXPECT_TRUE(compile_and_check(path, "", "n=64", o)) << text;
    EXPECT_TRUE(compile_and_check(path, "", "n=64", "openmp")) << text;
  }
}

// Whole vectors of signed integers wrap as scalars do, at the least and largest values
// of each width (an input file holds them): GCC folded a * 2 / 2 to a on int vectors,
// and `-a < 0 && a < 0` was false at the least value (held-out N F6, C and OpenMP);
// OpenCL's abs of an int4 let its compiler take the result as non-negative, and a
// division of it was wrong at the least value (F5). Lane counts 4 and 16 (vectorize) in
// C, 16 in OpenMP, 4 on OpenCL; scalar C under the sanitizers (the product of two
// uint16_t 65535s, computed in int, overflowed it).
TEST(LiteralAdditions, VectorIntegerArithmeticWrapsAtTheEdges) {
  struct Width {
    const char* name;
    runtime::DType dtype;
    int64_t least, largest;
  };
  const Width widths[] = {{"i8", runtime::DType::I8, -128, 127},
                          {"i16", runtime::DType::I16, -32768, 32767},
                          {"i32", runtime::DType::I32, INT32_MIN, INT32_MAX},
                          {"i64", runtime::DType::I64, INT64_MIN, INT64_MAX},
                          {"u16", runtime::DType::U16, 0, 65535}};
  for (const Width& w : widths) {
    SCOPED_TRACE(w.name);
    runtime::NdArray a = runtime::make_array(w.dtype, {32});
    const int64_t edge[] = {w.least, w.largest, -1, 0, 1, w.least + 1, w.largest - 1, 7};
    for (int64_t i = 0; i < 32; ++i) {
      const int64_t v = edge[i % 8];
      switch (w.dtype) {
        case runtime::DType::I8:
          a.as<int8_t>()[i] = static_cast<int8_t>(v);
          break;
        case runtime::DType::I16:
          a.as<int16_t>()[i] = static_cast<int16_t>(v);
          break;
        case runtime::DType::I32:
          a.as<int32_t>()[i] = static_cast<int32_t>(v);
          break;
        case runtime::DType::U16:
          a.as<uint16_t>()[i] = static_cast<uint16_t>(v);
          break;
        default:
          a.as<int64_t>()[i] = v;
      }
    }
    const std::string input = scratch_path(std::string("edges_") + w.name + ".npy");
    runtime::write_npy(input, a);
    const std::string t = w.name, one = t == "i32" ? "1" : "1" + t,
                      two = t == "i32" ? "2" : "2" + t;
    const std::string path = write_program(
        "vwrap_" + t, "def main = depFun(n: Nat => fun(x: n." + t + " => x |> map(fun(a =>\n" +
                          "  a * " + two + " / " + two + " + select(-a < 0" + t + " && a < 0" + t +
                          ")(" + one + ")(0" + t + ") + ((a + " + one + ") - a) + abs(a) / " + two +
                          " + abs(a) % " + two + " + a * a))))\n");
    {  // scalar, under the sanitizers (a * a of two uint16_t 65535s overflowed int)
      CheckOptions o;
      o.sanitize = true;
      o.inputs["x"] = input;
      EXPECT_TRUE(compile_and_check(path, "", "n=32", o));
    }
    for (const auto& [target, lanes] :
         {std::pair<const char*, int>{"c", 4}, {"c", 16}, {"openmp", 16}, {"opencl", 4}}) {
      CheckOptions o;
      o.target = target;
      o.inputs["x"] = input;
      EXPECT_TRUE(compile_and_check(
          path, "vectorize(" + std::to_string(lanes) + ") @ topDown ; lowerToC", "n=32", o))
          << target << " " << lanes;
    }
    // the vector program written out: abs of whole vectors, divided
    const std::string written = write_program(
        "vabs_" + t, "def main = depFun(n: Nat => fun(x: (4*n)." + t +
                         " => asVector(4)(x) |> map(fun(v => abs(v) / vectorFromScalar(" + two +
                         ") + abs(v) % vectorFromScalar(" + two + "))) |> asScalar))\n");
    for (const char* target : {"c", "opencl"}) {
      CheckOptions o;
      o.target = target;
      o.inputs["x"] = input;
      EXPECT_TRUE(compile_and_check(written, "", "n=8", o)) << target;
    }
  }
}

// An f64 infinity beside a double on OpenCL, whose INFINITY is a float: fmax(x,
// -INFINITY) of a double was ambiguous and the kernels did not build (held-out N F1).
TEST(LiteralAdditions, F64InfinitiesBuildOnOpenCL) {
  const std::string path =
      write_program("inf64",
                    "def main = depFun(n: Nat => fun(x: n.f64 => x |> map(fun(a => fmax(a)(-inf) + "
                    "fmin(a)(inf))) |> reduce(fmax)(-inf)))\n");
  EXPECT_TRUE(compile_and_check(path, "", "n=16", "opencl"));
  EXPECT_TRUE(
      compile_and_check(path, "vectorizeReduction(4) @ topDown ; lowerToC", "n=16", "opencl"));
}

}  // namespace
}  // namespace risec::e2e
