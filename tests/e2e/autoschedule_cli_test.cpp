// `risec tune` without --strategy (the autoscheduler, docs/tuning.md) through the
// binary: a short search on small programs writes a strategy that `risec run
// --strategy best.elv --check` accepts, the default lowering is among the measured
// candidates, --explain says what was chosen, the best becomes the --tuned record, and
// the options that need a template are refused with exit code 2. No assertion depends on the times
// measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "build_info.h"
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
  CliResult tuned =
      run_risec({"compile", file, "--size", sizes, "--target", target, "--tuned", "--db", db});
  CliResult direct =
      run_risec({"compile", file, "--size", sizes, "--target", target, "--strategy", best});
  ASSERT_EQ(tuned.exit_code, 0) << show(tuned);
  EXPECT_EQ(tuned.err.find("no tuning record"), std::string::npos) << show(tuned);
  EXPECT_EQ(tuned.out, direct.out);
}

// Under the sanitizers mm alone (a smaller sample of the same property): the test
// took 79 s there for both programs, more than half of it building sharpen's OpenMP
// space in the instrumented binary (41 s for a smaller one, the test's own space of
// the 8 x 16 image, in the driver's tests), a space built under the sanitizers by
// Autoschedule.SpaceHasEveryKindOfDecision, as `tune --target openmp` is run by the
// other tests of this suite.
TEST(AutoscheduleCli, WritesAStrategyThatRunChecks) {
  if (!risec::test::sanitized_build())
    tune_and_check("bench/autoschedule/sharpen.rise", "n=16,m=32", "openmp", "sharpen_best.elv");
  tune_and_check("examples/mm/mm.rise", "n=16,m=16,k=16", "c", "mm_best.elv");
}

TEST(AutoscheduleCli, TemplateOptionsAreRefused) {
  CliResult param =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--param", "v=4"});
  EXPECT_EQ(param.exit_code, 2) << show(param);
  CliResult other =
      run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--target", "vulkan"});
  EXPECT_EQ(other.exit_code, 2) << show(other);
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

// With --budget 1 only the default lowering is measured, so it wins: --tuned then
// compiles byte for byte what compile does without a strategy (the 5 x 5 max stencil,
// whose default unrolls its window).
TEST(AutoscheduleCli, TunedDefaultIsCompilesDefault) {
  std::string file =
      write_scratch("max5.rise",
                    "def f = depFun(n: Nat => depFun(m: Nat => fun(img: n.m.f32 =>\n"
                    "  img |> padClamp2D(2)(2) |> slide2D(5)(1)\n"
                    "      |> map2D(fun(win => win |> join |> reduce(fmax)(-inff))))))\n");
  for (const std::string target : {"c", "openmp"}) {
    std::string db = scratch_path("max5_" + target + ".db");
    std::remove(db.c_str());
    CliResult r = run_risec({"tune", file, "--size", "n=16,m=16", "--target", target, "--budget",
                             "1", "--repeat", "1", "--db", db},
                            {"OMP_NUM_THREADS=2"});
    ASSERT_EQ(r.exit_code, 0) << show(r);
    CliResult tuned = run_risec(
        {"compile", file, "--size", "n=16,m=16", "--target", target, "--tuned", "--db", db});
    CliResult plain = run_risec({"compile", file, "--size", "n=16,m=16", "--target", target});
    ASSERT_EQ(tuned.exit_code, 0) << show(tuned);
    EXPECT_EQ(tuned.err.find("no tuning record"), std::string::npos) << show(tuned);
    EXPECT_EQ(tuned.out, plain.out) << target << "\n" << r.out;
  }
}

// A program calling a `foreign def` is tuned: its candidates are checked against the
// default lowering's result (the interpreter does not run C code).
TEST(AutoscheduleCli, ForeignFunctionsAreTuned) {
  std::string file = write_scratch(
      "fo2.rise",
      "foreign def clampf(x: f32, lo: f32, hi: f32): f32 = \"{ return x < lo ? lo : (x > hi ? hi "
      ": x); }\"\n"
      "def g = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => clampf(v, 0.2f, 0.8f)))))\n");
  std::string db = scratch_path("fo2.db");
  std::remove(db.c_str());
  CliResult r = run_risec({"tune", file, "--size", "n=16", "--target", "openmp", "--budget", "3",
                           "--repeat", "1", "--db", db},
                          {"OMP_NUM_THREADS=2"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("failed:"), std::string::npos) << show(r);
}

// Vectorised fmax and fmin compile (their lane-wise helpers call the scalar helpers,
// printed before them) and compute what the interpreter computes, at several widths.
TEST(AutoscheduleCli, VectorisedFmaxAndFminCompile) {
  for (const std::string op : {"fmax", "fmin"}) {
    std::string file = write_scratch(
        "vec_" + op + ".rise",
        "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => " + op + "(v, 0.5f)))))\n");
    for (const std::string lanes : {"2", "4", "8"}) {
      CliResult r =
          run_risec({"run", file, "--size", "n=64", "--check", "--strategy",
                     "vectorize(" + lanes + ") @ outermost(isApplied(isMap)) ; lowerToC"});
      EXPECT_EQ(r.exit_code, 0) << op << " " << lanes << "\n" << show(r);
    }
  }
}

// -o naming a directory is refused before the search (exit 2).
TEST(AutoscheduleCli, OutputDirectoryIsRefusedUpFront) {
  std::string dir = scratch_path("tune_out_dir");
  std::filesystem::create_directories(dir);
  CliResult r = run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--budget", "1",
                           "--db", scratch_path("tune_out_dir.db"), "-o", dir});
  EXPECT_EQ(r.exit_code, 2) << show(r);
  EXPECT_NE(r.err.find("-o " + dir), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("autoschedule: ["), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
