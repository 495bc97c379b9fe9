// Row programs of softmax's and layer norm's kind (issue 34): per row, stages that are
// reductions of the row (a maximum, a sum, a sum of squares) read inside the maps that
// follow, and stages that are maps of the row. The autoscheduler's stages decision
// inlines every stage where it is read except a reduction read inside a map
// (inlineStage, elevate/rules_pipeline.cpp): inlined there, the reduction would run
// again for every element of the row (softmax's "stages inlined" candidates ran 400x
// slower than the default lowering, 1.7 to 4 s a call, and used a third of a 60-s
// budget). Over generated programs: the rule computes what the interpreter computes,
// leaves the work linear (the model's operation count) where inlineLet makes it
// quadratic, and no candidate of the space does more than a few times the default
// lowering's work; a sample of the candidates computes what the interpreter computes,
// among them the schedule a hand-written kernel has (every map and reduction on
// vectors: lane loops at the vector's width, RISEC_SIMD_LANES) and one on vectors of
// two registers (stored as two halves, codegen/c/c_expressions.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "driver/schedule_space.h"
#include "rise/parser.h"
#include "sanitized_sample.h"
#include "support/files.h"

namespace risec::driver {
namespace {

rise::Program row_stages_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"rows.rise", text}));
}

// A random row program: 2 to 4 stages, each a scalar reduction (add, fmax or fmin) of
// a map of the row or of an earlier array stage, reading the scalars before it, or
// an array stage (a map of the row reading the scalars); then the output row, a map of
// the row or of the row zipped with the last array stage. The scalars are
// non-negative (sums of non-negative terms, maxima of exponentials), so the divisions
// by `s + 1.0f` and the rsqrt are finite.
std::string row_stages_program(std::mt19937& rng) {
  std::vector<std::string> scalars, arrays;
  std::string lets;
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  // A non-negative term of v and (maybe) a scalar.
  auto term = [&](const std::string& v) {
    if (scalars.empty()) {
      const std::string t[] = {v, v + " * " + v, "exp(" + v + ")"};
      return t[rng() % 3];
    }
    const std::string s = pick(scalars);
    const std::string t[] = {"(" + v + " - " + s + ") * (" + v + " - " + s + ")",
                             "exp(" + v + " - " + s + ")", v + " / (" + s + " + 1.0f)",
                             v + " * rsqrt(" + s + " + 0.00001f)"};
    return t[rng() % 4];
  };
  const int stages = 2 + static_cast<int>(rng() % 3);
  for (int k = 0; k < stages; ++k) {
    const std::string name = "t" + std::to_string(k);
    if (k > 0 && rng() % 3 == 0) {
      lets += "      let " + name + " = row |> map(fun(v => " + term("v") + ")) in\n";
      arrays.push_back(name);
      continue;
    }
    const std::string src = !arrays.empty() && rng() % 2 ? pick(arrays) : std::string("row");
    const std::string red[] = {"reduce(add)(0.0f)", "reduce(fmax)(0.0f)", "reduce(fmin)(inff)"};
    lets += "      let " + name + " = " + src + " |> map(fun(v => " + term("v") + ")) |> " +
            red[rng() % 3] + " in\n";
    scalars.push_back(name);
  }
  std::string out;
  if (!arrays.empty() && rng() % 2)
    out = "zip(row)(" + arrays.back() + ") |> map(fun(p => " + term("p._1") + " + p._2))";
  else
    out = "row |> map(fun(v => " + term("v") + "))";
  return "def rows = depFun((n: Nat, d: Nat) =>\n  fun(x: n.d.f32 =>\n    x |> map(fun(row =>\n" +
         lets + "      " + out + "))))\n";
}

// The operations the model counts for `c` lowered as the space lowers it.
double operations(const rise::Checked& c, const std::string& before_lowering) {
  int rewrites = 0;
  const rise::Checked low = rewrite_with(
      (before_lowering.empty() ? "" : before_lowering + " ; ") + "lowerToC", c, &rewrites);
  return estimate_cost(low, CostMachine{}).ops;
}

// inlineStage computes what the interpreter computes (at d = 64) and leaves the work
// linear in the row: at d = 1024, at most 4 times the stored program's operations (an
// array stage recomputed where each consumer reads it), where inlineLet, which
// inlines the reductions the output's map reads into it, does at least 8 times as much.
TEST(RowStages, InlineStageKeepsTheWorkLinear) {
  std::mt19937 rng(34);
  for (size_t k = 0; k < per_build(24, 3); ++k) {
    const std::string text = row_stages_program(rng);
    SCOPED_TRACE(text);
    rise::Program p = row_stages_parse(text);
    rise::SizeMap sizes{{"n", 3}, {"d", 64}};
    const rise::Checked high = rise::check_program(p, "", &sizes);
    int rewrites = 0;
    const rise::Checked staged = rewrite_with("normalize(inlineStage)", high, &rewrites);
    std::vector<rise::Value> inputs = make_inputs(high, {}, 3 + k);
    Comparison cmp =
        compare_values(interpret(staged, inputs), interpret(high, inputs), entry_result_type(high));
    EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    sizes["d"] = 1024;
    const rise::Checked wide = rise::check_program(p, "", &sizes);
    const double stored = operations(wide, ""),
                 inlined = operations(wide, "normalize(inlineStage)"),
                 every = operations(wide, "normalize(inlineLet)");
    EXPECT_LE(inlined, 4 * stored);
    EXPECT_GE(every, 8 * stored);
  }
}

