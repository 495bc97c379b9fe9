// The autoscheduler's search space (docs/tuning.md, "Without a template"): the
// candidate schedules of one program, each an ordinary strategy text built from a few
// decisions, in this order:
//   structure  how the program is taken apart before the loops are chosen: simplify
//              (the default lowering's start), DFNF, DFNF with every reduction fused
//              with the map it reads, or one of the best variants of `risec explore`
//              (RNF and its fusion, store and hoist sites, ranked by MemoryCost);
//   strips     (image pipelines) the output rows in strips of v rows, each strip
//              computing the rows of its producer stages it needs, halos included,
//              in buffers of its own (schedule_strips.h; Halide's compute_at at a
//              strip), then its output rows; under openmp the strips are the
//              parallel loop; each with and without unroll and vectorize (these
//              candidates come before the product of the other decisions);
//   stages     (programs with a let or a zip) each stored stage computed where it
//              is read instead: the lets inlined, then fused with their consumers
//              through zips and maps; with zips of joined arrays (an upsampling),
//              also the last stage alone, through the joins (schedule_pipeline.h);
//   unroll     reductions of at most 25 elements expanded (expandReduce: the taps of
//              a window become one expression with constant offsets);
//   order      the loops of the first nest reordered (reorder([1, 3, 2]): a
//              reduction inside two maps moved outside the inner one);
//   tile       the outermost nest of two maps tiled (tile(t, t), t from 8 to 128);
//   parallel   (openmp) the loop writing the result parallel (parallelOutput), the
//              outermost map (parallel), or, after lowerToC, the outer loop of every
//              stage, those lowerToC stores included (parallelStages);
//   schedule   (openmp, only for the best parallel candidates by the cost model, not
//              a decision of every candidate) their parallel loops scheduled
//              dynamically in chunks (schedule_omp.h);
//   reductions reductions of add, mul, fmax or fmin kept in one, two or four vector
//              accumulators (schedule_reduce.h: vectorizeReductionRemainder(lanes),
//              vectorizeReduction2Remainder(lanes), vectorizeReduction4Remainder(lanes));
//   division   (programs dividing floats by a literal or a variable) each such division
//              in a map whose divisor the map's elements do not change a multiplication
//              by its reciprocal (reciprocalDivision: softmax's `v / s`);
//   vectorize  the innermost map over scalars vectorised (vectorize(lanes) or
//              vectorize(lanes * 2)), or, when the program has several maps over
//              scalars, every one of them (normalize(vectorizeRemainder(lanes) @ ..));
//   taps       (c, openmp; one option, always taken) after lowerToC, the default
//              lowering's try(unrollReductions(25)) (taps_step).
// Programs with a reduction of products nested in two maps (matrix products) also
// get register-blocked candidates (schedule_blocked.h: the mm template's decisions,
// ranked by a register and cache model), and, when the output is a map over rows,
// row-panel candidates (schedule_row_panels.h: every layer of a panel of rows
// computed in one parallel loop, its products blocked), the two kinds interleaved by
// that model's estimate.
// Each candidate's steps are rewritten and checked one decision at a time (the
// candidates share their prefixes' rewrites); a step a rule refuses drops every
// candidate under it (counted), and candidates whose lowered programs are the same
// are kept once; a decision reached again with a program that prints alike (and the
// same steps left for after lowering) is not grown again, its leaves counted as the
// duplicates and refusals they would be. The default lowering is always the first
// candidate, with the text of the strategy compile applies without one
// (default_lowering_for); under openmp the second is the same lowering with no
// parallel loop (ScheduleCandidate::sequential).
// Programs above the default lowering's simplify limit (the default does not simplify
// them either) get a reduced space: no simplify structure and no explore variants,
// whose rewrites grow faster than the program, one tile size and one vector
// width, and not every map vectorised (normalize: each map's rewrite retypes what it
// reads); every other decision costs a fixed number of rewrites, so the space of any
// program is built in a bounded number of rewrites (ScheduleSpace::rewrites, ::reduced).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "elevate/strategy.h"
#include "rise/check.h"

