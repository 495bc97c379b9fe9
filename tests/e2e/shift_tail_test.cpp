// Shifted tails (dpia/shift_tail.h) end to end: programs whose innermost loops run as
// blocks with the last one shifted inwards match the interpreter on random inputs, and
// loops that read what they write (where running an iteration twice would change the
// result) keep the plain form and match it too. `--no-shift-tails` turns the form off.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// The number of loops with a shifted tail in the generated C.
int shifted_loops(const CheckReport& r) {
  return occurrences(r.compiled.unit.source, "_base = ");
}

const char* kMap1D =
    "def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f64 =>\n"
    "  zip(x)(y) |> map(fun(p => p._1 * 2.0f + 1.0f)))))\n"
    "def g = depFun(n: Nat => fun(y: n.f64 => y |> map(fun(a => a * a - 3.0))))\n";

const char* kStencil2D =
    "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
    "  x |> padClamp2D(1)(1) |> slide2D(3)(1) |> map(map(fun(w =>\n"
    "    w[0][1] + w[1][0] + w[1][1] * 4.0f + w[1][2] + w[2][1])))))\n";

// Column sums: the accumulator is the output, updated in place row after row.
const char* kColumnSums =
    "def f = depFun(n: Nat => fun(x: n.126.f32 =>\n"
    "  x |> reduce(fun(acc => fun(row => zip(acc)(row) |> map(fun(p => p._1 + p._2)))))\n"
    "    (generate(fun(j => 0.0f)))))\n";

// Each row's update reads the next element of the accumulator (the output): a loop
// that writes output[j] and reads output[j + 1], which running the iterations of an
// overlapped block again would read after they were overwritten.
const char* kReadsAhead =
    "def f = depFun(n: Nat => fun(x: n.126.f32 =>\n"
    "  x |> reduce(fun(acc => fun(row =>\n"
    "    zip(acc |> padClamp(0)(1) |> drop(1))(row) |> map(fun(p => p._1 * 0.5f + p._2)))))\n"
    "    (generate(fun(j => 0.0f)))))\n";

TEST(ShiftTail, OneDimensionalMapsOfNonMultipleLengths) {
  std::string file = write_scratch("map1d.rise", kMap1D);
  for (const char* sizes : {"n=126", "n=37", "n=100"}) {
    SCOPED_TRACE(sizes);
    CheckOptions o;
    o.entry = "f";
    CheckReport f = run_and_compare(file, "", sizes, o);
    EXPECT_TRUE(f.comparison.ok) << f.comparison.first_mismatch;
    EXPECT_EQ(shifted_loops(f), 1) << f.compiled.unit.source;
    // f64 stores: blocks of 8.
    o.entry = "g";
    CheckReport g = run_and_compare(file, "", sizes, o);
    EXPECT_TRUE(g.comparison.ok) << g.comparison.first_mismatch;
    EXPECT_EQ(shifted_loops(g), 1) << g.compiled.unit.source;
    EXPECT_NE(g.compiled.unit.source.find("_b += 8)"), std::string::npos) << g.compiled.unit.source;
  }
  // A multiple of the width, a loop of at most one block, a generic size: plain loops.
  for (const char* sizes : {"n=128", "n=16", "n=9"}) {
    CheckOptions o;
    o.entry = "f";
    CheckReport f = run_and_compare(file, "", sizes, o);
    EXPECT_TRUE(f.comparison.ok) << f.comparison.first_mismatch;
    EXPECT_EQ(shifted_loops(f), 0) << f.compiled.unit.source;
  }
  CheckOptions generic;
  generic.entry = "f";
  generic.generic = true;
  CheckReport f = run_and_compare(file, "", "n=126", generic);
  EXPECT_TRUE(f.comparison.ok) << f.comparison.first_mismatch;
  EXPECT_EQ(shifted_loops(f), 0) << f.compiled.unit.source;
}

TEST(ShiftTail, StencilRowsOfNonMultipleWidth) {
  std::string file = write_scratch("stencil2d.rise", kStencil2D);
  // Rows of 126 and 45: the interior part of each row (after index-set splitting at
  // the clamps) runs in shifted blocks; the C target and the OpenMP one over rows.
  for (const char* sizes : {"n=20,m=126", "n=9,m=45"}) {
    SCOPED_TRACE(sizes);
    CheckReport c = run_and_compare(file, "", sizes);
    EXPECT_TRUE(c.comparison.ok) << c.comparison.first_mismatch;
    EXPECT_GE(shifted_loops(c), 1) << c.compiled.unit.source;
    CheckOptions omp;
    omp.target = "openmp";
    CheckReport p =
        run_and_compare(file, "(parallel @ outermost(isApplied(isMap))) ; lowerToC", sizes, omp);
    EXPECT_TRUE(p.comparison.ok) << p.comparison.first_mismatch;
    EXPECT_GE(shifted_loops(p), 1) << p.compiled.unit.source;
    // a parallel loop (its parts, split at the clamps, in one region)
    EXPECT_NE(p.compiled.unit.source.find("#pragma omp parallel"), std::string::npos);
  }
}

TEST(ShiftTail, LoopsThatReadWhatTheyWriteKeepThePlainForm) {
  for (const char* program : {kColumnSums, kReadsAhead}) {
    SCOPED_TRACE(program);
    std::string file = write_scratch("reads_output.rise", program);
    for (uint64_t seed : {1u, 2u}) {
      CheckOptions o;
      o.seed = seed;
      CheckReport r = run_and_compare(file, "", "n=7", o);
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      if (program == kReadsAhead) {
        // Its step reads the element after the one it writes: the accumulator is not
        // updated in place but through a temporary (dpia/step_in_place.h, which does not
        // tell a read ahead from a read behind), whose loops read nothing they write.
        EXPECT_NE(r.compiled.unit.source.find("next"), std::string::npos) << r.compiled.unit.source;
        continue;
      }
      // Only the loop that zeroes the accumulator (it writes and reads nothing else).
      EXPECT_EQ(shifted_loops(r), 1) << r.compiled.unit.source;
    }
  }
}

TEST(ShiftTail, NoShiftTailsKeepsPlainLoops) {
  std::string file = write_scratch("map1d_cli.rise", kMap1D);
  CliResult on = run_risec({"compile", file, "--entry", "f", "--size", "n=126"});
  CliResult off =
      run_risec({"compile", file, "--entry", "f", "--size", "n=126", "--no-shift-tails"});
  ASSERT_EQ(on.exit_code, 0) << show(on);
  ASSERT_EQ(off.exit_code, 0) << show(off);
  EXPECT_EQ(occurrences(on.out, "_base = "), 1) << on.out;
  EXPECT_EQ(occurrences(off.out, "_base = "), 0) << off.out;
  CliResult run =
      run_risec({"run", file, "--entry", "f", "--size", "n=126", "--no-shift-tails", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  EXPECT_NE(run.out.find("check: passed"), std::string::npos) << show(run);
}

}  // namespace
}  // namespace risec::e2e
