// iterateWhile (docs/language.md, "iterateWhile"): a sequential loop with a
// data-dependent exit, at most k steps while a condition holds. The interpreter's
// meaning is checked directly; generated C, OpenMP and OpenCL compute what the
// interpreter does for scalar, pair and array states, conditions that need a loop of
// their own, and bounds of 1; vectorize turns it into a masked loop (Sierra's varying
// while) that matches the interpreter at widths 3, 8 and 16 and at lengths the width
// does not divide; Mandelbrot with iterateWhile computes what Mandelbrot in blocks does.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// Collatz: the steps from v + 1 down to 1 (an i32 pair state, a select in the step).
const char* kCollatz = R"(
def collatz = depFun(n: Nat => fun(x: n.i32 => x |> map(fun(v =>
  (v + 1, 0) |> iterateWhile(200)(fun(s => s._1 != 1))(
    fun(s => (select(s._1 % 2 == 0)(s._1 / 2)(3 * s._1 + 1), s._2 + 1))) |> fun(s => s._2)))))
)";

// An array state, halved while its sum (a reduction: the test needs a loop) is above 1.
const char* kHalve = R"(
def halve = depFun(n: Nat => fun(x: n.f32 =>
  x |> iterateWhile(50)(fun(a => (a |> reduce(add)(0.0f)) > 1.0f))(
    fun(a => a |> map(fun(v => v * 0.5f))))))
)";

// Doubling while below 100, at most `k` times.
std::string doubling(int k) {
  return "def dbl = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => (v + 1.0f) |> "
         "iterateWhile(" +
         std::to_string(k) + ")(fun(y => y < 100.0f))(fun(y => y * 2.0f))))))\n";
}

std::vector<double> eval_values(const std::string& file, const std::string& sizes,
                                const std::string& seed) {
  CliResult r = run_risec({"eval", file, "--size", sizes, "--seed", seed});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  std::vector<double> out;
  size_t open = r.out.find('[');
  size_t close = r.out.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string list = r.out.substr(open + 1, close - open - 1);
  for (char& c : list)
    if (c == ',') c = ' ';
  std::istringstream in(list);
  for (double v; in >> v;) out.push_back(v);
  return out;
}

TEST(IterateWhile, TheInterpreterStopsAtTheConditionOrTheBound) {
  // v + 1 is in [1, 2): three doublings stay below 100, so the bound 3 ends the loop;
  // with the bound 10 the condition ends it, between 100 and 200.
  for (int k : {3, 10}) {
    SCOPED_TRACE(k);
    std::string path = write_scratch("dbl" + std::to_string(k) + ".rise", doubling(k));
    std::vector<double> v = eval_values(path, "n=8", "3");
    ASSERT_EQ(v.size(), 8u);
    for (double y : v) {
      if (k == 3) {
        EXPECT_GE(y, 8.0);
        EXPECT_LT(y, 16.0);
      } else {
        EXPECT_GE(y, 100.0);
        EXPECT_LT(y, 200.0);
      }
    }
  }
}

TEST(IterateWhile, GeneratedCodeMatchesTheInterpreterOnEveryTarget) {
  const std::string collatz = write_scratch("collatz.rise", kCollatz);
  const std::string halve = write_scratch("halve.rise", kHalve);
  const std::string par = "(parallel @ outermost(isApplied(isMap))) ; lowerToC";
  const std::string gpu = "(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC";
  EXPECT_TRUE(compile_and_check(collatz, "", "n=37", "c"));
  EXPECT_TRUE(compile_and_check(collatz, par, "n=37", "openmp"));
  EXPECT_TRUE(compile_and_check(collatz, gpu, "n=37", "opencl"));
  EXPECT_TRUE(compile_and_check(halve, "", "n=16", "c"));
  for (int k : {1, 2, 10}) {
    SCOPED_TRACE(k);
    const std::string path = write_scratch("dblc" + std::to_string(k) + ".rise", doubling(k));
    EXPECT_TRUE(compile_and_check(path, "", "n=9", "c"));
  }
  // Generic in the sizes, under the sanitizers.
  CheckOptions o;
  o.generic = true;
  o.sanitize = true;
  EXPECT_TRUE(compile_and_check(collatz, "", "n=21", o));
}

TEST(IterateWhile, VectorisedLoopsMatchTheInterpreterAtAnyWidthAndLength) {
  const std::string collatz = write_scratch("collatz_v.rise", kCollatz);
  auto vec = [](int w) {
    return "(vectorizeRemainder(" + std::to_string(w) +
           ") @ outermost(isFullyApplied(isMap))) ; lowerToC";
  };
  for (int w : {3, 8, 16}) {
    SCOPED_TRACE(w);
    EXPECT_TRUE(
        compile_and_check("examples/mandelwhile/mandelwhile.rise", vec(w), "n=43,k=64", "c"));
    EXPECT_TRUE(compile_and_check(collatz, vec(w), "n=37", "c"));
  }
  EXPECT_TRUE(
      compile_and_check("examples/mandelwhile/mandelwhile.rise", vec(16), "n=16,k=200", "c"));
  EXPECT_TRUE(
      compile_and_check("examples/mandelwhile/mandelwhile.rise",
                        "(vectorizeRemainder(8) @ outermost(isFullyApplied(isMap))) ; (parallel @ "
                        "outermost(isFullyApplied(isMap))) ; lowerToC",
                        "n=43,k=64", "openmp"));
}

