// Functions bound by `let` (docs/language.md, "Functions as values"): `let g = fun(x =>
// x * 2.0f) in xs |> map(fun(x => g(x)))` compiles as the interpreter runs it, on the c
// and openmp targets: DPIA's functional translation binds g to the lambda, as it does
// for the redex (fun(g => ...))(fun(x => ...)), instead of storing a function. Named
// cases (a held-out tester's), and random chains of let-bound functions that call one
// another, are passed to higher-order definitions and applied twice.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

void expect_compiles_and_agrees(const std::string& name, const std::string& program) {
  SCOPED_TRACE(program);
  const std::string file = write_scratch(name + ".rise", program);
  for (const char* target : {"c", "openmp"}) {
    CheckOptions o;
    o.target = target;
    try {
      CheckReport r = run_and_compare(file, "", "n=13", o);
      EXPECT_TRUE(r.comparison.ok) << target << ": " << r.comparison.first_mismatch;
    } catch (const Error& e) {
      ADD_FAILURE() << target << ": " << e.message();
    }
  }
}

TEST(LetFunctions, NamedCases) {
  const char* const head = "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n  ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"let_fun", "let g = fun(x => x * 2.0f) in xs |> map(fun(x => g(x)))))"},
      {"let_fun_direct", "let g = fun(x => x * 2.0f) in xs |> map(g)))"},
      {"let_fun_twice", "let g = fun(x => x * 2.0f) in xs |> map(fun(x => g(g(x)) + g(1.0f)))))"},
      {"let_fun_alias", "let g = fun(x => x - 1.0f) in let h = g in xs |> map(fun(x => h(x)))))"},
      {"let_partial", "let g = mul(3.0f) in xs |> map(fun(x => g(x) + 1.0f))))"},
      {"let_operator",
       "let op = fun(a => fun(b => a + b * 0.5f)) in xs |> map(fun(x => op(x)(x))) |> "
       "reduce(op)(0.0f)))"},
      {"let_fun_and_value",
       "let s = xs |> reduce(add)(0.0f) in let g = fun(x => x * s) in xs |> map(g)))"},
  };
  for (const auto& [name, body] : cases) expect_compiles_and_agrees(name, head + body);
  // A def-bound function used the same way, and one passed twice to a definition.
  expect_compiles_and_agrees("def_fun",
                             "def g = fun(x => x * 2.0f)\n"
                             "def f = depFun((n: Nat) => fun(xs: n.f32 => xs |> "
                             "map(fun(x => g(x)))))");
  expect_compiles_and_agrees("passed_twice",
                             "def app2 = fun(k => fun(x => k(k(x))))\n"
                             "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n"
                             "  let g = fun(x => x * 2.0f) in "
                             "xs |> map(fun(x => app2(g)(x) + app2(g)(1.0f)))))");
}

// Random programs: up to four let-bound functions, each calling earlier ones (or
// passing them to `twice`, bound by def or by let), applied in a map's body.
TEST(LetFunctions, RandomChainsMatchTheInterpreter) {
  std::mt19937 rng(20261129);
  auto below = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int kCases = 24;
  for (int k = 0; k < kCases; ++k) {
    const int count = 1 + below(4);
    // A use of function j (or of x when none is defined yet) on `arg`.
    auto call = [&](int defined, const std::string& arg) -> std::string {
      if (defined == 0) return arg;
      const std::string g = "g" + std::to_string(below(defined));
      switch (below(3)) {
        case 0:
          return g + "(" + arg + ")";
        case 1:
          return "twice(" + g + ")(" + arg + ")";
        default:
          return g + "(" + g + "(" + arg + "))";
      }
    };
    std::string body;
    for (int i = 0; i < count; ++i) {
      const std::string c = std::to_string(1 + below(5)) + ".0f";
      const std::string inner = call(i, "x");
      const std::string e = below(2) ? inner + " * 0.5f + " + c : c + " - " + inner;
      body += "  let g" + std::to_string(i) + " = fun(x => " + e + ") in\n";
    }
    body += "  xs |> map(fun(x => " + call(count, "x") + " + " + call(count, "1.0f") + "))))\n";
    // `twice` by def (inlined) or, where it is used (an unused let has no type), by
    // let (converted where it is applied)
    const bool let_twice = below(2) == 1 && body.find("twice(") != std::string::npos;
    const std::string text = let_twice ? "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n"
                                         "  let twice = fun(k => fun(y => k(k(y)))) in\n" +
                                             body
                                       : "def twice = fun(k => fun(y => k(k(y))))\n"
                                         "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n" +
                                             body;
    expect_compiles_and_agrees("let_chain_" + std::to_string(k), text);
  }
}

