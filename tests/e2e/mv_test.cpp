// End-to-end: matrix-vector multiplication (examples/mv) compiled with a strategy,
// run as a shared object and as a sanitized standalone program, and compared with
// the interpreter on seeded random inputs; and a deliberately broken unit, to show
// that the sanitized run catches an out-of-bounds access in generated code.
#include <gtest/gtest.h>

#include "e2e_util.h"
#include "runtime/jit.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

const char* kMv = "examples/mv/mv.rise";
const char* kMvTestStrategy = "DFNF ; topDown(fuseReduceMap) ; normalize(mapSeq <+ reduceSeq)";

TEST(MvE2e, SharedObjectMatchesInterpreter) {
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=64,m=32"));
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=7,m=13"));
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=1,m=1"));
}

TEST(MvE2e, SanitizedStandaloneMatchesInterpreter) {
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=64,m=32", "c", /*sanitize=*/true));
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=7,m=13", "c", /*sanitize=*/true));
}

TEST(MvE2e, StrategyFromAFile) {
  std::string path = write_scratch("mv.elv", std::string(kMvTestStrategy) + "\n");
  EXPECT_TRUE(compile_and_check(kMv, path, "n=16,m=8"));
}

TEST(MvE2e, OtherSeedsAndTheDefaultLowering) {
  CheckOptions o;
  o.seed = 12345;
  EXPECT_TRUE(compile_and_check(kMv, kMvTestStrategy, "n=33,m=17", o));
  EXPECT_TRUE(compile_and_check(kMv, "", "n=33,m=17"));
  EXPECT_TRUE(compile_and_check(kMv, "", "n=33,m=17", "openmp"));
}

TEST(MvE2e, ReportHoldsTheRun) {
  CheckReport r = run_and_compare(kMv, kMvTestStrategy, "n=64,m=32");
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
  EXPECT_EQ(r.comparison.elements, 64);
  EXPECT_EQ(r.inputs.size(), 2u);
  EXPECT_EQ(r.execution.times_ms.size(), 1u);
  EXPECT_EQ(r.execution.output.size(), 64);
  // Compiled again: the shared object comes from the cache.
  CheckReport again = run_and_compare(kMv, kMvTestStrategy, "n=64,m=32");
  EXPECT_TRUE(again.execution.cache_hit);
}

TEST(MvE2e, SanitizedRunCatchesAnOutOfBoundsLoop) {
  CheckReport r = run_and_compare(kMv, kMvTestStrategy, "n=8,m=4");
  ASSERT_TRUE(r.comparison.ok);
  // Let the inner loop run one iteration too far: it then reads M and x past their
  // ends, which the shared object may silently get away with.
  driver::Compiled broken = r.compiled;
  std::string& src = broken.unit.source;
  size_t at = src.find("< 4;");
  if (at == std::string::npos)
    GTEST_SKIP() << "no '< 4;' loop bound in the generated code:\n" << src;
  src.replace(at, 4, "<= 4;");
  driver::ExecOptions eo;
  eo.mode = driver::ExecMode::Standalone;
  eo.extra_cflags = runtime::sanitizer_flags();
  try {
    driver::execute(broken, {}, r.inputs, eo);
    FAIL() << "the sanitizer did not report:\n" << src;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Internal);
    EXPECT_NE(e.message().find("AddressSanitizer"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace risec::e2e
