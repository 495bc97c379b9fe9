// Tests of the simplification passes (partialEval, specialise, AiNF, dce, cse, licm, refuse,
// simplify): exact results on small terms, and on the examples and generated programs that simplify
// keeps the interpreter's results, keeps programs well typed and is idempotent.
#include <fstream>
#include <random>
#include <sstream>

#include "elevate/library.h"
#ifdef RISEC_HAVE_PROGRAM_GEN
#include "program_gen.h"
#endif
#include "rewrite_test_util.h"

namespace risec::elevate::testing {
namespace {

const rise::SizeMap simplify_n8 = {{"n", 8}};

// The printed body of a one-parameter program after `s`.
std::string after(const std::string& s, const std::string& text,
                  const rise::SizeMap& sizes = simplify_n8) {
  rise::Expr p = prog(text, sizes);
  rise::Expr r = apply_ok(lib(s), p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  return rise::print_expr(r);
}

// The same after a sequence of passes.
std::string after_all(const std::vector<const char*>& passes, const std::string& text) {
  std::vector<Strategy> parts;
  for (const char* p : passes) parts.push_back(lib(p));
  rise::Expr p = prog(text, simplify_n8);
  rise::Expr r = apply_ok(seq_all(parts), p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  return rise::print_expr(r);
}

int simplify_count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

bool has(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST(SimplifyLibrary, Registered) {
  for (const char* name :
       {"partialEval", "specialise", "AiNF", "dce", "cse", "licm", "refuse", "simplify"}) {
    SCOPED_TRACE(name);
    const LibraryEntry* e = find_entry(name);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->family, RuleFamily::Simplify);
    EXPECT_FALSE(e->description.empty());
  }
}

// ---------------------------------------------------------------- partialEval

TEST(PartialEval, FoldsFloatArithmetic) {
  std::string r = after("partialEval", R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * (2.0f + 3.0f)))))
)");
  EXPECT_TRUE(has(r, "5.0f")) << r;
  EXPECT_FALSE(has(r, "2.0f")) << r;
}

TEST(PartialEval, FoldsChainsAndBetaRedexes) {
  std::string r = after("partialEval", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => fun(k => a * k)((1.0f + 1.0f) * 4.0f)))))
)");
  EXPECT_TRUE(has(r, "8.0f")) << r;
  EXPECT_EQ(simplify_count(r, "fun("), 2) << r;  // x's lambda and the map's
}

TEST(PartialEval, IntegerWrapsLikeTheInterpreter) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.i32 => x |> map(fun(a => a + (2147483647 + 1)))))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(lib("partialEval"), p);
  std::string s = rise::print_expr(r);
  EXPECT_TRUE(has(s, "-2147483648")) << s;
  EXPECT_TRUE(same_semantics(p, r));
}

TEST(PartialEval, DivisionByZeroIsLeftUnfolded) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.i32 => x |> map(fun(a => a + 1 / 0))))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(lib("partialEval"), p);
  EXPECT_TRUE(rise::alpha_equal(p, r)) << rise::print_expr(r);
}

TEST(PartialEval, ResolvesPairProjectionsAndLiteralIndexing) {
  std::string r = after("partialEval", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => fst(makePair(a)(1.0f)) + snd(makePair(2.0f)(a))
                    + idx(lidx(1, 3))([0.5f, a, a])))))
)");
  EXPECT_FALSE(has(r, "makePair")) << r;
  EXPECT_FALSE(has(r, "makeArray")) << r;
  EXPECT_FALSE(has(r, "idx(")) << r;
}

TEST(PartialEval, InlinesTrivialLets) {
  std::string r = after("partialEval", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => let k = 3.0f in a * k))))
)");
  EXPECT_FALSE(has(r, "let")) << r;
  EXPECT_TRUE(has(r, "3.0f")) << r;
}

// ---------------------------------------------------------------- specialise

// A reduction over a zip with a literal array is unrolled; zero weights vanish, the
// weight 1 is no multiplication; the rest stays a sum of taps (high-level program).
TEST(Specialise, UnrollsAReductionOverALiteralAndDropsZeroWeights) {
  std::string r = after("specialise", R"(
def f = depFun(n: Nat => fun(x: (n+4).f32 => x |> slide(5)(1) |> map(fun(win =>
  zip(win)([1.0f, 0.0f, 2.0f, 0.0f, 0.5f]) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f)))))
)");
  EXPECT_FALSE(has(r, "reduce")) << r;
  EXPECT_FALSE(has(r, "0.0f")) << r;
  EXPECT_FALSE(has(r, "lidx(1, 5)")) << r;
  EXPECT_FALSE(has(r, "lidx(3, 5)")) << r;
  EXPECT_TRUE(has(r, "win[lidx(0, 5)] + win[lidx(2, 5)] * 2.0f + win[lidx(4, 5)] * 0.5f")) << r;
}

