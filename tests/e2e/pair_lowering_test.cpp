// Generated pair-heavy programs (fuzz/pair_program_gen.cpp: reductions with pair
// states, Mandelbrot-like selects of whole states, lets of pairs, zips of pairs) taken
// through the whole pipeline with the default lowering and with vectorize(k), k from
// 2 to 16 (a third of the widths do not divide the length): the default lowering
// compiles every one, and vectorize either compiles a program or refuses it with a
// user error located in the strategy (a width that does not divide the length says
// so); never an internal error or a rewrite that would be ill-typed. What compiles
// runs and computes what the interpreter computes on random inputs. Also the
// Mandelbrot forms of issue 32 by name.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"
#ifdef RISEC_HAVE_PROGRAM_GEN
#include "program_gen.h"
#endif
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

// The compiled code contracts a*b+c into fused multiply-adds (-ffp-contract=fast),
// which the interpreter does not: a comparison on a value so computed can flip and a
// select then chooses another state. These tests compare choices, so they compile
// without contraction (appended to RISEC_CFLAGS, which the environment may set).
class NoContraction {
 public:
  NoContraction() {
    const char* old = std::getenv("RISEC_CFLAGS");
    saved_ = old ? std::optional<std::string>(old) : std::nullopt;
    setenv("RISEC_CFLAGS", ((old ? std::string(old) + " " : "") + "-ffp-contract=off").c_str(), 1);
  }
  ~NoContraction() {
    if (saved_)
      setenv("RISEC_CFLAGS", saved_->c_str(), 1);
    else
      unsetenv("RISEC_CFLAGS");
  }

 private:
  std::optional<std::string> saved_;
};

std::string vectorize(int64_t w) {
  return "(vectorize(" + std::to_string(w) + ") @ outermost(isFullyApplied(isMap))) ; lowerToC";
}

// Mandelbrot with a pair state ((zr, zi), count) and a select of the whole state.
const char* const kMandelPairs = R"(
def mandel = depFun((n: Nat, k: Nat) => fun(cr: n.f32 => fun(ci: n.f32 =>
  zip(cr)(ci) |> map(fun(c =>
    generate(fun(i: idx[k] => 0.0f)) |> reduceSeq(fun(s, step =>
      let zr = s._1._1 in
      let zi = s._1._2 in
      select(zr * zr + zi * zi < 4.0f)(((zr * zr - zi * zi + c._1, 2.0f * zr * zi + c._2),
                                        s._2 + 1.0f))(s)))(((0.0f, 0.0f), 0.0f))
    |> fun(s => s._2))))))
)";

// The same with the repeated squares written out (what cse shares) and a count that is
// the same in every lane at first (a broadcast nothing else fixes the width of).
const char* const kMandelShared = R"(
def mandel = depFun((n: Nat, k: Nat) => fun(cr: n.f32 => fun(ci: n.f32 =>
  zip(cr)(ci) |> map(fun(c =>
    generate(fun(i: idx[k] => 0.0f)) |> reduceSeq(fun(s, step =>
      select(s._1._1 * s._1._1 + s._1._2 * s._1._2 < 4.0f)(
        ((s._1._1 * s._1._1 - s._1._2 * s._1._2 + c._1, 2.0f * s._1._1 * s._1._2 + c._2),
         (s._2._1 + 1.0f, s._2._2)))(s)))(((0.0f, 0.0f), (0.0f, 1.0f)))
    |> fun(s => (s._2._1, s._1._1)))))))
)";

TEST(PairPipeline, MandelbrotWithPairStates) {
  NoContraction nc;
  for (const char* text : {kMandelPairs, kMandelShared}) {
    std::string file = write_scratch("mandel_pairs.rise", text);
    SCOPED_TRACE(text);
    EXPECT_TRUE(compile_and_check(file, "", "n=40,k=20"));
    for (int64_t w : {4, 8})
      EXPECT_TRUE(compile_and_check(file, vectorize(w), "n=40,k=20")) << "vectorize " << w;
    // a width that does not divide the length: refused, located in the strategy
    try {
      run_and_compare(file, vectorize(16), "n=40,k=20");
      ADD_FAILURE() << "vectorize(16) of 40 points compiled";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
      EXPECT_NE(e.message().find("not divisible"), std::string::npos) << e.message();
      EXPECT_TRUE(e.span().known()) << e.message();
    }
  }
}

