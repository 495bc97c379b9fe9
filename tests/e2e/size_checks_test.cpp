// Generic code (compiled without --size) checks the program's conditions on its
// sizes when it is called: a standalone run with sizes that violate them stops with
// a message naming the condition, instead of reading past the end of an array.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

driver::Compiled compile_generic(const std::string& text) {
  static std::vector<std::unique_ptr<rise::Program>> keep;
  keep.push_back(std::make_unique<rise::Program>(
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"sums.rise", text}))));
  driver::CompileRequest req;
  req.program = keep.back().get();
  return driver::compile(req);
}

// Sums of the blocks of 4 of an n-array: needs 4 | n.
const char* kBlockSums =
    "def f = depFun(n: Nat => fun(x: n.f32 => x |> split(4) |> map(fun(c => c |> "
    "reduce(add)(0.0f)))))";

std::string failure_of(const runtime::Executable& exe, int n) {
  std::vector<float> x(static_cast<size_t>(n > 0 ? n : 1), 1.0f), out(64, 0.0f);
  try {
    exe.call(out.data(), sizeof(float) * static_cast<size_t>(n > 0 ? n / 4 : 0),
             {{x.data(), sizeof(float) * static_cast<size_t>(n > 0 ? n : 0)}}, {n});
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(SizeChecks, GenericCodeChecksDivisibilityAndPositivity) {
  driver::Compiled c = compile_generic(kBlockSums);
  ASSERT_EQ(c.size_names, std::vector<std::string>{"n"});
  runtime::Executable exe(runtime::build_executable(c.unit.source, c.unit.name).path);
  // sizes that satisfy the conditions run and compute
  std::vector<float> x(12), out(3, 0.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  exe.call(out.data(), sizeof(float) * out.size(), {{x.data(), sizeof(float) * x.size()}}, {12});
  EXPECT_EQ(out, (std::vector<float>{6.0f, 22.0f, 38.0f}));
  // 4 does not divide 10: the message names the condition and where it comes from
  std::string m = failure_of(exe, 10);
  EXPECT_NE(m.find("size precondition violated: 4 divides n"), std::string::npos) << m;
  EXPECT_NE(m.find("sums.rise:1:"), std::string::npos) << m;
  // sizes are positive
  m = failure_of(exe, 0);
  EXPECT_NE(m.find("n >= 1"), std::string::npos) << m;
}

TEST(SizeChecks, GenericCodeChecksThatArraysAreLongEnough) {
  // take(4) of an n-array reads 4 elements: n >= 4 is checked on entry
  driver::Compiled c = compile_generic(
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> take(4) |> map(fun(a => a * 2.0f))))");
  runtime::Executable exe(runtime::build_executable(c.unit.source, c.unit.name).path);
  std::vector<float> x(4, 1.0f), out(4, 0.0f);
  exe.call(out.data(), sizeof(float) * 4, {{x.data(), sizeof(float) * 4}}, {4});
  EXPECT_EQ(out, std::vector<float>(4, 2.0f));
  std::string m;
  try {
    exe.call(out.data(), sizeof(float) * 4, {{x.data(), sizeof(float) * 2}}, {2});
  } catch (const Error& e) {
    m = e.message();
  }
  EXPECT_NE(m.find("size precondition violated: n - 4 >= 0"), std::string::npos) << m;
}

// Held-out H: the conditions were computed in plain 64-bit C arithmetic, so take(k*m)
// of 10 elements passed its check n - k*m >= 0 where k*m wrapped around to 2 (and the
// code returned a sum of 2 elements) or to a negative number (and it crashed). The
// check's sums and products now fail where they overflow. Called from a C main of its
// own: the runtime passes sizes as C ints, whose products cannot overflow.
TEST(SizeChecks, ConditionsWhoseTermsOverflowFail) {
  driver::Compiled c = compile_generic(
      "def f = depFun((n: Nat, k: Nat, m: Nat) => fun(x: n.f32 =>\n"
      "  x |> take(k*m) |> map(fun(a => a * 2.0f)) |> reduce(add)(0.0f)))");
  ASSERT_NE(c.unit.source.find("risec_ck_mul("), std::string::npos) << c.unit.source;
  const std::string dir = runtime::make_temp_dir("risec-size-checks-");
  runtime::write_file(dir + "/f.c", c.unit.source);
  runtime::write_file(dir + "/main.c", R"(#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
void f(float* output, int64_t n, int64_t k, int64_t m, const float* x);
int main(int argc, char** argv) {
  float x[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, out = -1;
  f(&out, 10, strtoll(argv[1], 0, 10), strtoll(argv[2], 0, 10), x);
  printf("%g\n", out);
  return 0;
}
)");
  std::vector<std::string> cc = runtime::c_compiler();
  std::vector<std::string> build = cc;
  for (const std::string& w : {std::string("-O2"), dir + "/f.c", dir + "/main.c", std::string("-o"),
                               dir + "/main", std::string("-lm")})
    build.push_back(w);
  runtime::ProcessResult b = runtime::run_process(build);
  ASSERT_TRUE(b.ok()) << b.describe() << b.err;
  // within the array: computed
  runtime::ProcessResult fits = runtime::run_process({dir + "/main", "3", "3"});
  EXPECT_TRUE(fits.ok()) << fits.describe() << fits.err;
  EXPECT_EQ(fits.out, "18\n");
  // past it, and products past 2^63 (wrapping to 2, to 0, to a negative number)
  for (const char* k : {"4", "6148914691236517206", "4294967296", "3074457345618258603"}) {
    runtime::ProcessResult r = runtime::run_process({dir + "/main", k, "3"});
    EXPECT_FALSE(r.ok()) << k << ": " << r.out;
    EXPECT_NE(r.err.find("size precondition violated: n - k*m >= 0"), std::string::npos)
        << k << ": " << r.describe() << "\n"
        << r.err;
  }
}

TEST(SizeChecks, SpecialisedCodeHasNoChecksAndUsersCanTurnThemOff) {
  driver::Compiled c = compile_generic(kBlockSums);
  EXPECT_NE(c.unit.source.find("#ifndef RISEC_NO_CHECKS"), std::string::npos);
  // with -DRISEC_NO_CHECKS the call with n = 12 still computes (the checks are gone,
  // the code is the same)
  runtime::CompileOptions o;
  o.extra_flags = {"-DRISEC_NO_CHECKS"};
  runtime::Executable exe(runtime::build_executable(c.unit.source, c.unit.name, o).path);
  EXPECT_EQ(failure_of(exe, 12), "");
  // sizes fixed at compile time: nothing left to check
  static rise::Program p =
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"sums.rise", kBlockSums}));
  rise::SizeMap sizes{{"n", 16}};
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = &sizes;
  driver::Compiled s = driver::compile(req);
  EXPECT_EQ(s.unit.source.find("RISEC_PRECONDITION_FAILED"), std::string::npos);
}

}  // namespace
}  // namespace risec::e2e
