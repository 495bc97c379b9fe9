// The autoscheduler's register-blocked candidates (driver/schedule_blocked.h) make the
// decisions of the mm ladder's template examples/mm/tune.elv from the program: a
// packed point for the openmp target is tune.elv at the same parameters. Over a grid
// of points (block sizes, k split, vector width, both loop orders), each candidate's
// steps and tune.elv give the same program of examples/mm/mm.rise; with the ladder's
// values, that is parallel.elv's program. `lanes` is fixed (8), so no host's vector
// width enters.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "driver/schedule_blocked.h"
#include "elevate/parser.h"
#include "elevate/rule_util.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "support/files.h"

namespace risec::driver {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/" + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

SourceRef source(const std::string& path) {
  return std::make_shared<SourceFile>(SourceFile{path, read(path)});
}

const rise::Checked& mm64() {
  static const rise::Checked c = [] {
    rise::Program p = rise::parse_program(source("examples/mm/mm.rise"));
    rise::SizeMap sizes = {{"n", 64}, {"m", 64}, {"k", 64}};
    return rise::check_program(p, "", &sizes);
  }();
  return c;
}

rise::Expr apply(const elevate::Strategy& s) {
  elevate::Result r = s(mm64().expr, elevate::Env{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.failure().reason);
  return r.ok() ? r.expr() : nullptr;
}

// Equal up to renaming and eta: the candidate packs after DFNF, which writes
// map(split(n)) as map(fun(x => split(n)(x))).
bool same_program(const rise::Expr& a, const rise::Expr& b) {
  return rise::alpha_equal(elevate::util::beta_eta_normalize(a, true),
                           elevate::util::beta_eta_normalize(b, true));
}

// The candidate's strategy, as the autoscheduler composes it, with `lanes` given.
rise::Expr from_candidate(const BlockPoint& p, int64_t lanes = 8) {
  std::string text;
  for (const BlockStep& b : block_steps(p, "openmp"))
    text += (text.empty() ? "" : " ; ") + b.strategy;
  auto src = std::make_shared<SourceFile>(
      SourceFile{"candidate.elv", "let main = " + text + " ; lowerToC;\n"});
  return apply(elevate::parse_strategy_file(src, {{"lanes", lanes}}));
}

rise::Expr from_template(const BlockPoint& p) {
  const int64_t v = 8 * p.width;
  elevate::ParamValues values = {
      {"ti", p.ti},
      {"tj", p.tj},
      {"kk", p.kk},
      {"v", v},
      {"o1", p.rows_outer ? 1 : 2},
      {"o2", p.rows_outer ? 2 : 1},
      {"o4", p.register_block ? 6 : 3},
      {"o5", p.register_block ? 3 : 6},
  };
  return apply(elevate::parse_strategy_file(source("examples/mm/tune.elv"), values));
}

TEST(BlockedTemplate, PackedCandidatesAreTuneElvPoints) {
  int compared = 0;
  for (int64_t ti : {4, 32})
    for (int64_t tj : {16, 32})
      for (int width : {1, 2})
        for (bool rows_outer : {true, false})
          for (bool reg : {true, false}) {
            const int64_t kk = ti == 4 ? 2 : 4;
            BlockPoint p{ti, tj, kk, width, rows_outer, reg, true, 0, {}, 0};
            SCOPED_TRACE(std::to_string(ti) + "x" + std::to_string(tj) + " kk " +
                         std::to_string(kk) + " width " + std::to_string(width) +
                         (rows_outer ? " rows outer" : " columns outer") +
                         (reg ? " register block" : " TVM order"));
            rise::Expr a = from_candidate(p), b = from_template(p);
            ASSERT_TRUE(a && b);
            EXPECT_TRUE(same_program(a, b)) << rise::print_expr(a) << "\n---\n"
                                            << rise::print_expr(b);
            ++compared;
          }
  EXPECT_EQ(compared, 32);
}

// parallel.elv vectorises by 32: with 16 lanes, the candidate of width 2 at the
// ladder's sizes and order is its program; with 8 lanes it is another (16-wide).
TEST(BlockedTemplate, TheLaddersPointIsParallelElv) {
  BlockPoint p{32, 32, 4, 2, true, false, true, 0, {}, 0};
  rise::Expr ladder = apply(elevate::parse_strategy_file(source("examples/mm/parallel.elv")));
  rise::Expr at16 = from_candidate(p, 16), at8 = from_candidate(p, 8);
  ASSERT_TRUE(ladder && at16 && at8);
  EXPECT_TRUE(same_program(at16, ladder)) << rise::print_expr(at16) << "\n---\n"
                                          << rise::print_expr(ladder);
  EXPECT_FALSE(same_program(at8, ladder));
}

}  // namespace
}  // namespace risec::driver
