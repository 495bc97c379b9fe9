// `risec explore` (driver/explore.h): the sites of a small program, every variant
// compiled and checked against the interpreter, the cost model's order on obvious
// cases, and determinism given the seed (with an injected fake timer).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "driver/explore.h"
#include "driver/run.h"
#include "elevate/library.h"
#include "rise/parser.h"
#include "strategy_matches.h"

namespace risec::driver {
namespace {

// Matrix-vector product: in RNF, three maps and a map of reductions; every
// intermediate (the zipped rows, the products) is stored.
const char* kMv =
    "def mv = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 => fun(x: m.f32 =>\n"
    "  M |> map(fun(row => zip(row)(x) |> map(fun(ax => fst(ax) * snd(ax)))\n"
    "                     |> reduce(add)(0.0f))))))\n";

rise::Program program() {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"mv.rise", kMv}));
}

// Times from the generated code (its length): deterministic, and unrelated to the
// model, so the measurement decides.
class ExploreFakeTimer : public Measurer {
 public:
  void prepare(const Compiled& c) override { EXPECT_FALSE(c.unit.source.empty()); }
  double measure(const Compiled& c, const TunePoint&) override {
    ++measured;
    return static_cast<double>(c.unit.source.size());
  }
  int measured = 0;
};

ExploreConfig explore_config(const rise::Program& p) {
  ExploreConfig c;
  c.program = &p;
  c.sizes = {{"n", 4}, {"m", 3}};
  return c;
}

TEST(Explore, SitesOfTheStartProgramAreExact) {
  rise::Program p = program();
  rise::SizeMap sizes{{"n", 4}, {"m", 3}};
  rise::Checked start =
      apply_strategy(elevate::make_strategy("RNF"), rise::check_program(p, "", &sizes), false);
  std::vector<Site> sites = find_sites(start);
  // map(reduce)(map(map(mul))(map(zip)(M))): the map of reductions may fuse with the
  // map of products, and that one with the map of zips. No reduction reads a map yet.
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].rule, "mapFusion");
  EXPECT_EQ(sites[0].path, (std::vector<std::string>{"body", "body"}));
  EXPECT_EQ(sites[1].rule, "mapFusion");
  EXPECT_EQ(sites[1].path, (std::vector<std::string>{"body", "body", "argument"}));
  EXPECT_EQ(site_strategy(sites[1]), "body(body(argument(mapFusion)))");
}

TEST(Explore, EnumeratesEveryVariantAndEachMatchesTheInterpreter) {
  rise::Program p = program();
  ExploreConfig c = explore_config(p);
  c.budget = 100;  // measure them all
  ExploreFakeTimer timer;
  ExploreResult r = explore(c, timer);
  // The start, either fusion, both (in either order: one program), then the
  // reduction fused with the products once they share a row function: after the
  // outer fusion alone and after both.
  std::multiset<std::string> rules;
  for (const Variant& v : r.variants)
    for (const Site& f : v.steps) rules.insert(f.rule);
  EXPECT_EQ(rules.count("fuseReduceMap"), 2u);
  EXPECT_EQ(r.variants.size(), 6u);
  EXPECT_EQ(timer.measured, 6);
  ASSERT_EQ(r.measured.size(), 6u);
  // The result is the fastest measured (the fake timer's shortest code).
  double fastest = 1e300;
  for (size_t i : r.measured) fastest = std::min(fastest, r.variants[i].time_ms.value());
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.variants[*r.best].time_ms.value(), fastest);
  // The best by the model stores nothing: everything fused into one loop nest.
  EXPECT_EQ(r.variants[0].cost.stores, 0);
  EXPECT_EQ(r.variants[0].cost.traffic, 0);
  // Each variant's strategy, compiled from the source, computes what the
  // interpreter computes.
  for (const Variant& v : r.variants)
    expect_strategy_matches_interpreter(p, c.sizes, variant_strategy(v), 7);
}

TEST(Explore, CostModelOrdersObviousCases) {
  rise::Program p = program();
  ExploreConfig c = explore_config(p);
  c.budget = 1;
  ExploreFakeTimer timer;
  ExploreResult r = explore(c, timer);
  auto find = [&](size_t steps, int stores, int64_t allocated) -> const Variant* {
    for (const Variant& v : r.variants)
      if (v.steps.size() == steps && v.cost.stores == stores && v.cost.allocated == allocated)
        return &v;
    return nullptr;
  };
  // (The map of zips is a view: only the products are ever stored.)
  const Variant* start = find(0, 1, 4 * 3 * 4);  // the products, n.m floats, stored once
  const Variant* fused = find(2, 0, 0);          // nothing stored
  // Fusing the outer maps leaves a reduction of a map in each row, which lowerToC
  // (the end of every variant) fuses itself since the default lowering fuses
  // reductions of maps: one row's products are never stored either.
  const Variant* row_fused_by_lowering = find(1, 0, 0);
  ASSERT_TRUE(start && fused && row_fused_by_lowering);
  // Fused beats stored.
  EXPECT_TRUE(fused->cost < start->cost);
  EXPECT_TRUE(row_fused_by_lowering->cost < start->cost);
  // The n.m products are written once and read back once.
  EXPECT_EQ(start->cost.traffic, 2 * 4 * 3 * 4);
  // Sizes enter the model: twice as many rows, twice the traffic.
  ExploreConfig big = explore_config(p);
  big.sizes["n"] = 8;
  big.budget = 1;
  ExploreResult rb = explore(big, timer);
  EXPECT_EQ(rb.variants.back().cost.traffic, 2 * r.variants.back().cost.traffic);
}