// Let-bound functions that take functions (docs/language.md, "Functions as values"):
// they compile where they are applied, in the scope of their let. Named cases: the
// issue's `twice`, composition, a function taking its function second, a let-bound
// higher-order function passed on to a definition and renamed by a let, and names
// shadowed between the let and its use (the lambda must see the let's `s`, not the
// map's).
TEST(LetFunctions, LetBoundHigherOrderFunctionsCompile) {
  const char* const head = "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n  ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"let_twice", "let twice = fun(k => fun(x => k(k(x)))) in xs |> map(twice(mul(3.0f)))))"},
      {"let_twice_lambda",
       "let twice = fun(k => fun(x => k(k(x)))) in "
       "xs |> map(fun(x => twice(fun(y => y * 0.5f + 1.0f))(x) - twice(neg)(x)))))"},
      {"let_compose",
       "let compose = fun(p => fun(q => fun(x => p(q(x))))) in let g = fun(x => x + 2.0f) in "
       "xs |> map(compose(g)(fun(x => x * x)))))"},
      {"let_function_second",
       "let at = fun(x => fun(k => k(x) + 1.0f)) in xs |> map(fun(x => at(x)(fun(y => y * "
       "3.0f))))))"},
      {"let_alias",
       "let twice = fun(k => fun(x => k(k(x)))) in let t = twice in "
       "xs |> map(t(fun(y => y - 1.0f)))))"},
      {"let_shadowed",
       "let s = 2.0f in let scale = fun(k => fun(x => k(x) * s)) in "
       "xs |> map(fun(s => scale(fun(y => y + s))(s)))))"},
      {"let_nested_higher",
       "let twice = fun(k => fun(x => k(k(x)))) in let four = fun(k => twice(twice(k))) in "
       "xs |> map(four(fun(y => y * 0.5f)))))"},
      {"let_higher_reduce",
       "let fold = fun(op => fun(v => v |> reduce(op)(0.0f))) in "
       "let s = fold(add)(xs) in xs |> map(fun(x => x - s))))"},
  };
  for (const auto& [name, body] : cases) expect_compiles_and_agrees(name, head + body);
  expect_compiles_and_agrees(
      "let_passed_to_def",
      "def app = fun(t => fun(x => t(fun(y => y + 1.0f))(x)))\n"
      "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n"
      "  let twice = fun(k => fun(x => k(k(x)))) in xs |> map(app(twice))))");
}

TEST(LetFunctions, RunCheckThroughTheCommandLine) {
  const std::string file =
      write_scratch("let_fun_cli.rise",
                    "def f = depFun((n: Nat) => fun(xs: n.f32 =>\n"
                    "  let g = fun(x => x * 2.0f) in xs |> map(fun(x => g(x)))))\n");
  CliResult run = run_risec({"run", file, "--size", "n=8", "--check"});
  EXPECT_EQ(run.exit_code, 0) << show(run);
  EXPECT_NE(run.out.find("check: passed"), std::string::npos) << show(run);
  CliResult compile = run_risec({"compile", file});
  EXPECT_EQ(compile.exit_code, 0) << show(compile);
}

}  // namespace
}  // namespace risec::e2e
