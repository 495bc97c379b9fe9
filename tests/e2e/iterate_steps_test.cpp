// iterate(k) compiled for every step count, against the interpreter: k = 0 (the
// result is the input), k = 1 (the only step writes the output: the one-step loop is
// unrolled by a pass, which used to leave the first step writing a buffer and the
// output never written), k of 2 to 5, constant in the program or a size parameter
// known only at run time (the generic code decides where the first step writes), on
// the C and OpenMP targets, under a parallel map too.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

const char* kHalving =
    "(depFun((l: Nat) => fun(a: (l*2).f32 => a |> split(2) |> map(fun(p => p[0] + p[1])))))";

TEST(IterateSteps, EveryConstantStepCountComputesWhatTheInterpreterComputes) {
  for (int k = 0; k <= 5; ++k) {
    for (const char* target : {"c", "openmp"}) {
      SCOPED_TRACE("k = " + std::to_string(k) + ", " + target);
      const std::string pow = std::to_string(1 << k);
      const std::string text = "def halve = depFun((m: Nat) => fun(x: (m*" + pow +
                               ").f32 =>\n  x |> iterate(" + std::to_string(k) + ")" + kHalving +
                               "))";
      const std::string file = write_scratch("iterate_const.rise", text);
      EXPECT_TRUE(compile_and_check(file, "", "m=3", target));
    }
  }
}

// The example's k is a size: compiled once for each value, and under a parallel map
// over rows, where each row iterates.
TEST(IterateSteps, StepCountsGivenAsSizes) {
  for (int k = 1; k <= 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_TRUE(
        compile_and_check("examples/treesum/treesum.rise", "", "m=3,k=" + std::to_string(k), "c"));
  }
  const std::string rows =
      write_scratch("iterate_rows.rise",
                    "def rows = depFun((r: Nat, m: Nat, k: Nat) => fun(x: r.(m*2^k).f32 =>\n"
                    "  x |> mapPar(fun(row => row |> iterate(k)" +
                        std::string(kHalving) + "))))");
  for (int k = 1; k <= 3; ++k) {
    SCOPED_TRACE(k);
    EXPECT_TRUE(compile_and_check(rows, "", "r=4,m=2,k=" + std::to_string(k), "openmp"));
  }
}

}  // namespace
}  // namespace risec::e2e
