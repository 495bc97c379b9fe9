// The search of `risec tune` (docs/tuning.md): propose points of a strategy
// template's parameters (`param NAME in [...]`), compile each, measure the survivors.
//
// Each step proposes a batch of points (one value per parameter), rewrites and
// generates code for each one in turn (a point the rewrite or the type checker
// rejects, e.g. a tile size that does not divide the array, is pruned there, before
// the C compiler runs), builds the surviving candidates in parallel (the C compiler,
// `workers` at a time), then measures them one at a time. Every trial is stored in
// the trial database (trial_db.h), so a second search of the same study resumes: it
// skips the points already tried and counts them in its budget.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/measure.h"
#include "driver/trial_db.h"
#include "elevate/parser.h"
#include "support/cpu.h"

namespace risec::driver {

enum class SearchKind {
  Evolutionary,  // a steady-state genetic search over the value lists (search.cpp)
  Random,        // uniform over the untried points (the baseline)
};

// Points as indices into each parameter's value list (the names of a permutation
// hold distinct indices into their shared list).
using Genome = std::vector<size_t>;

// Proposes untried points (the search; search.cpp describes the evolutionary one).
// Deterministic given the seed and the sequence of records.
class Searcher {
 public:
  // Only points that satisfy `constraints` (`lanes` in them is `lanes`, by default
  // this machine's) are proposed.
  Searcher(const std::vector<elevate::StrategyParam>& params, SearchKind kind, uint64_t seed,
           const std::vector<elevate::StrategyConstraint>& constraints = {},
           int64_t lanes = machine_lanes());
  // A point tried: measured (with its time), or pruned/failed.
  void record(const Genome& g, bool measured, double time_ms);
  bool tried(const Genome& g) const { return tried_.count(g) > 0; }
  bool exhausted() const { return static_cast<double>(tried_.size()) >= space_; }
  // The number of points: the product of the plain parameters' list lengths and k!
  // for each permutation of k values, less the points that violate a constraint
  // (counted when the whole space has at most kEnumerable points, else not
  // subtracted: space_counted() is false).
  double space() const { return space_; }
  double unconstrained_space() const { return full_space_; }
  bool space_counted() const { return counted_; }
  // Whether the point satisfies every constraint.
  bool valid(const Genome& g) const;
  static constexpr double kEnumerable = 1 << 20;
  // The next untried point, or nullopt when every point has been tried.
  std::optional<Genome> propose();

 private:
  const std::vector<elevate::StrategyParam>& params_;
  SearchKind kind_;
  std::mt19937_64 rng_;
  double space_ = 1, full_space_ = 1;
  bool counted_ = true;
  std::vector<elevate::StrategyConstraint> constraints_;
  int64_t lanes_;
  std::set<Genome> tried_;
  std::vector<std::pair<double, Genome>> measured_;
  std::vector<std::vector<size_t>> by_value_;  // per parameter: value indices, by value
  // Random points measured before the evolution starts.
  static constexpr size_t kInitialPopulation = 6;

  double uniform();
  size_t below(size_t n);
  Genome tournament();
  void mutate(Genome& g);
  std::optional<Genome> random_untried();
  // Every point, in odometer order, passed to `f`.
  void for_each_point(const std::function<void(const Genome&)>& f) const;
};

struct TuneConfig {
  const rise::Program* program = nullptr;
  std::string entry;
  rise::SizeMap sizes;
  std::string target = "c";
  SourceRef strategy;     // the template
  std::string study_key;  // TrialDb key (study_key() below)
  int budget = 50;        // trials measured (or failed) in the study, earlier runs included
  int workers = 2;        // C compilations at once
  uint64_t seed = 0;
  SearchKind search = SearchKind::Evolutionary;
  std::ostream* progress = nullptr;  // progress on this stream (null: silent)
  bool tty = false;                  // a redrawn bar instead of one line per trial
  bool shift_tails = true;           // c, openmp: shifted tails (--no-shift-tails: plain loops)
  bool bounds_checks = true;         // index checks (--no-bounds-checks: none)
};

struct TuneResult {
  std::vector<elevate::StrategyParam> params;
  std::vector<Trial> trials;  // the whole study, earlier runs first
  int new_trials = 0;         // measured or failed in this run
  std::optional<Trial> best;
  std::string best_strategy;  // the template with the best point's values substituted
};

// Identifies a study: a hash of the program's and the template's text, the sizes, the
// target, the entry and lanes.
std::string study_key(const std::string& program_text, const std::string& strategy_text,
                      const rise::SizeMap& sizes, const std::string& target,
                      const std::string& entry);

// Runs the search. Throws risec::Error (User) when the template declares no
// parameters or when no point survives the rewrite.
TuneResult tune(const TuneConfig& config, TrialDb& db, Measurer& measurer);

// One point of the template compiled as a search compiles it: the strategy with the
// point's values, then the whole `risec compile` pipeline at config.sizes. Throws
// risec::Error (User) when the rewrite or the type checker rejects the point (the
// search prunes it).
Compiled compile_point(const TuneConfig& config, const std::vector<elevate::StrategyParam>& params,
                       const TunePoint& point);

// One trial outside a search (the Python package's `risec.tuning`, where another
// engine proposes the points): compile_point, then the measurer's prepare and
// measure. Status Invalid with the reason when the point is pruned, Failed when the C
// compiler or the run fails, else Measured with the time.
Trial run_trial(const TuneConfig& config, const std::vector<elevate::StrategyParam>& params,
                const TunePoint& point, Measurer& measurer);

// "1.234 ms", "12.3 ms", "0.00123 ms": three decimals from 1 ms, one from 10 ms, three
// significant digits below 1 ms (progress lines, reports, the comments of written
// strategies).
std::string format_time(double ms);

}  // namespace risec::driver
