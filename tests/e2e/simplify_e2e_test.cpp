// The simplification passes end to end: `simplify ; lowerToC` compiles the examples
// to C that computes what the interpreter computes, a naive Black-Scholes loses its
// repeated transcendental calls, and `risec rewrite` prints the simplified program.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// Black-Scholes written naively: calls and puts as separate maps, no shared names.
const char* kNaiveBlackScholes = R"(
def cnd = fun(x => 0.5f * (1.0f + erf(x / sqrt(2.0f))))
def bs = depFun(n: Nat =>
  fun(S: n.f32 => fun(K: n.f32 => fun(T: n.f32 => fun(r: f32 => fun(v: f32 =>
    let calls = zip(S)(zip(K)(T)) |> map(fun(o =>
      o._1 * cnd((log(o._1 / o._2._1) + (r + 0.5f * v * v) * o._2._2) / (v * sqrt(o._2._2)))
      - o._2._1 * exp(-r * o._2._2)
        * cnd((log(o._1 / o._2._1) + (r + 0.5f * v * v) * o._2._2) / (v * sqrt(o._2._2))
              - v * sqrt(o._2._2)))) in
    let puts = zip(S)(zip(K)(T)) |> map(fun(o =>
      o._2._1 * exp(-r * o._2._2)
        * cnd(-((log(o._1 / o._2._1) + (r + 0.5f * v * v) * o._2._2) / (v * sqrt(o._2._2))
                - v * sqrt(o._2._2)))
      - o._1 * cnd(-((log(o._1 / o._2._1) + (r + 0.5f * v * v) * o._2._2)
                     / (v * sqrt(o._2._2)))))) in
    zip(calls)(puts)))))))
)";

TEST(SimplifyE2E, ExamplesCompileAndMatchTheInterpreter) {
  for (const char* name : {"blackscholes", "dot", "gemv", "conv1d", "jacobi3", "asum"}) {
    SCOPED_TRACE(name);
    const std::string file = std::string("examples/") + name + "/" + name + ".rise";
    EXPECT_TRUE(compile_and_check(file, "simplify ; lowerToC", example_sizes().at(name)));
  }
}

// Golden counts of calls in the generated C: AiNF's fission lets cse share d1 and
// v*sqrt(T) across the call and put loops, and re-fusion makes them one loop again
// whose body shares the discounted strike too: the hand-shared example's counts
// (one log, sqrtf and exp, four erff per option) and its number of loops. f32 log and
// exp call risec's helpers (docs/codegen.md), each also named once where it is defined.
TEST(SimplifyE2E, NaiveBlackScholesSharesAcrossLoops) {
  std::string file = write_scratch("naive_bs.rise", kNaiveBlackScholes);
  CheckReport plain = run_and_compare(file, "lowerToC", "n=64");
  CheckReport simple = run_and_compare(file, "simplify ; lowerToC", "n=64");
  CheckReport shared =
      run_and_compare("examples/blackscholes/blackscholes.rise", "simplify ; lowerToC", "n=64");
  EXPECT_TRUE(plain.comparison.ok);
  EXPECT_TRUE(simple.comparison.ok);
  EXPECT_TRUE(shared.comparison.ok);
  const std::string& before = plain.compiled.unit.source;
  const std::string& after = simple.compiled.unit.source;
  EXPECT_EQ(occurrences(before, "risec_log_f32("), 1 + 4);
  EXPECT_GT(occurrences(before, "for ("), occurrences(after, "for ("));
  for (const char* f : {"risec_log_f32(", "risec_exp_f32(", "erff(", "sqrtf(", "for ("}) {
    SCOPED_TRACE(f);
    EXPECT_EQ(occurrences(after, f), occurrences(shared.compiled.unit.source, f)) << after;
  }
  EXPECT_EQ(occurrences(after, "risec_log_f32("), 1 + 1) << after;
  EXPECT_EQ(occurrences(after, "risec_exp_f32("), 1 + 1) << after;
  EXPECT_EQ(occurrences(after, "erff("), 4) << after;
  EXPECT_EQ(occurrences(after, "sqrtf("), 1) << after;
  EXPECT_EQ(occurrences(after, "for ("), 1) << after;
}

// The number of loops (`for (` blocks) open at position pos of generated C.
int loop_depth_at(const std::string& src, size_t pos) {
  std::vector<bool> blocks;
  bool pending = false;
  for (size_t i = 0; i < pos && i < src.size(); ++i) {
    if (src.compare(i, 5, "for (") == 0) pending = true;
    if (src[i] == '{') {
      blocks.push_back(pending);
      pending = false;
    } else if (src[i] == '}' && !blocks.empty()) {
      blocks.pop_back();
    }
  }
  return static_cast<int>(std::count(blocks.begin(), blocks.end(), true));
}

// The deepest loop nest around a call of `fn`.
int deepest(const std::string& src, const std::string& fn) {
  int d = -1;
  for (size_t i = src.find(fn); i != std::string::npos; i = src.find(fn, i + 1))
    d = std::max(d, loop_depth_at(src, i));
  return d;
}

int temporaries(const std::string& src) {
  return occurrences(src, "__attribute__((aligned");
}

// The paper's figure-2 examples written naively, compiled with the default lowering
// (which simplifies), against the same computations written with the sharing done
// by hand: the same transcendental calls, loops and temporaries, each call as deeply
// nested; without simplify the naive code does more.
struct Figure2 {
  const char* example;
  const char* sizes;
  const char* shared;  // the hand-shared program
};