// After the default lowering: the literal is a let of the lowered program, the
// reduction a reduceSeqUnroll with a fused operator; nested reductions (a 2-D window)
// unroll level by level, and the let goes once every use is folded.
TEST(Specialise, WorksOnLoweredProgramsAndNestedReductions) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.3.3.f32 => x |> map(fun(win =>
  zip(win)([[0.0f, 1.0f, 0.0f], [1.0f, -4.0f, 1.0f], [0.0f, 1.0f, 0.0f]]) |> map(fun(rows =>
    zip(rows._1)(rows._2) |> map(fun(q => q._1 * q._2)) |> reduce(add)(0.0f)))
    |> reduce(add)(0.0f)))))
)",
                      simplify_n8);
  rise::Expr low = apply_ok(lib("lowerToC"), p);
  rise::Expr r = apply_ok(lib("specialise"), low);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  std::string s = rise::print_expr(r);
  EXPECT_FALSE(has(s, "reduce")) << s;
  EXPECT_FALSE(has(s, "let")) << s;
  EXPECT_EQ(simplify_count(s, "win["), 5) << s;  // the five non-zero taps
}

// Without a literal there is nothing to specialise: the program is unchanged.
TEST(Specialise, LeavesReductionsOverInputsAlone) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.5.f32 => fun(w: 5.f32 => x |> map(fun(win =>
  zip(win)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(lib("specialise"), p);
  EXPECT_TRUE(rise::alpha_equal(r, p)) << rise::print_expr(r);
}

// ---------------------------------------------------------------- dce

TEST(Dce, RemovesUnusedLet) {
  std::string r = after("dce", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => exp(a))) in x |> map(fun(a => a + 1.0f))))
)");
  EXPECT_FALSE(has(r, "exp")) << r;
  EXPECT_FALSE(has(r, "let")) << r;
}

TEST(Dce, KeepsOnlyTheUsedComponentOfAMapOfPairs) {
  std::string r = after("dce", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(log(a)))) in y |> map(fst)))
)");
  EXPECT_EQ(simplify_count(r, "exp"), 1) << r;
  EXPECT_FALSE(has(r, "log")) << r;
  EXPECT_FALSE(has(r, "makePair")) << r;
  EXPECT_FALSE(has(r, "fst")) << r;
}

TEST(Dce, KeepsOnlyTheComponentAMapFunctionReads) {
  std::string r = after("dce", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(log(a)))) in
  y |> map(fun(p => snd(p) * snd(p) + 1.0f))))
)");
  EXPECT_FALSE(has(r, "exp")) << r;
  EXPECT_EQ(simplify_count(r, "log"), 1) << r;
  EXPECT_FALSE(has(r, "snd")) << r;
}

TEST(Dce, KeepsBothComponentsWhenAMapFunctionReadsBoth) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(log(a)))) in
  y |> map(fun(p => fst(p) * snd(p)))))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(lib("dce"), p);
  EXPECT_TRUE(rise::alpha_equal(p, r)) << rise::print_expr(r);
}

TEST(Dce, KeepsOnlyTheUsedComponentOfAPair) {
  std::string r = after("dce", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => let p = makePair(exp(a))(log(a)) in snd(p) * snd(p)))))
)");
  EXPECT_FALSE(has(r, "exp")) << r;
  EXPECT_EQ(simplify_count(r, "log"), 1) << r;
}

TEST(Dce, KeepsPairsUsedWhole) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(log(a)))) in y))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(lib("dce"), p);
  EXPECT_TRUE(rise::alpha_equal(p, r)) << rise::print_expr(r);
}

// ---------------------------------------------------------------- cse

TEST(Cse, SharesRepeatedScalarComputation) {
  std::string r = after("cse", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => exp(a * 2.0f) + exp(a * 2.0f)))))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 1) << r;
  EXPECT_TRUE(has(r, "let")) << r;
}

TEST(Cse, SharesRepeatedLoops) {
  std::string r = after("cse", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  zip(x |> map(fun(a => exp(a))))(x |> map(fun(b => exp(b))))
    |> map(fun(p => fst(p) + snd(p)))))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 1) << r;
}

TEST(Cse, DoesNotHoistTermsOfAnInnerVariable) {
  // exp(a) is repeated in two different maps whose `a` are different variables.
  std::string r = after("cse", R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x |> map(fun(a => exp(a) + 1.0f)))(y |> map(fun(a => exp(a) * 2.0f)))
    |> map(fun(p => fst(p) + snd(p))))))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 2) << r;
  EXPECT_FALSE(has(r, "let")) << r;
}

