// Command-line edges (issue 35): --strategy takes strategy text as well as a file or a
// library name, and eval/run --full print every element of the result, nested by
// dimension, with the same values as the elided form.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// The numbers of a printed result, in order ("f32(3, 4) = [[0.4, ...]" -> 0.4, ...),
// skipping the dtype and shape before " = ".
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  size_t eq = text.find(" = ");
  std::string body = eq == std::string::npos ? text : text.substr(eq + 3);
  for (char& ch : body)
    if (ch == '[' || ch == ']' || ch == ',') ch = ' ';
  std::istringstream in(body);
  for (std::string w; in >> w;) {
    if (w == "...") continue;
    out.push_back(std::stod(w));
  }
  return out;
}

size_t lines(const std::string& text) {
  size_t n = 0;
  for (char ch : text) n += ch == '\n';
  return n;
}

TEST(InlineStrategy, ExpressionTextRunsAndMatchesTheSameFile) {
  const std::string text = "(vectorize(4) @ outermost(isApplied(isMap))) ; lowerToC";
  CliResult r = run_risec(
      {"run", "examples/scal/scal.rise", "--strategy", text, "--size", "n=64", "--check"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  // The same strategy from a file gives the same C; a trailing `;` is allowed.
  const std::string file = write_scratch("inline_same.elv", "let main = " + text + ";\n");
  CliResult a = run_risec({"compile", "examples/scal/scal.rise", "--strategy", text + " ;"});
  CliResult b = run_risec({"compile", "examples/scal/scal.rise", "--strategy", file});
  ASSERT_EQ(a.exit_code, 0) << show(a);
  ASSERT_EQ(b.exit_code, 0) << show(b);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("risec_f32x4"), std::string::npos) << a.out;
}

TEST(InlineStrategy, WholeFileTextWithParameters) {
  const std::string text =
      "param v in [4, 8];\nlet main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;";
  CliResult r = run_risec({"run", "examples/scal/scal.rise", "--strategy", text, "--param", "v=8",
                           "--size", "n=32", "--check"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
}

TEST(InlineStrategy, ErrorsPointIntoTheText) {
  CliResult r = run_risec({"rewrite", "examples/scal/scal.rise", "--strategy",
                           "vectorize(4) @ outermost(isApplied(isMaap)) ; lowerToC"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  // the column of `isMaap` in the text as given
  EXPECT_NE(r.err.find("<--strategy>:1:36: error: unknown strategy 'isMaap'"), std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("did you mean 'isMap'"), std::string::npos) << show(r);
}

TEST(InlineStrategy, AMissingFileIsStillAMissingFile) {
  for (const char* name : {"no_such_strategy.elv", "no_such_dir/s.elv", "mapFusionn"}) {
    CliResult r = run_risec({"compile", "examples/scal/scal.rise", "--strategy", name});
    EXPECT_EQ(r.exit_code, 1) << name << "\n" << show(r);
    EXPECT_NE(r.err.find(std::string("cannot read '") + name + "'"), std::string::npos) << show(r);
  }
  // Nothing to apply is a usage error, not the default lowering.
  for (const char* empty : {"", " ", ";", " ; \n"}) {
    CliResult e = run_risec({"compile", "examples/scal/scal.rise", "--strategy", empty});
    EXPECT_EQ(e.exit_code, 2) << "'" << empty << "'\n" << show(e);
    EXPECT_NE(e.err.find("--strategy needs"), std::string::npos) << show(e);
  }
  // A library strategy without arguments is still found by its name.
  CliResult r = run_risec({"rewrite", "examples/scal/scal.rise", "--strategy", "lowerToC"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
}

TEST(FullResult, EvalPrintsEveryElementNestedByDimension) {
  // 30 x 25: elided without --full, every value with it, one row per line.
  CliResult full = run_risec({"eval", "examples/mm/mm.rise", "--size", "n=30,m=25,k=3", "--full"});
  CliResult part = run_risec({"eval", "examples/mm/mm.rise", "--size", "n=30,m=25,k=3"});
  ASSERT_EQ(full.exit_code, 0) << show(full);
  ASSERT_EQ(part.exit_code, 0) << show(part);
  EXPECT_EQ(full.out.rfind("f32(30, 25) = [[", 0), 0u) << full.out;
  EXPECT_EQ(lines(full.out), 30u) << full.out;
  std::vector<double> all = numbers(full.out), some = numbers(part.out);
  ASSERT_EQ(all.size(), 750u);
  ASSERT_EQ(some.size(), 20u) << part.out;
  EXPECT_NE(part.out.find("..."), std::string::npos);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(some[i], all[i]) << i;
    EXPECT_EQ(some[10 + i], all[740 + i]) << i;
  }
  // brackets balance, and every row of the last dimension has 25 values
  std::istringstream rows(full.out);
  for (std::string row; std::getline(rows, row);) EXPECT_EQ(numbers(row).size(), 25u) << row;
}

TEST(FullResult, RunPrintsTheSameValuesAsEval) {
  CliResult e = run_risec({"eval", "examples/mv/mv.rise", "--size", "n=40,m=8", "--full"});
  CliResult r = run_risec({"run", "examples/mv/mv.rise", "--size", "n=40,m=8", "--full"});
  ASSERT_EQ(e.exit_code, 0) << show(e);
  ASSERT_EQ(r.exit_code, 0) << show(r);
  std::string first = r.out.substr(0, r.out.find('\n'));
  std::vector<double> ev = numbers(e.out), rv = numbers(first);
  ASSERT_EQ(ev.size(), 40u);
  ASSERT_EQ(rv.size(), 40u);
  for (size_t i = 0; i < ev.size(); ++i) EXPECT_NEAR(rv[i], ev[i], 1e-4 * (1 + std::abs(ev[i])));
  // Commands that print no array refuse it.
  CliResult c = run_risec({"check", "examples/mv/mv.rise", "--full"});
  EXPECT_EQ(c.exit_code, 2) << show(c);
}

}  // namespace
}  // namespace risec::e2e
