// Helper functions of the generated code come before their users (CPrinter's
// helper_text_): a vector lane helper that calls a scalar helper (risec_f32x8_fmin
// calls risec_fmin_f32, or risec_fmin_not_nan_f32 when an operand cannot be NaN) is
// printed after it, so vectorised maps of fmin, fmax and the other math builtins
// compile (no implicit declaration) and match the interpreter on every CPU target and
// OpenCL, at every width.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string helpers_vectorize(int w) {
  return "vectorize(" + std::to_string(w) + ") @ outermost(isApplied(isMap)) ; lowerToC";
}

void helpers_expect_checked(const std::string& file, int w, const std::string& target,
                            const std::string& what) {
  CliResult r = run_risec({"run", file, "--size", "n=48", "--target", target, "--strategy",
                           helpers_vectorize(w), "--check"});
  EXPECT_EQ(r.exit_code, 0) << what << " width " << w << " on " << target << "\n" << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
}

// The report's case: fmin alone (and fmax), whose lane helper is the first user of the
// scalar helper.
TEST(LaneHelpers, VectorisedFminAndFmaxAlone) {
  for (const char* t : {"f32", "f64"}) {
    const std::string one = std::string(t) == "f32" ? "1.0f" : "1.0";
    for (const char* op : {"fmin", "fmax"}) {
      std::string name = std::string(op) + "_" + t;
      std::string file = write_scratch(
          name + ".rise", "def f = depFun(n: Nat => fun(x: n." + std::string(t) +
                              " => x |> map(fun(v => " + op + "(v, " + one + ")))))\n");
      for (int w : {4, 8, 16}) helpers_expect_checked(file, w, "c", name);
    }
  }
}

// Every math helper kind in one map, over both float types, at each width, on C,
// OpenMP and OpenCL.
TEST(LaneHelpers, VectorisedMathMixes) {
  for (const char* t : {"f32", "f64"}) {
    const std::string f = std::string(t) == "f32" ? "f" : "";
    std::string text = "def f = depFun(n: Nat => fun(x: n." + std::string(t) +
                       " => x |> map(fun(v => fmax(fmin(v, 0.5" + f + "), -0.5" + f +
                       ") + sqrt(abs(v)) + exp(floor(v * 3.0" + f + ")) + fmin(abs(v), 0.25" + f +
                       ")))))\n";
    std::string file = write_scratch(std::string("mix_") + t + ".rise", text);
    for (int w : {4, 8, 16})
      for (const char* target : {"c", "openmp", "opencl"})
        helpers_expect_checked(file, w, target, text);
  }
}

// Every math builtin vectorised, over both float types: the functions the generated C
// declares `omp declare simd` (so that GCC calls glibc's vector variants) are ones
// libmvec has, and the program runs and checks at the x86-64 baseline (SSE2), where
// GCC cannot inline floor, ceil or sqrt as instructions and calls the declared
// variant: `_ZGVbN4v_floorf` was an undefined symbol at load time. (The CI passes run
// at the host's level and x86-64-v3, where floor is an instruction.)
TEST(LaneHelpers, DeclaredVectorVariantsExistAtEveryLevel) {
  for (const char* t : {"f32", "f64"}) {
    const std::string f = std::string(t) == "f32" ? "f" : "";
    std::string text = "def f = depFun(n: Nat => fun(x: n." + std::string(t) +
                       " => x |> map(fun(v => sqrt(abs(v)) + rsqrt(abs(v) + 1.0" + f +
                       ") + exp(v) + log(abs(v) + 1.0" + f + ") + sin(v) + cos(v) + tan(v * 0.1" +
                       f + ") + tanh(v) + floor(v * 3.0" + f +
                       ") + ceil(v) + erf(v) + pow(abs(v), 1.5" + f + ")))))\n";
    std::string file = write_scratch(std::string("allmath_") + t + ".rise", text);
    CliResult c =
        run_risec({"compile", file, "--size", "n=48", "--strategy", helpers_vectorize(4)});
    ASSERT_EQ(c.exit_code, 0) << show(c);
    for (const char* unvectorised : {"floor", "ceil", "sqrt", "fabs", "fmin", "fmax"})
      for (const std::string& fn : {std::string(unvectorised), std::string(unvectorised) + "f"}) {
        const std::string decl = "#pragma omp declare simd notinbranch\n" +
                                 std::string(t == std::string("f32") ? "float " : "double ") + fn +
                                 "(";
        EXPECT_EQ(c.out.find(decl), std::string::npos) << t << ": " << fn << "\n" << c.out;
      }
    for (const char* target : {"c", "openmp"}) {
      CliResult r = run_risec({"run", file, "--size", "n=48", "--target", target, "--strategy",
                               helpers_vectorize(4), "--check"},
                              {"RISEC_LANES=4", "RISEC_CFLAGS=-march=x86-64"});
      EXPECT_EQ(r.exit_code, 0) << t << " on " << target << "\n" << show(r);
      EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
    }
  }
}

}  // namespace
}  // namespace risec::e2e
