// The one-pass traversals (everywhere, tryAll, allTopDown) finish: a rule that applies
// again to what it made (hoist, storeInMemory at the let they build) is not re-applied
// to the term it rewrote, and a rule that keeps making new places where it applies is
// stopped with an error naming it. Random one-pass strategies on the examples each
// finish within a time bound and, when they succeed, keep the program's meaning.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "elevate/parser.h"
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

const char* kOnePassNested = R"(
def ev = depFun((n: Nat, m: Nat) => fun(a: n.m.f32 =>
  a |> map(fun(r => r |> reduce(add)(0.0f))) |> reduce(add)(0.0f)))
)";

TEST(OnePassTraversal, HoistEverywhereFinishesAndKeepsMeaning) {
  rise::Checked c = typed(kOnePassNested, {{"n", 4}, {"m", 5}});
  for (const char* text : {"hoist(isFullyApplied(isMap), id) @ everywhere",
                           "storeInMemory(isFullyApplied(isMap), id) @ everywhere",
                           "tryAll(hoist(isFullyApplied(isMap), id))",
                           "tryAll(storeInMemory(isFullyApplied(isMap), id))"}) {
    Strategy s = parse_strategy(text);
    auto start = std::chrono::steady_clock::now();
    Result r = s(c.expr);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(secs, 5.0) << text;
    ASSERT_TRUE(r.ok()) << text << ": " << r.failure().reason;
    EXPECT_TRUE(well_typed(r.expr())) << text;
    EXPECT_TRUE(same_semantics(c.expr, r.expr())) << text;
  }
}

TEST(OnePassTraversal, CopyOfTheRewrittenTermIsNotRewrittenAgain) {
  // idAfter: x -> id(x); the x below the new id is the location already rewritten.
  rise::Checked c =
      typed("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))", {{"n", 4}});
  Result r = parse_strategy("tryAll(idAfter)")(c.expr);
  ASSERT_TRUE(r.ok()) << r.failure().reason;
  std::string once = rise::print_expr(r.expr());
  for (const char* twice : {"id(id(x))", "id(id(v))", "id(id(2.0f))"})
    EXPECT_EQ(once.find(twice), std::string::npos) << once;
  EXPECT_NE(once.find("id("), std::string::npos) << once;
  EXPECT_TRUE(same_semantics(c.expr, r.expr()));
}

TEST(OnePassTraversal, RuleThatKeepsMakingLocationsIsStoppedWithItsName) {
  // idAfter ; idAfter: x -> id(id(x)); the inner id(x) is new and again of its kind.
  rise::Checked c =
      typed("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))", {{"n", 4}});
  for (const char* text : {"everywhere(idAfter ; idAfter)", "tryAll(idAfter ; idAfter)"}) {
    auto start = std::chrono::steady_clock::now();
    Result r = parse_strategy(text)(c.expr);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(secs, 5.0) << text;
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.failure().reason.find("does not terminate"), std::string::npos)
        << r.failure().reason;
    EXPECT_NE(r.failure().reason.find("idAfter"), std::string::npos) << r.failure().reason;
  }
}

std::string one_pass_example(const std::string& name) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".rise");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string one_pass_random_step(std::mt19937_64& rng) {
  static const char* preds[] = {"isFullyApplied(isMap)", "isFullyApplied(isReduce)",
                                "isApplied(isMap)", "containsComputation", "id"};
  static const char* leaves[] = {"idAfter",
                                 "mapFusion",
                                 "fuseReduceMap",
                                 "liftId",
                                 "idToCopy",
                                 "splitJoin(2)",
                                 "mapFission",
                                 "betaReduction",
                                 "etaReduction",
                                 "reduceMapFusion",
                                 "mapMapFBeforeTranspose"};
  std::string p = preds[rng() % 5];
  switch (rng() % 4) {
    case 0:
      return "hoist(" + p + ", id)";
    case 1:
      return "storeInMemory(" + p + ", id)";
    case 2:
      return p + " ; " + leaves[rng() % 11];
    default:
      return leaves[rng() % 11];
  }
}

TEST(OnePassTraversal, RandomOnePassStrategiesFinishAndKeepMeaning) {
  struct Case {
    std::string text;
    rise::SizeMap sizes;
  };
  std::vector<Case> cases = {{kOnePassNested, {{"n", 4}, {"m", 5}}},
                             {one_pass_example("gemv"), {{"n", 8}, {"m", 16}}},
                             {one_pass_example("mm"), {{"n", 8}, {"m", 8}, {"k", 8}}},
                             {one_pass_example("jacobi3"), {{"n", 5}, {"m", 4}}},
                             {one_pass_example("dot"), {{"n", 32}}}};
  static const char* traversals[] = {"everywhere", "tryAll", "allTopDown"};
  std::mt19937_64 rng(20261129);
  int succeeded = 0;
  for (const Case& k : cases) {
    rise::Checked c = typed(k.text, k.sizes);
    for (int trial = 0; trial < 24; ++trial) {
      std::string step = one_pass_random_step(rng);
      std::string inner = rng() % 3 == 0 ? "try(" + step + ")" : step;
      std::string text = std::string(traversals[rng() % 3]) + "(" + inner + ")";
      if (rng() % 3 == 0) text = "DFNF ; " + text;
      Strategy s;
      try {
        s = parse_strategy(text);
      } catch (const std::exception& err) {
        ADD_FAILURE() << text << " does not parse: " << err.what();
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      Result r(c.expr);
      try {
        r = s(c.expr);
      } catch (const std::exception& err) {
        ADD_FAILURE() << text << " threw " << err.what();
        continue;
      }
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      EXPECT_LT(secs, 10.0) << text;
      if (!r.ok() || r.expr() == c.expr) continue;
      ++succeeded;
      EXPECT_TRUE(well_typed(r.expr())) << text;
      EXPECT_TRUE(same_semantics(c.expr, r.expr(), 1e-3, 1e-4, 1)) << text;
    }
  }
  EXPECT_GT(succeeded, 20);
}

}  // namespace
}  // namespace risec::elevate::testing
