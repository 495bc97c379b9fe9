// What `risec tune` (the autoscheduler and a template) and `risec explore` refuse before
// they search (driver/search_preflight.h, issue 32): for every search command, each
// refusal comes up front (no candidate tried, no database written) with the exit code
// `risec run` gives for the same cause; and a program that fails when it runs in every
// candidate ends the search with `run`'s exit code (4) and the failure named.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// The three searches, each as the arguments before the case's own.
struct Search {
  std::string name;
  std::vector<std::string> args;  // after the program
  bool has_db;
};

std::vector<Search> searches() {
  const std::string tpl = write_scratch("pf_tpl.elv", "param v in [2, 4];\nlet main = lowerToC;\n");
  return {{"autoscheduler", {"--budget", "2", "--repeat", "1"}, true},
          {"template", {"--strategy", tpl, "--budget", "2", "--repeat", "1"}, true},
          {"explore", {"--budget", "2", "--repeat", "1"}, false}};
}

std::vector<std::string> command(const Search& s, const std::string& file, const std::string& db,
                                 const std::vector<std::string>& extra) {
  std::vector<std::string> a = {s.name == "explore" ? "explore" : "tune", file};
  a.insert(a.end(), s.args.begin(), s.args.end());
  if (s.has_db) {
    a.push_back("--db");
    a.push_back(db);
  }
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

struct PreflightCase {
  std::string what;
  std::vector<std::string> extra;  // --size, --target, -o
  std::vector<std::string> env;
  int code;
  std::string message;
};

TEST(SearchPreflightCli, EverySearchRefusesUpFrontWithRunsExitCode) {
  const std::string mm = "examples/mm/mm.rise";
  const std::string dir = scratch_path("pf_dir");
  ::mkdir(dir.c_str(), 0755);
  const std::vector<PreflightCase> cases = {
      {"over the memory limit", {"--size", "n=100000,m=100000,k=1"}, {}, 2, "memory limit"},
      {"RISEC_MAX_MEMORY",
       {"--size", "n=1000,m=1000,k=1"},
       {"RISEC_MAX_MEMORY=1000000"},
       2,
       "RISEC_MAX_MEMORY"},
      {"a 4 TiB input", {"--size", "n=1099511627776,m=1,k=1"}, {}, 2, "4.0 TiB"},
      {"an unknown target",
       {"--size", "n=4,m=4,k=4", "--target", "foo"},
       {},
       2,
       "unknown target 'foo'"},
      {"no CUDA device",
       {"--size", "n=4,m=4,k=4", "--target", "cuda"},
       {"CUDA_VISIBLE_DEVICES=none"},
       4,
       "no CUDA device to measure the candidates on"},
      {"no OpenCL device",
       {"--size", "n=4,m=4,k=4", "--target", "opencl"},
       {"RISEC_OPENCL_PLATFORM=no-such-platform-pf"},
       4,
       "no OpenCL device to measure the candidates on"},
      {"-o in a missing directory",
       {"--size", "n=4,m=4,k=4", "-o", "/nonexistent-pf/dir/x.elv"},
       {},
       4,
       "the directory /nonexistent-pf/dir does not exist"},
      {"-o a directory", {"--size", "n=4,m=4,k=4", "-o", dir}, {}, 2, "it is a directory"},
      // The C compiler's environment (held-out R: these filled the database with failed
      // trials, and a later run with good flags resumed them).
      {"flags that stop before linking",
       {"--size", "n=4,m=4,k=4"},
       {"RISEC_CFLAGS=-c"},
       4,
       "made no shared object"},
      {"an unclosed quote", {"--size", "n=4,m=4,k=4"}, {"RISEC_CFLAGS='-DX"}, 4, "unclosed"},
      {"a bad compile timeout",
       {"--size", "n=4,m=4,k=4"},
       {"RISEC_COMPILE_TIMEOUT=5s"},
       4,
       "not a positive number of seconds"},
  };
  int n = 0;
  for (const Search& s : searches())
    for (const PreflightCase& c : cases) {
      const std::string db = scratch_path("pf_" + std::to_string(n++) + ".db");
      CliResult r = run_risec(command(s, mm, db, c.extra), c.env);
      SCOPED_TRACE(s.name + ": " + c.what);
      EXPECT_EQ(r.exit_code, c.code) << show(r);
      EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
      // Up front: no candidate was compiled or measured, no study recorded.
      EXPECT_EQ(r.err.find("failed:"), std::string::npos) << show(r);
      EXPECT_EQ(r.err.find("] "), std::string::npos) << show(r);
      EXPECT_FALSE(exists(db)) << db;
    }
}

// `run` refuses the same sizes, target and outputs with the same exit codes.
TEST(SearchPreflightCli, RunAgrees) {
  const std::string dir = scratch_path("pf_run_dir");
  ::mkdir(dir.c_str(), 0755);
  const std::vector<PreflightCase> cases = {
      {"memory", {"--size", "n=100000,m=100000,k=1"}, {}, 2, "memory limit"},
      {"target", {"--size", "n=4,m=4,k=4", "--target", "foo"}, {}, 2, "unknown target 'foo'"},
      {"missing directory",
       {"--size", "n=4,m=4,k=4", "-o", "/nonexistent-pf/x.npy"},
       {},
       4,
       "the directory /nonexistent-pf does not exist"},
      {"a directory", {"--size", "n=4,m=4,k=4", "-o", dir}, {}, 2, "it is a directory"},
  };
  for (const PreflightCase& c : cases) {
    std::vector<std::string> a = {"run", "examples/mm/mm.rise"};
    a.insert(a.end(), c.extra.begin(), c.extra.end());
    CliResult r = run_risec(a, c.env);
    SCOPED_TRACE(c.what);
    EXPECT_EQ(r.exit_code, c.code) << show(r);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find("time:"), std::string::npos) << show(r);  // refused before running
  }
  CliResult e = run_risec({"eval", "examples/mm/mm.rise", "--size", "n=4,m=4,k=4", "--output",
                           "/nonexistent-pf/x.npy"});
  EXPECT_EQ(e.exit_code, 4) << show(e);
  EXPECT_NE(e.err.find("does not exist"), std::string::npos) << show(e);
  CliResult c = run_risec(
      {"compile", "examples/mm/mm.rise", "--size", "n=4,m=4,k=4", "-o", "/nonexistent-pf/mm"});
  EXPECT_EQ(c.exit_code, 4) << show(c);
  EXPECT_NE(c.err.find("does not exist"), std::string::npos) << show(c);
}

