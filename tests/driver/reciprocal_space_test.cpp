// The division decision (reciprocalDivision) and the vectorize decision's `every map`
// option of the autoscheduler's space (driver/schedule_space.h, issue 34): over many
// generated row programs of softmax's shape (a reduction of the row, then a map
// dividing by it), the space holds both decisions, and every candidate taking one of
// them computes what the interpreter computes, at odd row lengths (remainders) and
// lengths the host's vectors divide alike; the rule itself keeps the interpreter's
// result within the tolerance and refuses a divisor that varies with the element.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/compile.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "sanitized_sample.h"
#include "support/files.h"

namespace risec::driver {
namespace {

rise::Program parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"gen.rise", text}));
}

// A softmax-like program: per row, a reduction `s` of f(v), then g(v) / s (or by a
// literal), chosen by `seed`.
std::string row_program(std::mt19937& rng) {
  const char* f[] = {"exp(v)", "v * v + 1.0f", "exp(v - 0.5f)"};
  const char* red[] = {"reduce(add)(0.0f)", "reduce(fmax)(-inff)"};
  const char* g[] = {"exp(v)", "v", "v * v + 1.0f"};
  const int fi = static_cast<int>(rng() % 3), ri = static_cast<int>(rng() % 2),
            gi = static_cast<int>(rng() % 3);
  const bool literal = rng() % 4 == 0;
  const std::string red_of = ri == 1 ? "exp(v) + 1.0f" : f[fi];  // a positive divisor
  std::string body = "let s = row |> map(fun(v => " + red_of + ")) |> " + red[ri] + " in\n" +
                     "      row |> map(fun(v => (" + g[gi] + ") / " +
                     (literal ? std::string("3.0f") : std::string("s")) +
                     ")) |> map(fun(v => v + s))";
  return "def f = depFun((n: Nat, d: Nat) =>\n  fun(x: n.d.f32 =>\n    x |> map(fun(row =>\n     "
         " " +
         body + "))))\n";
}

// Every generated program's space holds a candidate with the division decision and
// one vectorising every map; a seeded sample of those candidates (both targets) is
// checked against the interpreter at an odd row length and one of 32 elements.
TEST(ReciprocalSpace, RowProgramsGetTheDecisionsAndComputeWhatTheInterpreterComputes) {
  std::mt19937 rng(34);
  int checked = 0;
  // Under the sanitizers 1 of the 8 programs (sanitized_sample.h).
  const int programs = static_cast<int>(per_build(8, 1));
  for (int k = 0; k < programs; ++k) {
    const std::string text = row_program(rng);
    SCOPED_TRACE(text);
    rise::Program p = parse(text);
    for (int64_t d : {37, 32}) {
      rise::SizeMap sizes{{"n", 3}, {"d", d}};
      rise::Checked high = rise::check_program(p, "", &sizes);
      std::vector<rise::Value> inputs = make_inputs(high, {}, 5 + k);
      rise::Value expected = interpret(high, inputs);
      const rise::Type type = entry_result_type(high);
      const std::string target = k % 2 ? "openmp" : "c";
      ScheduleSpace space = build_space(high, small_row_space(target));
      std::vector<size_t> reciprocal, every;
      for (size_t i = 0; i < space.candidates.size(); ++i) {
        const ScheduleCandidate& c = space.candidates[i];
        if (c.reciprocal) {
          reciprocal.push_back(i);
          EXPECT_NE(c.strategy_text().find("reciprocalDivision"), std::string::npos);
        }
        if (c.vector == "lanes, every map") every.push_back(i);
      }
      ASSERT_FALSE(reciprocal.empty()) << "d=" << d;
      ASSERT_FALSE(every.empty()) << "d=" << d;
      std::shuffle(reciprocal.begin(), reciprocal.end(), rng);
      std::shuffle(every.begin(), every.end(), rng);
      reciprocal.resize(std::min<size_t>(reciprocal.size(), 2));
      every.resize(std::min<size_t>(every.size(), 2));
      for (const std::vector<size_t>* list : {&reciprocal, &every})
        for (size_t i : *list) {
          const ScheduleCandidate& c = space.candidates[i];
          SCOPED_TRACE(target + " d=" + std::to_string(d) + ": " + c.label() + "\n" +
                       c.strategy_text());
          Compiled compiled = compile_candidate(p, sizes, target, c);
          Comparison cmp = compare_values(execute(compiled, sizes, inputs).output, expected, type);
          EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
          ++checked;
        }
    }
  }
  EXPECT_GE(checked, 4 * programs);
}

