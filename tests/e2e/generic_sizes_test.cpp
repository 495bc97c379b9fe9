// Strategies applied without --size: the code is generic in the sizes. Tiling,
// blocking and vectorising rules then leave side conditions (32 | n, 16 | m, ...)
// that the function checks on entry. The generic code of every mm step and of gemv's
// row blocking runs (as a standalone process) on sizes that satisfy them and matches
// the interpreter on the specialised program; sizes that violate one are refused.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"
#include "support/cpu.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

CheckOptions generic(const std::string& target) {
  CheckOptions o;
  o.target = target;
  o.generic = true;
  return o;
}

// The message of the run's refusal, "" when it ran (and matched the interpreter).
std::string run_at(const std::string& file, const std::string& strategy, const std::string& sizes,
                   const CheckOptions& o) {
  try {
    CheckReport r = run_and_compare(file, strategy, sizes, o);
    EXPECT_TRUE(r.comparison.ok) << sizes << ": " << r.comparison.first_mismatch;
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

class GenericMM : public ::testing::TestWithParam<const char*> {};

TEST_P(GenericMM, RunsAtSizesThatMeetItsConditions) {
  std::string step = GetParam();
  CheckOptions o = generic(step == "parallel" ? "openmp" : "c");
  std::string mm = "examples/mm/mm.rise", s = "examples/mm/" + step + ".elv";
  CheckReport r = run_and_compare(mm, s, "n=64,m=64,k=64", o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
  EXPECT_EQ(r.compiled.size_names, (std::vector<std::string>{"n", "m", "k"}));
  EXPECT_EQ(run_at(mm, s, "n=32,m=96,k=64", o), "");
  if (step != "baseline") {
    // 33 rows cannot be tiled by 32
    std::string m = run_at(mm, s, "n=33,m=64,k=64", o);
    EXPECT_NE(m.find("size precondition violated"), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Steps, GenericMM,
                         ::testing::Values("baseline", "blocking", "vectorization",
                                           "loop_permutation", "array_packing", "cache_blocks",
                                           "parallel"));

TEST(GenericGemv, RowBlocksWithPreconditions) {
  std::string gemv = "examples/gemv/gemv.rise", s = "examples/gemv/parallel_rows4.elv";
  CheckReport r = run_and_compare(gemv, s, "n=8,m=48", generic("openmp"));
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("4 divides n"), std::string::npos) << src;
  // the rows' vector width is the machine's (`lanes`: 16 with AVX-512, 8 with AVX2)
  EXPECT_NE(src.find(std::to_string(machine_lanes()) + " divides m"), std::string::npos) << src;
  std::string m = run_at(gemv, s, "n=6,m=48", generic("openmp"));
  EXPECT_NE(m.find("4 divides n"), std::string::npos) << m;
}

TEST(GenericVectorizeRemainder, AnyLengthWithoutPreconditions) {
  // a vector loop over the first n - n%16 elements, a scalar loop over the rest: the
  // generic code runs for every n, with nothing to check but n >= 1
  const std::string strategy =
      "DFNF ; (vectorizeRemainder(16) @ outermost(isFullyApplied(isMap))) ; lowerToC";
  for (const char* ex : {"scal", "blackscholes"}) {
    std::string file = std::string("examples/") + ex + "/" + ex + ".rise";
    for (const char* sizes : {"n=37", "n=5", "n=64"}) {
      SCOPED_TRACE(std::string(ex) + " " + sizes);
      CheckReport r = run_and_compare(file, strategy, sizes, generic("c"));
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      EXPECT_EQ(r.compiled.unit.source.find("divides"), std::string::npos)
          << r.compiled.unit.source;
    }
    // and specialised, including under the sanitizers
    CheckOptions o;
    o.sanitize = true;
    EXPECT_TRUE(compile_and_check(file, strategy, "n=37", o));
  }
}

// The generic code of `file` (one input x: n.f32) run as a standalone process at `n`:
// its refusal, "" when it ran. The specialised program may not type-check at such an
// n, so the input is drawn from an identity of the same type.
std::string generic_refusal(const std::string& file, int64_t n) {
  rise::Program program = driver::load_program(file);
  driver::CompileRequest req;
  req.program = &program;
  req.target = "c";
  driver::Compiled c = driver::compile(req);
  rise::SizeMap sizes{{"n", n}};
  rise::Program like = driver::load_program(write_scratch(
      "like.rise", "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v))))\n"));
  c.high = rise::check_program(like, "", &sizes);
  driver::ExecOptions eo;
  eo.mode = driver::ExecMode::Standalone;
  try {
    driver::execute(c, sizes, driver::make_inputs(c.high, {}, 1), eo);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// Held-out K: a size argument divided exactly (split(n/2)) recorded no condition, and
// the generic code wrote past its output at odd n; a symbolic divisor that is 0
// (split(n - 4) at n = 4) made the precondition check itself divide by zero (SIGFPE).
TEST(GenericSizeArguments, ExactDivisionsAndZeroDivisorsAreRefusedOnEntry) {
  const std::string half = write_scratch(
      "half.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> split(n/2) |> map(reverse) |> join))\n");
  EXPECT_EQ(run_at(half, "", "n=6", generic("c")), "");
  EXPECT_EQ(generic_refusal(half, 6), "");
  std::string m = generic_refusal(half, 5);
  EXPECT_NE(m.find("size precondition violated: 2 divides n"), std::string::npos) << m;
  const std::string less = write_scratch(
      "less.rise",
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> split(n - 4) |> map(reverse) |> join))\n");
  EXPECT_EQ(run_at(less, "", "n=5", generic("c")), "");
  EXPECT_EQ(run_at(less, "", "n=8", generic("c")), "");
  m = generic_refusal(less, 4);
  EXPECT_NE(m.find("size precondition violated: n - 4 divides n"), std::string::npos) << m;
}

// Held-out N7: `/` on sizes is exact even where the expression cancels it: n/2*2 is n
// and needs 2 to divide n (the interpreter refused n = 3), but the generic code
// recorded no condition and ran. In a size argument, in a type written on a binder, and
// n/4*2 (n/2 once simplified, which needs 4 to divide n, not just 2).
TEST(GenericSizeArguments, CancelledDivisionsStillNeedTheirDivisor) {
  struct Cancelled {
    std::string body, condition;
    int64_t good, bad;
  };
  const std::vector<Cancelled> cases = {
      {"take(n/2*2)(x)", "2 divides n", 6, 3},
      {"x |> fun(y: (n/2*2).f32 => y) |> map(fun(v => v + 1.0f))", "2 divides n", 4, 5},
      {"take(n/4*2)(x)", "4 divides n", 8, 6}};
  int k = 0;
  for (const Cancelled& c : cases) {
    const std::string file =
        write_scratch("cancelled" + std::to_string(k++) + ".rise",
                      "def f = depFun(n: Nat => fun(x: n.f32 => " + c.body + "))\n");
    EXPECT_EQ(generic_refusal(file, c.good), "") << c.body;
    const std::string m = generic_refusal(file, c.bad);
    EXPECT_NE(m.find("size precondition violated: " + c.condition), std::string::npos)
        << c.body << ": " << m;
    CliResult r = run_risec({"run", file, "--size", "n=" + std::to_string(c.bad)});
    EXPECT_EQ(r.exit_code, 1) << show(r);
    EXPECT_EQ(run_at(file, "", "n=" + std::to_string(c.good), generic("c")), "") << c.body;
  }
  // A quotient whose coefficient is a fraction ((1/2)n / n is 1/2; held-out P):
  // slide(n/2)(n/2) has 2 windows, which the type said as 2*((n/2)/n) + 1 and generic
  // code counted as 1 (C's integer division); slide(n/4)(n/4) has 4.
  for (const auto& [q, windows] : {std::pair{"n/2", 2}, std::pair{"n/4", 4}}) {
    const std::string file =
        write_scratch("slide_quotient" + std::to_string(windows) + ".rise",
                      "def f = depFun(n: Nat => fun(x: n.f32 => x |> slide(" + std::string(q) +
                          ")(" + q + ") |> map(fun(r => r |> reduce(add)(0.0f)))))\n");
    CliResult c = run_risec({"check", file});
    EXPECT_NE(c.out.find("(n: Nat) -> n.f32 -> " + std::to_string(windows) + ".f32"),
              std::string::npos)
        << show(c);
    EXPECT_EQ(run_at(file, "", "n=16", generic("c")), "") << q;
  }
}

}  // namespace
}  // namespace risec::e2e