TEST(Cse, SharesInsideAReductionOperator) {
  // acc * acc is repeated in the operator's inner body; no let may go between its
  // two lambdas (a let's result is data, not a function).
  std::string r = after("cse", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> reduce(fun(acc => fun(y => exp(acc * 0.5f) + y * exp(acc * 0.5f))))(0.0f)))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 1) << r;
}

// ---------------------------------------------------------------- AiNF

// A let of a map body that depends on the element becomes its own loop.
TEST(AiNF, FissionsEachLetOfAMapBody) {
  std::string r = after("AiNF", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => let b = exp(a) in let c = log(b + a) in b * c))))
)");
  EXPECT_EQ(simplify_count(r, "map("), 3) << r;  // exp, log, product: one loop each
  EXPECT_TRUE(has(r, "let ys = x |> map(fun(a => (a, exp(a))))")) << r;
}

// A map producing a pair becomes one map per component.
TEST(AiNF, FissionsAMapOfPairs) {
  std::string r = after("AiNF", R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => makePair(exp(a))(log(a))))))
)");
  EXPECT_EQ(simplify_count(r, "map("), 2) << r;
  EXPECT_TRUE(has(r, "zip(")) << r;
  EXPECT_FALSE(has(r, "makePair")) << r;
}

// Lets float out of argument positions: let-let normal form.
TEST(AiNF, FloatsLetsOutOfArguments) {
  std::string r = after("AiNF", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = (let z = x |> map(fun(a => exp(a))) in z |> map(fun(b => b + 1.0f))) in y))
)");
  EXPECT_TRUE(r.find("let z") < r.find("let y")) << r;
}

// After fission, cse shares the loops that two maps had in common.
TEST(AiNF, ThenCseSharesAcrossLoops) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let u = x |> map(fun(a => let e = exp(a) in e + 1.0f)) in
  let w = x |> map(fun(a => let e = exp(a) in e * 2.0f)) in zip(u)(w)))
)",
                      simplify_n8);
  rise::Expr r = apply_ok(seq_all({lib("AiNF"), lib("cse"), lib("partialEval")}), p);
  std::string s = rise::print_expr(r);
  EXPECT_EQ(simplify_count(s, "exp("), 1) << s;
  EXPECT_TRUE(same_semantics(p, r));
}

// ---------------------------------------------------------------- licm

// A weight array built inside the loop that uses it is computed once, outside.
TEST(Licm, HoistsAConstantWeightArray) {
  std::string r = after("licm", R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(w: 4.f32 =>
  x |> map(fun(a => w |> map(fun(c => c * 0.5f)) |> map(fun(c => c * a)) |> reduce(add)(0.0f))))))
)");
  // the scaled weights are bound before the loop over x
  EXPECT_TRUE(r.find("c * 0.5f") < r.find("x |> map")) << r;
  EXPECT_TRUE(has(r, "let inv")) << r;
}

TEST(Licm, KeepsTermsOfTheElement) {
  std::string r = after("licm", R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => exp(a) + 1.0f))))
)");
  EXPECT_FALSE(has(r, "let")) << r;
}

// ---------------------------------------------------------------- refuse

// Two maps over the same array become one loop producing a pair.
TEST(Refuse, FusesMapsOverTheSameArray) {
  std::string r = after_all({"refuse", "partialEval"}, R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let u = x |> map(fun(a => exp(a))) in let w = x |> map(fun(a => log(a))) in zip(u)(w)))
)");
  EXPECT_EQ(simplify_count(r, "map("), 1) << r;
  EXPECT_FALSE(has(r, "zip(")) << r;
}

// An array read once by a map is fused into it; fission's pairs are taken apart again.
TEST(Refuse, UndoesFission) {
  const char* text = R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => let b = exp(a) in let c = log(b + a) in b * c))))
)";
  rise::Expr p = prog(text, simplify_n8);
  rise::Expr r = apply_ok(seq_all({lib("AiNF"), lib("refuse"), lib("partialEval")}), p);
  EXPECT_TRUE(rise::alpha_equal(r, p)) << rise::print_expr(r);
}

// ---------------------------------------------------------------- simplify

// The issue's example: a map computing a pair of which only the first part is used.
TEST(Simplify, IssueExampleKeepsOneExp) {
  std::string r = after("simplify", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(exp(a)))) in y |> map(fst)))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 1) << r;
  EXPECT_FALSE(has(r, "makePair")) << r;
  EXPECT_FALSE(has(r, "let")) << r;  // let y = map(exp)(x) in y is map(exp)(x)
}

