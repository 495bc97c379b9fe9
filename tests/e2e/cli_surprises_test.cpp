// No silent surprises on the command line (issue 32, held-out findings): a size given
// twice, an empty value for any option, a --db that does not exist, an inline strategy's
// error location, an empty program and the autoscheduler's skipped candidates each get
// a clear, located message and the documented exit code.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

const std::vector<std::string> kSizeCommands = {"check", "eval", "rewrite", "compile", "run",
                                                "graph", "view", "tune",    "explore"};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CliSurprises, ASizeGivenTwiceIsRefusedByEveryCommand) {
  for (const std::string& cmd : kSizeCommands) {
    for (const std::vector<std::string>& sizes :
         std::vector<std::vector<std::string>>{{"--size", "n=64,n=32"},
                                               {"--size", "n=64", "--size", "n=32"},
                                               {"--size=n=64", "--size", "n=64"}}) {
      std::vector<std::string> args = {cmd, "examples/scal/scal.rise"};
      if (cmd == "rewrite") args.insert(args.end(), {"--strategy", "simplify"});
      args.insert(args.end(), sizes.begin(), sizes.end());
      CliResult r = run_risec(args);
      EXPECT_EQ(r.exit_code, 2) << show(r);
      EXPECT_NE(r.err.find("--size n is given twice"), std::string::npos) << show(r);
    }
  }
  // Different names in one or two --size are fine.
  CliResult ok =
      run_risec({"check", "examples/mm/mm.rise", "--size", "n=16,m=16", "--size", "k=8"});
  EXPECT_EQ(ok.exit_code, 0) << show(ok);
}

// Every option with a value of every command, read from its --help, refuses an empty one.
TEST(CliSurprises, AnEmptyValueIsRefusedForEveryOption) {
  size_t checked = 0;
  for (const std::string& cmd : std::vector<std::string>{
           "check", "eval", "rewrite", "compile", "run", "graph", "view", "tune", "explore"}) {
    CliResult h = run_risec({cmd, "--help"});
    ASSERT_EQ(h.exit_code, 0) << show(h);
    std::istringstream in(h.out);
    for (std::string line; std::getline(in, line);) {
      // "  --db FILE    help" or "  -o, --output FILE  help": the left column ends at
      // two spaces (or the line's end); an option with a value has a space in it.
      if (line.rfind("  -", 0) != 0) continue;
      std::string left = line.substr(2, line.find("  ", 2) - 2);
      if (size_t comma = left.find(", "); comma != std::string::npos) left = left.substr(comma + 2);
      const size_t space = left.find(' ');
      if (space == std::string::npos) continue;  // a switch
      const std::string flag = left.substr(0, space);
      for (const std::vector<std::string>& form :
           std::vector<std::vector<std::string>>{{flag, ""}, {flag + "="}}) {
        std::vector<std::string> args = {cmd, "examples/scal/scal.rise"};
        args.insert(args.end(), form.begin(), form.end());
        CliResult r = run_risec(args);
        EXPECT_EQ(r.exit_code, 2) << cmd << " " << flag << "\n" << show(r);
        EXPECT_NE(r.err.find("needs a value, got an empty one"), std::string::npos)
            << cmd << " " << flag << "\n"
            << show(r);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40u) << "the --help texts were not read";
}

TEST(CliSurprises, TheIssuesEmptyPaths) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"tune", "examples/scal/scal.rise", "--size", "n=64", "--db", ""},
           {"compile", "examples/scal/scal.rise", "--size", "n=64", "-o", ""},
           {"compile", "examples/scal/scal.rise", "--size", "n=64", "--output", ""},
           {"run", "examples/scal/scal.rise", "--size", "n=64", "--strategy", ""}}) {
    CliResult r = run_risec(args);
    EXPECT_EQ(r.exit_code, 2) << show(r);
    EXPECT_NE(r.err.find("needs a value, got an empty one"), std::string::npos) << show(r);
  }
}

TEST(CliSurprises, TunedWithAMissingDatabaseSaysSo) {
  CliResult r = run_risec({"run", "examples/scal/scal.rise", "--size", "n=64", "--tuned", "--db",
                           "/nonexistent/x.db", "--check"});
  // docs/tuning.md: a database that does not exist holds no record: the default lowering.
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.err.find("(the tuning database /nonexistent/x.db does not exist); using the "
                       "default lowering"),
            std::string::npos)
      << show(r);
}

// An inline strategy's errors are located in the text as written: line 1 for a
// one-line text, at a column inside it or just past its end.
TEST(CliSurprises, InlineStrategyErrorsPointIntoTheUsersText) {
  const std::vector<std::string> texts = {"vectorize(4",
                                          "vectorize(4 ; lowerToC",
                                          "(vectorize(4) ; lowerToC",
                                          "vectorize(4) @",
                                          "vectorize(4) ;; lowerToC",
                                          "outermost(isApplied(isMap)",
                                          "lowerToC ; nosuch(1)",
                                          "vectorize(4) @ outermost(isApplied(isMaap)) ; lowerToC"};
  for (const std::string& text : texts) {
    CliResult r =
        run_risec({"rewrite", "examples/scal/scal.rise", "--strategy", text, "--size", "n=64"});
    EXPECT_EQ(r.exit_code, 1) << text << "\n" << show(r);
    const size_t at = r.err.find("<--strategy>:1:");
    ASSERT_NE(at, std::string::npos) << text << "\n" << show(r);
    const int col = std::stoi(r.err.substr(at + 15));
    EXPECT_GE(col, 1) << text << "\n" << show(r);
    EXPECT_LE(col, static_cast<int>(text.size()) + 1) << text << "\n" << show(r);
  }
  CliResult r = run_risec(
      {"rewrite", "examples/scal/scal.rise", "--strategy", "vectorize(4", "--size", "n=64"});
  EXPECT_NE(r.err.find("<--strategy>:1:12: error:"), std::string::npos) << show(r);
}

TEST(CliSurprises, AnEmptyProgramIsLocated) {
  for (const std::string& text : std::vector<std::string>{"", "// only a comment\n", "\n\n"}) {
    const std::string file = scratch_path("empty_program.rise");
    std::ofstream(file) << text;
    for (const std::string& cmd : std::vector<std::string>{"check", "eval", "compile"}) {
      CliResult r = run_risec({cmd, file});
      EXPECT_EQ(r.exit_code, 1) << show(r);
      EXPECT_NE(r.err.find(file + ":1:1: error: the program has no definitions"), std::string::npos)
          << show(r);
    }
  }
}

// Every [k/N] the progress line announces is measured, or accounted for by a
// "skipped" line (refused by a check, or the same code as an earlier candidate).
TEST(CliSurprises, TuneProgressAccountsForEveryCandidate) {
  const std::string db = scratch_path("surprises.db");
  std::remove(db.c_str());
  CliResult r = run_risec({"tune", "examples/scal/scal.rise", "--size", "n=64", "--budget", "12",
                           "--repeat", "1", "--db", db, "-o", scratch_path("surprises.elv")});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const size_t m = r.err.find("); measuring ");
  ASSERT_NE(m, std::string::npos) << show(r);
  const size_t announced = std::stoul(r.err.substr(m + 13));
  const size_t measured = count(r.err, "autoschedule: [");
  const size_t skipped = count(r.err, "autoschedule: skipped ");
  EXPECT_LE(measured, announced) << show(r);
  EXPECT_GE(measured + skipped, announced) << show(r);
}

}  // namespace
}  // namespace risec::e2e
