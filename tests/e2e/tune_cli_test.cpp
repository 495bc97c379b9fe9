// `risec tune` and `--param` through the binary: a short real search on scal (the C
// compiler and real timings) writes a strategy that `risec run --check` accepts, a
// second run on the same database measures nothing new, and bad options give the exit
// codes of spec/cli.md.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/process.h"

namespace risec::e2e {
namespace {

// Comments before, between, beside and after the declarations (which tune strips).
const char* kTemplate =
    "// scal, tuned\n"
    "param v in [4, 8, 32, 3];  // floats per vector\n"
    "/* a block\n   comment */ param u in [1];\n"
    "// the strategy\n"
    "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC; // u unused\n";

TEST(TuneCli, SearchesWritesAndResumes) {
  std::string tmpl = write_scratch("scal_tune.elv", kTemplate);
  std::string db = scratch_path("scal_tune.db");
  std::string best = scratch_path("scal_best.elv");
  std::vector<std::string> args = {"tune",       "examples/scal/scal.rise",
                                   "--strategy", tmpl,
                                   "--size",     "n=64",
                                   "--budget",   "2",
                                   "--repeat",   "1",
                                   "--db",       db,
                                   "-o",         best};
  CliResult r = run_risec(args);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  // v = 3 is refused by the rewrite (3 of the 4 points are valid); the budget of 2
  // measures 2.
  EXPECT_NE(r.err.find("tune: 2 measured"), std::string::npos) << show(r);
  EXPECT_NE(r.out.find("// risec tune: best "), std::string::npos) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_EQ(written.find("param"), std::string::npos) << written;
  // The file is what stdout shows: the comment line with the best point, then the
  // template with the values substituted.
  EXPECT_EQ(written.rfind("// risec tune: best ", 0), 0u) << written;
  EXPECT_NE(r.out.find(written), std::string::npos) << show(r) << written;
  EXPECT_NE(written.find("let main = (vectorize("), std::string::npos) << written;
  CliResult run = run_risec(
      {"run", "examples/scal/scal.rise", "--strategy", best, "--size", "n=64", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  // Resumed: the two trials are in the database, nothing is measured again.
  CliResult again = run_risec(args);
  ASSERT_EQ(again.exit_code, 0) << show(again);
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << show(again);
  EXPECT_EQ(again.err.find("tune: ["), std::string::npos) << show(again);
  EXPECT_EQ(runtime::read_file(best), written);
  // Plain innermost loops are a study of their own in the same database.
  args.push_back("--no-shift-tails");
  CliResult plain = run_risec(args);
  ASSERT_EQ(plain.exit_code, 0) << show(plain);
  EXPECT_EQ(plain.err.find("resuming"), std::string::npos) << show(plain);
  EXPECT_NE(plain.err.find("tune: 2 measured"), std::string::npos) << show(plain);
}

// A template that imports a file: the result, written elsewhere, runs (its import made
// absolute, its value kept for the imported let), and editing the imported file starts a
// new study in the same database.
TEST(TuneCli, TemplateWithImports) {
  std::filesystem::create_directories(scratch_path("tune_imports/lib"));
  std::filesystem::create_directories(scratch_path("tune_imports/out"));
  std::string lib = write_scratch("tune_imports/lib/vec.elv",
                                  "let vec = vectorize(v) @ outermost(isApplied(isMap));\n");
  std::string tmpl = write_scratch("tune_imports/t.elv",
                                   "import \"lib/vec.elv\";\n"
                                   "param v in [4, 8];\n"
                                   "let main = vec ; lowerToC;\n");
  std::string db = scratch_path("tune_imports/t.db");
  std::string best = scratch_path("tune_imports/out/best.elv");
  std::vector<std::string> args = {"tune",       "examples/scal/scal.rise",
                                   "--strategy", tmpl,
                                   "--size",     "n=64",
                                   "--budget",   "2",
                                   "--repeat",   "1",
                                   "--db",       db,
                                   "-o",         best};
  CliResult r = run_risec(args);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_NE(written.find("import \"/"), std::string::npos) << written;
  EXPECT_NE(written.find("param v in ["), std::string::npos) << written;
  CliResult run = run_risec(
      {"run", "examples/scal/scal.rise", "--strategy", best, "--size", "n=64", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  CliResult again = run_risec(args);
  EXPECT_NE(again.err.find("resuming"), std::string::npos) << show(again);
  runtime::write_file(lib, "let vec = vectorize(v) @ outermost(isApplied(isMap)) ; id;\n");
  CliResult edited = run_risec(args);
  ASSERT_EQ(edited.exit_code, 0) << show(edited);
  EXPECT_EQ(edited.err.find("resuming"), std::string::npos) << show(edited);
}

// A permutation parameter (our extension): every point is a loop order; the result
// runs against the interpreter, and --param takes the names one by one.
TEST(TuneCli, PermutationSearchAndParam) {
  std::string prog = write_scratch("sq_perm.rise",
                                   "def sq = depFun(n: Nat => fun(A: n.n.f32 =>\n"
                                   "  A |> map(fun(r => r |> map(fun(x => x * x))))))\n");
  std::string tmpl = write_scratch(
      "sq_perm.elv",
      "param t in [2, 4];\n"
      "param (a, b, c, d) in permutations([1, 2, 3, 4]);\n"
      "let main = (tile(t, t) @ outermost(mapNest(2))) ; reorder([a, b, c, d]) ; lowerToC;\n");
  std::string best = scratch_path("sq_perm_best.elv");
  CliResult r = run_risec({"tune", prog, "--strategy", tmpl, "--size", "n=8", "--budget", "3",
                           "--repeat", "1", "-o", best});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("tune: 48 point(s) in the template's space"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("tune: 3 measured, 0 pruned"), std::string::npos) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_EQ(written.find("param"), std::string::npos) << written;
  EXPECT_NE(written.find("reorder(["), std::string::npos) << written;
  CliResult run = run_risec({"run", prog, "--strategy", best, "--size", "n=8", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  CliResult given = run_risec(
      {"run", prog, "--strategy", tmpl, "--size", "n=8", "--param", "a=4,b=3,c=2,d=1", "--check"});
  EXPECT_EQ(given.exit_code, 0) << show(given);
  CliResult bad = run_risec(
      {"compile", prog, "--strategy", tmpl, "--size", "n=8", "--param", "a=2,b=2,c=3,d=4"});
  EXPECT_EQ(bad.exit_code, 2) << show(bad);
  EXPECT_NE(bad.err.find("(a, b, c, d) must be a permutation of [1, 2, 3, 4]"), std::string::npos)
      << show(bad);
}

// Constraints (our extension): tune proposes only the points that satisfy them and
// counts the space without the others; --param and the default point are checked; a
// constraint's errors are located.
TEST(TuneCli, Constraints) {
  std::string tmpl = write_scratch("scal_con.elv",
                                   "param v in [4, 8, 32, 3];\n"
                                   "param u in [1, 2];\n"
                                   "constraint 64 % v == 0 && v <= 8;\n"
                                   "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; "
                                   "lowerToC;\n");
  std::string best = scratch_path("scal_con_best.elv");
  CliResult r = run_risec({"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64",
                           "--budget", "10", "--repeat", "1", "--workers", "1", "-o", best});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("tune: 4 point(s) in the template's space that satisfy its constraints "
                       "(8 without them)"),
            std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("tune: 4 measured, 0 pruned, 0 failed"), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("v=32"), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find("v=3,"), std::string::npos) << show(r);
  std::string written = runtime::read_file(best);
  EXPECT_EQ(written.find("constraint"), std::string::npos) << written;
  CliResult run = run_risec(
      {"run", "examples/scal/scal.rise", "--strategy", best, "--size", "n=64", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  CliResult given = run_risec({"run", "examples/scal/scal.rise", "--strategy", tmpl, "--size",
                               "n=64", "--param", "v=8,u=2", "--check"});
  EXPECT_EQ(given.exit_code, 0) << show(given);
  CliResult bad = run_risec({"compile", "examples/scal/scal.rise", "--strategy", tmpl, "--size",
                             "n=64", "--param", "v=32"});
  EXPECT_EQ(bad.exit_code, 2) << show(bad);
  EXPECT_NE(bad.err.find("v=32,u=1 violates the constraint `64 % v == 0 && v <= 8` (declared at " +
                         tmpl + ":3:12)"),
            std::string::npos)
      << show(bad);
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"param v in [3, 4];\nconstraint 64 % v == 0;\nlet main = lowerToC;\n",
       ":2:12: error: the default point (each parameter's first value: v=3) violates"},
      {"param v in [4];\nconstraint v + (v < 2) > 1;\nlet main = lowerToC;\n",
       ":2:16: error: '+' takes numbers"},
      {"param v in [4];\nconstraint w > 1;\nlet main = lowerToC;\n",
       ":2:12: error: unknown name 'w'"},
      {"param v in [4];\nconstraint v >> 1;\nlet main = lowerToC;\n",
       ":2:15: error: expected a number, a parameter"},
  };
  for (const Case& c : cases) {
    std::string bad_tmpl = write_scratch("scal_con_bad.elv", c.text);
    CliResult e =
        run_risec({"run", "examples/scal/scal.rise", "--strategy", bad_tmpl, "--size", "n=64"});
    EXPECT_EQ(e.exit_code, 1) << show(e);
    EXPECT_NE(e.err.find(bad_tmpl + c.message), std::string::npos) << show(e);
  }
  std::string none =
      write_scratch("scal_con_none.elv",
                    "param v in [4, 8];\nconstraint v > 8;\nlet main = (vectorize(v) @ "
                    "outermost(isApplied(isMap))) ; lowerToC;\n");
  CliResult n =
      run_risec({"tune", "examples/scal/scal.rise", "--strategy", none, "--size", "n=64"});
  EXPECT_EQ(n.exit_code, 1) << show(n);
  EXPECT_NE(n.err.find(none + ":2:12: error: no point of the template's space (2 points) "
                              "satisfies its constraints"),
            std::string::npos)
      << show(n);
}

TEST(TuneCli, ParamAndErrors) {
  std::string tmpl = write_scratch("scal_tune2.elv", kTemplate);
  CliResult ok = run_risec({"run", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64",
                            "--param", "v=8", "--check"});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"run", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64", "--param", "v=16"},
       2,
       "not one of the parameter's values [4, 8, 32, 3]"},
      {{"compile", "examples/scal/scal.rise", "--strategy", tmpl, "--param", "w=8"},
       2,
       "declares no parameter 'w'"},
      {{"run", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64", "--param", "v=3"},
       1,
       "vectorize"},
      {{"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64", "--budget", "0"},
       2,
       "--budget"},
      {{"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64", "--search",
        "annealing"},
       2,
       "--search must be evolutionary or random"},
      {{"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64", "--param", "v=8"},
       2,
       "risec tune does not take --param"},
      {{"tune", "examples/scal/scal.rise", "--strategy", "examples/scal/vector16.elv", "--size",
        "n=64"},
       1,
       "declares no parameters"},
  };
  for (const Case& c : cases) {
    CliResult r = run_risec(c.args);
    EXPECT_EQ(r.exit_code, c.code) << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
  }
}

}  // namespace
}  // namespace risec::e2e