TEST(Simplify, ConstantsFoldedThenShared) {
  std::string r = after("simplify", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => exp(a * (1.0f + 1.0f)) + exp(a * 2.0f)))))
)");
  EXPECT_EQ(simplify_count(r, "exp("), 1) << r;
}

std::vector<std::pair<std::string, rise::SizeMap>> example_files() {
  return {{"asum", {{"n", 16}}},
          {"blackscholes", {{"n", 16}}},
          {"conv1d", {{"n", 12}}},
          {"dot", {{"n", 16}}},
          {"gemv", {{"n", 4}, {"m", 8}}},
          {"jacobi3", {{"n", 5}, {"m", 4}}},
          {"mm", {{"n", 4}, {"m", 4}, {"k", 4}}},
          {"scal", {{"n", 16}}}};
}

// Every pass keeps the examples' results and types; simplify is idempotent.
TEST(Simplify, ExamplesKeepTheirResultsAndSimplifyIsIdempotent) {
  for (const auto& [name, sizes] : example_files()) {
    SCOPED_TRACE(name);
    std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/examples/" + name + "/" + name + ".rise");
    std::stringstream ss;
    ss << in.rdbuf();
    rise::Expr p = prog(ss.str(), sizes);
    for (const char* pass : {"partialEval", "AiNF", "dce", "cse", "licm", "refuse", "simplify"}) {
      SCOPED_TRACE(pass);
      rise::Expr r = apply_ok(lib(pass), p);
      EXPECT_TRUE(well_typed(r));
      EXPECT_TRUE(same_semantics(p, r, 1e-4, 1e-5, 2));
    }
    rise::Expr once = apply_ok(lib("simplify"), p);
    rise::Expr twice = apply_ok(lib("simplify"), once);
    EXPECT_TRUE(rise::alpha_equal(once, twice)) << rise::print_expr(once) << "\nthen\n"
                                                << rise::print_expr(twice);
  }
}

// Generated programs (the pipeline fuzzer's generator, seeded bytes): every pass keeps
// the interpreter's results and the program's type; simplify is idempotent.
TEST(Simplify, GeneratedProgramsKeepTheirResults) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  std::mt19937_64 rng(20261125);
  int changed = 0;
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<uint8_t> bytes(64 + rng() % 192);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    FuzzedDataProvider in(bytes.data(), bytes.size());
    std::string text = risec::fuzz::generate_program(in);
    SCOPED_TRACE(text);
    rise::Expr p = prog(text, {{"n", 3}});
    for (const char* pass : {"partialEval", "AiNF", "dce", "cse", "licm", "refuse", "simplify"}) {
      SCOPED_TRACE(pass);
      rise::Expr r = apply_ok(lib(pass), p);
      if (r == p) continue;
      ++changed;
      EXPECT_TRUE(well_typed(r));
      EXPECT_TRUE(same_semantics(p, r, 1e-3, 1e-4, 1));
    }
    rise::Expr once = apply_ok(lib("simplify"), p);
    EXPECT_TRUE(rise::alpha_equal(once, apply_ok(lib("simplify"), once)));
  }
  EXPECT_GT(changed, 10);  // the passes must actually rewrite generated programs
#endif
}

// The generator reaches the language's later additions (with-loops, masks on
// vectors, && / || / !), and the passes keep the results of those programs too.
TEST(Simplify, GeneratedWithLoopsAndMasksKeepTheirResults) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  std::mt19937_64 rng(20261126);
  int with_loops = 0, vector_masks = 0, scalar_conditions = 0;
  for (int trial = 0; trial < 400 && (with_loops < 12 || vector_masks < 4); ++trial) {
    std::vector<uint8_t> bytes(64 + rng() % 192);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    FuzzedDataProvider in(bytes.data(), bytes.size());
    std::string text = risec::fuzz::generate_program(in);
    const bool with = text.find("with {") != std::string::npos;
    const bool masks = text.find("asVector(") != std::string::npos;
    scalar_conditions += text.find("&&") != std::string::npos && !masks;
    if (!with && !masks) continue;
    with_loops += with;
    vector_masks += masks;
    SCOPED_TRACE(text);
    rise::Expr p = prog(text, {{"n", 2}});
    rise::Expr r = apply_ok(lib("simplify"), p);
    EXPECT_TRUE(well_typed(r));
    EXPECT_TRUE(same_semantics(p, r, 1e-3, 1e-4, 1));
  }
  EXPECT_GE(with_loops, 12);
  EXPECT_GE(vector_masks, 4);
  EXPECT_GT(scalar_conditions, 0);
#endif
}

}  // namespace
}  // namespace risec::elevate::testing
