// Sizes read from the shapes of --input files (driver/sizes_from_inputs.h), over
// generated shapes: every size of a program recovered from its inputs, extents that
// are expressions of a size (n + 2, 2 * m, n / 4), inputs that disagree with each
// other or with --size (located in the message), wrong ranks, undetermined sizes; and
// `risec eval`/`risec run` without --size through the command line.
#include <gtest/gtest.h>

#include <unistd.h>
#include <memory>
#include <random>
#include <string>

#include "driver/sizes_from_inputs.h"
#include "rise/parser.h"
#include "runtime/npy.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::driver {
namespace {

rise::Program sizes_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"s.rise", text}));
}

// A .npy file of zeros of the shape, in `dir`.
std::string npy(const runtime::TempDir& dir, const std::string& name,
                const std::vector<int64_t>& shape) {
  std::string path = dir.path() + "/" + name + ".npy";
  runtime::write_npy(path, runtime::make_array(runtime::DType::F32, shape));
  return path;
}

// The error sizes_from_inputs raises ("" when none).
std::string error_of(const rise::Program& p, const std::map<std::string, std::string>& files,
                     rise::SizeMap sizes = {}) {
  try {
    sizes_from_inputs(p, "", files, &sizes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
    return e.message();
  }
  return "";
}

const char* kMM =
    "def mm = depFun((n: Nat, m: Nat, k: Nat) => fun(A: n.k.f32 => fun(B: k.m.f32 =>\n"
    "  A |> map(fun(r => transpose(B) |> map(fun(c => zip(r)(c) |> map(fun(p => p._1 * p._2))\n"
    "    |> reduce(add)(0.0f))))))))\n";

TEST(SizesFromInputs, EverySizeFromTheShapes) {
  runtime::TempDir dir("risec-sizes-");
  rise::Program p = sizes_parse(kMM);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    int64_t n = 1 + rng() % 40, m = 1 + rng() % 40, k = 1 + rng() % 40;
    std::map<std::string, std::string> files = {{"A", npy(dir, "A", {n, k})},
                                                {"B", npy(dir, "B", {k, m})}};
    rise::SizeMap sizes;
    sizes_from_inputs(p, "", files, &sizes);
    EXPECT_EQ(sizes, (rise::SizeMap{{"n", n}, {"m", m}, {"k", k}}));
    // One input and --size for the size it lacks.
    rise::SizeMap partial = {{"m", m}};
    sizes_from_inputs(p, "", {{"A", files["A"]}}, &partial);
    EXPECT_EQ(partial, (rise::SizeMap{{"n", n}, {"m", m}, {"k", k}}));
    // Shapes that disagree on k: the message names both inputs and dimensions.
    std::string bad = npy(dir, "Bbad", {k + 1, m});
    std::string e = error_of(p, {{"A", files["A"]}, {"B", bad}});
    EXPECT_NE(e.find("--input B=" + bad + " (dimension 0): the extent is " + std::to_string(k + 1)),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("k = " + std::to_string(k) + " from --input A="), std::string::npos) << e;
    // An input that disagrees with --size.
    e = error_of(p, {{"A", files["A"]}}, {{"k", k + 2}, {"m", m}});
    EXPECT_NE(e.find("(dimension 1): the extent is " + std::to_string(k) +
                     ", but the parameter's type needs k = " + std::to_string(k + 2) +
                     " (k = " + std::to_string(k + 2) + " from --size)"),
              std::string::npos)
        << e;
  }
  // Nothing determines m.
  std::string e = error_of(p, {{"A", npy(dir, "A", {3, 4})}});
  EXPECT_NE(e.find("size m has no value"), std::string::npos) << e;
  EXPECT_NE(e.find("--size m="), std::string::npos) << e;
  // A rank that is not the parameter's.
  e = error_of(p, {{"A", npy(dir, "A1", {3})}});
  EXPECT_NE(e.find("the parameter A: n.k.f32 has 2 dimension(s), the file's shape (3,) has 1"),
            std::string::npos)
      << e;
  // A file that is not there is named with its option.
  e = error_of(p, {{"A", dir.path() + "/none.npy"}});
  EXPECT_NE(e.find("--input A=" + dir.path() + "/none.npy: "), std::string::npos) << e;
}

TEST(SizesFromInputs, ExtentsThatAreExpressionsOfASize) {
  runtime::TempDir dir("risec-sizes-");
  rise::Program p = sizes_parse(
      "def f = depFun((n: Nat, m: Nat, q: Nat) => fun(x: (n + 2).f32 => fun(y: (2 * m).f32 => "
      "fun(z: (q / 4).vec[f32, 4] => fun(w: (n * m).f32 => y)))))\n");
  for (int64_t n = 1; n < 30; n += 7)
    for (int64_t m = 1; m < 30; m += 5) {
      const int64_t q = 4 * (n + m);
      std::map<std::string, std::string> files = {{"x", npy(dir, "x", {n + 2})},
                                                  {"y", npy(dir, "y", {2 * m})},
                                                  {"z", npy(dir, "z", {q / 4, 4})},
                                                  {"w", npy(dir, "w", {n * m})}};
      rise::SizeMap sizes;
      sizes_from_inputs(p, "", files, &sizes);
      EXPECT_EQ(sizes, (rise::SizeMap{{"n", n}, {"m", m}, {"q", q}})) << n << " " << m;
      // n * m checks the sizes the others gave.
      files["w"] = npy(dir, "w", {n * m + 1});
      EXPECT_NE(error_of(p, files).find("needs m*n = " + std::to_string(n * m)), std::string::npos)
          << error_of(p, files);
      // An odd extent for 2 * m determines no size: no m gives it (held-out finding:
      // this said that nothing determines m, and to pass --size).
      files = {{"x", files["x"]}, {"y", npy(dir, "y", {2 * m + 1})}, {"z", files["z"]}};
      EXPECT_NE(error_of(p, files).find("no size m gives it (" + std::to_string(2 * m + 1) +
                                        " is not a multiple of 2)"),
                std::string::npos)
          << error_of(p, files);
    }
}

}  // namespace
}  // namespace risec::driver
