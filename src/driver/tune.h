// `risec tune` (spec/cli.md, docs/tuning.md): search a strategy template's parameters
// (`param NAME in [...]`) by compiling and measuring.
//
// Each step proposes a batch of points (one value per parameter), rewrites and
// generates code for each one in turn (a point the rewrite or the type checker
// rejects, e.g. a tile size that does not divide the array, is pruned there, before
// the C compiler runs), builds the surviving candidates in parallel (the C compiler,
// `workers` at a time), then measures them one at a time. Every trial is stored in a
// SQLite database, so a second search of the same study resumes: it skips the
// points already tried and counts them in its budget.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/compile.h"
#include "elevate/parser.h"
#include "support/cpu.h"

namespace risec::driver {

// One point of the search: a value per declared parameter, in declaration order.
using TunePoint = std::vector<int64_t>;

struct Trial {
  enum class Status { Measured, Invalid, Failed };
  TunePoint point;
  Status status = Status::Measured;
  double time_ms = 0;  // Measured: the fastest run's time
  std::string error;   // Invalid (the rewrite's or checker's reason), Failed (the C
                       // compiler's or the program's)
  int number = 0;      // order in the study, from 1
};

// "ti=32,v=16" for a point of `params`.
std::string point_text(const std::vector<elevate::StrategyParam>& params, const TunePoint& p);

// The trial database (SQLite). A study is one (program, template, sizes, target,
// entry, lanes) combination, named by a key; tables `studies` and `trials`
// (docs/tuning.md lists their columns, for querying with the sqlite3 shell).
class TrialDb {
 public:
  // ":memory:" or an empty path: a database that lives as long as this object.
  // Throws risec::Error (User) when the file cannot be opened or is no database.
  explicit TrialDb(const std::string& path);
  ~TrialDb();
  TrialDb(const TrialDb&) = delete;
  TrialDb& operator=(const TrialDb&) = delete;

  void add_study(const std::string& key, const std::string& description);
  // The study's trials in the order they were made.
  std::vector<Trial> load(const std::string& key,
                          const std::vector<elevate::StrategyParam>& params);
  void add(const std::string& key, const std::vector<elevate::StrategyParam>& params,
           const Trial& t);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// How candidates are built and timed. The real one (make_measurer) runs the C
// compiler and `risec run --repeat`'s timing; tests inject a fake.
class Measurer {
 public:
  virtual ~Measurer() = default;
  // Called from worker threads, several at once: build what measuring needs. An
  // Error marks the trial Failed.
  virtual void prepare(const Compiled& c) = 0;
  // Called one at a time: the candidate's time in milliseconds (an Error marks the
  // trial Failed).
  virtual double measure(const Compiled& c, const TunePoint& point) = 0;
};

// Builds with $CC (runtime/jit.h) and times `repeat` calls on seeded inputs,
// returning the fastest.
std::unique_ptr<Measurer> make_measurer(const rise::SizeMap& sizes, uint64_t seed, int repeat);

enum class SearchKind {
  Evolutionary,  // a steady-state genetic search over the value lists (tune.cpp)
  Random,        // uniform over the untried points (the baseline)
};

// Points as indices into each parameter's value list (the names of a permutation
// hold distinct indices into their shared list).
using Genome = std::vector<size_t>;

// Proposes untried points (the search; tune.cpp describes the evolutionary one).
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

// "1.234 ms" (progress and reports).
std::string format_time(double ms);
// The value of a positive integer option, `fallback` when it is empty (Usage error
// naming the flag otherwise).
int positive_option(const std::string& text, const std::string& flag, int fallback);
// The --size values for the program's entry, which a search measures at: the entry
// is checked with them and every size must be known (located errors otherwise).
rise::SizeMap search_sizes(const rise::Program& p, const Options& o);
rise::SizeMap search_sizes(const rise::Program& p, const std::string& entry, rise::SizeMap sizes);

// The `tune` subcommand.
int cmd_tune(const Options& o);

}  // namespace risec::driver