const Figure2 kFigure2[] = {
    {"bsnaive", "n=64", nullptr},  // shared: examples/blackscholes
    {"dense", "n=16,m=8", R"(
def dense = depFun((n: Nat, m: Nat) =>
  fun(W: m.n.f32 => fun(b: m.f32 => fun(x: n.f32 =>
    let ex = x |> map(fun(a => exp(a))) in
    zip(W)(b) |> map(fun(wb =>
      let z = (zip(wb._1)(ex) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f)) + wb._2 in
      z * (1.0f / (1.0f + exp(-z)))))))))
)"},
    {"gaussconv", "n=37", R"(
def gaussconv = depFun(n: Nat =>
  fun(x: (n+4).f32 => fun(o: 5.f32 =>
    let w = o |> map(fun(d => exp(-d * d / 2.0f))) in
    x |> slide(5)(1) |> map(fun(win =>
      zip(win)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
)"},
};

TEST(SimplifyE2E, Figure2ExamplesCompileLikeTheirSharedVersions) {
  for (const Figure2& f : kFigure2) {
    SCOPED_TRACE(f.example);
    const std::string file = std::string("examples/") + f.example + "/" + f.example + ".rise";
    std::string shared_file = f.shared
                                  ? write_scratch(std::string(f.example) + "_shared.rise", f.shared)
                                  : "examples/blackscholes/blackscholes.rise";
    // Loops counted as written: without the blocks of shifted tails, which only the
    // innermost loops get (the naive code's, not its unsimplified version's).
    CheckOptions o;
    o.shift_tails = false;
    CheckReport naive = run_and_compare(file, "", f.sizes, o);
    CheckReport plain = run_and_compare(file, "lowerToC", f.sizes, o);
    CheckReport shared = run_and_compare(shared_file, "", f.sizes, o);
    EXPECT_TRUE(naive.comparison.ok);
    EXPECT_TRUE(plain.comparison.ok);
    EXPECT_TRUE(shared.comparison.ok);
    const std::string& a = naive.compiled.unit.source;
    const std::string& p = plain.compiled.unit.source;
    const std::string& s = shared.compiled.unit.source;
    int work = 0, extra = 0;  // calls (weighted by nesting) the naive code does more
    for (const char* fn : {"risec_exp_f32(", "risec_log_f32(", "erff(", "sqrtf(", "for ("}) {
      SCOPED_TRACE(fn);
      EXPECT_EQ(occurrences(a, fn), occurrences(s, fn)) << a;
      EXPECT_EQ(deepest(a, fn), deepest(s, fn)) << a;
      work += occurrences(a, fn) + deepest(a, fn);
      extra += occurrences(p, fn) + deepest(p, fn);
    }
    EXPECT_EQ(temporaries(a), temporaries(s)) << a;
    EXPECT_GT(extra, work) << p;
  }
}

TEST(SimplifyE2E, RewritePrintsTheSimplifiedProgram) {
  std::string prog = write_scratch("pairs.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(exp(a)))) in y |> map(fst)))
)");
  std::string strategy = write_scratch("simplify.elv", "simplify\n");
  CliResult r = run_risec({"rewrite", prog, "--strategy", strategy});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => exp(a)))))\n")
      << show(r);
}

// `--strategy simplify` names the library strategy when no file of that name exists.
TEST(SimplifyE2E, StrategyMayBeALibraryName) {
  std::string prog = write_scratch("pairs_named.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  let y = x |> map(fun(a => makePair(exp(a))(exp(a)))) in y |> map(fst)))
)");
  CliResult r = run_risec({"rewrite", prog, "--strategy", "simplify"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out, "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => exp(a)))))\n")
      << show(r);
  // A name that is no library strategy is still read as a file, and its error says so.
  CliResult bad = run_risec({"rewrite", prog, "--strategy", "simplfy"});
  EXPECT_EQ(bad.exit_code, 1) << show(bad);
  EXPECT_NE(bad.err.find("cannot read 'simplfy'"), std::string::npos) << show(bad);
  // A strategy that takes arguments needs a file.
  CliResult args = run_risec({"rewrite", prog, "--strategy", "tile"});
  EXPECT_EQ(args.exit_code, 1) << show(args);
}

// A stored map making pairs of two computations: AiNF splits it into two lets and a
// zip of them, leaving the program's toMem around stored values, which the lowering
// refused as storing nothing (held-out G); simplify now drops that toMem. A toMem the
// program wrote around an input is still refused, with or without simplify.
TEST(SimplifyE2E, AStoredMapOfPairsSplitIntoLetsLosesItsEmptyToMem) {
  std::string prog = write_scratch("stored_pairs.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(v => (v + 1.0f, v * 2.0f))) |> toMem |> map(fun(p => p._1 + p._2))))
)");
  for (const char* target : {"c", "openmp", "opencl"}) {
    CliResult r = run_risec({"run", prog, "--size", "n=37", "--check", "--target", target});
    EXPECT_EQ(r.exit_code, 0) << target << ": " << show(r);
  }
  CliResult kept = run_risec({"run", prog, "--size", "n=37", "--check", "--no-simplify"});
  EXPECT_EQ(kept.exit_code, 0) << show(kept);
  std::string input = write_scratch("stored_input.rise", R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> toMem |> map(fun(v => v * 2.0f))))
)");
  CliResult refused = run_risec({"run", input, "--size", "n=8"});
  EXPECT_EQ(refused.exit_code, 1) << show(refused);
  EXPECT_NE(refused.err.find("already in memory"), std::string::npos) << show(refused);
}

}  // namespace
}  // namespace risec::e2e
