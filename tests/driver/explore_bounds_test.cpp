// `risec explore` on long programs (driver/explore.h): the search's work is bounded
// (ExploreConfig::max_work, the elevate::WorkMeter), a round keeps at most max_round
// new variants, the unchanged program stays a candidate, and what is measured
// computes what the interpreter computes. A chain of K pointwise maps has O(K^2)
// variants of size O(K): 100 maps ran for minutes in gigabytes before the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "driver/explore.h"
#include "driver/run.h"
#include "elevate/library.h"
#include "rise/parser.h"
#include "strategy_matches.h"

namespace risec::driver {
namespace {

rise::Program explore_chain_program(int k) {
  std::string text = "def deepk = depFun(n: Nat => fun(x: n.f32 => x";
  for (int i = 0; i < k; ++i) text += " |> map(fun(v => v * 0.5f + 1.0f))";
  text += "))\n";
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"deep.rise", text}));
}

// Times from the generated code's length: deterministic.
class ChainLengthTimer : public Measurer {
 public:
  void prepare(const Compiled&) override {}
  double measure(const Compiled& c, const TunePoint&) override {
    return static_cast<double>(c.unit.source.size());
  }
};

bool has_unchanged_program(const ExploreResult& r) {
  return std::any_of(r.variants.begin(), r.variants.end(),
                     [](const Variant& v) { return v.steps.empty(); });
}

TEST(ExploreBounds, AChainOf16MapsIsSearchedWholeWithinItsWork) {
  rise::Program p = explore_chain_program(16);
  ExploreConfig c;
  c.program = &p;
  c.sizes = {{"n", 37}};
  c.budget = 2;
  ChainLengthTimer timer;
  ExploreResult r = explore(c, timer);
  const int64_t limit = explore_work_limit(rise::check_program(p, "", &c.sizes).expr, c);
  EXPECT_FALSE(r.work_limited);
  EXPECT_FALSE(r.round_capped);
  EXPECT_GT(r.work, 0);
  EXPECT_LT(r.work, limit / 4) << "the default limit is far above a short chain's search";
  ASSERT_GT(r.variants.size(), 100u);
  EXPECT_TRUE(has_unchanged_program(r));
  // The model's best fuses all 16 maps into one (15 fusions, no store left).
  EXPECT_EQ(r.variants[0].steps.size(), 15u) << variant_strategy(r.variants[0]);
  EXPECT_EQ(r.variants[0].cost.stores, 0);
  // The programs are dropped once the search is done: only the steps are measured.
  EXPECT_FALSE(r.variants[0].program.expr);
  expect_strategy_matches_interpreter(p, c.sizes, variant_strategy(r.variants[0]), 11);
  expect_strategy_matches_interpreter(p, c.sizes, r.best_strategy, 11);
}

TEST(ExploreBounds, AChainOf100MapsStopsAtItsWorkLimitAndItsRoundCap) {
  rise::Program p = explore_chain_program(100);
  ExploreConfig c;
  c.program = &p;
  c.sizes = {{"n", 37}};
  c.budget = 2;
  // The default limit grows with the program alone (a few million units here); a
  // smaller one keeps the test short.
  const int64_t default_limit = explore_work_limit(rise::check_program(p, "", &c.sizes).expr, c);
  EXPECT_LT(default_limit, 4'000'000);
  c.max_work = 400'000;
  c.max_round = 64;
  ChainLengthTimer timer;
  ExploreResult r = explore(c, timer);
  EXPECT_TRUE(r.work_limited);
  EXPECT_TRUE(r.round_capped);
  // The rewrite in flight stops at the limit: at most its last charge beyond it.
  EXPECT_GE(r.work, c.max_work);
  EXPECT_LT(r.work, c.max_work + 10'000);
  // The start and two rounds of at most 64 new variants, then beam rounds (of 4
  // expanded) until the work ran out.
  EXPECT_LE(r.variants.size(), 1u + 99u + 64u + 4u * 99u);
  EXPECT_TRUE(has_unchanged_program(r));
  ASSERT_EQ(r.measured.size(), 2u);
  expect_strategy_matches_interpreter(p, c.sizes, r.best_strategy, 11);
}

TEST(ExploreBounds, RandomWalksOnAChainOf100MapsStopAtTheWorkLimit) {
  rise::Program p = explore_chain_program(100);
  ExploreConfig c;
  c.program = &p;
  c.sizes = {{"n", 37}};
  c.budget = 1;
  c.search = ExploreSearch::Random;
  c.max_work = 200'000;
  ChainLengthTimer timer;
  ExploreResult r = explore(c, timer);
  EXPECT_TRUE(r.work_limited);
  EXPECT_LT(r.work, c.max_work + 10'000);
  EXPECT_LT(r.variants.size(), 10u);  // a step applies every site: ~90000 units each
  ASSERT_TRUE(r.best);
  expect_strategy_matches_interpreter(p, c.sizes, r.best_strategy, 11);
}

}  // namespace
}  // namespace risec::driver
