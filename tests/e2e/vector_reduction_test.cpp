// Vectorised reductions compiled (vectorizeReductionRemainder(n),
// vectorizeReduction2Remainder(n), vectorizeReduction4Remainder(n): any length;
// docs/strategies.md): random reductions of add, mul,
// fmax and fmin over rows (tests/elevate/vector_reduction_gen.h: functions of the elements, pairs,
// NaN elements for max and min, lengths the vectors do not divide) compiled for C, OpenMP and
// OpenCL (PoCL) and compared with the interpreter; and the programs of the issue (softmax,
// layernorm), whose every reduction the rule vectorises.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "../elevate/vector_reduction_gen.h"
#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string reduction_strategy(const std::string& rule, const std::string& target) {
  std::string s = "normalize(" + rule + ") ; ";
  if (target == "openmp") s += "(parallel @ outermost(isFullyApplied(isMap))) ; ";
  if (target == "opencl") s += "(mapGlobal(0) @ outermost(isApplied(isMap))) ; ";
  return s + "lowerToC";
}

// The case's rule in its form for any length.
std::string any_length(const reduction_gen::ReductionCase& c) {
  return c.rule + "Remainder(" + std::to_string(c.width) + ")";
}

// The reduced length: at least one vector step (shorter ones are refused, tested in
// tests/elevate).
reduction_gen::ReductionCase next_case(std::mt19937& rng) {
  for (;;) {
    reduction_gen::ReductionCase c = reduction_gen::random_reduction(rng, 90);
    if (c.len >= c.vectors) return c;
  }
}

TEST(VectorReduction, RandomReductionsCompiledForC) {
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    reduction_gen::ReductionCase c = next_case(rng);
    const std::string path = write_scratch("vred_c" + std::to_string(i) + ".rise", c.program);
    EXPECT_TRUE(compile_and_check(path, reduction_strategy(any_length(c), "c"), "")) << c.describe;
  }
}

TEST(VectorReduction, RandomReductionsCompiledForOpenMP) {
  std::mt19937 rng(8);
  for (int i = 0; i < 8; ++i) {
    reduction_gen::ReductionCase c = next_case(rng);
    const std::string path = write_scratch("vred_omp" + std::to_string(i) + ".rise", c.program);
    EXPECT_TRUE(compile_and_check(path, reduction_strategy(any_length(c), "openmp"), "", "openmp"))
        << c.describe;
  }
}

TEST(VectorReduction, RandomReductionsCompiledForOpenCL) {
  std::mt19937 rng(9);
  for (int i = 0; i < 8; ++i) {
    reduction_gen::ReductionCase c = next_case(rng);
    const std::string path = write_scratch("vred_ocl" + std::to_string(i) + ".rise", c.program);
    CliResult r = run_risec({"run", path, "--target", "opencl", "--strategy",
                             reduction_strategy(any_length(c), "opencl"), "--check"});
    EXPECT_EQ(r.exit_code, 0) << c.describe << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << c.describe << show(r);
  }
}

// The programs at lengths the widths divide and do not, every reduction on
// vectors (one accumulator, two and four), on each target.
TEST(VectorReduction, SoftmaxAndLayernorm) {
  for (const char* p : {"softmax", "layernorm"})
    for (const char* sizes : {"n=5,d=64", "n=3,d=37", "n=2,d=200"})
      for (const char* rule :
           {"vectorizeReductionRemainder(lanes)", "vectorizeReduction2Remainder(4)",
            "vectorizeReduction4Remainder(lanes)"}) {
        const std::string file = std::string("bench/autoschedule/programs/") + p + ".rise";
        EXPECT_TRUE(compile_and_check(file, reduction_strategy(rule, "c"), sizes))
            << p << " " << rule;
        EXPECT_TRUE(compile_and_check(file, reduction_strategy(rule, "openmp"), sizes, "openmp"))
            << p << " " << rule;
      }
}

}  // namespace
}  // namespace risec::e2e
