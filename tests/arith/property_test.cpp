// Property tests: thousands of seeded random terms over ranged variables, each built
// through the canonicalising constructors and checked against a direct int64
// evaluation of the same tree (the shadow), under random assignments within the
// ranges. Also: canonical forms are idempotent and independent of the order in
// which a term was built, printing reads back to the same value, and the range
// analysis never claims something that a sampled assignment contradicts.
#include <gtest/gtest.h>

#include <cstdlib>

#include "arith/internal.h"
#include "arith/nat.h"
#include "arith_test_util.h"

namespace risec::arith::testing {
namespace {

// RISEC_ARITH_TERMS and RISEC_ARITH_SEED override the defaults for deeper local runs
// (e.g. RISEC_ARITH_TERMS=100000 RISEC_ARITH_SEED=7); the defaults keep the suite
// within a few seconds, sanitizers included.
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kTerms = env_int("RISEC_ARITH_TERMS", 1500);
const uint64_t kSeed = static_cast<uint64_t>(env_int("RISEC_ARITH_SEED", 0)) * 1000;
constexpr int kSamples = 24;
constexpr int kMaxReported = 8;

// A stream of random terms (and their trees) for one test.
struct Cases {
  World world;
  Rng rng;
  Generator gen;
  explicit Cases(uint64_t seed) : rng(seed + kSeed), gen(rng) {}

