// `risec tune` without --strategy (docs/tuning.md, "Without a template"): the
// autoscheduler. It builds the program's space of schedules (schedule_space.h),
// ranks them with the analytical cost model (cost_model.h), measures the default
// lowering first and then the best-ranked candidates within the budget, checks every
// measured candidate's result against the reference interpreter (against the default
// lowering's result for a program calling a `foreign def`, which the interpreter cannot
// run), skips candidates whose generated code an earlier one has, and returns the
// fastest as an ordinary strategy text with comments. The default lowering is always
// measured, so the result is never slower than it (on the measurements made).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "driver/cost_model.h"
#include "driver/gpu_device.h"
#include "driver/measure.h"
#include "driver/schedule_space.h"
#include "driver/tune.h"

namespace risec::driver {

struct AutoscheduleConfig {
  const rise::Program* program = nullptr;
  std::string entry;
  rise::SizeMap sizes;
  std::string target = "c";
  int budget = 30;  // candidates measured (the default lowering included)
  uint64_t seed = 0;
  int workers = 2;    // C compilations at once
  bool check = true;  // each measured candidate's result against the interpreter
  std::ostream* progress = nullptr;
  bool shift_tails = true;
  bool bounds_checks = true;
  SpaceOptions space;
  CostMachine machine;
  GpuDevice device;  // opencl and cuda: the device measured on (schedule_gpu.h's space)
  // The last round's rounds beyond kFinalistRounds stop once the rounds have taken this
  // long (measure.h).
  double finalist_seconds = kFinalistSeconds;
};

struct ScheduleMeasurement {
  size_t candidate = 0;  // index into the space
  std::optional<double> time_ms;
  std::string error;     // the compilation's, the run's or the check's failure
  bool stopped = false;  // timed by one call only (measure_unless_slower)
  // Its process ran past kill_limit_ms (measure.h) and was killed before its first
  // call ended: time_ms is that limit (a lower bound), and the result was not checked.
  bool killed = false;
};

// A candidate compiled as `risec compile --strategy` would compile its strategy text
// (the default candidate: the default lowering), with the config's program, entry,
// sizes, target and code-generation switches.
Compiled compile_candidate(const AutoscheduleConfig& cfg, const ScheduleCandidate& c);

struct AutoscheduleResult {
  ScheduleSpace space;
  std::vector<CostFeatures> costs;            // per candidate
  std::vector<size_t> ranking;                // candidates, best by the model first
  std::vector<ScheduleMeasurement> measured;  // in measurement order (the default first)
  size_t best = 0;                            // the fastest measured candidate
  int same_code = 0;  // candidates skipped: an earlier one generated the same code
  int refused = 0;    // candidates skipped: compile's checks refused them (disjoint writes,
                      // address spaces)
  double default_ms = 0;
  std::vector<size_t> retimed;  // the candidates the last round timed again (measure.h)
  int finalist_rounds = 0;      // the last round's rounds (kFinalistRounds and more)
  std::string best_strategy;    // the .elv text written by -o
  std::string explanation;      // --explain's text
};

// Ranks r.space's candidates by r.costs (r.ranking: the register-blocked ones first,
// in their own model's order, then by score) and returns the order they are measured
// in: the default first, then the ranking with at most a share of `budget` from one
// structure while others remain (docs/tuning.md, "Measuring").
std::vector<size_t> rank_and_order(AutoscheduleResult& r, int budget);

// Runs the autoscheduler. Throws risec::Error (User) when nothing can be measured.
AutoscheduleResult autoschedule(const AutoscheduleConfig& config, Measurer& measurer);

// The `tune` subcommand without --strategy.
int cmd_autoschedule(const TuneArgs& o);

}  // namespace risec::driver
