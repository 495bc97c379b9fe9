// `--tuned` (docs/tuning.md, "Results reused"): the record `risec tune` writes is what
// `run/compile --tuned` compile with, for the same program, entry, sizes, target and
// CPU only; otherwise the default lowering after one note. Nothing here depends on
// which candidate was faster: the record is compared with tune's own output.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/trial_db.h"
#include "driver/tuned.h"
#include "e2e_util.h"
#include "runtime/process.h"
#include "support/cpu.h"

namespace risec::e2e {
namespace {

const char* kNote = "note: no tuning record for this program on ";

const char* kTunedTemplate =
    "param v in [4, 8];\n"
    "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;\n";

// Held-out L: a record of a template that imports a file named it by absolute path, so
// --tuned failed once the file moved and silently used an edited one. The record carries
// the imported texts as measured.
TEST(TunedCli, ARecordCarriesTheTextsItsTemplateImported) {
  const std::string lib = write_scratch(
      "tuned_imp_lib.elv", "let vec = (vectorize(v) @ outermost(isApplied(isMap)));\n");
  const std::string tmpl = write_scratch(
      "tuned_imp.elv",
      "import \"tuned_imp_lib.elv\";\nparam v in [4, 8];\nlet main = vec ; lowerToC;\n");
  const std::string db = scratch_path("tuned_imp.db");
  std::remove(db.c_str());
  CliResult t = run_risec({"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64",
                           "--budget", "2", "--repeat", "1", "--db", db});
  ASSERT_EQ(t.exit_code, 0) << show(t);
  const std::vector<std::string> compile = {
      "compile", "examples/scal/scal.rise", "--tuned", "--db", db, "--size", "n=64"};
  CliResult measured = run_risec(compile);
  ASSERT_EQ(measured.exit_code, 0) << show(measured);
  EXPECT_EQ(measured.err.find(kNote), std::string::npos) << show(measured);
  runtime::write_file(lib, "let vec = id;\n");  // edited: would not vectorise
  CliResult edited = run_risec(compile);
  EXPECT_EQ(edited.exit_code, 0) << show(edited);
  EXPECT_EQ(edited.out, measured.out);
  std::remove(lib.c_str());  // gone
  CliResult gone = run_risec(compile);
  EXPECT_EQ(gone.exit_code, 0) << show(gone);
  EXPECT_EQ(gone.out, measured.out);
}

TEST(TunedCli, TuneRecordIsUsedByRunAndCompile) {
  const std::string tmpl = write_scratch("tuned_scal.elv", kTunedTemplate);
  const std::string db = scratch_path("tuned_scal.db");
  const std::string best = scratch_path("tuned_scal_best.elv");
  CliResult t = run_risec({"tune", "examples/scal/scal.rise", "--strategy", tmpl, "--size", "n=64",
                           "--budget", "2", "--repeat", "1", "--db", db, "-o", best});
  ASSERT_EQ(t.exit_code, 0) << show(t);
  EXPECT_NE(t.err.find("tune: recorded for --tuned in " + db), std::string::npos) << show(t);

  // The code --tuned generates is the code of the strategy tune wrote.
  CliResult with_best =
      run_risec({"compile", "examples/scal/scal.rise", "--strategy", best, "--size", "n=64"});
  ASSERT_EQ(with_best.exit_code, 0) << show(with_best);
  CliResult tuned =
      run_risec({"compile", "examples/scal/scal.rise", "--tuned", "--db", db, "--size", "n=64"});
  ASSERT_EQ(tuned.exit_code, 0) << show(tuned);
  EXPECT_EQ(tuned.err.find(kNote), std::string::npos) << show(tuned);
  EXPECT_EQ(tuned.out, with_best.out);
  // A program that differs in whitespace and comments only is the same program.
  const std::string spaced = write_scratch(
      "tuned_scal_spaced.rise", "// scal, reformatted\n" +
                                    runtime::read_file(source_path("examples/scal/scal.rise")) +
                                    "\n\n// the end\n");
  CliResult same = run_risec({"compile", spaced, "--tuned", "--db", db, "--size", "n=64"});
  ASSERT_EQ(same.exit_code, 0) << show(same);
  EXPECT_EQ(same.err.find(kNote), std::string::npos) << show(same);
  EXPECT_EQ(same.out, with_best.out);
  CliResult run = run_risec(
      {"run", "examples/scal/scal.rise", "--tuned", "--db", db, "--size", "n=64", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  EXPECT_EQ(run.err.find(kNote), std::string::npos) << show(run);

  // Another vector width ($RISEC_LANES, compiling for another machine) has no record
  // either: the record's strategy may hold only at the width it was tuned at.
  const std::string lanes = std::to_string(machine_lanes());
  for (const char* width : {"6", "32"}) {
    if (lanes == width) continue;
    const std::vector<std::string> env = {std::string("RISEC_LANES=") + width};
    CliResult r = run_risec(
        {"run", "examples/scal/scal.rise", "--tuned", "--db", db, "--size", "n=64", "--check"},
        env);
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.err.find(kNote), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find(kNote), r.err.rfind(kNote)) << show(r);  // one note
    EXPECT_NE(r.err.find(std::string("(lanes ") + width + ")"), std::string::npos) << show(r);
  }

  // Other sizes, another target or other code generator flags have no record: the
  // default lowering, after the note.
  for (const std::vector<std::string>& other :
       std::vector<std::vector<std::string>>{{"--size", "n=32"},
                                             {"--size", "n=64", "--target", "openmp"},
                                             {"--size", "n=64", "--no-shift-tails"}}) {
    std::vector<std::string> args = {"compile", "examples/scal/scal.rise", "--db", db};
    args.insert(args.end(), other.begin(), other.end());
    CliResult plain = run_risec(args);
    args.push_back("--tuned");
    CliResult r = run_risec(args);
    ASSERT_EQ(r.exit_code, 0) << show(r);
    EXPECT_EQ(plain.exit_code, 2) << show(plain);  // --db without --tuned
    EXPECT_NE(r.err.find(kNote), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find(kNote), r.err.rfind(kNote)) << show(r);  // one note
    args.pop_back();
    args.erase(args.begin() + 2, args.begin() + 4);
    CliResult d = run_risec(args);
    ASSERT_EQ(d.exit_code, 0) << show(d);
    EXPECT_EQ(r.out, d.out);
  }
}

// A record keyed with another CPU, other sizes, another entry, target or version is
// never used; the record of this machine's key is.
TEST(TunedCli, RecordOfAnotherKeyIsNotUsed) {
  const std::string file = "examples/scal/scal.rise";
  const rise::Program p = driver::load_program(source_path(file));
  const rise::SizeMap sizes = {{"n", 64}};
  const driver::TunedKey mine = driver::tuned_key(p, "", sizes, "c");
  const std::string strategy =
      "let main = (vectorize(8) @ outermost(isApplied(isMap))) ; lowerToC;\n";
  CliResult with_strategy = run_risec(
      {"compile", file, "--strategy", write_scratch("tuned_v8.elv", strategy), "--size", "n=64"});
  ASSERT_EQ(with_strategy.exit_code, 0) << show(with_strategy);
  std::vector<driver::TunedKey> others(5, mine);
  others[0].cpu += " (another)";
  others[1].sizes = "n=128";
  others[2].entry = "other";
  others[3].target = "openmp";
  others[4].version = "0.0.1";
  for (size_t i = 0; i < others.size(); ++i) {
    SCOPED_TRACE(i);
    const std::string db = scratch_path("tuned_other_" + std::to_string(i) + ".db");
    {
      driver::TrialDb d(db);
      ASSERT_TRUE(driver::record_best(d, others[i], {strategy, 1.0, "test"}));
      EXPECT_FALSE(driver::lookup_best(d, mine));
    }
    CliResult r = run_risec({"compile", file, "--tuned", "--db", db, "--size", "n=64"});
    ASSERT_EQ(r.exit_code, 0) << show(r);
    // The note names the sizes looked up, the entry and target, and (only for a record
    // that differs in its sizes alone) the sizes that have one.
    EXPECT_NE(r.err.find(kNote + mine.cpu + " at sizes n=64 (entry " + mine.entry + ", target " +
                         mine.target + ")"),
              std::string::npos)
        << show(r);
    EXPECT_NE(r.err.find("; using the default lowering\n"), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find("(records at other sizes: n=128)") != std::string::npos, i == 1)
        << show(r);
    EXPECT_NE(r.out, with_strategy.out);
    {
      driver::TrialDb d(db);
      ASSERT_TRUE(driver::record_best(d, mine, {strategy, 1.0, "test"}));
    }
    CliResult used = run_risec({"compile", file, "--tuned", "--db", db, "--size", "n=64"});
    ASSERT_EQ(used.exit_code, 0) << show(used);
    EXPECT_EQ(used.err.find(kNote), std::string::npos) << show(used);
    EXPECT_EQ(used.out, with_strategy.out);
  }
}

// A lookup changes nothing: an existing empty file (or any file without the tables)
// holds no record and stays as it was.
TEST(TunedCli, LookupWritesNothing) {
  const std::string db = write_scratch("tuned_empty.db", "");
  CliResult c =
      run_risec({"compile", "examples/scal/scal.rise", "--size", "n=64", "--tuned", "--db", db});
  EXPECT_EQ(c.exit_code, 0) << show(c);
  EXPECT_NE(c.err.find(kNote), std::string::npos) << show(c);
  EXPECT_EQ(runtime::read_file(db), "");
}

TEST(TunedCli, UsageErrors) {
  CliResult both = run_risec(
      {"run", "examples/scal/scal.rise", "--tuned", "--strategy", "lowerToC", "--size", "n=64"});
  EXPECT_EQ(both.exit_code, 2) << show(both);
  EXPECT_NE(both.err.find("--tuned takes the strategy from the tuning database: remove --strategy"),
            std::string::npos)
      << show(both);
  CliResult db = run_risec({"compile", "examples/scal/scal.rise", "--db", "x.db"});
  EXPECT_EQ(db.exit_code, 2) << show(db);
  EXPECT_NE(db.err.find("--db names the tuning database of --tuned; add --tuned"),
            std::string::npos)
      << show(db);
}

}  // namespace
}  // namespace risec::e2e
