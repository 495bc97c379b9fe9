// Vectors of every width (docs/targets.md, "Vectors"): `vec[t, n]` for any n >= 1 is
// compiled for the C targets, a width that is not a power of two padded to the next
// one (loads and stores move only its lanes), and matches the interpreter: each
// vectorising rule at widths 1..17 (vectorize at lengths it divides, vectorizeRemainder
// at lengths it does not), vectorizeReduction, math on vectors, OpenMP, programs
// holding odd-width vectors in their inputs and outputs (padded in memory, as C
// lays them out), strategies polymorphic in the width (`lanes`); OpenCL compiles its
// 3-lane types and refuses widths it has no type for, located.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

#include "e2e_util.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// The strategy with `w` lanes at the outermost map, for the target: sequential, or
// parallel chunks of the vector loop.
std::string widths_strategy(const std::string& rule, int w, const std::string& target) {
  std::string v = rule + "(" + std::to_string(w) + ")";
  if (target == "openmp")
    return "(" + v +
           " @ outermost(isFullyApplied(isMap))) ; (parallel @ outermost(isFullyApplied(isMap))) ; "
           "lowerToC";
  return "(" + v + " @ outermost(isFullyApplied(isMap))) ; lowerToC";
}

TEST(VectorWidths, EveryWidthMatchesTheInterpreter) {
  for (int w = 1; w <= 17; ++w) {
    SCOPED_TRACE(w);
    // Lengths the width divides: several vectors (and one, for some widths).
    for (int len : {3 * w, w % 3 == 0 ? w : 3 * w})
      EXPECT_TRUE(compile_and_check("examples/scal/scal.rise", widths_strategy("vectorize", w, "c"),
                                    "n=" + std::to_string(len)));
  }
  // Lengths the width does not divide: a vector loop and a scalar one.
  for (int w : {3, 5, 6, 7, 12})
    for (int len : {w + 1, 10 * w + w - 1})
      EXPECT_TRUE(compile_and_check("examples/scal/scal.rise",
                                    widths_strategy("vectorizeRemainder", w, "c"),
                                    "n=" + std::to_string(len)))
          << "width " << w << ", length " << len;
  for (int w : {3, 6, 12})
    EXPECT_TRUE(compile_and_check("examples/scal/scal.rise",
                                  widths_strategy("vectorize", w, "openmp"),
                                  "n=" + std::to_string(40 * w), "openmp"))
        << "width " << w;
}

