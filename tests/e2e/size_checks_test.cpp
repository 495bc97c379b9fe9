// Generic code (compiled without --size) checks the program's conditions on its
// sizes when it is called: a standalone run with sizes that violate them stops with
// a message naming the condition, instead of reading past the end of an array.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "driver/compile.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "runtime/jit.h"
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
