// The autoscheduler's strips (driver/schedule_strips.h): image pipelines of stencil
// stages get candidates whose output rows are computed in strips, each strip
// computing its producers' rows (halos included) itself; every such candidate, of
// named programs and of generated chains of 2 to 4 stencil stages (clamped or zero
// borders, radii 1 or 2, weighted sums or maxima, random sizes), computes what the
// interpreter computes on the C and OpenMP targets; a strip's producer is stored per
// strip, not as a whole image, and the cost model counts that buffer as cheaper when
// it fits the cache; the heights divide the rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "driver/schedule_strips.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "sanitized_sample.h"
#include "support/files.h"

namespace risec::driver {
namespace {

// The program written in `text` (file name `name` in messages).
rise::Program program_text(const std::string& name, const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{name, text}));
}

// The space without its explore variants and tiles (the strips come first and do not
// depend on them): its build stays short.
SpaceOptions strip_space(const std::string& target) {
  SpaceOptions o;
  o.target = target;
  o.tiles = {};
  o.explore_variants = 0;
  return o;
}

std::vector<size_t> strips_in(const ScheduleSpace& s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.candidates.size(); ++i)
    if (s.candidates[i].strip > 0) out.push_back(i);
  return out;
}

// Compiles candidate `c` from its text, runs it and compares with the interpreter.
void check_candidate(const rise::Program& p, const rise::SizeMap& sizes, const std::string& target,
                     const ScheduleCandidate& c, const std::vector<rise::Value>& inputs,
                     const rise::Value& expected, const rise::Type& type) {
  SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
  Compiled compiled = compile_candidate(p, sizes, target, c);
  if (target == "openmp") {
    EXPECT_NE(compiled.unit.source.find("omp parallel"), std::string::npos);
  }
  Comparison cmp = compare_values(execute(compiled, sizes, inputs).output, expected, type);
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
}

// For each target: the strip candidates (of the strip heights `heights`) exist (when
// `expect_strips`), and `per_target` of them, drawn with `rng`, compute what the
// interpreter computes.
void check_program(const rise::Program& p, const rise::SizeMap& sizes, bool expect_strips,
                   size_t per_target, std::mt19937_64& rng, const std::string& what,
                   const std::vector<int64_t>& heights = SpaceOptions().strips) {
  SCOPED_TRACE(what);
  const rise::Checked high = rise::check_program(p, "", &sizes);
  const std::vector<rise::Value> inputs = make_inputs(high, {}, 4);
  const rise::Value expected = interpret(high, inputs);
  const rise::Type type = entry_result_type(high);
  for (const std::string target : {"c", "openmp"}) {
    ScheduleSpace space;
    SpaceOptions o = strip_space(target);
    o.strips = heights;
    std::vector<ScheduleCandidate> strips = strip_candidates(high, o, space);
    if (expect_strips) {
      ASSERT_FALSE(strips.empty()) << target << ": " << space.drop_reason;
    }
    std::shuffle(strips.begin(), strips.end(), rng);
    strips.resize(std::min(strips.size(), per_target));
    for (const ScheduleCandidate& c : strips) {
      EXPECT_EQ(c.structure, "strips");
      EXPECT_GT(c.strip, 0);
      check_candidate(p, sizes, target, c, inputs, expected, type);
    }
  }
}

