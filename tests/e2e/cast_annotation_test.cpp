// A cast's target type comes only from context, often a type annotation, which
// checking removes: rewrites that re-infer the cast (lowerToC's map -> mapSeq) lost
// it and failed with an unlocated "cannot infer the type". Every scalar target, from
// float and integer sources, lowered and run against the interpreter.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <unistd.h>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

TEST(CastAnnotation, EveryScalarTargetSurvivesLowering) {
  int k = 0;
  for (const char* from : {"f32", "i32"}) {
    std::string scale = std::string(from) == "f32" ? "127.0f" : "3";
    for (const char* to :
         {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "bool"}) {
      std::string text = "def main = depFun(n: Nat => fun(x: n." + std::string(from) +
                         " => x |> map(fun(v => (cast(v * " + scale + ") : " + to + ")))))";
      std::string path = ::testing::TempDir() + "/risec_cast_" + std::to_string(::getpid()) + "_" +
                         std::to_string(k++) + ".rise";
      FILE* f = std::fopen(path.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs(text.c_str(), f);
      std::fclose(f);
      EXPECT_TRUE(compile_and_check(path, "", "n=8", k % 2 ? "c" : "openmp")) << text;
    }
  }
}

}  // namespace
}  // namespace risec::e2e
