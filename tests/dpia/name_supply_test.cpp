// The name supply (dpia/name_supply.h): what it hands out is never a name in scope,
// never handed out twice, and neither are the names derived from it.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "dpia/name_supply.h"

using namespace risec::dpia;

TEST(NameSupply, FreshNamesAvoidEveryNameInScopeAndEachOther) {
  std::mt19937 rng(7);
  const char* bases[] = {"i", "tmp", "acc", "x_", "db"};
  for (int round = 0; round < 50; ++round) {
    NameSupply s;
    std::set<std::string> in_scope;
    // Names a program might use: the generated-looking ones first of all.
    for (int k = 0; k < 40; ++k) {
      std::string n = std::string(bases[rng() % 5]) + std::to_string(rng() % 30);
      if (rng() % 4 == 0) n += "_in";
      in_scope.insert(n);
      s.reserve(n);
    }
    std::set<std::string> given;
    for (int k = 0; k < 60; ++k) {
      std::string b = bases[rng() % 5];
      bool derived = b == "db";
      std::string n = derived ? s.fresh(b, {"_in", "_out"}) : s.fresh(b);
      EXPECT_EQ(n.rfind(b, 0), 0u) << n;
      EXPECT_FALSE(in_scope.count(n)) << n;
      EXPECT_TRUE(given.insert(n).second) << n << " given twice";
      if (derived)
        for (const char* suffix : {"_in", "_out"}) {
          EXPECT_FALSE(in_scope.count(n + suffix)) << n << suffix;
          EXPECT_TRUE(given.insert(n + suffix).second) << n << suffix;
        }
    }
    // claim keeps a free name and renames a taken one.
    EXPECT_EQ(s.claim("unused_name"), "unused_name");
    std::string again = s.claim("unused_name");
    EXPECT_NE(again, "unused_name");
    EXPECT_FALSE(in_scope.count(again) || given.count(again)) << again;
  }
}
