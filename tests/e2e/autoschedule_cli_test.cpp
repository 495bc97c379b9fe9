// `risec tune` without --strategy (the autoscheduler, docs/tuning.md) through the
// binary: a short search on small programs writes a strategy that `risec run
// --strategy best.elv --check` accepts, the default lowering is among the measured
// candidates, --explain says what was chosen, the best becomes the --tuned record, and
// the options that need a template are refused with exit code 2. No assertion depends on the times measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

void tune_and_check(const std::string& file, const std::string& sizes, const std::string& target,
                    const std::string& out) {
  std::string best = scratch_path(out);
  std::string db = scratch_path(out + ".db");
  std::remove(db.c_str());
  CliResult r = run_risec({"tune", file, "--size", sizes, "--target", target, "--budget", "3",
                           "--repeat", "1", "--explain", "--db", db, "-o", best},
                          {"OMP_NUM_THREADS=2"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  // The default lowering is measured, first.
  EXPECT_NE(r.err.find("autoschedule: [1/3] the default lowering: "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("autoschedule: [3/3] "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("autoschedule: the chosen schedule: "), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("  measured:   the default lowering "), std::string::npos) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_EQ(written.rfind("// risec tune (autoschedule, " + target + "): ", 0), 0u) << written;
  EXPECT_NE(written.find("let main ="), std::string::npos) << written;
  EXPECT_NE(r.out.find(written), std::string::npos) << show(r);
  CliResult run =
      run_risec({"run", file, "--strategy", best, "--size", sizes, "--target", target, "--check"},
                {"OMP_NUM_THREADS=2"});
  EXPECT_EQ(run.exit_code, 0) << show(run) << written;
  // The best is the record --tuned uses: the same code as with the strategy, no note.
  EXPECT_NE(r.err.find("tune: recorded for --tuned in " + db), std::string::npos) << show(r);
  CliResult tuned = run_risec({"compile", file, "--size", sizes, "--target", target, "--tuned",
                               "--db", db});
  CliResult direct =
      run_risec({"compile", file, "--size", sizes, "--target", target, "--strategy", best});
  ASSERT_EQ(tuned.exit_code, 0) << show(tuned);
  EXPECT_EQ(tuned.err.find("no tuning record"), std::string::npos) << show(tuned);
  EXPECT_EQ(tuned.out, direct.out);
}

TEST(AutoscheduleCli, WritesAStrategyThatRunChecks) {
  tune_and_check("bench/autoschedule/sharpen.rise", "n=16,m=32", "openmp", "sharpen_best.elv");
  tune_and_check("examples/mm/mm.rise", "n=16,m=16,k=16", "c", "mm_best.elv");
}

TEST(AutoscheduleCli, TemplateOptionsAreRefused) {
  CliResult param =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--param", "v=4"});
  EXPECT_EQ(param.exit_code, 2) << show(param);
  CliResult gpu =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--target", "opencl"});
  EXPECT_EQ(gpu.exit_code, 2) << show(gpu);
  CliResult search =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--search", "random"});
  EXPECT_EQ(search.exit_code, 2) << show(search);
  // --explain is the autoscheduler's: with a template it is refused, not ignored.
  CliResult explain =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--strategy",
                 "param v in [4]; let main = vectorize(v) @ outermost(isApplied(isMap)) ; "
                 "lowerToC;",
                 "--explain"});
  EXPECT_EQ(explain.exit_code, 2) << show(explain);
  EXPECT_NE(explain.err.find("--explain is for risec tune without --strategy"), std::string::npos)
      << show(explain);
}

}  // namespace
}  // namespace risec::e2e