// Math on vectors (lane loops), pairs of vectors and broadcasts at odd widths
// (Black-Scholes), and the example strategies written with `lanes`.
TEST(VectorWidths, StrategiesPolymorphicInTheWidth) {
  for (const char* w : {"3", "6", "12"}) {
    CliResult r = run_risec({"run", "examples/blackscholes/blackscholes.rise", "--strategy",
                             "examples/blackscholes/vector16.elv", "--param",
                             std::string("lanes=") + w, "--size", "n=60", "--check"});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed (120 elements"), std::string::npos) << show(r);
  }
  // `lanes` itself, set from the environment as on a machine of that width.
  for (const char* w : {"3", "6"}) {
    CliResult r = run_risec({"run", "examples/scal/scal.rise", "--strategy",
                             "examples/scal/vector16.elv", "--size", "n=60", "--check"},
                            {std::string("RISEC_LANES=") + w});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed (60 elements"), std::string::npos) << show(r);
  }
}

// exp on vectors over the whole range, where results underflow to subnormals and 0
// and overflow to inf: arguments from -200 to 200 for f32 lanes (the inline exp,
// clamped to [-104, 89]) and -1500 to 1500 for f64 (glibc's vector exp, exp(x/2)^2
// past |x| > 700), at widths with and without padding and lengths the width does not
// divide.
TEST(VectorWidths, ExpOutsideTheVectorRangeMatchesTheInterpreter) {
  for (const char* t : {"f32", "f64"}) {
    const bool f32 = std::string(t) == "f32";
    const std::string path = write_scratch(
        std::string("wide_exp_") + t + ".rise",
        std::string("def f = depFun(n: Nat => fun(x: n.") + t + " => x |> map(fun(a => exp(" +
            (f32 ? "400.0f * a - 200.0f" : "3000.0 * a - 1500.0") + ")))))\n");
    for (int w : {6, 8, 16})
      EXPECT_TRUE(compile_and_check(path, widths_strategy("vectorizeRemainder", w, "c"),
                                    "n=" + std::to_string(20 * w + 3)))
          << t << ", width " << w;
  }
}

TEST(VectorWidths, ReductionsIntoOddWidthAccumulators) {
  for (int w : {3, 5, 6, 12})
    for (int len : {w, 9 * w}) {
      EXPECT_TRUE(compile_and_check("examples/dot/dot.rise",
                                    "(vectorizeReduction(" + std::to_string(w) +
                                        ") @ outermost(isFullyApplied(isReduce))) ; lowerToC",
                                    "n=" + std::to_string(len)))
          << "width " << w << ", length " << len;
    }
}

// A program that holds vectors of width w in its input and output (arrays of
// vec[f32, w]: padded to the next power of two lanes in memory, as C lays them out)
// and one that views scalars as vectors and back.
TEST(VectorWidths, ProgramsWithOddVectorTypes) {
  for (int w : {1, 2, 3, 5, 6, 7, 12}) {
    SCOPED_TRACE(w);
    const std::string ws = std::to_string(w);
    std::string views =
        write_scratch("views" + ws + ".rise", "def f = fun(x: " + std::to_string(w * 4) +
                                                  ".f32 => x |> asVector(" + ws +
                                                  ") |> mapSeq(fun(v => v * v + v)) |> asScalar)");
    EXPECT_TRUE(compile_and_check(views, "", ""));
    std::string held = write_scratch("held" + ws + ".rise",
                                     "def f = depFun(n: Nat => fun(x: n.vec[f32, " + ws +
                                         "] => fun(y: n.vec[f32, " + ws +
                                         "] => zip(x)(y) |> map(fun(p => exp(p._1) - p._2)))))");
    EXPECT_TRUE(compile_and_check(held, "", "n=9"));
  }
}

// The generated C of an odd width is clean C99 (-Wall -Wextra, no warnings) and moves
// only the vector's lanes.
TEST(VectorWidths, OddWidthCodeMovesOnlyItsLanes) {
  CheckReport r =
      run_and_compare("examples/scal/scal.rise",
                      "(vectorize(3) @ outermost(isFullyApplied(isMap))) ; lowerToC", "n=12");
  const std::string& c = r.compiled.unit.source;
  EXPECT_NE(c.find("typedef float risec_f32x3 __attribute__((vector_size(16)));"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("memcpy(&v, p, 12)"), std::string::npos) << c;
  EXPECT_NE(c.find("memcpy(p, &v, 12)"), std::string::npos) << c;
  const std::string file = write_scratch("odd3.c", c);
  std::string cmd = "cc -std=c99 -Wall -Wextra -Werror -O2 -c " + file + " -o " +
                    scratch_path("odd3.o") + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << c;
}

TEST(VectorWidths, OpenCLHasThreeLanesAndRefusesOthersLocated) {
  const std::string gpu =
      "(vectorize(W) @ outermost(isFullyApplied(isMap))) ; "
      "(mapGlobal(0) @ outermost(isFullyApplied(isMap))) ; lowerToC";
  auto with = [&](int w) {
    std::string s = gpu;
    s.replace(s.find('W'), 1, std::to_string(w));
    return s;
  };
  EXPECT_TRUE(compile_and_check("examples/scal/scal.rise", with(3), "n=96", "opencl"));
  for (int w : {5, 6, 32}) {
    try {
      run_and_compare("examples/scal/scal.rise", with(w), "n=" + std::to_string(8 * w),
                      CheckOptions{.target = "opencl"});
      ADD_FAILURE() << "width " << w << " was accepted for OpenCL";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
      EXPECT_NE(e.message().find("cannot be compiled for OpenCL (its vector types have 2, 3, 4, 8 "
                                 "or 16 lanes)"),
                std::string::npos)
          << e.message();
      EXPECT_GT(e.span().start().line, 0) << e.message();
    }
  }
}

}  // namespace
}  // namespace risec::e2e
