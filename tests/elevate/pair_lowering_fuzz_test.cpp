// The default lowering and vectorize on generated pair-heavy programs
// (fuzz/pair_program_gen.cpp: reductions with pair states, selects of whole states,
// lets of pairs, zips of pairs): every rule keeps the program well typed, so a
// strategy either succeeds with a program that computes what the original computes
// (reference interpreter, random inputs) or fails with the reason of a rule that
// does not apply, never with a rewrite that would be ill-typed.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "build_info.h"
#include "elevate/parser.h"
#include "rise/infer.h"
#ifdef RISEC_HAVE_PROGRAM_GEN
#include "program_gen.h"
#endif
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

#ifdef RISEC_HAVE_PROGRAM_GEN
std::string generated(std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(64 + rng() % 192);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  FuzzedDataProvider in(bytes.data(), bytes.size());
  return risec::fuzz::generate_pair_program(in);
}
#endif

TEST(PairLowering, GeneratedProgramsLowerAndVectorizeWellTyped) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  const char* seed = std::getenv("RISEC_FUZZ_SEED");  // other programs, locally
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261128);
  int lowered = 0, vectorized = 0, refused = 0;
  // Under the sanitizers the first 50 programs (build_info.h).
  const int trials = static_cast<int>(risec::test::per_build(150, 50));
  for (int trial = 0; trial < trials; ++trial) {
    std::string text = generated(rng);
    SCOPED_TRACE(text);
    if (std::getenv("RISEC_FUZZ_VERBOSE")) std::printf("%s", text.c_str());
    // a width from 2 to 16 that divides the length two times in three
    const int64_t w = 2 + static_cast<int64_t>(rng() % 15);
    const int64_t n = rng() % 3 ? w * (1 + static_cast<int64_t>(rng() % 3))
                                : 4 + static_cast<int64_t>(rng() % 13);
    const int64_t k = 1 + static_cast<int64_t>(rng() % 3);
    rise::Expr p;
    try {
      p = prog(text, {{"n", n}, {"k", k}});
    } catch (const Error& e) {
      ADD_FAILURE() << "a generated program does not type-check: " << e.message();
      continue;
    }
    for (const std::string& s :
         {std::string("simplify ; lowerToC"),
          "(vectorize(" + std::to_string(w) + ") @ outermost(isFullyApplied(isMap))) ; lowerToC",
          "simplify ; (vectorize(" + std::to_string(w) +
              ") @ outermost(isFullyApplied(isMap))) ; lowerToC"}) {
      SCOPED_TRACE(s + " at n = " + std::to_string(n));
      Result r = parse_strategy(s, "<test>")(p);
      if (!r.ok()) {
        const std::string& why = r.failure().reason;
        EXPECT_EQ(why.find("ill-typed"), std::string::npos) << why;
        EXPECT_EQ(why.find("internal"), std::string::npos) << why;
        // only vectorize may refuse (the default lowering takes every program)
        EXPECT_NE(s.find("vectorize"), std::string::npos) << why;
        ++refused;
        if (std::getenv("RISEC_FUZZ_VERBOSE")) std::printf("refused: %s\n", why.c_str());
        continue;
      }
      ++(s.find("vectorize") == std::string::npos ? lowered : vectorized);
      // re-inferred from the text alone, given the entry's type (the widths of a
      // vector result are found from its length)
      try {
        rise::infer_in_context(r.expr(), {}, p->type);
      } catch (const Error& e) {
        ADD_FAILURE() << "not well typed: " << e.message() << "\n" << rise::print_expr(r.expr());
      }
      EXPECT_TRUE(same_semantics(p, r.expr(), 1e-3, 1e-3, 1));
    }
  }
  std::printf("pair lowering: %d lowered, %d vectorized, %d refused\n", lowered, vectorized,
              refused);
  EXPECT_EQ(lowered, trials);
  EXPECT_GT(vectorized, trials * 2 / 3);
#endif
}

// The same programs with symbolic sizes (generic code): the default lowering and
// vectorize (which then needs its width to divide n, a precondition) keep them well
// typed; the results are checked at fixed sizes above.
TEST(PairLowering, GeneratedProgramsWithSymbolicSizesStayWellTyped) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  std::mt19937_64 rng(20261129);
  int vectorized = 0;
  for (int trial = 0; trial < 100; ++trial) {
    std::string text = generated(rng);
    SCOPED_TRACE(text);
    rise::Expr p = prog(text, {});
    const std::string w = std::to_string(2 + rng() % 15);
    for (const std::string& s :
         {std::string("simplify ; lowerToC"),
          "simplify ; (vectorize(" + w + ") @ outermost(isFullyApplied(isMap))) ; lowerToC"}) {
      SCOPED_TRACE(s);
      Result r = parse_strategy(s, "<test>")(p);
      if (!r.ok()) {
        const std::string& why = r.failure().reason;
        EXPECT_EQ(why.find("ill-typed"), std::string::npos) << why;
        EXPECT_NE(s.find("vectorize"), std::string::npos) << why;
        continue;
      }
      vectorized += s.find("vectorize") != std::string::npos;
      try {
        rise::infer_in_context(r.expr(), {}, p->type);
      } catch (const Error& e) {
        ADD_FAILURE() << "not well typed: " << e.message() << "\n" << rise::print_expr(r.expr());
      }
    }
  }
  EXPECT_GT(vectorized, 30);
#endif
}

}  // namespace
}  // namespace risec::elevate::testing
