// Sizes of 2^31 and more must not overflow C `int` loops and indices: code whose
// sizes, trip counts or array lengths may reach 2^31 (every generic unit, and known
// sizes or products that large) uses int64_t; code proven small keeps int. Many
// shapes and sizes around 2^31 are generated; each unit must also compile cleanly.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "compile_util.h"
#include "driver/compile.h"
#include "runtime/process.h"

using namespace risec;

namespace {

driver::Compiled compile_text(const std::string& text, const rise::SizeMap& sizes,
                              const std::string& strategy, const std::string& target) {
  return test::compile_rise(text, strategy, sizes, target);
}

// cc -fsyntax-only -Wall -Wextra -Werror on the unit: "" when clean, else the output.
std::string c_diagnostics(const std::string& source, bool openmp) {
  // unique per process: ctest runs the tests in parallel
  std::string path =
      ::testing::TempDir() + "/risec_index_width_" + std::to_string(::getpid()) + ".c";
  std::ofstream(path) << source;
  std::vector<std::string> argv{"cc",      "-std=gnu99", "-fsyntax-only", "-Wall",
                                "-Wextra", "-Werror",    "-Wno-psabi"};
  if (openmp) argv.push_back("-fopenmp");
  argv.push_back(path);
  runtime::ProcessResult r = runtime::run_process(argv);
  return r.ok() ? "" : r.describe() + "\n" + r.err;
}

struct Shape {
  const char* text;
  std::vector<std::string> sizes;
};

const Shape kShapes[] = {
    {"def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * 2.0f))))", {"n"}},
    {"def f = depFun(n: Nat => fun(x: n.f32 => x |> reduce(add)(0.0f)))", {"n"}},
    {"def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> map(fun(r => r |> "
     "reduce(add)(0.0f)))))",
     {"n", "m"}},
    {"def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> transpose |> map(fun(r => r |> "
     "map(fun(a => a + 1.0f))))))",
     {"n", "m"}},
};

const char* kIndexWidthSeq = "DFNF ; normalize(mapSeq <+ reduceSeq)";
const char* kPar = "DFNF ; try(topDown(mapPar)) ; normalize(mapSeq <+ reduceSeq)";

}  // namespace

TEST(IndexWidth, SizesAround2To31) {
  const int64_t two31 = int64_t{1} << 31;
  const std::vector<int64_t> big{two31 - 2, two31 - 1, two31, two31 + 1, 2 * two31, 3000000000};
  int compiled = 0;
  for (const Shape& sh : kShapes) {
    for (int64_t n : big) {
      for (int64_t m : {int64_t{1}, int64_t{2}, int64_t{7}}) {
        rise::SizeMap sizes{{"n", n}};
        if (sh.sizes.size() > 1) sizes["m"] = m;
        int64_t total = sh.sizes.size() > 1 ? n * m : n;
        for (const char* target : {"c", "openmp"}) {
          driver::Compiled c = compile_text(
              sh.text, sizes, std::string(target) == "c" ? kIndexWidthSeq : kPar, target);
          const std::string& src = c.unit.source;
          bool wide = total >= two31;
          EXPECT_EQ(src.find("for (int ") != std::string::npos, !wide)
              << sh.text << " n=" << n << " m=" << m << "\n"
              << src;
          EXPECT_EQ(src.find("for (int64_t ") != std::string::npos, wide)
              << sh.text << " n=" << n << " m=" << m << "\n"
              << src;
          if (compiled++ % 7 == 0) {
            EXPECT_EQ(c_diagnostics(src, true), "") << src;
          }
        }
      }
    }
  }
}

TEST(IndexWidth, ProductsOfSmallSizesThatReach2To31) {
  // 46340^2 < 2^31 <= 46341^2: each dimension fits an int, the flat index does not.
  for (int64_t n : {46339, 46340, 46341, 46342, 65536}) {
    rise::SizeMap sizes{{"n", n}, {"m", n}};
    driver::Compiled c = compile_text(kShapes[3].text, sizes, kIndexWidthSeq, "c");
    bool wide = n * n >= (int64_t{1} << 31);
    EXPECT_EQ(c.unit.source.find("for (int64_t ") != std::string::npos, wide) << n;
  }
}

TEST(IndexWidth, GenericCodeIs64BitAndSmallKnownSizesStay32Bit) {
  for (const Shape& sh : kShapes) {
    driver::Compiled g = compile_text(sh.text, {}, kIndexWidthSeq, "c");
    EXPECT_NE(g.unit.source.find("int64_t n"), std::string::npos) << g.unit.source;
    EXPECT_EQ(g.unit.source.find("for (int "), std::string::npos) << g.unit.source;
    EXPECT_EQ(c_diagnostics(g.unit.source, false), "") << g.unit.source;
    for (int64_t n : {1, 5, 1024, 1 << 20}) {
      rise::SizeMap sizes{{"n", n}};
      if (sh.sizes.size() > 1) sizes["m"] = 3;
      driver::Compiled c = compile_text(sh.text, sizes, kIndexWidthSeq, "c");
      EXPECT_EQ(c.unit.source.find("int64_t i"), std::string::npos) << c.unit.source;
    }
  }
}
