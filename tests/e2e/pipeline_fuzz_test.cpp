// Random strategies taken through the whole pipeline: rewrite, lowering, DPIA, C,
// the C compiler, a run, and the comparison with the interpreter. A strategy may be
// refused (a user error: a rule that does not apply, a program the target cannot
// compile), but the compiler never fails internally, and every program it does
// compile computes what the interpreter computes. Every other strategy targets OpenMP;
// every fourth is compiled without the sizes (generic code) and run with them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "build_info.h"
#include "e2e_util.h"
#include "elevate/library.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// Rule names with their arguments filled in (sizes that often divide the examples').
std::vector<std::string> rule_texts() {
  std::vector<std::string> out;
  for (const elevate::LibraryEntry& e : elevate::library()) {
    if (e.cls != elevate::EntryClass::Rule) continue;
    if (e.params.empty()) {
      out.push_back(e.name);
      continue;
    }
    bool nats = true;
    for (elevate::ParamKind p : e.params) nats = nats && p == elevate::ParamKind::Nat;
    if (!nats || e.params.size() > 2) continue;
    for (const char* n : {"2", "4", "8"})
      out.push_back(e.name + "(" + n + (e.params.size() == 2 ? std::string(", ") + n : "") + ")");
  }
  return out;
}

// Steps that reshape loop nests (the rules a performance strategy uses), which
// random single rules rarely reach.
const char* const kShapingSteps[] = {
    "try(tile(4, 4) @ outermost(mapNest(2)))",
    "try(splitJoin(4) @ outermost(isFullyApplied(isMap)))",
    "try(vectorize(4) @ innermost(isFullyApplied(isMap)))",
    "try(vectorizeRemainder(4) @ innermost(isFullyApplied(isMap)))",
    "try(vectorizeReduction(4) @ innermost(isFullyApplied(isReduce)))",
    "try(blockedReduce(4) @ outermost(isFullyApplied(isReduce)))",
    "try(topDown(fuseReduceMap))",
    "try(mapFissionZip @ innermost(isFullyApplied(isMap)))",
    "try(mapReduceInterchange @ innermost(isFullyApplied(isMap)))",
    "try(circularBuffer @ outermost(isFullyApplied(isPrimitive(slide))))",
    "try(rotateValues @ outermost(isFullyApplied(isPrimitive(slide))))",
    "try(parallel @ outermost(isApplied(isMap)))",
};

std::string random_strategy(std::mt19937_64& rng, const std::vector<std::string>& rules) {
  auto rule = [&] { return rules[rng() % rules.size()]; };
  std::string s = "DFNF";
  int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    switch (rng() % 7) {
      case 0:
        s += " ; try(topDown(" + rule() + "))";
        break;
      case 1:
        s += " ; try(" + rule() + " @ outermost(isApplied(isMap)))";
        break;
      case 2:
        s += " ; try(" + rule() + " @ innermost(isFullyApplied(isMap)))";
        break;
      case 3:
        s += " ; try(" + rule() + " @ innermost(isFullyApplied(isReduce)))";
        break;
      case 4:
      case 5:
        s += std::string(" ; ") +
             kShapingSteps[rng() % (sizeof(kShapingSteps) / sizeof(kShapingSteps[0]))] + " ; DFNF";
        break;
      default:
        s += " ; try(bottomUp(" + rule() + ")) ; DFNF";
        break;
    }
  }
  s += " ; lowerToC";
  if (rng() % 3 == 0) s += " ; try(unroll @ innermost(isFullyApplied(isReduceSeq)))";
  if (rng() % 3 == 0) s += " ; try(unroll @ innermost(isFullyApplied(isMapSeq)))";
  return s;
}

TEST(PipelineFuzz, CompiledProgramsMatchTheInterpreter) {
  // RISEC_FUZZ_SEED explores other strategies (CI uses the fixed default).
  const char* seed = std::getenv("RISEC_FUZZ_SEED");
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261121);
  std::vector<std::string> rules = rule_texts();
  ASSERT_GT(rules.size(), 40u);
  int compiled = 0, refused = 0;
  // Under the sanitizers the first 8 strategies per example, of the same kinds
  // (build_info.h); all 16 are drawn, so that they are the Release run's (whose
  // compiled programs the run finds in the cache).
  const int trials = static_cast<int>(risec::test::per_build(16, 8));
  for (const ExampleSizes& ex : fuzz_examples()) {
    std::string file = std::string("examples/") + ex.name + "/" + ex.name + ".rise";
    for (int trial = 0; trial < 16; ++trial) {
      std::string strategy = random_strategy(rng, rules);
      if (trial >= trials) continue;
      SCOPED_TRACE(std::string(ex.name) + " with " + strategy + (trial % 2 ? " (openmp)" : "") +
                   (trial % 4 == 2 ? " (generic)" : ""));
      if (std::getenv("RISEC_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s: %s\n", ex.name, strategy.c_str());
      CheckOptions o;
      try {
        o.target = trial % 2 ? "openmp" : "c";
        // Every fourth program is compiled generic in the sizes and run with them.
        o.generic = trial % 4 == 2;
        // RISEC_FUZZ_SANITIZE=1 runs each program as a sanitized executable (slow; not in CI).
        o.sanitize = std::getenv("RISEC_FUZZ_SANITIZE") != nullptr;
        CheckReport r = run_and_compare(file, strategy, ex.sizes, o);
        ++compiled;
        EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      } catch (const Error& e) {
        // Refusals are user errors with a message; anything else is a compiler bug,
        // except generic code refusing sizes that miss a precondition the strategy
        // added (a specialised compile refuses the strategy itself then).
        bool precondition =
            o.generic && e.message().find("size precondition violated") != std::string::npos;
        if (!precondition) {
          EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        }
        EXPECT_FALSE(e.message().empty());
        if (std::getenv("RISEC_FUZZ_VERBOSE"))
          std::fprintf(stderr, "  refused: %s\n", e.message().c_str());
        ++refused;
      }
    }
  }
  // The fuzzer must mostly produce programs that compile and run.
  // (120 of the 208 with 16 strategies per example.)
  EXPECT_GT(compiled, trials * 15 / 2) << refused << " refused";
  std::printf("pipeline fuzz: %d compiled and checked, %d refused\n", compiled, refused);
}

}  // namespace
}  // namespace risec::e2e
