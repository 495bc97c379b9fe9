// The strips decision of the autoscheduler's space (docs/tuning.md, "Without a
// template"; Halide's compute_at and store_at at a strip of output rows): the output
// rows of an image pipeline in strips of v rows, each strip computing, into buffers of
// its own, the rows of every producer stage it needs (the rows its windows overlap
// with the next strip's, the halo, computed by both), then its output rows. Under
// --target openmp the strips are the parallel loop.
//
// The plan is found from the program's structure, not its names, and written as
// ordinary strategy steps (each with its comment in the .elv file):
//   1. DFNF, the lets' stages inlined (inlineStage; each is computed per strip below),
//      and the paddings of rows moved below the maps to the inputs (padClampBeforeMap,
//      padCstBeforeMap, which checks that the map keeps a padded row padded); when
//      the entry's body is then not a map (a separable filter whose column pass is
//      written transpose(map(pad >> slide >> map(g))(transpose(rows)))), first that
//      column pass read as a pass over windows of rows (mapFission, the movement
//      rules across transposes, removeTransposePair, as examples/blur5/
//      chunks_parallel.elv does); when neither gives strips that reach a window,
//      every column pass of the program read so (an upsampling pass, ending in a
//      join, as the joined rows it makes of each window), then the paddings moved
//      again;
//   2. splitJoin(v) on the map writing the output rows, when the entry's body is that
//      map over an array of rows (v divides the rows);
//   3. the split pushed towards the inputs, each step at the exact place (a path of
//      body/function/argument) the last one left it: through a map (splitBeforeMap,
//      slideBeforeMap: the stage computed per strip), through a slide of rows
//      (splitOfSlide, slideOfSlide: the strips of windows become windows of
//      overlapping blocks of rows, a stage's halo), through a zip (splitBeforeZip:
//      both arrays in the same strips), through a join of groups of rows
//      (splitOfJoin: an upsampling stage's strips are strips of its pairs of rows);
//      it stops at an input, a padding or a transpose (what lies below is computed
//      whole, before the strips);
//   4. mapFusion and zipMapFusion at the map over the strips only: each strip one
//      iteration of the outer map, whose body computes the producers' rows (lowerToC
//      stores those a window reads, in a buffer of the strip: v plus the halo rows)
//      and then the strip's output rows.
// A plan that passes no slide (a pointwise program: no halo, no producer read by a
// window) is not offered. Each plan becomes candidates with and without the taps
// unrolled and the innermost map vectorised, the strips parallel under openmp.
#pragma once

#include <cstdint>
#include <vector>

#include "driver/schedule_space.h"
#include "rise/check.h"

namespace risec::driver {

struct StripPlan {
  int64_t rows = 0;                 // v: output rows per strip
  int64_t strips = 0;               // the output rows / v
  int halos = 0;                    // slides the strips were pushed through
  std::vector<ScheduleStep> steps;  // the "strips" decision's steps, in order
};

// The strip heights offered for `rows` output rows: those of `preferred` that divide
// rows into at least two strips; when none does, the two largest divisors of rows
// that give at least two strips of at least two rows (none for a prime, none when
// preferred is empty).
std::vector<int64_t> strip_heights(int64_t rows, const std::vector<int64_t>& preferred);

// What a plan is made for. The strips of an image pipeline (the default) need a
// window: a pointwise pipeline gains nothing from strips. The row panels of a network
// of products (schedule_row_panels.h) pass no window: each panel's rows are computed
// through every stage, its products register-blocked; their structure steps (a
// product's epilogue moved out of it) come after the stages are inlined.
struct StripPlanOptions {
  bool need_halo = true;
  std::vector<ScheduleStep> structure;  // applied after the lets are inlined
};

// The plans of `high` (one per strip height; empty when the program is not a
// pipeline of row stages); `*rewrites` counts the rewrites tried.
std::vector<StripPlan> strip_plans(const rise::Checked& high, const std::vector<int64_t>& preferred,
                                   int* rewrites, const StripPlanOptions& options = {});

// The space's strip candidates of `high` (structure "strips"), lowered; a rule's or
// the checker's refusal counts in space.dropped.
std::vector<ScheduleCandidate> strip_candidates(const rise::Checked& high, const SpaceOptions& opt,
                                                ScheduleSpace& space);

}  // namespace risec::driver