TEST(Strips, HeightsDivideTheRowsIntoAtLeastTwoStrips) {
  for (int64_t rows = 1; rows <= 300; ++rows) {
    const std::vector<int64_t> h = strip_heights(rows, {8, 16, 32, 64});
    for (int64_t v : h) {
      EXPECT_EQ(rows % v, 0) << rows << " " << v;
      EXPECT_GE(rows / v, 2) << rows << " " << v;
      EXPECT_GE(v, 2) << rows;
    }
    // Some height exactly when rows has a divisor other than 1 and itself.
    bool composite = false;
    for (int64_t d = 2; d < rows; ++d) composite = composite || rows % d == 0;
    EXPECT_EQ(!h.empty(), composite) << rows;
  }
  EXPECT_EQ(strip_heights(2048, {8, 16, 32, 64}), (std::vector<int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(strip_heights(12, {8, 16}), (std::vector<int64_t>{6, 4}));
  EXPECT_TRUE(strip_heights(2048, {}).empty());
}

// The programs: sharpening (a stencil read beside its input), a 5 x 5
// dilation, a Gaussian blur, two separable filters whose column pass is written
// with transposes (a blur, a pyramid level: windows with a step of 2), and a Laplacian
// band (column passes below the output, one of them upsampling: pairs of rows joined).
// Three candidates of each per target, two under the sanitizers.
TEST(Strips, NamedPipelinesGetStripsThatComputeWhatTheInterpreterComputes) {
  std::mt19937_64 rng(5);
  const rise::SizeMap sizes{{"n", 16}, {"m", 12}};
  for (const char* file :
       {"bench/autoschedule/sharpen.rise", "bench/autoschedule/morph5.rise",
        "examples/gaussian/gaussian.rise", "examples/blur5/blur5.rise",
        "bench/autoschedule/programs/pyrdown.rise", "bench/autoschedule/programs/lapband.rise"})
    check_program(load_program(file), sizes, true, per_build(3, 2), rng, file);
}

// lapband's strips: its column passes (a downsampling one and an upsampling one, below
// the zip with the image) read as passes over rows, the strips pushed through the
// upsampling's join of pairs of rows and through its window of rows (a halo).
TEST(Strips, ALaplacianBandsColumnPassesAreReadAsRows) {
  const rise::SizeMap sizes{{"n", 16}, {"m", 12}};
  const rise::Checked high =
      rise::check_program(load_program("bench/autoschedule/programs/lapband.rise"), "", &sizes);
  int rewrites = 0;
  const std::vector<StripPlan> plans = strip_plans(high, {8, 16}, &rewrites);
  ASSERT_EQ(plans.size(), 2u);
  for (const StripPlan& plan : plans) {
    std::string steps;
    for (const ScheduleStep& st : plan.steps) steps += st.strategy + "\n";
    EXPECT_NE(steps.find("mapJoinBeforeTranspose"), std::string::npos) << steps;
    EXPECT_NE(steps.find("splitOfJoin"), std::string::npos) << steps;
    EXPECT_GE(plan.halos, 1) << steps;
  }
  // Under openmp its horizontal pass, computed whole below the strips, is parallel in
  // candidates of their own (at a size where parallelStages finds it worth a loop);
  // sharpen's strips leave nothing below them, so none there.
  auto strips_and_stages = [](const std::string& file) {
    const rise::SizeMap large{{"n", 128}, {"m", 128}};
    const rise::Checked h = rise::check_program(load_program(file), "", &large);
    ScheduleSpace space;
    size_t n = 0;
    for (const ScheduleCandidate& c : strip_candidates(h, strip_space("openmp"), space))
      n += c.parallel == "strips and stages";
    return n;
  };
  EXPECT_GT(strips_and_stages("bench/autoschedule/programs/lapband.rise"), 0u);
  EXPECT_EQ(strips_and_stages("bench/autoschedule/sharpen.rise"), 0u);
  // pyrdown keeps the first way (its one column pass, at the output): no passes step
  const rise::SizeMap small{{"n", 8}, {"m", 8}};
  const rise::Checked pyr =
      rise::check_program(load_program("bench/autoschedule/programs/pyrdown.rise"), "", &small);
  for (const StripPlan& plan : strip_plans(pyr, {4}, &rewrites))
    for (const ScheduleStep& st : plan.steps)
      EXPECT_EQ(st.strategy.find("mapJoinBeforeTranspose"), std::string::npos) << st.strategy;
}

TEST(Strips, AProducerReadThroughAWindowIsStoredPerStrip) {
  const rise::Program p =
      program_text("two.rise",
                   "def two = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>\n"
                   "  let a = img |> padClamp2D(1)(1) |> slide2D(3)(1)\n"
                   "    |> map2D(fun(w => w |> join |> reduce(add)(0.0f))) in\n"
                   "  a |> padClamp2D(1)(1) |> slide2D(3)(1)\n"
                   "    |> map2D(fun(w => w |> join |> reduce(fmax)(-3.0e38f)))))\n");
  const rise::SizeMap sizes{{"n", 32}, {"m", 10}};
  const rise::Checked high = rise::check_program(p, "", &sizes);
  int rewrites = 0;
  const std::vector<StripPlan> plans = strip_plans(high, {8, 16}, &rewrites);
  ASSERT_EQ(plans.size(), 2u);
  for (const StripPlan& plan : plans) {
    EXPECT_EQ(plan.strips * plan.rows, 32);
    EXPECT_GE(plan.halos, 1);  // the output stage's windows of the producer
  }
  ScheduleSpace space;
  const std::vector<ScheduleCandidate> strips =
      strip_candidates(high, strip_space("openmp"), space);
  ASSERT_FALSE(strips.empty());
  // The producer's rows a strip needs: 8 + 2 rows of 10 (a buffer of the strip), never
  // the whole 32 x 10 image.
  const ScheduleCandidate& c = strips.front();
  const CostFeatures f = estimate_cost(c.lowered, CostMachine{});
  EXPECT_EQ(f.memory.stores, 1) << c.strategy_text();
  EXPECT_LT(f.memory.allocated, 32 * 10 * 4) << c.strategy_text();
  // The model counts the buffer's traffic as cheaper when it fits the L2 cache.
  CostMachine no_cache;
  no_cache.l2 = 16;
  EXPECT_LT(f.score, estimate_cost(c.lowered, no_cache).score);
  std::mt19937_64 rng(9);
  check_program(p, sizes, true, 4, rng, "two stages");
}

// Sharpening's and the dilation's spaces (as tune builds them, with fewer tiles and no
// explore variants to keep the test short) have strip candidates, and the cost model ranks some of
// them among what a budget of 60 measures. Under the sanitizers sharpening's alone
// (sanitized_sample.h): the dilation's strips are built there by
// NamedPipelinesGetStripsThatComputeWhatTheInterpreterComputes and its OpenMP space
// by the autoscheduler's tests of a fake timer; the Release run checks both.
TEST(Strips, SpacesOfImagePipelinesHaveStripsMeasuredWithin60) {
  const char* const files[] = {"bench/autoschedule/sharpen.rise", "bench/autoschedule/morph5.rise"};
  for (size_t fi = 0; fi < per_build(std::size(files), 1); ++fi) {
    const char* file = files[fi];
    const rise::Program p = load_program(file);
    const rise::SizeMap sizes{{"n", 256}, {"m", 256}};
    const rise::Checked high = rise::check_program(p, "", &sizes);
    SpaceOptions o;
    o.target = "openmp";
    o.explore_variants = 0;
    o.tiles = {8};
    AutoscheduleResult r;
    r.space = build_space(high, o);
    CostMachine m;
    m.threads = 2;
    for (const ScheduleCandidate& c : r.space.candidates)
      r.costs.push_back(estimate_cost(c.lowered, m));
    ASSERT_FALSE(strips_in(r.space).empty()) << file;
    std::vector<size_t> order = rank_and_order(r, 60);
    order.resize(std::min<size_t>(order.size(), 60));
    EXPECT_TRUE(std::any_of(order.begin(), order.end(), [&](size_t i) {
      return r.space.candidates[i].strip > 0;
    })) << file;
  }
}

// Random chains of 2 to 4 stencil stages, each a let: clamped or zero border, radius
// 1 or 2, a weighted sum (weights k / 16, k from 0 to 4) or a maximum; sometimes the result
// combined with the input pointwise (as sharpening does); random sizes.
std::string random_chain(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::ostringstream o;
  const int stages = pick(2, 4);
  o << "def chain = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>\n";
  std::string prev = "img";
  for (int s = 1; s <= stages; ++s) {
    const int r = pick(1, 2), k = 2 * r + 1;
    o << "  let s" << s << " = " << prev << " |> ";
    if (pick(0, 1))
      o << "padClamp2D(" << r << ")(" << r << ")";
    else
      o << "padCst2D(" << r << ")(" << r << ")(0.0f)";
    o << " |> slide2D(" << k << ")(1)\n    |> map2D(fun(w => ";
    if (pick(0, 2)) {
      o << "dot(join(w))([";
      static const char* const weights[] = {"0.0f", "0.0625f", "0.125f", "0.1875f", "0.25f"};
      for (int i = 0; i < k * k; ++i) o << (i ? ", " : "") << weights[pick(0, 4)];
      o << "])";
    } else {
      o << "w |> join |> reduce(fmax)(-3.0e38f)";
    }
    o << ")) in\n";
    prev = "s" + std::to_string(s);
  }
  if (pick(0, 2) == 0)
    o << "  zip2D(img, " << prev << ") |> map2D(fun(p => p._1 + 0.5f * (p._1 - p._2)))))\n";
  else
    o << "  " << prev << "))\n";
  return o.str();
}

// Under the sanitizers the first quarter of the chains (sanitized_sample.h).
TEST(Strips, GeneratedStencilChainsComputeWhatTheInterpreterComputes) {
  std::mt19937_64 rng(2026);
  const int64_t rows[] = {8, 12, 16, 18, 20, 24};
  for (size_t t = 0; t < per_build(8, 2); ++t) {
    const std::string text = random_chain(rng);
    const rise::SizeMap sizes{{"n", rows[rng() % 6]}, {"m", static_cast<int64_t>(5 + rng() % 12)}};
    const rise::Program p = program_text("chain.rise", text);
    // Strips of 4 or 6 rows (whichever divide n): fewer candidates to lower per program.
    check_program(
        p, sizes, true, 1, rng,
        text + "n = " + std::to_string(sizes.at("n")) + ", m = " + std::to_string(sizes.at("m")),
        {4, 6});
  }
}

// Upsampling by 3 (each window of two rows makes three) then a pointwise map: strips
// must be multiples of 3 rows, which none of the preferred heights is for 48 rows
// (held-out R2: no strips at all); other divisors of the rows are tried then.
TEST(Strips, AnUpsamplingByThreeGetsStripsOfMultiplesOfThree) {
  const rise::Program p = program_text(
      "up3.rise",
      "def up3 = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>\n"
      "  img |> padClamp(0)(1) |> slide(2)(1)\n"
      "    |> map(fun(w => zip(w[0])(w[1]) |> map(fun(p => [p._1, p._1 * 0.5f + p._2 * 0.25f,\n"
      "         p._1 * 0.25f + p._2 * 0.5f])) |> transpose))\n"
      "    |> join |> map(map(fun(x => x * 2.0f)))))\n");
  const rise::SizeMap sizes{{"n", 16}, {"m", 5}};
  const rise::Checked high = rise::check_program(p, "", &sizes);
  int rewrites = 0;
  const std::vector<StripPlan> plans = strip_plans(high, {8, 16}, &rewrites);
  ASSERT_FALSE(plans.empty());
  for (const StripPlan& plan : plans) EXPECT_EQ(plan.rows % 3, 0) << plan.rows;
  EXPECT_TRUE(strip_plans(high, {}, &rewrites).empty());  // RISEC_TUNE_NO_STRIPS: none
  std::mt19937_64 rng(3);
  check_program(p, sizes, true, 2, rng, "up3", {8, 16});
}

// A pointwise program has no window: no strips are offered; nor for rows that are
// prime (no height divides them).
TEST(Strips, NoStripsWithoutAWindowOrADivisor) {
  const rise::Program p = program_text("pw.rise",
                                       "def pw = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>\n"
                                       "  img |> map2D(fun(x => x * 2.0f))))\n");
  const rise::SizeMap sizes{{"n", 16}, {"m", 8}};
  int rewrites = 0;
  EXPECT_TRUE(strip_plans(rise::check_program(p, "", &sizes), {8}, &rewrites).empty());
  const rise::Program g = load_program("examples/gaussian/gaussian.rise");
  const rise::SizeMap prime{{"n", 13}, {"m", 8}};
  EXPECT_TRUE(strip_plans(rise::check_program(g, "", &prime), {8}, &rewrites).empty());
  // Without strip heights the space has none.
  SpaceOptions o = strip_space("c");
  o.strips.clear();
  const rise::SizeMap ok{{"n", 16}, {"m", 8}};
  EXPECT_TRUE(strips_in(build_space(rise::check_program(g, "", &ok), o)).empty());
}

}  // namespace
}  // namespace risec::driver
