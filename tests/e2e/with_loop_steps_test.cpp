// Stepped with-loop generators (docs/language.md, "With-loops"): a generator within its
// shape is accepted alike by every path that checks it (docs/language.md: "eval,
// compile and run see the same desugared program, so they accept and refuse the same
// with-loops"): the checker without sizes (`risec check`, generic `risec compile`), with
// the sizes (`--size`), and with the sizes read from the inputs' shapes (`eval`/`run`
// with `--input`); and the code computes the with-loop's meaning (SaC: the indices
// lb + k*step + w < ub, w < width), computed here from the bounds, as the interpreter
// does. A held-out tester found `([1] <= [i] < [n - 1] step [2]) : a[i]` refused as
// "the index 'i' may be negative (it ranges over [-1, n - 2])" everywhere but with
// --size: the first index of the part's tail, n - 1 - n % 2, was bounded through
// n % 2 <= n (infer.cpp, moduli_as_variables).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "build_info.h"
#include "driver/sizes_from_inputs.h"
#include "e2e_util.h"
#include "rise/parser.h"
#include "runtime/npy.h"
#include "support/buffer.h"
#include "support/random.h"
#include "with_loop_gen.h"

namespace risec::e2e {
namespace {

rise::Program steps_parse(const std::string& name, const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{name, text}));
}

// A bound of dimension d: a constant, or the size (n or m) plus a constant.
fuzz::WithLoopBound bound(const char* size, int c) {
  return {size, c};
}

// One stepped part (every dimension stepped, with or without widths) within an n x m
// (or n) shape at sizes that keep it there: lower bounds 0..3 or size - 4..size - 2,
// upper bounds size - 3..size or a constant above the lower one, steps 1..4.
fuzz::WithLoopCase random_stepped(runtime::Rng& rng) {
  fuzz::WithLoopCase c;
  c.rank = 1 + static_cast<int>(rng.below(2));
  c.op = static_cast<fuzz::WithLoopOp>(rng.below(3));
  c.reads_a = true;
  fuzz::WithLoopPart pt;
  const bool widths = rng.below(2) == 0;
  for (int d = 0; d < c.rank; ++d) {
    const char* size = d == 0 ? "n" : "m";
    int lo = static_cast<int>(rng.below(4));
    if (rng.below(4) == 0) {
      pt.lb.push_back(bound(size, -4 + static_cast<int>(rng.below(3))));
      pt.ub.push_back(bound(size, -static_cast<int>(rng.below(2))));
    } else {
      pt.lb.push_back(bound("", lo));
      if (rng.below(4) == 0)
        pt.ub.push_back(bound("", lo + 1 + static_cast<int>(rng.below(6))));
      else
        pt.ub.push_back(bound(size, -static_cast<int>(rng.below(4))));
    }
    int step = 1 + static_cast<int>(rng.below(4));
    pt.step.push_back(step);
    if (widths) pt.width.push_back(1 + static_cast<int>(rng.below(step)));
  }
  c.parts.push_back(pt);
  // Sizes large enough for every bound above (constant upper bounds up to 9).
  c.n = 9 + static_cast<int64_t>(rng.below(6));
  c.m = 9 + static_cast<int64_t>(rng.below(4));
  return c;
}

TEST(WithLoopSteps, GeneratorsWithinTheShapeAreAcceptedAlikeAndComputeTheirMeaning) {
  runtime::Rng rng(20261129);
  // Under the sanitizers the first 16 (build_info.h).
  const int kCases = static_cast<int>(risec::test::per_build(48, 16));
  for (int k = 0; k < kCases; ++k) {
    fuzz::WithLoopCase c = random_stepped(rng);
    const std::string name = "wl_steps_" + std::to_string(k) + ".rise";
    const std::string text = c.program();
    std::vector<std::vector<std::vector<int64_t>>> sets;
    ASSERT_TRUE(c.index_sets(sets)) << text << c.sizes();
    SCOPED_TRACE(text + "\nsizes " + c.sizes());
    const std::string file = write_scratch(name, text);
    rise::Program p = steps_parse(name, text);
    // Without sizes: what `risec check` and a generic `risec compile` check.
    EXPECT_NO_THROW(rise::check_program(p, "", nullptr));
    // With the sizes read from the input's shape, as eval/run --input do.
    rise::SizeMap from_shape;
    const std::vector<int64_t> shape =
        c.rank == 1 ? std::vector<int64_t>{c.n} : std::vector<int64_t>{c.n, c.m};
    driver::sizes_from_shapes(
        p, "", {{"a", "--input a=a.npy"}}, [&](const std::string&) { return shape; }, &from_shape,
        "");
    EXPECT_EQ(from_shape.at("n"), c.n);
    EXPECT_NO_THROW(rise::check_program(p, "", &from_shape));
    // With --size: compiled, run, and compared with the interpreter and the meaning.
    try {
      CheckReport r = run_and_compare(file, "", c.sizes());
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      std::vector<double> want = c.reference(sets, flat_values(r.inputs.at(0)));
      std::vector<double> got = flat_values(r.expected);
      ASSERT_EQ(got.size(), want.size());
      // A fold sums up to ~100 floats of up to ~400 in f32: room for its rounding.
      const double terms = static_cast<double>(sets[0].size());
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-3 + 1e-7 * terms * std::abs(want[i])) << i;
    } catch (const Error& e) {
      ADD_FAILURE() << "refused: " << e.message();
    }
    if (k % 3) continue;
    // Generic code (the sizes checked on entry) agrees with the interpreter.
    CheckOptions generic;
    generic.generic = true;
    try {
      CheckReport r = run_and_compare(file, "", c.sizes(), generic);
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
    } catch (const Error& e) {
      ADD_FAILURE() << "generic code refused: " << e.message();
    }
  }
}

