// The autoscheduler's OpenMP schedule choice (driver/schedule_omp.h) and how the cost
// model sees schedules (cost_model.h): on programs whose iterations cost unequal time
// (Mandelbrot's escape, a select between a reduction and a constant) some openmp
// candidate schedules its parallel loops dynamically, its text says so, its code has
// the clause and it computes what the interpreter computes, and the model ranks it
// above the same candidate without the schedule; on even work below it. The space
// grows by at most `schedule_choices` candidates, and not at all for --target c.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "driver/schedule_omp.h"
#include "elevate/parser.h"
#include "rise/parser.h"

namespace risec::driver {
namespace {

SpaceOptions omp_small_space(const std::string& target) {
  SpaceOptions o;
  o.target = target;
  o.tiles = {4};
  o.explore_variants = 0;
  o.threads = 2;
  return o;
}

// The candidate `c` copies (the same steps but the schedule's).
const ScheduleCandidate* original_of(const ScheduleSpace& space, const ScheduleCandidate& c) {
  for (const ScheduleCandidate& o : space.candidates) {
    if (!o.schedule.empty() || o.is_default || o.steps.size() + 1 != c.steps.size()) continue;
    bool same = true;
    for (size_t i = 0; i < o.steps.size(); ++i)
      same = same && o.steps[i].strategy == c.steps[i].strategy;
    if (same) return &o;
  }
  return nullptr;
}

const char* const kMaskedRows =
    "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
    "  zip(x)(generate(fun(i: idx[n] => cast(indexAsNat(i)) : f32))) |> map(fun(p =>\n"
    "    select(p._2 < 3.0f)(p._1 |> map(fun(a => exp(a) * a + 1.0f)) |> reduce(add)(0.0f))"
    "(p._2)))))";

struct Uneven {
  const char* name;
  rise::Program program;
  rise::SizeMap sizes;
};

std::vector<Uneven> uneven_programs() {
  return {
      {"mandelbrot", load_program("examples/mandelbrot/mandelbrot.rise"), {{"n", 1024}, {"b", 4}}},
      {"mandelwhile",
       load_program("examples/mandelwhile/mandelwhile.rise"),
       {{"n", 1024}, {"k", 32}}},
      {"masked rows",
       rise::parse_program(std::make_shared<SourceFile>(SourceFile{"masked.rise", kMaskedRows})),
       {{"n", 240}, {"m", 64}}},
  };
}

TEST(ScheduleChoice, UnevenProgramsGetADynamicCandidateRankedAboveItsOriginal) {
  CostMachine m = host_cost_machine("openmp");
  m.threads = 2;
  // Programs whose scheduled originals the model sees clearly uneven (imbalance at
  // least a fifth of the score) get a copy ranked above: mandelbrot and the masked
  // rows. mandelwhile's two best candidates are vectorised (every stage parallel over
  // 64 vectors of 16 lanes: parallel since the threshold counts its data-dependent
  // loop as large work, not its 64 elements), whose loops the model sees nearly even.
  int clearly_uneven = 0;
  for (const Uneven& u : uneven_programs()) {
    SCOPED_TRACE(u.name);
    rise::Checked high = rise::check_program(u.program, "", &u.sizes);
    ScheduleSpace space = build_space(high, omp_small_space("openmp"));
    std::vector<const ScheduleCandidate*> scheduled;
    for (const ScheduleCandidate& c : space.candidates)
      if (!c.schedule.empty()) scheduled.push_back(&c);
    ASSERT_FALSE(scheduled.empty()) << space.drop_reason;
    EXPECT_LE(scheduled.size(), omp_small_space("openmp").schedule_choices);
    std::vector<rise::Value> inputs = make_inputs(high, {}, 5);
    int above = 0;  // copies ranked above their original, whose loop the model sees uneven
    bool clear = false;
    rise::Value expected = interpret(high, inputs);
    for (const ScheduleCandidate* c : scheduled) {
      SCOPED_TRACE(c->strategy_text());
      EXPECT_EQ(c->schedule.rfind("dynamic, ", 0), 0u);
      EXPECT_NE(c->strategy_text().find("ompSchedule(dynamic, "), std::string::npos);
      EXPECT_NE(c->label().find("schedule(dynamic, "), std::string::npos) << c->label();
      Compiled compiled = compile_candidate(u.program, u.sizes, "openmp", *c);
      EXPECT_NE(compiled.unit.source.find("schedule(" + c->schedule + ")"), std::string::npos)
          << compiled.unit.source;
      Execution ex = execute(compiled, u.sizes, inputs);
      Comparison cmp = compare_values(ex.output, expected, entry_result_type(high));
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      // The model: the static original leaves a thread waiting, the copy does not.
      const ScheduleCandidate* o = original_of(space, *c);
      ASSERT_NE(o, nullptr);
      const CostFeatures a = estimate_cost(o->lowered, m, o->tile);
      const CostFeatures b = estimate_cost(c->lowered, m, c->tile);
      EXPECT_EQ(b.imbalance, 0);
      EXPECT_GT(b.chunks, 0);
      // where the model sees the original's loop uneven, the copy may still cost more
      // (a thread's share of the work below the chunks' cost); where it does not, it
      // always does
      if (a.imbalance > 0) above += b.score < a.score;
      clear = clear || a.imbalance >= a.score / 5;
      if (a.imbalance == 0) {
        EXPECT_GT(b.score, a.score);
      }
    }
    if (clear) {
      EXPECT_GT(above, 0);
      ++clearly_uneven;
    }
  }
  EXPECT_GE(clearly_uneven, 2);
}

// Even work: the copies are still offered (a measurement decides) but ranked below.
TEST(ScheduleChoice, EvenWorkRanksTheDynamicCopyBelow) {
  CostMachine m = host_cost_machine("openmp");
  m.threads = 2;
  rise::Program p = load_program("examples/mv/mv.rise");
  rise::SizeMap sizes{{"n", 64}, {"m", 16}};
  ScheduleSpace space = build_space(rise::check_program(p, "", &sizes), omp_small_space("openmp"));
  int copies = 0;
  for (const ScheduleCandidate& c : space.candidates) {
    if (c.schedule.empty()) continue;
    ++copies;
    const ScheduleCandidate* o = original_of(space, c);
    ASSERT_NE(o, nullptr);
    const CostFeatures a = estimate_cost(o->lowered, m, o->tile);
    const CostFeatures b = estimate_cost(c.lowered, m, c.tile);
    EXPECT_EQ(a.imbalance, 0);
    EXPECT_GT(b.score, a.score);
  }
  EXPECT_GT(copies, 0);
  EXPECT_LE(copies, 2);
  // The C target has no parallel loops, so no schedules.
  ScheduleSpace c = build_space(rise::check_program(p, "", &sizes), omp_small_space("c"));
  for (const ScheduleCandidate& k : c.candidates) EXPECT_TRUE(k.schedule.empty());
}

// The chunk: about an eighth of a thread's share of the outermost parallel loop.
TEST(ScheduleChoice, ChunkFollowsTheOutermostParallelLoop) {
  rise::Program p = load_program("examples/mv/mv.rise");
  for (int64_t n : {8, 256, 4096}) {
    rise::SizeMap sizes{{"n", n}, {"m", 16}};
    rise::Checked high = rise::check_program(p, "", &sizes);
    rise::Checked low =
        apply_strategy(elevate::parse_strategy("parallelOutput ; lowerToC"), high, false);
    EXPECT_EQ(dynamic_chunk(low.expr, 2), std::clamp<int64_t>(n / 16, 1, 64)) << n;
    EXPECT_EQ(dynamic_chunk(high.expr, 2), 1) << "no parallel loop";
  }
}

}  // namespace
}  // namespace risec::driver