namespace risec::driver {

// One decision of a candidate: the strategy text applied and what it does, in words
// (the comment written above it in the .elv file).
struct ScheduleStep {
  std::string decision;  // structure, stages, unroll, order, tile, parallel, reductions,
                         // vectorize, schedule
  std::string strategy;
  std::string comment;
  bool after_lowering = false;  // applied after lowerToC (parallelStages), not before
};

struct ScheduleCandidate {
  bool is_default = false;          // the default lowering (compiled without a strategy)
  std::string default_text;         // is_default: its strategy, compile's default as text
  std::vector<ScheduleStep> steps;  // before lowerToC, then those after_lowering
  rise::Checked lowered;            // after the steps and lowerToC
  // The decisions, for reports: "" when not taken.
  std::string structure;  // its short name
  std::string parallel;   // "parallelOutput", "outermost map", "every stage" or "strips"
  // openmp: the default lowering without its parallel steps (the c target's default),
  // measured right after the default: on a small program, or a loaded machine, a
  // fork and join costs more than the loop it shares out (docs/tuning.md).
  bool sequential = false;
  std::string schedule;  // its parallel loops' OpenMP schedule ("dynamic, 4"); "": default
  int64_t tile = 0;
  int64_t strip = 0;        // strips of this many output rows (schedule_strips.h)
  std::string vector;       // "lanes" or "lanes * 2"
  std::string reduction;    // vectorised reductions: "lanes", "2 x lanes" or "4 x lanes"
  bool reciprocal = false;  // divisions by invariants made multiplications (reciprocalDivision)
  // The lets' stages computed where they are read (schedule_pipeline.h): how, in a few
  // words (StageChoice::label); "" when not.
  std::string stages;
  bool inlined() const { return !stages.empty(); }
  bool unrolled = false;
  bool reordered = false;
  std::string block;         // a register-blocked candidate's point (schedule_blocked.h)
  std::string block_reason;  // and the register and cache model's reason, in words
  double block_score = 0;    // and that model's estimate (cycles per multiply-add)
  std::string gpu;           // opencl and cuda: the mapping, in words (schedule_gpu.h)
  // The strategy text (steps, then lowerToC), one step a line with its comment.
  std::string strategy_text() const;
  // The decisions in a few words ("structure simplify, parallel parallelOutput, ...").
  std::string label() const;
};

struct SpaceOptions {
  std::string target = "c";     // openmp adds the parallel decision
  size_t explore_variants = 2;  // explore's best variants used as structures
  size_t max_candidates = 600;  // the enumeration stops there (counted as truncated;
                                // the strip candidates not counted)
  std::vector<int64_t> tiles = {8, 16, 32, 64, 128};
  // Strip heights (output rows) tried when they divide the rows (schedule_strips.h:
  // else the largest divisors); empty: no strips.
  std::vector<int64_t> strips = {8, 16, 32, 64};
  size_t register_blocks = 32;  // register-blocked candidates kept (schedule_blocked.h)
  size_t row_panels = 8;        // row-panel candidates kept (schedule_row_panels.h)
  int threads = 1;              // the threads the blocked candidates' model assumes
  double fork_join_cycles = 0;  // and what it charges a parallel loop (cost_model.h)
  size_t schedule_choices = 2;  // openmp: parallel candidates given a dynamic schedule too
  // The work of all the space's rewrites, in term nodes visited or built
  // (elevate::WorkMeter); 0: space_work_limit's default for the program.
  int64_t max_work = 0;
};

// The default work limit: kSpaceWorkBase plus kSpaceWorkPerNode per node of the
// program, above what the spaces of the examples and benchmarks use (at most 4.7
// million: harris's and sharpen's OpenMP spaces); a program whose rewrites grow
// faster than its size stops there with the space truncated, instead of running
// without end (a chain of maps whose rewrites doubled it at every map did).
inline constexpr int64_t kSpaceWorkBase = 20'000'000;
inline constexpr int64_t kSpaceWorkPerNode = 2'000;
int64_t space_work_limit(const rise::Expr& program, const SpaceOptions& opt);

struct ScheduleSpace {
  std::vector<ScheduleCandidate> candidates;  // the default first
  int dropped = 0;            // candidates whose rewrite a rule or the checker refused
  int duplicates = 0;         // candidates whose lowered program another one has
  bool truncated = false;     // max_candidates reached
  std::string drop_reason;    // the first refusal's reason (its first line)
  int rewrites = 0;           // strategies applied to build it (each at most one program's size)
  bool reduced = false;       // a large program: no simplify structure, no explore variants
  bool work_limited = false;  // truncated by SpaceOptions::max_work (the rewrite in
                              // flight refused, nothing grown after it)
  int64_t work = 0;           // the work spent (elevate::WorkMeter's units)
};

// The space of `high` (the checked program at the tuning sizes).
ScheduleSpace build_space(const rise::Checked& high, const SpaceOptions& options);

// Shared by the CPU and GPU spaces (schedule_gpu.h):
// the length of the longest constant-length reduction of `e` (0 when none);
int64_t longest_reduction(const rise::Expr& e);
// the unroll decision's step, when the longest reduction has 2 to 25 elements;
std::optional<ScheduleStep> unroll_step(const rise::Checked& high);
// the vectorize decision's step on vectors of `lanes` floats (the general space and the
// strips, schedule_strips.h);
ScheduleStep vectorize_lanes_step();
// the step every CPU candidate ends with after lowerToC, as the default lowering does:
// try(unrollReductions(N)) with the default's N, so that a window's taps read at
// constant offsets and code generation splits its clamped or padded borders off (the
// interior's vector reads contiguous, not gathered lane by lane); none where the
// default does not unroll (GPU targets, programs above the simplify limit);
std::optional<ScheduleStep> taps_step(const rise::Checked& high, const std::string& target);
// `text`, a strategy expression, applied to `c`, counted in `*count` (the space's
// rewrites). Without `note`, a failure's error has the message only (apply_strategy):
// for the rewrites whose refusal is caught and kept as one line.
rise::Checked rewrite_with(const std::string& text, const rise::Checked& c, int* count,
                           bool note = true);
// Sets c.lowered to `high` rewritten by c's steps and lowerToC (the steps marked
// after_lowering after it); a rule's or the
// checker's refusal counts in space.dropped (the first one's reason kept) and gives
// false.
bool lower_candidate(ScheduleCandidate& c, const rise::Checked& high, ScheduleSpace& space);

}  // namespace risec::driver