// The programs: softmax's space holds the division decision and `every map`,
// bilateral's the division (its range weight's `/ 0.1f`); the model ranks a candidate
// with the division decision above the same candidate without it.
TEST(ReciprocalSpace, SoftmaxAndBilateralGetTheDivisionDecision) {
  for (const char* file :
       {"bench/autoschedule/programs/softmax.rise", "bench/autoschedule/programs/bilateral.rise"}) {
    SCOPED_TRACE(file);
    const bool softmax = std::string(file).find("softmax") != std::string::npos;
    rise::Program p = load_program(file);
    rise::SizeMap sizes =
        softmax ? rise::SizeMap{{"n", 8}, {"d", 1024}} : rise::SizeMap{{"n", 16}, {"m", 32}};
    ScheduleSpace space = build_space(rise::check_program(p, "", &sizes), small_row_space("c"));
    std::map<std::string, double> without;
    std::vector<std::pair<std::string, double>> with;
    bool every = false;
    for (const ScheduleCandidate& c : space.candidates) {
      every |= c.vector == "lanes, every map";
      const double score = estimate_cost(c.lowered, CostMachine{}).score;
      if (!c.reciprocal) {
        without[c.label()] = score;
        continue;
      }
      ScheduleCandidate plain = c;
      plain.reciprocal = false;
      with.push_back({plain.label(), score});
    }
    EXPECT_EQ(every, softmax);
    int compared = 0;
    for (const auto& [label, score] : with)
      if (without.count(label)) {
        EXPECT_LT(score, without[label]) << label;
        ++compared;
      }
    EXPECT_GT(compared, 0);
  }
}

// The rule alone: every generated program rewritten by normalize(reciprocalDivision)
// computes the interpreter's result within the tolerance; a division whose divisor is
// the element itself, or a reciprocal already (1 / s), is left alone.
TEST(ReciprocalSpace, TheRuleKeepsTheResultAndRefusesVaryingDivisors) {
  std::mt19937 rng(7);
  auto strategy = [](const std::string& text) {
    return elevate::parse_strategy_file(
        std::make_shared<SourceFile>(SourceFile{"s.elv", "let main = " + text + ";"}));
  };
  for (int k = 0; k < 12; ++k) {
    const std::string text = row_program(rng);
    SCOPED_TRACE(text);
    rise::Program p = parse(text);
    rise::SizeMap sizes{{"n", 2}, {"d", 5 + k}};
    rise::Checked high = rise::check_program(p, "", &sizes);
    rise::Checked low =
        apply_strategy(strategy("DFNF ; normalize(reciprocalDivision)"), high, false);
    EXPECT_NE(rise::print_expr(low.expr), rise::print_expr(high.expr));
    std::vector<rise::Value> inputs = make_inputs(high, {}, k);
    Comparison cmp =
        compare_values(interpret(low, inputs), interpret(high, inputs), entry_result_type(high));
    EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
  }
  rise::Program varying =
      parse("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v / (v + 1.0f)))))\n");
  rise::Program reciprocal = parse(
      "def f = depFun(n: Nat => fun(x: n.f32 => fun(s: f32 => x |> map(fun(v => 1.0f / s)))))\n");
  for (rise::Program* p : {&varying, &reciprocal}) {
    rise::SizeMap sizes{{"n", 8}};
    rise::Checked high = rise::check_program(*p, "", &sizes);
    EXPECT_THROW(apply_strategy(strategy("DFNF ; topDown(reciprocalDivision)"), high, false),
                 Error);
  }
}