  E next(int t) { return t % 4 == 3 ? gen.index_pattern(3) : gen.expr(4); }
  Nat build(const E& e, Rng* order = nullptr) {
    Builder b{[this](const std::string& name) { return world.lookup(name); }, order};
    return b.build(e);
  }
  Env env_of(const Assignment& a) {
    return [&a](const std::string& name) { return a.at(name); };
  }
};

// Counts failures and stops reporting after a few, to keep the output readable.
struct Failures {
  int count = 0;
  bool report() { return ++count <= kMaxReported; }
};

TEST(ArithProperty, CanonicalTermEvaluatesLikeItsTree) {
  Cases cs(1);
  Failures fails;
  int checked = 0;
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    Nat x;
    try {
      x = cs.build(e);
    } catch (const ArithError& err) {
      if (fails.report()) ADD_FAILURE() << describe(e) << ": construction threw " << err.what();
      continue;
    }
    for (int s = 0; s < kSamples; ++s) {
      Assignment a = cs.world.assignment(cs.rng);
      int64_t want;
      try {
        want = shadow(e, cs.env_of(a));
      } catch (const ShadowUndefined&) {
        continue;
      }
      ++checked;
      try {
        int64_t got = evaluate(x, a);
        if (got != want && fails.report())
          ADD_FAILURE() << describe(e) << "\n  canonical " << x << "\n  at " << describe(a)
                        << ": got " << got << ", want " << want;
      } catch (const ArithError& err) {
        if (fails.report())
          ADD_FAILURE() << describe(e) << "\n  canonical " << x << "\n  at " << describe(a)
                        << ": evaluate threw " << err.what();
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
  EXPECT_GT(checked, kTerms * kSamples / 2);
}

TEST(ArithProperty, PrintedTermsReadBackToTheSameValue) {
  Cases cs(2);
  Failures fails;
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    Nat x = cs.build(e);
    std::string c_text = print(x, Syntax::C);
    std::string rise_text = print(x, Syntax::Rise);
    // Deterministic: printing again gives the same text.
    EXPECT_EQ(print(x, Syntax::C), c_text);
    for (int s = 0; s < kSamples / 2; ++s) {
      Assignment a = cs.world.assignment(cs.rng);
      int64_t want;
      try {
        want = shadow(e, cs.env_of(a));
      } catch (const ShadowUndefined&) {
        continue;
      }
      for (auto [syntax, text] :
           {std::pair{Syntax::C, c_text}, std::pair{Syntax::Rise, rise_text}}) {
        try {
          int64_t got = eval_text(text, syntax, a);
          if (got != want && fails.report())
            ADD_FAILURE() << describe(e) << "\n  printed " << text << "\n  at " << describe(a)
                          << ": reads back as " << got << ", want " << want;
        } catch (const ShadowUndefined&) {
          // An intermediate of the printed text overflowed; not a printing error.
        } catch (const std::exception& err) {
          if (fails.report()) ADD_FAILURE() << describe(e) << ": " << err.what();
        }
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
}

TEST(ArithProperty, CanonicalFormIsIdempotent) {
  Cases cs(3);
  Failures fails;
  auto keep = [](const Nat&) -> std::optional<Nat> { return std::nullopt; };
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    Nat x = cs.build(e);
    Nat again = substitute_fn(x, keep);  // rebuilt through every constructor
    Nat same = substitute(x, {{"i", cs.world.i}, {"n", cs.world.n}});
    if ((again != x || again.hash() != x.hash()) && fails.report())
      ADD_FAILURE() << describe(e) << "\n  canonical " << x << "\n  rebuilt   " << again;
    if ((same != x || same.hash() != x.hash()) && fails.report())
      ADD_FAILURE() << describe(e) << "\n  canonical " << x << "\n  renamed   " << same;
    EXPECT_EQ(substitute(x, {}), x);
  }
  EXPECT_EQ(fails.count, 0);
}

TEST(ArithProperty, BuildOrderDoesNotMatter) {
  Cases cs(4);
  Failures fails;
  Rng order(44 + kSeed);
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    Nat x = cs.build(e);
    for (int v = 0; v < 3; ++v) {
      Nat y = cs.build(e, &order);
      if ((x != y || x.hash() != y.hash() || compare(x, y) != 0) && fails.report())
        ADD_FAILURE() << describe(e) << "\n  one order   " << x << "\n  other order " << y;
      if (x == y) {
        EXPECT_EQ(print(x, Syntax::C), print(y, Syntax::C));
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
}

TEST(ArithProperty, RangeAnalysisIsSound) {
  Cases cs(5);
  Failures fails;
  int yes = 0;
  uint64_t truncations = detail::DepthGuard::truncations();
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    // Half of the pairs are close (y = x + a leaf or x - a leaf), where the decision
    // procedures have something to decide.
    E f = t % 2 == 0 ? cs.next(t + 1) : mk(cs.rng.chance(50) ? Op::Add : Op::Sub, e, cs.gen.leaf());
    Nat x = cs.build(e);
    Nat y = cs.build(f);
    std::optional<Nat> lo = lower_bound(x), hi = upper_bound(x);
    bool nonneg = provably_nonneg(x), pos = provably_pos(x);
    bool lt_xy = provably_lt(x, y), le_xy = provably_le(x, y), eq_xy = provably_eq(x, y);
    Cond c_lt = lt(x, y), c_le = le(x, y), c_eq = eq(x, y);
    Nat mn = min(x, y), mx = max(x, y);
    yes += nonneg + pos + lt_xy + le_xy + eq_xy;
    for (int s = 0; s < kSamples; ++s) {
      Assignment a = cs.world.assignment(cs.rng);
      int64_t vx, vy;
      try {
        vx = shadow(e, cs.env_of(a));
        vy = shadow(f, cs.env_of(a));
      } catch (const ShadowUndefined&) {
        continue;
      }
      auto fail = [&](const std::string& what) {
        if (fails.report())
          ADD_FAILURE() << what << "\n  x = " << describe(e) << " = " << x << " -> " << vx
                        << "\n  y = " << describe(f) << " = " << y << " -> " << vy << "\n  at "
                        << describe(a);
      };
      try {
        if (lo && evaluate(*lo, a) > vx) fail("lower bound " + lo->to_string() + " too high");
        if (hi && evaluate(*hi, a) < vx) fail("upper bound " + hi->to_string() + " too low");
        if (nonneg && vx < 0) fail("provably_nonneg(x) is wrong");
        if (pos && vx <= 0) fail("provably_pos(x) is wrong");
        if (lt_xy && !(vx < vy)) fail("provably_lt(x, y) is wrong");
        if (le_xy && !(vx <= vy)) fail("provably_le(x, y) is wrong");
        if (eq_xy && vx != vy) fail("provably_eq(x, y) is wrong");
        if (evaluate(c_lt, a) != (vx < vy)) fail("lt(x, y) = " + c_lt.to_string() + " is wrong");
        if (evaluate(c_le, a) != (vx <= vy)) fail("le(x, y) = " + c_le.to_string() + " is wrong");
        if (evaluate(c_eq, a) != (vx == vy)) fail("eq(x, y) = " + c_eq.to_string() + " is wrong");
        if (evaluate(mn, a) != std::min(vx, vy))
          fail("min(x, y) = " + mn.to_string() + " is wrong");
        if (evaluate(mx, a) != std::max(vx, vy))
          fail("max(x, y) = " + mx.to_string() + " is wrong");
      } catch (const ArithError& err) {
        fail(std::string("threw ") + err.what());
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
  EXPECT_GT(yes, kTerms / 2);  // the procedures are not vacuously sound
  // The recursion limit was never hit, so no answer depended on the call depth or on
  // what had been memoised before: canonical forms are deterministic.
  EXPECT_EQ(detail::DepthGuard::truncations(), truncations);
}

TEST(ArithProperty, SubstitutionAgreesWithEvaluation) {
  Cases cs(6);
  Failures fails;
  const World& W = cs.world;
  for (int t = 0; t < kTerms; ++t) {
    E e = cs.next(t);
    Nat x = cs.build(e);
    // n := m + 1 (i's range follows), u := i - 3, k := 7 - k (still in [0, 8)).
    Nat y = substitute(x, {{"n", W.m + 1}, {"u", W.i - 3}});
    Nat z = substitute(x, {{"k", 7 - W.k}});
    for (int s = 0; s < kSamples / 2; ++s) {
      Assignment a = cs.world.assignment(cs.rng);
      a["n"] = a["m"] + 1;
      a["i"] = cs.rng.range(0, a["n"] - 1);
      a["w"] = cs.rng.range(0, a["n"] * a["m"] - 1);
      a["p"] = cs.rng.range(a["i"], a["n"] - 1);
      a["u"] = a["i"] - 3;
      Assignment b = cs.world.assignment(cs.rng);
      Assignment b2 = b;
      b2["k"] = 7 - b["k"];
      int64_t want_y, want_z;
      try {
        want_y = shadow(e, cs.env_of(a));
        want_z = shadow(e, cs.env_of(b2));
      } catch (const ShadowUndefined&) {
        continue;
      }
      try {
        if (evaluate(y, a) != want_y && fails.report())
          ADD_FAILURE() << describe(e) << "\n  " << x << "\n  [n := m+1, u := i-3] " << y
                        << "\n  at " << describe(a) << ": got " << evaluate(y, a) << ", want "
                        << want_y;
        if (evaluate(z, b) != want_z && fails.report())
          ADD_FAILURE() << describe(e) << "\n  " << x << "\n  [k := 7-k] " << z << "\n  at "
                        << describe(b) << ": got " << evaluate(z, b) << ", want " << want_z;
      } catch (const ArithError& err) {
        if (fails.report()) ADD_FAILURE() << describe(e) << ": threw " << err.what();
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
}

// Constants near the ends of the 64-bit range: every operation either gives the
// right value or throws ArithError, never anything else (and never undefined
// behaviour, which the sanitizer build of this test checks).
TEST(ArithProperty, HugeConstantsOverflowCleanly) {
  World world;
  Rng rng(7 + kSeed);
  Generator gen(rng, /*huge=*/true);
  Builder b{[&](const std::string& name) { return world.lookup(name); }, nullptr};
  Failures fails;
  int built = 0, thrown = 0;
  for (int t = 0; t < kTerms / 2; ++t) {
    E e = gen.expr(3);
    Nat x;
    try {
      x = b.build(e);
      ++built;
    } catch (const ArithError&) {
      ++thrown;
      continue;
    }
    try {
      (void)provably_nonneg(x);
      (void)lower_bound(x);
      (void)upper_bound(x);
      (void)print(x, Syntax::C);
      (void)substitute_fn(x, [](const Nat&) -> std::optional<Nat> { return std::nullopt; });
    } catch (const ArithError& err) {
      if (fails.report()) ADD_FAILURE() << describe(e) << ": a query threw " << err.what();
    }
    for (int s = 0; s < 4; ++s) {
      Assignment a = world.assignment(rng);
      int64_t want;
      try {
        want = shadow(e, [&a](const std::string& name) { return a.at(name); });
      } catch (const ShadowUndefined&) {
        continue;
      }
      try {
        int64_t got = evaluate(x, a);
        if (got != want && fails.report())
          ADD_FAILURE() << describe(e) << "\n  canonical " << x << "\n  at " << describe(a)
                        << ": got " << got << ", want " << want;
      } catch (const ArithError&) {
        // The canonical form may need an intermediate that the tree did not.
      }
    }
  }
  EXPECT_EQ(fails.count, 0);
  EXPECT_GT(built, 0);
  EXPECT_GT(thrown, 0);
}

}  // namespace
}  // namespace risec::arith::testing
