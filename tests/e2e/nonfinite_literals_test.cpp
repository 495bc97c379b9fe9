// Non-finite values in generated code (issue 32, docs/codegen.md "Non-finite
// literals"): NaN, inf, -inf and -0 as literals in expressions (padCst borders,
// operands of math builtins) and as values of a bound table (--bind), on every CPU
// target, give what the interpreter gives. On OpenCL a NaN the kernel compiler could
// see as a constant made PoCL drop every store of a kernel that took exp or tanh of
// it (the result was whatever the output buffer held), and a NaN in a __constant
// table was refused (OpenCL C's NAN is not a constant expression).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/npy.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

const char* const kTargets[] = {"c", "openmp", "opencl"};

// `risec run FILE --check` with `extra` arguments: the compiled result equals the
// interpreter's (NaN where it has NaN).
void expect_checked(const std::string& file, const std::vector<std::string>& extra,
                    const std::string& what) {
  std::vector<std::string> args = {"run", file, "--check"};
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = run_risec(args);
  EXPECT_EQ(r.exit_code, 0) << what << "\n" << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << what << "\n" << show(r);
}

// A random scalar expression of `v` of depth <= depth, mixing non-finite and signed
// zero literals with the math builtins.
std::string random_expr(std::mt19937& rng, int depth) {
  static const char* const lits[] = {"nan", "inff", "-inff", "-0.0f", "0.0f", "1.5f", "v"};
  static const char* const unary[] = {"exp", "tanh", "log", "sin", "cos", "sqrt", "abs", "erf"};
  static const char* const binary[] = {"+", "-", "*"};
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  if (depth == 0 || pick(4) == 0) return lits[pick(std::size(lits))];
  if (pick(2) == 0)
    return std::string(unary[pick(std::size(unary))]) + "(" + random_expr(rng, depth - 1) + ")";
  return "(" + random_expr(rng, depth - 1) + " " + binary[pick(std::size(binary))] + " " +
         random_expr(rng, depth - 1) + ")";
}

// Random kernels: a padCst border of a non-finite value, then a map of a random
// expression mixing literals and the element, with and without the simplifier.
TEST(NonFiniteLiterals, RandomKernelsMatchTheInterpreterOnEveryTarget) {
  static const char* const pads[] = {"nan", "inff", "-inff", "-0.0f"};
  std::mt19937 rng(32);
  for (int i = 0; i < 16; ++i) {
    std::string pad = pads[rng() % std::size(pads)];
    std::string body = random_expr(rng, 3);
    // the element itself at least once, so that the kernel reads its input
    std::string text = "def f = depFun(n: Nat => fun(x: n.f32 => x |> padCst(1)(2)(" + pad +
                       ") |> map(fun(v => " + body + " + v))))\n";
    std::string file = write_scratch("nonfinite_" + std::to_string(i) + ".rise", text);
    for (const char* target : kTargets) {
      std::vector<std::string> extra = {"--size", "n=13",   "--target",
                                        target,   "--seed", std::to_string(i)};
      if (i % 2) extra.push_back("--no-simplify");
      expect_checked(file, extra, std::string(target) + ": " + text);
    }
  }
}

// The held-out reproducers: exp and tanh of a padCst(nan) border peeled by the
// default lowering, and exp(nan) + v unsimplified under several mappings.
TEST(NonFiniteLiterals, ExpAndTanhOfNanOnOpenCL) {
  std::string padnan = write_scratch(
      "padnan.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> padCst(1)(1)(nan) |> map(fun(v => exp(v)))))");
  std::string padnan2 = write_scratch(
      "padnan2.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> padCst(2)(2)(nan) |> slide(3)(1) |> "
      "map(fun(w => w |> map(fun(v => tanh(v))) |> reduce(fmax)(-inff)))))");
  std::string q2 = write_scratch(
      "q2.rise", "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => exp(nan) + v))))");
  for (const char* target : kTargets) {
    expect_checked(padnan, {"--size", "n=16", "--target", target}, "padnan");
    expect_checked(padnan2, {"--size", "n=16", "--target", target}, "padnan2");
  }
  for (const std::string& strategy :
       {std::string(),
        std::string("let main = (vectorize(4) @ innermost(isFullyApplied(isMap))) "
                    "; lowerToC;"),
        std::string("let main = (mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC;")}) {
    std::vector<std::string> extra = {"--size", "n=16", "--target", "opencl", "--no-simplify"};
    if (!strategy.empty()) {
      extra.push_back("--strategy");
      extra.push_back(write_scratch("q2.elv", strategy));
    }
    expect_checked(q2, extra, "q2 " + strategy);
  }
}

// A bound table with NaN, inf, -inf, -0 and subnormals (more than 200 values, so that
// it is a table of constants) on every target: the table is a constant expression
// where the target needs one, and the result is the interpreter's.
TEST(NonFiniteLiterals, BoundTableOfSpecialValuesOnEveryTarget) {
  const float specials[] = {
      std::numeric_limits<float>::quiet_NaN(),  std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),  -0.0f,
      std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min() * 7,
      std::numeric_limits<float>::min() / 3};
  const int n = 210;
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, {n});
  for (int i = 0; i < n; ++i)
    a.as<float>()[i] = i % 3 == 0 ? specials[(i / 3) % std::size(specials)]
                                  : 0.25f * static_cast<float>(i % 11) - 1.0f;
  std::string w = scratch_path("w_special.npy");
  runtime::write_npy(w, a);
  std::string file = write_scratch(
      "bindnan.rise",
      "def f = depFun(n: Nat => fun(w: n.f32 => fun(x: n.f32 => zip(w)(x) |> map(fun(p => p._1 "
      "+ p._2)))))");
  std::string file2 = write_scratch(
      "bindnan_exp.rise",
      "def f = depFun(n: Nat => fun(w: n.f32 => fun(x: n.f32 => zip(w)(x) |> map(fun(p => "
      "exp(p._1) * p._2)))))");
  for (const char* target : kTargets)
    for (const std::string& f : {file, file2})
      expect_checked(f, {"--bind", "w=" + w, "--target", target}, std::string(target) + " " + f);
  // CUDA: the .cu file with the table compiles (where nvcc is installed).
  std::string out = scratch_path("bindnan_cuda");
  CliResult r = run_risec({"compile", file2, "--bind", "w=" + w, "--target", "cuda", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::vector<std::string> nvcc;
  try {
    nvcc = runtime::nvcc_compiler();
  } catch (const Error&) {
    GTEST_SKIP() << "nvcc not found: the CUDA table is not compiled";
  }
  nvcc.insert(nvcc.end(), {"-c", out + ".cu", "-o", out + ".o"});
  runtime::ProcessResult cc = runtime::run_process(nvcc);
  EXPECT_EQ(cc.exit_code, 0) << cc.out << cc.err;
}

}  // namespace
}  // namespace risec::e2e
