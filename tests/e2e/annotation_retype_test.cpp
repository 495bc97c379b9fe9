// Checking removes type annotations; rewrites (the default lowering's map -> mapSeq)
// and the re-inference of a lowered generic program inferred the term again without
// them, and refused programs that check and eval accept when the annotation was the
// only thing fixing a type: a cast through natType, generate's length. Each program
// lowered by default and run against the interpreter: specialised on c and openmp,
// and generic in its sizes (what Python's risec.compile does by default). Also the
// OpenMP default over sliding windows, which it made parallel and then refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <unistd.h>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string annot_retype_file(const std::string& text, int k) {
  std::string path = ::testing::TempDir() + "/risec_annot_retype_" + std::to_string(::getpid()) +
                     "_" + std::to_string(k) + ".rise";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "";
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

TEST(AnnotationRetype, AnnotationsThatAloneFixATypeSurviveLowering) {
  const char* programs[] = {
      // a cast through natType, directly and through a let
      "def f = depFun(n: Nat => fun(a: n.i32 => a |> map(fun(x => cast(cast(x) : natType) : "
      "i32))))",
      "def f = depFun(n: Nat => fun(a: n.i32 => a |> map(fun(x => let y = cast(x) : natType in "
      "cast(y) : i32))))",
      // generate's length is fixed by the annotation only
      "def f = depFun(n: Nat => fun(a: f32 => (generate(fun(i => a)) : n.f32) |> "
      "reduce(add)(0.0f)))",
      "def f = depFun(n: Nat => fun(a: f32 => (generate(fun(i => a)) : n.f32) |> map(fun(x => x * "
      "2.0f))))",
      "def f = depFun(n: Nat => fun(a: n.f32 => cast((generate(fun(i => indexAsNat(i))) : "
      "n.natType) |> map(fun(k: natType => k * 1000)) |> reduce(add)(natType(0))) : i64))",
      "def f = depFun(m: Nat => (generate(fun(i => indexAsNat(i))) : m.natType) |> map(fun(k => k "
      "+ 1)))",
      // a map whose result type is the annotation's
      "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => cast(x * 100i64) : "
      "natType))))",
  };
  int k = 0;
  for (const char* text : programs) {
    std::string path = annot_retype_file(text, k++);
    ASSERT_FALSE(path.empty());
    const std::string size = std::string(text).find("m: Nat") != std::string::npos ? "m" : "n";
    for (const char* target : {"c", "openmp"})
      EXPECT_TRUE(compile_and_check(path, "", size + "=7", target)) << target << ": " << text;
    CheckOptions generic;
    generic.generic = true;
    EXPECT_TRUE(compile_and_check(path, "", size + "=9", generic)) << "generic: " << text;
    std::remove(path.c_str());
  }
}

// The OpenMP default lowering made the map over circularBuffer's / rotateValues'
// windows parallel, then refused it ("must be consumed by a sequential map"): that
// map stays sequential, and the program runs as on the c target.
TEST(AnnotationRetype, OpenMPDefaultKeepsSlidingWindowsSequential) {
  const char* programs[] = {
      "def f = depFun((n: Nat) => fun(a: (n+2).i32 => a |> circularBuffer(3)(3)(fun(x => x * 2 - "
      "1)) |> map(fun(w => w[0] * w[2] - w[1]))))",
      "def f = depFun((n: Nat) => fun(a: (n+2).f32 => a |> rotateValues(3)(fun(x => x * 2.0f)) |> "
      "map(fun(w => w[0] - w[2] + w[1]))))",
  };
  int k = 100;
  for (const char* text : programs) {
    std::string path = annot_retype_file(text, k++);
    ASSERT_FALSE(path.empty());
    EXPECT_TRUE(compile_and_check(path, "", "n=11", "openmp")) << text;
    CheckOptions generic;
    generic.generic = true;
    generic.target = "openmp";
    EXPECT_TRUE(compile_and_check(path, "", "n=13", generic)) << "generic: " << text;
    std::remove(path.c_str());
  }
}

}  // namespace
}  // namespace risec::e2e