// Forms the generator found that vectorize refused as ill-typed: a let whose body
// mentions only its own (lane) variable besides a literal, left unlifted; and a map
// whose function is the same in every lane (the broadcast's width fixed by nothing
// once `simplify` has moved the map under a reduction).
TEST(PairPipeline, VectorizeKeepsWidthsNothingElseFixes) {
  NoContraction nc;
  std::string let_body = write_scratch("let_body.rise", R"(
def pairs = depFun((n: Nat) => fun(x: n.f32 => fun(alpha: f32 =>
  x |> map(fun(p => let q = alpha + p in (-2.0f, q))))))
)");
  EXPECT_TRUE(compile_and_check(let_body, vectorize(8), "n=16"));
  std::string constant = write_scratch("constant_map.rise", R"(
def counts = depFun((n: Nat) => fun(x: n.f32 => fun(alpha: f32 =>
  x |> map(fun(c => alpha))
    |> fun(q => q |> reduceSeq(fun(a, p => select(a._1 < alpha)((p, p))(a)))((-1000.0f, alpha))
    |> fun(a => q |> map(fun(p => (p + a._1, a._2))))))))
)");
  EXPECT_TRUE(compile_and_check(
      constant, "simplify ; (vectorize(8) @ outermost(isFullyApplied(isMap))) ; lowerToC", "n=16"));
}

TEST(PairPipeline, GeneratedProgramsCompileOrAreRefusedLocated) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  NoContraction nc;
  const char* seed = std::getenv("RISEC_FUZZ_SEED");  // other programs, locally
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261128);
  int compiled = 0, refused = 0;
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<uint8_t> bytes(64 + rng() % 192);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    FuzzedDataProvider in(bytes.data(), bytes.size());
    const std::string text = fuzz::generate_pair_program(in);
    const std::string file = write_scratch("pair_" + std::to_string(trial) + ".rise", text);
    const int64_t w = 2 + static_cast<int64_t>(rng() % 15);
    const int64_t n = trial % 3 ? w * (1 + static_cast<int64_t>(rng() % 2))
                                : w + 1 + static_cast<int64_t>(rng() % (w - 1));
    const std::string sizes = "n=" + std::to_string(n) + ",k=" + std::to_string(1 + rng() % 3);
    for (const std::string& strategy : {std::string(), vectorize(w)}) {
      SCOPED_TRACE(text + "--- " + (strategy.empty() ? "default lowering" : strategy) + " at " +
                   sizes);
      if (std::getenv("RISEC_FUZZ_VERBOSE"))
        std::fprintf(stderr, "%s--- %s at %s\n", text.c_str(), strategy.c_str(), sizes.c_str());
      try {
        CheckOptions o;
        o.seed = static_cast<uint64_t>(trial);
        CheckReport r = run_and_compare(file, strategy, sizes, o);
        ++compiled;
        EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
      } catch (const Error& e) {
        ++refused;
        EXPECT_FALSE(strategy.empty()) << "the default lowering refused: " << e.message();
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        EXPECT_TRUE(e.span().known()) << e.message();
        EXPECT_EQ(e.message().find("ill-typed"), std::string::npos) << e.message();
        // a width that does not divide the length is refused for that reason
        if (n % w != 0) {
          EXPECT_NE(e.message().find("not divisible"), std::string::npos) << e.message();
        }
      }
    }
  }
  std::printf("pair lowering: %d compiled and checked, %d refused\n", compiled, refused);
  EXPECT_GE(compiled, 40);
#endif
}

}  // namespace
}  // namespace risec::e2e