// A program that fails when it runs, in every candidate: each search ends with the exit
// code `run` gives (4) and says what failed, not "could not be measured" alone (exit 1).
TEST(SearchPreflightCli, RunTimeFailureOfEveryCandidateIsExit4) {
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"pf_div.rise",
       "def f = depFun(n: Nat => fun(v: n.i32 => v |> map(fun(x => 7 / (x - x)))))\n"},
      {"pf_segv.rise",
       "foreign def crash(x: f32): f32 = \"{ volatile int* p = 0; *p = 1; return x; }\"\n"
       "def g = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => crash(v)))))\n"},
  };
  int n = 0;
  for (const auto& [name, text] : programs) {
    const std::string file = write_scratch(name, text);
    CliResult run = run_risec({"run", file, "--size", "n=4"});
    ASSERT_EQ(run.exit_code, 4) << show(run);
    for (const Search& s : searches()) {
      SCOPED_TRACE(name + ": " + s.name);
      const std::string db = scratch_path("pf_rt_" + std::to_string(n++) + ".db");
      CliResult r = run_risec(command(s, file, db, {"--size", "n=4"}));
      EXPECT_EQ(r.exit_code, run.exit_code) << show(r);
      EXPECT_NE(r.err.find("failed when it ran: "), std::string::npos) << show(r);
    }
  }
}

}  // namespace
}  // namespace risec::e2e
