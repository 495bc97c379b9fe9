// The boxed evaluator's invariant subterms (docs/architecture.md, "Invariant
// subterms"): a subterm of a lambda's body that uses neither its parameter nor
// anything bound inside it is evaluated at most once per closure, on first use. The
// work is counted (calls of a host function, the interpreter's own counter), never
// timed; results and faults are compared with the evaluation that does not hoist.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "support/diagnostics.h"
#include "support/random.h"

namespace risec::rise {
namespace {

Checked hoist_check_text(const std::string& text, const SizeMap& sizes = {}) {
  auto src = std::make_shared<SourceFile>(SourceFile{"hoist.rise", text});
  return check_program(parse_program(src), "", &sizes);
}

// The value, or the error's message, of `e` on `inputs` with the boxed evaluator.
std::string outcome(const Expr& e, const std::vector<Value>& inputs, bool hoist,
                    uint64_t* evaluations = nullptr) {
  Interpreter interp;
  interp.fast_path = false;
  interp.hoist_invariants = hoist;
  std::string r;
  try {
    r = interp.run(e, inputs).to_string();
  } catch (const Error& err) {
    r = std::string("error: ") + err.what();
  }
  if (evaluations) *evaluations = interp.invariant_evaluations;
  return r;
}

// sum(map(g)(xs)) does not depend on x: g runs n times, not n * n.
TEST(InterpHoist, InvariantSubtermRunsOncePerClosure) {
  const int n = 16;
  Checked c = hoist_check_text("def main = fun(g => fun(xs: " + std::to_string(n) +
                               ".f32 => xs |> map(fun(x => x + (xs |> map(g) |> "
                               "reduce(add)(0.0f))))))");
  for (bool hoist : {true, false}) {
    Interpreter interp;
    interp.fast_path = false;
    interp.hoist_invariants = hoist;
    int calls = 0;
    Value g = Value::native("g", [&](const Value& v) {
      ++calls;
      return v;
    });
    std::vector<float> xs(n, 1.0f);
    ArrayBuilder b(scalar(ScalarKind::F32), n);
    for (float x : xs) b.push(Value::f32(x));
    Value r = interp.apply(interp.eval(c.expr), g, b.finish());
    EXPECT_EQ(r.at(0).to_string(), "17f");
    EXPECT_EQ(calls, hoist ? n : n * n) << "hoist " << hoist;
    EXPECT_EQ(interp.invariant_evaluations, hoist ? 1u : 0u);
  }
}

// The program: a with-loop's default array sits inside the lambdas over the
// output's blocks. Its evaluations do not grow with the output (they did: one whole
// default array per output element); the result is the same as without hoisting.
TEST(InterpHoist, MultigridDefaultArrayIsBuiltOnce) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/examples/multigrid/multigrid.rise");
  std::stringstream text;
  text << in.rdbuf();
  uint64_t evals[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const int64_t n = k == 0 ? 4 : 8;
    Checked c = hoist_check_text(text.str(), {{"n", n}, {"m", n}});
    Value in0 = random_input(entry_signature(c.type).params[0], 7);
    std::string hoisted = outcome(c.expr, {in0}, true, &evals[k]);
    EXPECT_EQ(hoisted, outcome(c.expr, {in0}, false));
    EXPECT_EQ(hoisted.rfind("error", 0), std::string::npos) << hoisted;
  }
  EXPECT_GT(evals[0], 0u);
  // (linear in the number of blocks, not in the number of elements)
  EXPECT_LE(evals[1], 2 * evals[0] + 2);
}

// Random programs with invariant subterms inside map lambdas: some fault (division by
// zero), some sit in a select's untaken branch or in a map over an empty array, some
// depend on an outer lambda's parameter. Hoisting changes neither values nor faults.
TEST(InterpHoist, HoistingChangesNoResultNorFault) {
  runtime::Rng rng(2026);
  auto pick = [&](int k) { return static_cast<int>(rng.next() % static_cast<uint64_t>(k)); };
  int faults = 0, values = 0, hoisted_runs = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const int nx = pick(4), ny = pick(4);
    // an invariant of the inner lambdas (uses xs, ys, and in some cases x)
    auto inv = [&](bool may_use_x) -> std::string {
      const std::string d = std::to_string(pick(3));  // 0: a division by zero
      switch (pick(may_use_x ? 6 : 5)) {
        case 0:
          return "(xs |> map(fun(z => z / " + d + ")) |> reduce(add)(0))";
        case 1:
          return "(ys |> reduce(add)(" + std::to_string(pick(5)) + "))";
        case 2:
          return "(ys |> reduce(fun(a => fun(b => a + b % " + d + ")))(1))";
        case 3:
          return "(xs |> map(fun(z => z * 2)) |> reduce(add)(0))";
        case 4:
          return "(generate(fun(i: idx[3] => 7 / " + d + ")) |> reduce(add)(0))";
        default:
          return "(xs |> map(fun(z => z + x)) |> reduce(add)(0))";
      }
    };
    auto scalar = [&](const std::string& v) -> std::string {
      const std::string k = std::to_string(pick(100));
      switch (pick(4)) {
        case 0:
          return v + " + " + inv(true);
        case 1:
          return "select(" + v + " > " + k + ")(" + inv(true) + ")(" + v + ")";
        case 2:
          return "select(" + v + " < " + k + ")(" + v + ")(" + inv(true) + " * y)";
        default:
          return "(" + inv(true) + " |> fun(w => w - " + v + "))";
      }
    };
    std::string body;
    if (pick(2) == 0) {
      body = "ys |> map(fun(x => let y = x in " + scalar("x") + "))";
    } else {
      body = "ys |> map(fun(x => xs |> map(fun(y => " + scalar("y") + "))))";
    }
    const std::string text = "def main = fun(xs: " + std::to_string(nx) +
                             ".i32 => fun(ys: " + std::to_string(ny) + ".i32 => " + body + "))";
    Checked c;
    try {
      c = hoist_check_text(text);
    } catch (const Error& e) {
      FAIL() << text << "\n" << e.what();
    }
    EntrySignature sig = entry_signature(c.type);
    std::vector<Value> inputs;
    for (size_t i = 0; i < sig.params.size(); ++i)
      inputs.push_back(random_input(sig.params[i], runtime::derive_seed(iter, i)));
    uint64_t evals = 0;
    std::string with = outcome(c.expr, inputs, true, &evals);
    std::string without = outcome(c.expr, inputs, false);
    EXPECT_EQ(with, without) << text;
    (with.rfind("error", 0) == 0 ? faults : values) += 1;
    hoisted_runs += evals > 0;
  }
  // the generator reaches both outcomes, and hoisting happens
  EXPECT_GT(faults, 10);
  EXPECT_GT(values, 10);
  EXPECT_GT(hoisted_runs, 10);
}

}  // namespace
}  // namespace risec::rise