// The tester's case and its neighbours through the command line: check, generic
// compile, eval and run with --input (sizes from the shape) and with --size give the
// same verdict and values.
TEST(WithLoopSteps, TesterCasesThroughTheCommandLine) {
  const char* const generators[] = {
      "[1] <= [i] < [n - 1] step [2]",
      "[0] <= [i] < [n - 1] step [2]",
      "[1] <= [i] < [n] step [2]",
      "[2] <= [i] < [n - 1] step [3] width [2]",
      "[1] <= [i] < [n - 2] step [4] width [3]",
  };
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, {11});
  runtime::fill_random(a, 7);
  const std::string input = scratch_path("wl_steps_a.npy");
  runtime::write_npy(input, a);
  int k = 0;
  for (const char* g : generators) {
    SCOPED_TRACE(g);
    const std::string file =
        write_scratch("wl_steps_cli_" + std::to_string(k++) + ".rise",
                      std::string("def f = depFun((n: Nat) => fun(a: n.f32 =>\n  with {\n    (") +
                          g + ") : a[i];\n  } : genarray([n], 0.0f)))\n");
    CliResult check = run_risec({"check", file});
    EXPECT_EQ(check.exit_code, 0) << show(check);
    CliResult compile = run_risec({"compile", file});
    EXPECT_EQ(compile.exit_code, 0) << show(compile);
    CliResult with_input = run_risec({"eval", file, "--input", "a=" + input});
    CliResult with_size = run_risec({"eval", file, "--input", "a=" + input, "--size", "n=11"});
    EXPECT_EQ(with_input.exit_code, 0) << show(with_input);
    EXPECT_EQ(with_size.exit_code, 0) << show(with_size);
    EXPECT_EQ(with_input.out, with_size.out);
    CliResult run = run_risec({"run", file, "--input", "a=" + input, "--check"});
    EXPECT_EQ(run.exit_code, 0) << show(run);
    EXPECT_NE(run.out.find("check: passed"), std::string::npos) << show(run);
  }
}

// What the relaxation may not accept: an index that leaves the array for every size
// is still refused, located at the index.
TEST(WithLoopSteps, IndicesOutsideTheArrayAreStillRefused) {
  const char* const bodies[] = {"a[i - 2]", "a[i + 2]"};
  int k = 0;
  for (const char* body : bodies) {
    const std::string file = write_scratch(
        "wl_steps_bad_" + std::to_string(k++) + ".rise",
        std::string("def f = depFun((n: Nat) => fun(a: n.f32 =>\n  with {\n    ([1] <= [i] < "
                    "[n - 1] step [2]) : ") +
            body + ";\n  } : genarray([n], 0.0f)))\n");
    CliResult check = run_risec({"check", file});
    EXPECT_EQ(check.exit_code, 1) << show(check);
    EXPECT_NE(check.err.find(body), std::string::npos) << show(check);
  }
}

// The primitives a with-loop becomes (take, drop, generate, concat, split, join, idx)
// are those primitives inside parameters named like them, which the with-loop's body
// may use; `risec print` writes the desugared program so that it reads back the same.
TEST(WithLoopNames, ParametersNamedLikeTheDesugaringsPrimitives) {
  const char* const programs[] = {
      "def f = depFun((n: Nat) => fun(take: n.f32 =>\n"
      "  with { ([1] <= [i] < [n]) : take[i]; } : genarray([n], 0.0f)))\n",
      "def f = depFun((n: Nat) => fun(a: n.f32 => fun(generate: f32 =>\n"
      "  with { ([0] <= [i] < [n - 1] step [2]) : a[i] * generate; } : modarray(a))))\n",
      "def f = depFun((n: Nat) => fun(split: n.f32 => fun(join: f32 =>\n"
      "  with { ([1] <= [i] < [n - 1] step [3] width [2]) : split[i] + join; }\n"
      "  : fold(add, 0.0f))))\n",
  };
  int k = 0;
  for (const char* text : programs) {
    SCOPED_TRACE(text);
    const std::string file = write_scratch("wl_names_" + std::to_string(k++) + ".rise", text);
    CliResult run = run_risec({"run", file, "--size", "n=10", "--check"});
    EXPECT_EQ(run.exit_code, 0) << show(run);
    EXPECT_NE(run.out.find("check: passed"), std::string::npos) << show(run);
    CliResult printed = run_risec({"print", file});
    ASSERT_EQ(printed.exit_code, 0) << show(printed);
    const std::string back =
        write_scratch("wl_names_back_" + std::to_string(k) + ".rise", printed.out);
    CliResult again = run_risec({"eval", back, "--size", "n=10"});
    CliResult first = run_risec({"eval", file, "--size", "n=10"});
    EXPECT_EQ(again.exit_code, 0) << show(again) << printed.out;
    EXPECT_EQ(again.out, first.out) << printed.out;
  }
}

}  // namespace
}  // namespace risec::e2e
