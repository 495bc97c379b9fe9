// Let-bound functions in every position (docs/language.md, "Functions as values"): a
// function whose array result another primitive reads, one applied to its own result,
// one holding a with-loop or a stencil, a higher-order one passed to another let-bound
// one, under the default lowering and strategies that put parallel maps inside the
// shared `let`, on c, openmp and opencl, each checked against the interpreter (`run
// --check`). lowerToC inlines a function-valued `let` (util::beta_normalize_sharing),
// so that the store a read result needs is inserted; DPIA's functional translation,
// which still sees them under other strategies (`id`), gives every copy of a
// function's body fresh binders. A scalar let read across kernel launches lives in a
// device buffer; a let used at two types is an error that says so.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../driver/sanitized_sample.h"
#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string letpos_read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* const kHead = "def f = depFun(n: Nat => fun(xs: n.f32 =>\n";

struct Variant {
  const char* target;
  const char* strategy;  // "" for the default lowering
};

void expect_checks(const std::string& file, const Variant& r, const std::string& what) {
  std::vector<std::string> args = {"run", file, "--size", "n=9", "--target", r.target, "--check"};
  if (*r.strategy) {
    args.push_back("--strategy");
    args.push_back(r.strategy);
  }
  // Nothing here is refused: every parallel map `outermost` finds is a kernel of its
  // own once lowerToC shares each let-bound function's argument (a refusal "launches a
  // kernel per top-level parallel map" meant a function's argument was substituted into
  // a with-loop's generate, recomputed per element there).
  CliResult res = run_risec(args);
  EXPECT_EQ(res.exit_code, 0) << what << " on " << r.target << " with '" << r.strategy << "'\n"
                              << show(res);
  EXPECT_NE(res.out.find("check: passed"), std::string::npos) << what << "\n" << show(res);
}

const std::vector<Variant>& all_runs() {
  static const std::vector<Variant> runs = {
      {"c", ""},      {"c", "DFNF ; lowerToC"},
      {"openmp", ""}, {"openmp", "try(mapPar @ outermost(isApplied(isMap))) ; lowerToC"},
      {"opencl", ""}, {"opencl", "try(mapGlobal(0) @ outermost(isApplied(isMap))) ; lowerToC"},
  };
  return runs;
}

// The cases, each on every target and strategy above.
TEST(LetFunctionPositions, NamedCases) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // A: a with-loop in a function applied to its own result
      {"wl_twice",
       "  let sm = fun(b => with { ([1] <= [i] < [n - 1]) : b[i - 1] + b[i + 1]; } : "
       "modarray(b)) in\n  sm(sm(xs))))"},
      // B: the array a let-bound function computes, read by a primitive
      {"read_by_reduce",
       "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in\n"
       "  sc(xs) |> reduce(add)(0.0f)))"},
      {"read_by_map",
       "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in sc(xs) |> map(fun(y => y - "
       "1.0f))))"},
      {"read_by_zip",
       "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in\n"
       "  zip(sc(xs))(xs) |> map(fun(p => p._1 * p._2))))"},
      {"read_twice",
       "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in sc(sc(xs)) |> map(fun(y => y - "
       "1.0f))))"},
      {"stencil",
       "  let w3 = fun(w => (w[0] + w[1] + w[2]) / 3.0f) in\n"
       "  let st = fun(k => fun(a => a |> padClamp(1)(1) |> slide(3)(1) |> map(k))) in\n"
       "  st(w3)(st(w3)(xs))))"},
      // C: a let-bound higher-order function passed to another one
      {"hof_to_hof",
       "  let twice = fun(k => fun(x => k(k(x)))) in\n"
       "  let app = fun(h => fun(v => h(fun(z => z * 2.0f))(v))) in\n"
       "  xs |> map(fun(v => app(twice)(v)))))"},
      {"hof_to_hof_unapplied",
       "  let twice = fun(k => fun(x => k(k(x)))) in\n"
       "  let app = fun(h => fun(v => h(fun(z => z * 2.0f))(v))) in xs |> map(app(twice))))"},
      // A with-loop function applied to its own result on a parallel map's result: the
      // inner application's argument must stay shared (a let), not be substituted into
      // the outer with-loop (which put the parallel map inside a sequential loop).
      {"wl_of_wl_of_map",
       "  let sm = fun(b => with { ([1] <= [i] < [n - 1]) : b[i - 1] + b[i + 1]; } : "
       "modarray(b)) in\n"
       "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in\n  sm(sm(sc(xs)))))"},
      // D: a scalar let read inside a kernel
      {"scalar_in_kernel", "  let c = 5.0f in xs |> map(fun(v => v + c))))"},
  };
  for (const auto& [name, body] : cases) {
    const std::string file = write_scratch("letpos_" + name + ".rise", kHead + body + "\n");
    for (const Variant& r : all_runs()) expect_checks(file, r, name);
  }
}

