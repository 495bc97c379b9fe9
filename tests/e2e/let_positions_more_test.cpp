// `let` where a user writes it (docs/language.md, "let"): inside a with-loop's body, of
// a pair (of scalars, of arrays, inside a map), of an array read twice, names shadowed
// by nested lets, a let-bound function passed to reduce, scan and iterate, and scalars
// (from a reduction, an element, a size; f32, f64, u8, i32, bool, a vector, a pair)
// computed outside every kernel and read inside one. Each runs on c, openmp and opencl
// (the default lowering and strategies that make the outermost maps parallel, so that
// a scalar let is read across kernel launches) and agrees with the interpreter (`run
// --check`); their CUDA code (under the parallel strategy) compiles with nvcc. What is
// refused (iterate on the GPU targets, an integer literal a let makes a float) is
// refused at the user's code.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

struct LpmRun {
  const char* target;
  const char* strategy;  // "" for the default lowering
};

const std::vector<LpmRun>& lpm_runs() {
  static const std::vector<LpmRun> runs = {
      {"c", ""},
      {"openmp", "try(mapPar @ outermost(isApplied(isMap))) ; lowerToC"},
      {"opencl", ""},
      {"opencl", "try(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC"},
  };
  return runs;
}

const char* const kLpmHead = "def f = depFun(n: Nat => fun(xs: n.f32 =>\n";

struct LpmCase {
  const char* name;
  std::string text;
};

// Programs of one size n (run at n=9).
std::vector<LpmCase> lpm_cases() {
  const std::string h = kLpmHead;
  return {
      {"wl_body",
       h + "  with { ([1] <= [i] < [n - 1]) : let a = xs[i - 1] in let b = xs[i + 1] in a * b + a; "
           "} : modarray(xs)))\n"},
      {"pair_scalar",
       h + "  let p = (xs[0], xs[1] * 2.0f) in xs |> map(fun(x => x * p._1 + p._2))))\n"},
      {"pair_arrays",
       h + "  let p = (xs |> map(fun(x => x * 2.0f)), xs |> map(fun(x => x + 1.0f))) in\n"
           "  zip(p._1)(p._2) |> map(fun(q => q._1 - q._2))))\n"},
      {"pair_in_map", h + "  xs |> map(fun(x => let p = (x * 2.0f, x + 1.0f) in p._1 * p._2))))\n"},
      {"array_twice",
       h + "  let a = xs |> map(fun(x => x * 3.0f)) in zip(a)(a |> reverse) |> map(fun(q => q._1 "
           "+ q._2))))\n"},
      {"shadow", h + "  let a = 2.0f in let a = a * 3.0f in let a = xs |> map(fun(x => x * a)) in\n"
                     "  let a = a |> map(fun(x => x + 1.0f)) in a))\n"},
      {"shadow_fn",
       h + "  let g = fun(x => x * 2.0f) in let g = fun(x => g(x) + 1.0f) in xs |> map(g)))\n"},
      {"reduce_fn",
       h + "  let op = fun(a => fun(b => a + b * 2.0f)) in xs |> reduce(op)(0.0f)))\n"},
      {"reduce_prim", h + "  let op = add in xs |> reduce(op)(0.0f)))\n"},
      {"scan_fn", h + "  let op = fun(a => fun(b => a + b)) in xs |> scanSeq(op)(0.0f)))\n"},
      // scalars computed outside every kernel, read inside one
      {"scalar_elem", h + "  let cc = xs[0] * 5.0f in xs |> map(fun(v => v + cc))))\n"},
      {"scalar_reduce",
       "def f = depFun(n: Nat => fun(xs: n.f32 => fun(ys: n.f32 =>\n"
       "  let s = reduce(add)(0.0f)(xs) in ys |> map(fun(x => x * s)))))\n"},
      {"scalar_chain_pair",
       "def f = depFun(n: Nat => fun(xs: n.f32 => fun(ys: n.f32 =>\n"
       "  let s = reduce(add)(0.0f)(xs) in let t = s * s + xs[0] in let u = (s, t) in\n"
       "  ys |> map(fun(x => x * u._1 - u._2)))))\n"},
      {"size_scalar", h + "  let c = natAsScalar(n) in xs |> map(fun(x => x / c))))\n"},
      {"scalar_bool",
       h + "  let b = xs[0] > xs[1] in xs |> map(fun(x => select(b)(x)(0.0f - x)))))\n"},
      {"scalar_f64",
       "def f = depFun(n: Nat => fun(xs: n.f64 =>\n"
       "  let s = reduce(add)(0.0)(xs) in let t = s / 3.0 in xs |> map(fun(x => x * t))))\n"},
      {"scalar_u8",
       "def f = depFun(n: Nat => fun(xs: n.u8 =>\n"
       "  let m = xs[0] + xs[1] in xs |> map(fun(x => x + m))))\n"},
      {"scalar_i32_max",
       "def f = depFun(n: Nat => fun(xs: n.i32 =>\n"
       "  let m = reduce(fun(a => fun(b => select(a > b)(a)(b))))(0)(xs) in\n"
       "  xs |> map(fun(x => x - m))))\n"},
      {"scalar_vector",
       "def f = depFun(n: Nat => fun(xs: n.vec[f32, 4] =>\n"
       "  let v = xs[0] * vectorFromScalar(2.0f) in xs |> map(fun(x => x + v))))\n"},
  };
}