// unrollJam2 (after vectorizeRemainder, as examples/mandelbrot and mandelwhile's
// vector.elv do, or on the scalar map) runs the loops of two elements in one: the
// block reductions of Mandelbrot, the early-exit loops of mandelwhile and collatz
// (each element stepping while its own condition holds), at even and odd numbers of
// vectors (the last one by the map) and with a single vector (try leaves the map);
// all match the interpreter. The jammed loop reads both vectors of a pair and tests
// each one's lanes; a loop that uses a value bound inside the mapped function is
// refused, naming it (Mandelbrot's `let zero = (0.0f, (0.0f, 0.0f))` computes nothing
// and is inlined).
TEST(IterateWhile, UnrollJam2RunsTwoLoopsInOneAndMatchesTheInterpreter) {
  const std::string collatz = write_scratch("collatz_jam.rise", kCollatz);
  auto jam = [](int w) {
    return "(vectorizeRemainder(" + std::to_string(w) +
           ") @ outermost(isFullyApplied(isMap))) ; try(unrollJam2 @ "
           "outermost(isFullyApplied(isMap))) ; lowerToC";
  };
  for (int w : {4, 16}) {
    SCOPED_TRACE(w);
    for (const char* n : {"16", "43", "59"}) {
      SCOPED_TRACE(n);
      EXPECT_TRUE(compile_and_check("examples/mandelwhile/mandelwhile.rise", jam(w),
                                    std::string("n=") + n + ",k=64", "c"));
      EXPECT_TRUE(compile_and_check("examples/mandelbrot/mandelbrot.rise", jam(w),
                                    std::string("n=") + n + ",b=4", "c"));
      EXPECT_TRUE(compile_and_check(collatz, jam(w), std::string("n=") + n, "c"));
    }
  }
  const std::string scalar = "(unrollJam2 @ outermost(isFullyApplied(isMap))) ; lowerToC";
  EXPECT_TRUE(compile_and_check("examples/mandelwhile/mandelwhile.rise", scalar, "n=7,k=40", "c"));
  EXPECT_TRUE(compile_and_check("examples/mandelbrot/mandelbrot.rise", scalar, "n=9,b=3", "c"));
  CheckReport r = run_and_compare("examples/mandelwhile/mandelwhile.rise", jam(16), "n=64,k=64");
  EXPECT_TRUE(r.comparison.ok);
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("[32*i1 + 16]"), std::string::npos) << src;
  size_t tests = 0;
  for (size_t at = src.find("if (risec_boolx16_any("); at != std::string::npos;
       at = src.find("if (risec_boolx16_any(", at + 1))
    ++tests;
  EXPECT_EQ(tests, 2u) << src;
  CliResult b =
      run_risec({"rewrite", "examples/binomial/binomial.rise", "--strategy",
                 write_scratch("jam.elv", "let main = " + scalar + ";\n"), "--size", "n=8,k=8"});
  EXPECT_EQ(b.exit_code, 1) << show(b);
  EXPECT_NE(b.err.find("unrollJam2: the loop uses 'lspot', bound inside the mapped function"),
            std::string::npos)
      << show(b);
}

TEST(IterateWhile, MandelbrotWithAnExitEqualsMandelbrotInBlocks) {
  // k = 8*b steps at most in both; the same seed draws the same cr and ci (10 points:
  // eval prints them all).
  std::vector<double> a = eval_values("examples/mandelwhile/mandelwhile.rise", "n=10,k=32", "5");
  std::vector<double> b = eval_values("examples/mandelbrot/mandelbrot.rise", "n=10,b=4", "5");
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(a, b);
  // some point escapes early and some does not
  EXPECT_NE(std::find(a.begin(), a.end(), 32.0), a.end());
  EXPECT_NE(std::find_if(a.begin(), a.end(), [](double v) { return v < 32.0; }), a.end());
}

TEST(IterateWhile, AConditionThatIsNotABoolIsRefusedLocated) {
  const std::string text =
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v =>\n"
      "  v |> iterateWhile(4)(fun(y => y + 1.0f))(fun(y => y * 2.0f))))))\n";
  try {
    rise::check_program(
        rise::parse_program(std::make_shared<SourceFile>(SourceFile{"w.rise", text})), "");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("bool"), std::string::npos) << e.message();
    EXPECT_EQ(e.span().start().line, 2);
  }
}

}  // namespace
}  // namespace risec::e2e