// lowerToC computes a let-bound function's argument once: the map under two with-loops
// is in the lowered program once, not once per use of the with-loop's parameter.
TEST(LetFunctionPositions, SharedArgumentIsComputedOnce) {
  const std::string file = write_scratch(
      "letpos_shared_arg.rise",
      std::string(kHead) +
          "  let sm = fun(b => with { ([1] <= [i] < [n - 1]) : b[i - 1] + b[i + 1]; } : "
          "modarray(b)) in\n"
          "  let sc = fun(v => v |> map(fun(x => x * 7.0f))) in\n  sm(sm(sc(xs)))))\n");
  CliResult r = run_risec({"rewrite", file, "--strategy", "lowerToC"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const size_t first = r.out.find("x * 7.0f");
  ASSERT_NE(first, std::string::npos) << show(r);
  EXPECT_EQ(r.out.find("x * 7.0f", first + 1), std::string::npos) << show(r);
}

// Without lowerToC (strategy `id`) DPIA converts the let-bound functions itself: a
// body applied twice must not share binders (A), and a let-bound higher-order function
// passed to another must stay known (C).
TEST(LetFunctionPositions, WithoutInliningByTheStrategy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"wl_twice_id",
       "  let sm = fun(b => with { ([1] <= [i] < [n - 1]) : b[i - 1] + b[i + 1]; } : "
       "modarray(b)) in\n  sm(sm(xs))))"},
      {"wl_thrice_id",
       "  let sm = fun(b => with { ([1] <= [i] < [n - 1]) : b[i - 1] * 0.5f + b[i + 1]; } : "
       "modarray(b)) in\n  sm(sm(sm(xs)))))"},
      {"hof_to_hof_id",
       "  let twice = fun(k => fun(x => k(k(x)))) in\n"
       "  let app = fun(h => fun(v => h(fun(z => z * 2.0f))(v))) in\n"
       "  xs |> map(fun(v => app(twice)(v) + app(twice)(1.0f)))))"},
  };
  for (const auto& [name, body] : cases) {
    const std::string file = write_scratch("letpos_" + name + ".rise", kHead + body + "\n");
    for (const char* target : {"c", "openmp"}) expect_checks(file, Variant{target, "id"}, name);
  }
}