TEST(Explore, RandomSearchIsDeterministicGivenTheSeed) {
  rise::Program p = program();
  auto run = [&](uint64_t seed) {
    ExploreConfig c = explore_config(p);
    c.search = ExploreSearch::Random;
    c.seed = seed;
    c.walks = 6;
    c.budget = 3;
    ExploreFakeTimer timer;
    ExploreResult r = explore(c, timer);
    std::vector<std::string> seq;
    for (size_t i : r.measured) seq.push_back(variant_strategy(r.variants[i]));
    seq.push_back(r.best_strategy);
    return seq;
  };
  std::vector<std::string> a = run(11), b = run(11);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 4u);  // three distinct walk ends measured, and the best
}

TEST(Explore, ModelSearchMeasuresTheBestByTheModelFirst) {
  rise::Program p = program();
  ExploreConfig c = explore_config(p);
  c.budget = 2;
  ExploreFakeTimer timer;
  ExploreResult r = explore(c, timer);
  ASSERT_EQ(r.measured.size(), 2u);
  EXPECT_EQ(r.measured[0], 0u);
  EXPECT_EQ(r.measured[1], 1u);
  for (size_t i = 1; i < r.variants.size(); ++i)
    EXPECT_FALSE(r.variants[i].cost < r.variants[i - 1].cost);
}

// Each column of the result reads transpose(A) (a view worth storing) and the
// doubled w, which does not depend on the column: a hoist moves it out of the loop.
const char* kHoist =
    "def h = depFun((n: Nat, m: Nat) => fun(A: n.m.f32 => fun(w: n.f32 =>\n"
    "  transpose(A) |> map(fun(col => zip(col)(w |> map(fun(x => x * 2.0f)))\n"
    "                    |> map(fun(p => fst(p) * snd(p))))))))\n";

TEST(Explore, StoresViewsAndHoistsInvariantsAndEachMatchesTheInterpreter) {
  rise::Program p = rise::parse_program(std::make_shared<SourceFile>(SourceFile{"h.rise", kHoist}));
  ExploreConfig c = explore_config(p);
  rise::Checked start =
      apply_strategy(elevate::make_strategy("RNF"), rise::check_program(p, "", &c.sizes), false);
  std::vector<Site> sites = find_sites(start);
  auto has = [&](const std::vector<Site>& ss, Site::Kind k, const std::string& rule) {
    return std::any_of(ss.begin(), ss.end(),
                       [&](const Site& s) { return s.kind == k && s.rule == rule; });
  };
  EXPECT_TRUE(has(sites, Site::Kind::Store, kStoreRule));
  EXPECT_TRUE(has(sites, Site::Kind::Hoist, "hoist(isFullyApplied(isMap), id)"));
  c.budget = 1;
  ExploreFakeTimer timer;
  ExploreResult r = explore(c, timer);
  // The model's best hoists the doubling (n iterations instead of n per column).
  ASSERT_FALSE(r.variants.empty());
  EXPECT_TRUE(has(r.variants[0].steps, Site::Kind::Hoist, "hoist(isFullyApplied(isMap), id)"))
      << variant_strategy(r.variants[0]);
  const Variant* start_v = nullptr;
  for (const Variant& v : r.variants)
    if (v.steps.empty()) start_v = &v;
  ASSERT_TRUE(start_v);
  EXPECT_TRUE(r.variants[0].cost < start_v->cost);
  EXPECT_LT(r.variants[0].cost.iterations, start_v->cost.iterations);
  // Every variant (stores, hoists, fusions and their combinations) computes what the
  // interpreter computes.
  bool stored = false;
  for (const Variant& v : r.variants) {
    stored = stored || has(v.steps, Site::Kind::Store, kStoreRule);
    expect_strategy_matches_interpreter(p, c.sizes, variant_strategy(v), 7);
  }
  EXPECT_TRUE(stored);
}

TEST(Explore, ATemplateEndsEachVariantAndItsParametersAreTuned) {
  rise::Program p = rise::parse_program(std::make_shared<SourceFile>(
      SourceFile{"s.rise",
                 "def s = depFun(n: Nat => fun(x: n.f32 =>\n"
                 "  x |> map(fun(a => a * 3.0f)) |> map(fun(b => b + 1.0f))))\n"}));
  ExploreConfig c;
  c.program = &p;
  c.sizes = {{"n", 16}};
  c.budget = 2;
  c.trials = 3;
  // v = 3 does not divide 16: pruned in every variant.
  c.finish = std::make_shared<SourceFile>(
      SourceFile{"t.elv",
                 "param v in [4, 3, 8];\nlet main = (vectorize(v) @ outermost(isApplied(isMap))) ; "
                 "lowerToC;\n"});
  ExploreFakeTimer timer;
  ExploreResult r = explore(c, timer);
  ASSERT_EQ(r.measured.size(), 2u);
  ASSERT_TRUE(r.best);
  const Variant& b = r.variants[*r.best];
  EXPECT_TRUE(b.time_ms.has_value());
  // Two points of each variant measured (v = 4 and 8), v = 3 pruned.
  EXPECT_EQ(timer.measured, 4);
  EXPECT_NE(r.best_strategy.find("let finish ="), std::string::npos) << r.best_strategy;
  EXPECT_NE(r.best_strategy.find("; finish;"), std::string::npos) << r.best_strategy;
  EXPECT_EQ(r.best_strategy.find("param "), std::string::npos) << r.best_strategy;
  expect_strategy_matches_interpreter(p, c.sizes, r.best_strategy, 7);
}

}  // namespace
}  // namespace risec::driver
