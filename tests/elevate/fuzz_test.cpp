// Random strategies (compositions of rules, traversals and combinators) applied to the
// examples: they may fail, but they never crash, never produce an ill-typed program,
// and never change what the program computes.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "elevate/library.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

struct Example {
  std::string name;
  std::string text;
  rise::SizeMap sizes;
};

std::vector<Example> examples() {
  const std::map<std::string, rise::SizeMap> sizes = {
      {"asum", {{"n", 32}}},
      {"blackscholes", {{"n", 32}}},
      {"concatpad", {{"n", 4}, {"m", 3}}},
      {"conv1d", {{"n", 12}}},
      {"dot", {{"n", 32}}},
      {"gaussian", {{"n", 5}, {"m", 4}}},
      {"gemv", {{"n", 8}, {"m", 16}}},
      {"jacobi3", {{"n", 5}, {"m", 4}}},
      {"jacobi5", {{"n", 5}, {"m", 4}}},
      {"mm", {{"n", 8}, {"m", 8}, {"k", 8}}},
      {"mv", {{"n", 8}, {"m", 16}}},
      {"scal", {{"n", 32}}},
      {"treesum", {{"m", 2}, {"k", 3}}},
  };
  std::vector<Example> out;
  for (const auto& [name, s] : sizes) {
    std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".rise");
    std::stringstream ss;
    ss << in.rdbuf();
    out.push_back({name, ss.str(), s});
  }
  return out;
}

// Rules that take no argument or a small number.
std::vector<std::string> rule_pool() {
  std::vector<std::string> out;
  for (const LibraryEntry& e : library()) {
    if (e.cls != EntryClass::Rule && e.cls != EntryClass::NormalForm) continue;
    bool simple = true;
    for (ParamKind p : e.params) simple &= p == ParamKind::Nat;
    if (simple && e.params.size() <= 2) out.push_back(e.name);
  }
  return out;
}

Strategy random_rule(std::mt19937_64& rng, const std::vector<std::string>& pool) {
  const std::string& name = pool[rng() % pool.size()];
  const LibraryEntry* e = find_entry(name);
  static const int64_t nats[] = {1, 2, 4, 8, 16};
  std::vector<int64_t> values;
  for (size_t i = 0; i < e->params.size(); ++i) {
    int64_t v = nats[rng() % 5];
    if (name.rfind("map", 0) == 0 && e->params.size() == 1) v = static_cast<int64_t>(rng() % 3);
    values.push_back(v);
  }
  std::vector<Arg> args(values.begin(), values.end());
  return make_strategy(name, args);
}

Strategy random_strategy(std::mt19937_64& rng, const std::vector<std::string>& pool, int depth) {
  Strategy r = random_rule(rng, pool);
  if (depth <= 0) return r;
  switch (rng() % 8) {
    case 0:
      return top_down(r);
    case 1:
      return bottom_up(r);
    case 2:
      return try_all(r);
    case 3:
      return seq(try_(top_down(r)), random_strategy(rng, pool, depth - 1));
    case 4:
      return lchoice(top_down(r), random_strategy(rng, pool, depth - 1));
    case 5:
      return outermost(is_applied(is_map()), r);
    case 6:
      return repeat_n(2, try_(top_down(r)));
    default:
      return seq(random_strategy(rng, pool, depth - 1), try_(top_down(random_rule(rng, pool))));
  }
}

TEST(StrategyFuzz, RandomStrategiesKeepProgramsWellTypedAndEquivalent) {
  std::mt19937_64 rng(20261121);
  std::vector<std::string> pool = rule_pool();
  ASSERT_GT(pool.size(), 30u);
  int applied = 0;
  for (const Example& ex : examples()) {
    rise::Checked c = typed(ex.text, ex.sizes);
    for (int trial = 0; trial < 40; ++trial) {
      Strategy s = random_strategy(rng, pool, 2);
      Result r(c.expr);
      if (std::getenv("RISEC_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s: %s\n", ex.name.c_str(), s.name().c_str());
      try {
        r = s(c.expr);
      } catch (const std::exception& err) {
        ADD_FAILURE() << ex.name << ": " << s.name() << " threw " << err.what();
        continue;
      }
      if (!r.ok() || r.expr() == c.expr) continue;
      ++applied;
      EXPECT_TRUE(well_typed(r.expr())) << ex.name << " with " << s.name();
      EXPECT_TRUE(same_semantics(c.expr, r.expr(), 1e-3, 1e-4, 1))
          << ex.name << " with " << s.name();
    }
  }
  // The fuzzer must actually rewrite programs, not only fail.
  EXPECT_GT(applied, 50);
}

}  // namespace
}  // namespace risec::elevate::testing