// D: a scalar let computed outside every kernel and read inside one: the one-work-item
// kernel computing it writes it to a device buffer of one element, which the parallel
// kernel reads (two launches).
TEST(LetFunctionPositions, ScalarAcrossKernelLaunchesRuns) {
  const std::string file = write_scratch(
      "letpos_scalar_across.rise",
      std::string(kHead) + "  let cc = xs[0] * 5.0f in xs |> map(fun(v => v + cc))))\n");
  const std::string strategy = "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC";
  CliResult r = run_risec(
      {"run", file, "--size", "n=9", "--target", "opencl", "--strategy", strategy, "--check"});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  const std::string out = scratch_path("letpos_scalar_across");
  r = run_risec(
      {"compile", file, "--size", "n=9", "--target", "opencl", "--strategy", strategy, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  const std::string cl = letpos_read_file(out + ".cl");
  EXPECT_EQ(occurrences(cl, "__kernel void "), 2) << cl;
  EXPECT_EQ(occurrences(cl, "__global float* restrict cc"), 1) << cl;  // written by the first
}

// E: a let is monomorphic: a let-bound function used at two types is a type error
// (exit 1) that says so: the name, both types and both uses, located at the second,
// and what to write instead; not where unification happened to meet the two.
TEST(LetFunctionPositions, LetIsMonomorphic) {
  const std::string file =
      write_scratch("letpos_poly.rise",
                    "def f = depFun(n: Nat => fun(xs: n.f32 => fun(is: n.i32 =>\n"
                    "  let ident = fun(x => x) in\n"
                    "  zip(xs |> map(ident))(is |> map(ident)))))\n");
  CliResult r = run_risec({"run", file, "--size", "n=4"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("letpos_poly.rise:3:35: error: 'ident' is bound by a let, which gives it "
                       "one type, but it is used at two: f32 -> f32 (at 3:17) and i32 -> i32 (at "
                       "3:35); write one let per type"),
            std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("the let of 'ident' is at 2:7"), std::string::npos) << show(r);

  // twice(twice): one use's type is the other's argument type (unification alone says
  // "infinite type")
  const std::string twice =
      write_scratch("letpos_twice.rise", std::string(kHead) +
                                             "  let twice = fun(k => fun(x => k(k(x)))) in\n"
                                             "  let four = twice(twice) in\n"
                                             "  xs |> map(four(fun(x => x * 2.0f)))))\n");
  r = run_risec({"check", twice});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_EQ(r.err.find("infinite type"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("letpos_twice.rise:3:20: error: 'twice' is bound by a let"),
            std::string::npos)
      << show(r);
  EXPECT_NE(r.err.find("((f32 -> f32) -> f32 -> f32) -> (f32 -> f32) -> f32 -> f32 (at "
                       "3:14) and (f32 -> f32) -> f32 -> f32 (at 3:20)"),
            std::string::npos)
      << show(r);

  // Two sizes are two types too; with --size they are numbers.
  const std::string sizes = write_scratch(
      "letpos_sizes.rise", std::string(kHead) +
                               "  let sc = fun(v => v |> map(fun(x => x * 2.0f))) in\n"
                               "  concat(sc(xs))(sc(xs |> drop(1)))))\n");
  r = run_risec({"check", sizes});
  EXPECT_NE(r.err.find("used at two: n.f32 -> n.f32 (at 3:10) and (n - 1).f32 -> (n - 1).f32 "
                       "(at 3:18)"),
            std::string::npos)
      << show(r);
  r = run_risec({"check", sizes, "--size", "n=9"});
  EXPECT_NE(r.err.find("used at two: 9.f32 -> 9.f32"), std::string::npos) << show(r);

  // A let used once with the wrong type keeps unification's message.
  const std::string once =
      write_scratch("letpos_once.rise", std::string(kHead) +
                                            "  let g = fun(y => y + 1.0f) in\n"
                                            "  xs |> split(3) |> map(fun(r => g(r)))))\n");
  r = run_risec({"check", once, "--size", "n=9"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_EQ(r.err.find("is bound by a let"), std::string::npos) << show(r);
}

// Random programs: a chain of let-bound array functions (a map, a stencil, a with-loop,
// or one applying the previous function), each applied once, twice or through a
// let-bound higher-order function, whose results are read by reduce, map and zip, on
// every target. Every let is used (an unused one may have no type).
TEST(LetFunctionPositions, RandomProgramsMatchTheInterpreter) {
  std::mt19937 rng(20261129);
  auto below = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  // Under the sanitizers 4 of the 10 programs (driver/sanitized_sample.h).
  const size_t kCases = driver::per_build(10, 4);
  for (size_t k = 0; k < kCases; ++k) {
    const int count = 1 + below(3);
    bool post_used = false;
    // function g applied to arg: once, twice, or passed to the let-bound `post`
    auto use = [&](const std::string& g, const std::string& arg) -> std::string {
      switch (below(3)) {
        case 0:
          return g + "(" + arg + ")";
        case 1:
          return g + "(" + g + "(" + arg + "))";
        default:
          post_used = true;
          return "post(" + g + ")(" + arg + ")";
      }
    };
    std::string lets;
    for (int i = 0; i < count; ++i) {
      const std::string c = std::to_string(1 + below(4)) + ".0f";
      std::string body;
      switch (i == 0 ? below(3) : below(4)) {
        case 0:
          body = "v |> map(fun(x => x * 0.5f + " + c + "))";
          break;
        case 1:
          body = "v |> padClamp(1)(1) |> slide(3)(1) |> map(fun(w => (w[0] + w[2]) * 0.5f - " + c +
                 "))";
          break;
        case 2:
          body = "with { ([1] <= [i] < [n - 1]) : v[i - 1] + v[i + 1] * " + c + "; } : modarray(v)";
          break;
        default:
          body = use("a" + std::to_string(i - 1), "v") + " |> map(fun(x => x - " + c + "))";
          break;
      }
      lets += "  let a" + std::to_string(i) + " = fun(v => " + body + ") in\n";
    }
    // every function, applied in a chain from xs
    std::string e = "xs";
    for (int i = 0; i < count; ++i) e = use("a" + std::to_string(i), e);
    std::string result;
    switch (below(3)) {
      case 0:
        result = e + " |> reduce(add)(0.0f)";
        break;
      case 1:
        result = e + " |> map(fun(y => y * y))";
        break;
      default:
        result = "zip(" + e + ")(" + use("a0", "xs") + ") |> map(fun(p => p._1 - p._2))";
        break;
    }
    std::string text = kHead;
    if (post_used) text += "  let post = fun(g => fun(v => g(v) |> map(fun(x => x + 1.0f)))) in\n";
    text += lets + "  " + result + "))\n";
    SCOPED_TRACE(text);
    const std::string file = write_scratch("letpos_random" + std::to_string(k) + ".rise", text);
    // three runs per program (the default on c, then a target and strategy drawn from
    // the list, then one of the two opencl ones), to bound the time
    const std::vector<Variant>& runs = all_runs();
    expect_checks(file, runs[0], "random");
    expect_checks(file, runs[1 + static_cast<size_t>(below(static_cast<int>(runs.size()) - 1))],
                  "random");
    expect_checks(file, runs[runs.size() - 1 - static_cast<size_t>(below(2))], "random");
  }
}

}  // namespace
}  // namespace risec::e2e
