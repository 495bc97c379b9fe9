// `risec explore` through the binary: a short real exploration of mv (the C compiler
// and real timings) writes a strategy that `risec run --check` accepts, and bad
// options give the exit codes of spec/cli.md.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

TEST(ExploreCli, ExploresAndWritesARunnableStrategy) {
  std::string best = scratch_path("mv_explore_best.elv");
  CliResult r = run_risec({"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--budget", "2",
                           "--repeat", "1", "-o", best});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("explore: 2 site(s) in the RNF program, 6 variant(s)"), std::string::npos)
      << show(r);
  EXPECT_NE(r.out.find("// risec explore: "), std::string::npos) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_EQ(written, r.out);
  EXPECT_NE(written.find("let main = RNF"), std::string::npos) << written;
  CliResult run = run_risec(
      {"run", "examples/mv/mv.rise", "--strategy", best, "--size", "n=16,m=8", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  CliResult plain = run_risec({"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--budget",
                               "1", "--repeat", "1", "--no-shift-tails"});
  EXPECT_EQ(plain.exit_code, 0) << show(plain);
  // A template without parameters ends the strategy written, as it ended the one
  // measured (it was once replaced by lowerToC in the output).
  std::string finish = write_scratch("mv_finish.elv",
                                     "let main = (parallel @ outermost(isApplied(isMap))) ; "
                                     "lowerToC;\n");
  CliResult fin = run_risec({"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--budget",
                             "1", "--repeat", "1", "--target", "openmp", "--strategy", finish});
  ASSERT_EQ(fin.exit_code, 0) << show(fin);
  EXPECT_NE(fin.out.find("let finish = (parallel @"), std::string::npos) << show(fin);
  EXPECT_NE(fin.out.find("; finish;"), std::string::npos) << show(fin);
}

TEST(ExploreCli, Errors) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--search", "annealing"},
       2,
       "--search must be model or random"},
      {{"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--budget", "0"}, 2, "--budget"},
      {{"explore", "examples/mv/mv.rise", "--size", "n=16,m=8", "--trials", "0"}, 2, "--trials"},
      {{"explore", "examples/mv/mv.rise", "--size", "n=16"}, 1, "size m has no value"},
  };
  for (const Case& c : cases) {
    CliResult r = run_risec(c.args);
    EXPECT_EQ(r.exit_code, c.code) << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
  }
}

}  // namespace
}  // namespace risec::e2e
