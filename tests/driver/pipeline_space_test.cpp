// The stages decision's option for pipelines that join arrays (driver/schedule_pipeline.h:
// transposes moved towards the inputs, zips of joined arrays opened by zipJoin) on a
// Laplacian band (bench/autoschedule/programs/lapband.rise) and on generated variants
// of it (other sizes, other blur weights, other interpolation weights, clamped or
// zero-padded): the space offers the option, and its candidates compile to code that
// computes what the interpreter computes, on the C and OpenMP targets. A pyramid level
// without an upsampling (pyrdown.rise) and sharpen (whose joins are views) do not get
// the option.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "driver/schedule_pipeline.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "sanitized_sample.h"

namespace risec::driver {
namespace {

const char* kJoins = "inlined through joins";

SpaceOptions pipeline_small_space(const std::string& target) {
  SpaceOptions o;
  o.target = target;
  o.tiles = {4};
  o.explore_variants = 0;
  o.max_candidates = 400;  // the stages decision's joins option comes first
  return o;
}

// A band of a Laplacian pyramid with random weights: a 5-tap blur kept at every
// second pixel (rows, then columns), upsampled by interpolating between neighbours
// with weight t, subtracted from the image.
std::string random_band(std::mt19937& rng) {
  std::uniform_int_distribution<int> w(1, 9);
  std::string weights;
  for (int i = 0; i < 5; ++i) weights += (i ? ", " : "") + std::to_string(w(rng)) + ".0f";
  const std::string t = std::to_string(w(rng) / 10.0) + "f";
  const std::string pad = rng() % 2 ? "padClamp(0)(1)" : "padCst(0)(1)(0.0f)";
  return "def w5 = [" + weights +
         "]\n"
         "def downRows = map(fun(row =>\n"
         "  row |> padClamp(2)(1) |> slide(5)(2) |> map(fun(win => dot(win)(w5)))))\n"
         "def upRows = map(fun(row =>\n"
         "  row |> " +
         pad + " |> slide(2)(1) |> map(fun(p => [p[0], p[0] + (p[1] - p[0]) * " + t +
         "])) |> join))\n"
         "def band = depFun((n: Nat, m: Nat) =>\n"
         "  fun(img: (2*n).(2*m).f32 =>\n"
         "    let down = img |> downRows |> transpose |> downRows |> transpose in\n"
         "    let up = down |> upRows |> transpose |> upRows |> transpose in\n"
         "    zip2D(img)(up) |> map2D(fun(p => p._1 - p._2))))\n";
}

// `count` of the space's candidates with the option (spread over them), each compiled
// and compared with the interpreter. Returns how many the space has.
size_t check_joins_candidates(const rise::Program& p, const rise::SizeMap& sizes,
                              const std::string& target, size_t count) {
  rise::Checked high = rise::check_program(p, "", &sizes);
  std::vector<rise::Value> inputs = make_inputs(high, {}, 7);
  const rise::Value expected = interpret(high, inputs);
  ScheduleSpace space = build_space(high, pipeline_small_space(target));
  std::vector<const ScheduleCandidate*> joins;
  for (const ScheduleCandidate& c : space.candidates)
    if (c.inlined() && c.stages == kJoins) joins.push_back(&c);
  const size_t n = joins.size(), keep = std::min(n, count);
  for (size_t i = 0; i < keep; ++i) {
    const ScheduleCandidate& c = *joins[i * n / keep];
    SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
    Execution ex = execute(compile_candidate(p, sizes, target, c), sizes, inputs);
    Comparison cmp = compare_values(ex.output, expected, entry_result_type(high));
    EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
  }
  return n;
}

TEST(PipelineSpace, LaplacianBandCandidatesThroughJoinsMatchTheInterpreter) {
  rise::Program band = load_program("bench/autoschedule/programs/lapband.rise");
  for (const std::string target : {"c", "openmp"}) {
    const size_t n = check_joins_candidates(band, {{"n", 5}, {"m", 6}}, target, 4);
    EXPECT_GT(n, 0u) << target;
  }
  // Neither a pyramid level without an upsampling nor sharpen, whose only joins are
  // views (its 3 x 3 window and weights, flattened for the dot product).
  for (const char* file :
       {"bench/autoschedule/programs/pyrdown.rise", "bench/autoschedule/sharpen.rise"}) {
    rise::Program p = load_program(file);
    rise::SizeMap sizes{{"n", 4}, {"m", 6}};
    std::vector<StageChoice> choices = stage_choices(rise::check_program(p, "", &sizes));
    EXPECT_TRUE(std::none_of(choices.begin(), choices.end(), [](const StageChoice& c) {
      return c.label == kJoins;
    })) << file;
  }
}

// Under the sanitizers the first band (sanitized_sample.h).
TEST(PipelineSpace, GeneratedBandsThroughJoinsMatchTheInterpreter) {
  std::mt19937 rng(34);
  for (size_t trial = 0; trial < per_build(3, 1); ++trial) {
    const std::string text = random_band(rng);
    const rise::SizeMap sizes{{"n", 1 + static_cast<int64_t>(rng() % 5)},
                              {"m", 1 + static_cast<int64_t>(rng() % 7)}};
    SCOPED_TRACE(text + "n=" + std::to_string(sizes.at("n")) +
                 " m=" + std::to_string(sizes.at("m")));
    rise::Program p =
        rise::parse_program(std::make_shared<SourceFile>(SourceFile{"band.rise", text}));
    EXPECT_GT(check_joins_candidates(p, sizes, trial % 2 ? "openmp" : "c", 2), 0u);
  }
}

}  // namespace
}  // namespace risec::driver