// Under the sanitizers each position on half of the targets and strategies, the other
// half for the next position (build_info.h).
TEST(LetPositionsMore, EveryPositionOnEveryTarget) {
  const size_t every = risec::test::per_build(1, 2);
  size_t ci = 0;
  for (const LpmCase& c : lpm_cases()) {
    SCOPED_TRACE(c.text);
    const std::string file = write_scratch(std::string("lpm_") + c.name + ".rise", c.text);
    size_t ri = ci++;
    for (const LpmRun& r : lpm_runs()) {
      if (ri++ % every != 0) continue;
      std::vector<std::string> args = {"run",      file,     "--size", "n=9",
                                       "--target", r.target, "--check"};
      if (*r.strategy) {
        args.push_back("--strategy");
        args.push_back(r.strategy);
      }
      CliResult res = run_risec(args);
      EXPECT_EQ(res.exit_code, 0) << c.name << " on " << r.target << " with '" << r.strategy
                                  << "'\n"
                                  << show(res);
      EXPECT_NE(res.out.find("check: passed"), std::string::npos) << c.name << "\n" << show(res);
    }
  }
}

// The scalar lets under the parallel strategy on OpenCL are kernels of their own: the
// value is written by a one-work-item kernel into a device buffer the next kernel reads.
TEST(LetPositionsMore, ScalarLetsLiveInDeviceBuffersBetweenLaunches) {
  for (const LpmCase& c : lpm_cases()) {
    if (std::string(c.name).rfind("scalar_", 0) != 0) continue;
    SCOPED_TRACE(c.text);
    const std::string file = write_scratch(std::string("lpm_") + c.name + ".rise", c.text);
    const std::string out = scratch_path(std::string("lpm_cl_") + c.name);
    CliResult res = run_risec({"compile", file, "--size", "n=9", "--target", "opencl", "--strategy",
                               lpm_runs()[3].strategy, "-o", out});
    ASSERT_EQ(res.exit_code, 0) << show(res);
    std::ifstream in(out + ".cl");
    std::stringstream cl;
    cl << in.rdbuf();
    EXPECT_GE(occurrences(cl.str(), "__kernel void "), 2) << cl.str();
  }
}

std::optional<std::vector<std::string>> lpm_nvcc() {
  try {
    return runtime::nvcc_compiler();
  } catch (const Error&) {
    return std::nullopt;
  }
}

// CUDA: the same programs under the parallel strategy compile with nvcc, every warning
// an error (nothing runs them here).
TEST(LetPositionsMore, CudaCodeCompilesWithNvcc) {
  std::vector<std::string> files;
  for (const LpmCase& c : lpm_cases()) {
    const std::string file = write_scratch(std::string("lpm_") + c.name + ".rise", c.text);
    const std::string out = scratch_path(std::string("lpm_cu_") + c.name);
    CliResult res = run_risec({"compile", file, "--size", "n=9", "--target", "cuda", "--strategy",
                               lpm_runs()[3].strategy, "-o", out});
    EXPECT_EQ(res.exit_code, 0) << c.name << "\n" << show(res);
    if (res.exit_code == 0) files.push_back(out + ".cu");
  }
  auto cc = lpm_nvcc();
  if (!cc) GTEST_SKIP() << "nvcc not found (set $NVCC): the CUDA output is not compiled";
  std::vector<std::string> argv = *cc;
  argv.insert(argv.end(), {"-arch=sm_90", "-std=c++17", "-c", "-Werror", "all-warnings",
                           "-Xcompiler", "-Wall,-Wextra,-Werror", "-odir", scratch_path("")});
  argv.insert(argv.end(), files.begin(), files.end());
  runtime::ProcessResult r = runtime::run_process(argv);
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err << r.out;
}

// A let-bound step passed to iterate runs on the CPU targets; the GPU targets refuse
// iterate, at the `iterate` the user wrote (not at the let's function).
TEST(LetPositionsMore, IterateWithALetBoundStep) {
  const std::string file = write_scratch(
      "lpm_iterate.rise",
      "def f = depFun(n: Nat => fun(xs: (n*8).f32 =>\n"
      "  let halve = depFun(m: Nat => fun(v: (2*m).f32 => v |> split(2) |> map(fun(p => p[0] + "
      "p[1])))) in\n"
      "  xs |> iterate(3)(halve)))\n");
  for (const char* target : {"c", "openmp"}) {
    CliResult res = run_risec({"run", file, "--size", "n=3", "--target", target, "--check"});
    EXPECT_EQ(res.exit_code, 0) << target << "\n" << show(res);
    EXPECT_NE(res.out.find("check: passed"), std::string::npos) << show(res);
  }
  for (const char* target : {"opencl", "cuda"}) {
    CliResult res = run_risec({"compile", file, "--size", "n=3", "--target", target, "-o",
                               scratch_path(std::string("lpm_iterate_") + target)});
    EXPECT_EQ(res.exit_code, 1) << show(res);
    EXPECT_NE(res.err.find("lpm_iterate.rise:3:9: error: iterate (double buffering"),
              std::string::npos)
        << show(res);
  }
}

// An integer literal in a let whose type a later use decides (a float) is an error at
// the literal, saying where the type came from, not at the use.
TEST(LetPositionsMore, IntegerLiteralInALetIsLocatedAtTheLiteral) {
  const std::string file =
      write_scratch("lpm_intlit.rise", std::string(kLpmHead) +
                                           "  let c = 2.0f in\n"
                                           "  let d = c + 1 in\n"
                                           "  xs |> map(fun(x => x * c + d))))\n");
  CliResult res = run_risec({"check", file});
  EXPECT_EQ(res.exit_code, 1) << show(res);
  // c is f32 where d's value is inferred (a let's value comes first): the literal is
  // refused at the addition that gives it c's type
  EXPECT_NE(res.err.find("lpm_intlit.rise:3:15: error: in the argument of add: expected f32 but "
                         "found _ (an integer literal cannot be a f32; write it with a decimal "
                         "point"),
            std::string::npos)
      << show(res);
}

}  // namespace
}  // namespace risec::e2e