// The space of softmax, layer norm and generated row programs: no candidate does more
// than 16 times the default lowering's operations at d = 256 (a reduction inlined into
// the map over its own row runs d = 256 times per row, 50 times the default's work or
// more; a candidate computing softmax's exponentials twice, outside the loops the C
// compiler vectorises, does 5 times), softmax has candidates with its stages
// inlined (its exponentials computed where they are read), and a seeded sample of
// the candidates with the stages decision (and the default) computes what the
// interpreter computes.
TEST(RowStages, SpacesHaveNoQuadraticCandidateAndMatchTheInterpreter) {
  std::mt19937 rng(340);
  // A file name, or the text of a generated program.
  std::vector<std::string> programs = {"bench/autoschedule/programs/softmax.rise",
                                       "bench/autoschedule/programs/layernorm.rise"};
  for (size_t k = 0; k < per_build(6, 1); ++k) programs.push_back(row_stages_program(rng));
  size_t checked = 0;
  for (size_t k = 0; k < programs.size(); ++k) {
    const bool file = k < 2;
    SCOPED_TRACE(programs[k]);
    rise::Program p = file ? load_program(programs[k]) : row_stages_parse(programs[k]);
    // One CPU target a program, in turn (the candidates' C compiled is most of the time).
    for (const std::string target : {k % 2 ? "openmp" : "c"}) {
      rise::SizeMap sizes{{"n", 3}, {"d", 256}};
      const rise::Checked high = rise::check_program(p, "", &sizes);
      ScheduleSpace space = build_space(high, small_row_space(target));
      ASSERT_TRUE(space.candidates.front().is_default);
      const double base = estimate_cost(space.candidates.front().lowered, CostMachine{}).ops;
      bool staged = false;
      for (const ScheduleCandidate& c : space.candidates) {
        EXPECT_LE(estimate_cost(c.lowered, CostMachine{}).ops, 16 * base) << c.label();
        staged |= c.inlined();
      }
      if (k == 0) {
        EXPECT_TRUE(staged) << "softmax has no candidate with its stages inlined";
      }
      // A candidate on vectors of two registers (which the row length 256 divides): its
      // stores are split in register halves, and it computes what the interpreter does.
      const auto wide =
          std::find_if(space.candidates.begin(), space.candidates.end(),
                       [](const ScheduleCandidate& c) { return c.vector == "lanes * 2"; });
      ASSERT_NE(wide, space.candidates.end());
      {
        SCOPED_TRACE(target + ": " + wide->label() + "\n" + wide->strategy_text());
        Compiled compiled = compile_candidate(p, sizes, target, *wide);
        EXPECT_NE(compiled.unit.source.find("_SPLIT_STORE"), std::string::npos)
            << compiled.unit.source;
        std::vector<rise::Value> inputs = make_inputs(high, {}, 7 + k);
        Comparison cmp = compare_values(execute(compiled, sizes, inputs).output,
                                        interpret(high, inputs), entry_result_type(high));
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
        ++checked;
      }
      // At an odd row length (the vector loops' remainders): the default and two of the
      // candidates with the stages decision.
      sizes["d"] = 37;
      const rise::Checked odd = rise::check_program(p, "", &sizes);
      std::vector<rise::Value> inputs = make_inputs(odd, {}, 11 + k);
      const rise::Value expected = interpret(odd, inputs);
      ScheduleSpace odd_space = build_space(odd, small_row_space(target));
      std::vector<size_t> sample;
      for (size_t i = 1; i < odd_space.candidates.size(); ++i)
        if (odd_space.candidates[i].inlined()) sample.push_back(i);
      std::shuffle(sample.begin(), sample.end(), rng);
      sample.resize(std::min<size_t>(sample.size(), 2));
      sample.push_back(0);
      // And the hand-written kernel's schedule: every map and reduction on vectors.
      std::optional<size_t> every;
      for (size_t i = 1; i < odd_space.candidates.size() && !every; ++i) {
        const ScheduleCandidate& c = odd_space.candidates[i];
        if (c.vector == "lanes, every map" && !c.reduction.empty()) every = i;
      }
      ASSERT_TRUE(every);
      sample.push_back(*every);
      for (size_t i : sample) {
        const ScheduleCandidate& c = odd_space.candidates[i];
        SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
        Compiled compiled = compile_candidate(p, sizes, target, c);
        if (i == *every && k == 0) {  // softmax's exponentials on vectors: a lane loop
          EXPECT_NE(compiled.unit.source.find("RISEC_SIMD_LANES("), std::string::npos)
              << compiled.unit.source;
        }
        Comparison cmp = compare_values(execute(compiled, sizes, inputs).output, expected,
                                        entry_result_type(odd));
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, programs.size());
}

}  // namespace
}  // namespace risec::driver
