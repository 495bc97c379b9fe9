// An index literal on an array of symbolic size (`x[7]` on `n.f32`) must be proven in
// bounds: the checker records `n - 8 >= 0` as a side condition (like the length a
// `take` needs), so --size values that violate it are refused, located, before
// anything runs, and generic code checks it on entry instead of reading past the end.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "runtime/jit.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

rise::Program parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"idx.rise", text}));
}

// The index literal in several positions: on the input, on a row, in a map body.
std::vector<std::string> bounds_programs(int i) {
  std::string k = std::to_string(i);
  return {
      "def f = depFun(n: Nat => fun(x: n.f32 => x[" + k + "]))",
      "def f = depFun(n: Nat => fun(x: n.f32 => x[" + k + "] + x[0]))",
      "def f = depFun((m: Nat, n: Nat) => fun(x: m.n.f32 => x |> map(fun(r => r[" + k + "]))))",
      "def f = depFun(n: Nat => fun(x: n.i32 => x |> take(n) |> fun(y => y[" + k + "])))",
  };
}

TEST(IndexLiteralBounds, SizesThatViolateTheIndexAreRefusedAtCheckTime) {
  for (int i = 0; i < 12; ++i) {
    for (const std::string& text : bounds_programs(i)) {
      rise::Program p = parse(text);
      for (int64_t n = 1; n <= 12; ++n) {
        rise::SizeMap sizes{{"n", n}};
        if (text.find("m: Nat") != std::string::npos) sizes["m"] = 3;
        std::string err;
        try {
          rise::check_program(p, "", &sizes);
        } catch (const Error& e) {
          err = e.message();
          EXPECT_EQ(e.kind(), ErrorKind::User) << text;
          EXPECT_GT(e.span().start().line, 0) << text;
        }
        if (i < n)
          EXPECT_EQ(err, "") << text << " n=" << n;
        else
          EXPECT_NE(err.find("index literal " + std::to_string(i) + " is out of range"),
                    std::string::npos)
              << text << " n=" << n << ": " << err;
      }
      // generic: the requirement is recorded (none for index 0: sizes are >= 1)
      rise::Checked c = rise::check_program(p, "");
      bool found = false;
      for (const rise::SideCondition& sc : c.conditions)
        found = found || sc.describe() == "n - " + std::to_string(i + 1) + " >= 0";
      EXPECT_EQ(found, i > 0) << text;
    }
  }
}

TEST(IndexLiteralBounds, NegativeAndTooLargeLiteralsAreRefused) {
  for (const char* bad : {"def f = fun(x: 4.f32 => x[4])", "def f = fun(x: 4.f32 => x[100])",
                          "def f = fun(x: 4.f32 => x[lidx(4, 4)])"}) {
    EXPECT_THROW(rise::check_program(parse(bad), ""), Error) << bad;
  }
}

TEST(IndexLiteralBounds, GenericCodeChecksTheIndexOnEntry) {
  for (int i : {1, 5, 7}) {
    auto keep = std::make_unique<rise::Program>(parse(bounds_programs(i)[0]));
    driver::CompileRequest req;
    req.program = keep.get();
    driver::Compiled c = driver::compile(req);
    runtime::Executable exe(runtime::build_executable(c.unit.source, c.unit.name).path);
    for (int n = 1; n <= 9; ++n) {
      std::vector<float> x(static_cast<size_t>(n));
      for (int j = 0; j < n; ++j) x[static_cast<size_t>(j)] = static_cast<float>(j);
      float out = -1.0f;
      std::string err;
      try {
        exe.call(&out, sizeof(float), {{x.data(), sizeof(float) * x.size()}}, {n});
      } catch (const Error& e) {
        err = e.message();
      }
      if (i < n) {
        EXPECT_EQ(err, "") << i << " " << n;
        EXPECT_EQ(out, static_cast<float>(i));
      } else {
        EXPECT_NE(err.find("size precondition violated: n - " + std::to_string(i + 1) + " >= 0"),
                  std::string::npos)
            << err;
      }
    }
  }
}

}  // namespace
}  // namespace risec::e2e
