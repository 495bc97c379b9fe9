// Every vector width either works (the generated C compiles and matches the
// interpreter) or is refused with a located error in the strategy: C vector types
// need a power of two lanes, so vectorize(3) used to emit C that did not compile.
// Widths 1..17, for each vectorising rule, on the c and openmp targets.
#include <gtest/gtest.h>

#include <string>

#include <unistd.h>

#include "e2e_util.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

bool power_of_two(int w) {
  return w > 0 && (w & (w - 1)) == 0;
}

// The strategy with `w` lanes, for the target: sequential, or parallel chunks of the
// vector loop.
std::string strategy(const std::string& rule, int w, const std::string& target) {
  std::string v = rule + "(" + std::to_string(w) + ")";
  if (target == "openmp")
    return "(" + v +
           " @ outermost(isFullyApplied(isMap))) ; (parallel @ outermost(isFullyApplied(isMap))) ; "
           "lowerToC";
  return "(" + v + " @ outermost(isFullyApplied(isMap))) ; lowerToC";
}

TEST(VectorWidths, EveryWidthRunsOrIsRefusedLocated) {
  // 720 = lcm(1..6) * 12 is a multiple of every power of two up to 16 and of most
  // other widths, so divisibility is not what decides
  for (const char* rule : {"vectorize", "vectorizeRemainder"}) {
    for (const char* target : {"c", "openmp"}) {
      for (int w = 1; w <= 17; ++w) {
        std::string s = strategy(rule, w, target);
        // vectorizeRemainder also handles a length the width does not divide
        std::string sizes = std::string(rule) == "vectorizeRemainder" ? "n=723"
                            : power_of_two(w)                         ? "n=720"
                                              : "n=" + std::to_string(w * 60);
        if (power_of_two(w)) {
          EXPECT_TRUE(compile_and_check("examples/scal/scal.rise", s, sizes, target))
              << rule << " width " << w << " " << target;
          continue;
        }
        try {
          run_and_compare("examples/scal/scal.rise", s, sizes, CheckOptions{.target = target});
          ADD_FAILURE() << rule << " width " << w << " was accepted";
        } catch (const Error& e) {
          EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
          EXPECT_NE(e.message().find("not a power of two"), std::string::npos) << e.message();
          EXPECT_GT(e.span().start().line, 0) << e.message();
        }
      }
    }
  }
}

TEST(VectorWidths, ProgramsWithOddVectorTypesAreRefusedLocated) {
  for (int w = 1; w <= 17; ++w) {
    std::string text = "def f = fun(x: " + std::to_string(w * 4) + ".f32 => x |> asVector(" +
                       std::to_string(w) + ") |> mapSeq(fun(v => v)) |> asScalar)";
    std::string path = ::testing::TempDir() + "/risec_vec_" + std::to_string(::getpid()) + "_" +
                       std::to_string(w) + ".rise";
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
    if (power_of_two(w)) {
      EXPECT_TRUE(compile_and_check(path, "", "")) << text;
      continue;
    }
    try {
      run_and_compare(path, "", "");
      ADD_FAILURE() << text << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
      EXPECT_NE(e.message().find("power of two"), std::string::npos) << e.message();
      EXPECT_EQ(e.span().start().line, 1) << e.message();
    }
  }
}

}  // namespace
}  // namespace risec::e2e