// Divisors whose reciprocal is not a normal number: a literal one is left a division;
// a variable one is tested where its reciprocal is computed, and the elements divide
// as written when the test fails. For zero, subnormal, huge, infinite and NaN divisors
// the rewritten program, interpreted and compiled (c, openmp), gives exactly the
// original's values (those elements never multiply); for an ordinary one, the values
// within the tolerance. (x * (1/b) unguarded gives inf for b = 1e-39, x = 1e-30.)
TEST(ReciprocalSpace, DivisorsWithoutANormalReciprocalStayDivisions) {
  auto strategy = [](const std::string& text) {
    return elevate::parse_strategy_file(
        std::make_shared<SourceFile>(SourceFile{"s.elv", "let main = " + text + ";"}));
  };
  rise::Program variable = parse(
      "def f = depFun(n: Nat => fun(x: n.f32 => fun(s: f32 => x |> map(fun(v => v / s)))))\n");
  const std::vector<float> xs = {1e-30f, 1.0f, -2.5f, 0.0f, 3e38f, -1e-38f, 7.0f};
  rise::SizeMap sizes{{"n", static_cast<int64_t>(xs.size())}};
  rise::Checked high = rise::check_program(variable, "", &sizes);
  std::vector<rise::Value> x_values;
  for (float x : xs) x_values.push_back(rise::Value::f32(x));
  const rise::Value x = rise::array_of(rise::scalar(rise::ScalarKind::F32), x_values);
  const elevate::Strategy rewrite = strategy("DFNF ; normalize(reciprocalDivision)");
  rise::Checked low = apply_strategy(rewrite, high, false);
  EXPECT_NE(rise::print_expr(low.expr).find("select"), std::string::npos)
      << rise::print_expr(low.expr);
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {0.0f, -0.0f, 1e-39f, -1e-45f, 1e-38f, 1e38f, 3e38f, inf, -inf,
                  std::numeric_limits<float>::quiet_NaN(), 1.5f, -0.1f}) {
    SCOPED_TRACE("s = " + std::to_string(s));
    const std::vector<rise::Value> inputs = {x, rise::Value::f32(s)};
    const rise::Value expected = interpret(high, inputs);
    const bool normal = std::fabs(s) >= 0x1p-126f && std::fabs(s) <= 0x1p126f;
    // Outside the range: bit for bit (NaN and infinities compared as such).
    const double rtol = normal ? kDefaultRtol : 0, atol = normal ? kDefaultAtol : 0;
    Comparison cmp =
        compare_values(interpret(low, inputs), expected, entry_result_type(high), rtol, atol);
    EXPECT_TRUE(cmp.ok) << "interpreted: " << cmp.first_mismatch;
    for (const char* target : {"c", "openmp"}) {
      CompileRequest req;
      req.program = &variable;
      req.sizes = &sizes;
      req.strategy = &rewrite;
      req.target = target;
      Compiled compiled = compile(req);
      cmp = compare_values(execute(compiled, sizes, inputs).output, expected,
                           entry_result_type(high), rtol, atol);
      EXPECT_TRUE(cmp.ok) << target << ": " << cmp.first_mismatch;
    }
  }
  // A literal divisor: folded when its reciprocal is normal, else left alone (the
  // rule then has nothing to do).
  for (const char* lit : {"1e-39f", "3e38f"}) {
    rise::Program p = parse(std::string("def f = depFun(n: Nat => fun(x: n.f32 => x |> "
                                        "map(fun(v => v / ") +
                            lit + "))))\n");
    rise::Checked h = rise::check_program(p, "", &sizes);
    EXPECT_THROW(apply_strategy(strategy("DFNF ; topDown(reciprocalDivision)"), h, false), Error)
        << lit;
  }
}

}  // namespace
}  // namespace risec::driver
