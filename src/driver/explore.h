// `risec explore` (docs/tuning.md, "Exploring views and materialisation"): search the
// places where an intermediate array is stored in memory or kept as a view, in the
// spirit of Lin's exploration (the DPS/views thesis, chapter 6).
//
// The start is the program in RNF (maps fissioned as far as possible): every
// intermediate array that a map or a reduction computes is stored (lowerToC wraps it
// in toMem), and views (transpose, pad, slide, ...) are read through index
// expressions wherever they are used. A *site* is a place where one step changes
// that:
//   - a fusion: the producer of an intermediate fused into its consumer,
//     `map(f)(map(g)(x))` (mapFusion) or `reduce(op)(z)(map(g)(x))` (fuseReduceMap):
//     one store less;
//   - a store: a view that rearranges or re-reads its input (transpose, a pad, slide,
//     gather, reorder) materialised where it is (kStoreRule, a copy):
//     one store more, so that its readers read memory instead of recomputing indices;
//   - a hoist: a computation or such a view inside a loop that does not depend on
//     the loop's variable, computed once before the loop into memory
//     (hoist(p, s)): a store, and the work of all but one iteration removed.
// A *variant* is the program after a sequence of steps, each at a site of the program
// before it; a step can uncover another (fusing two maps brings a reduction next to
// the map it reads). A variant is a strategy: `RNF ; <step at a path> ; ... ;
// lowerToC` (or the --strategy template's main in place of lowerToC, whose parameters
// are then tuned for each measured variant).
//
// Variants are ranked by a cost model computed from the types and the sizes of the
// lowered program (memory_cost below), searched exhaustively when there are few,
// else by a beam search on the model, or by random walks; the best few are compiled
// and measured (the Measurer of risec tune), and the fastest is the result.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/measure.h"
#include "driver/search.h"
#include "driver/trial_db.h"
#include "elevate/strategy.h"

namespace risec::driver {

// A place for a step in a program: the strategy applied there (a rule such as
// mapFusion, or storeInMemory(..)/hoist(..) with its arguments) and the path to the
// node, as the ELEVATE traversals `body`, `function` and `argument` name it.
struct Site {
  enum class Kind { Fusion, Store, Hoist };
  Kind kind = Kind::Fusion;
  std::string rule;               // the strategy text applied at the node
  std::vector<std::string> path;  // from the root: "body", "function", "argument"
  std::string where;              // line:col of the node in the source
  bool operator==(const Site& o) const { return rule == o.rule && path == o.path; }
};

// A store site's rule: the view at the site copied into memory where it is.
extern const std::string kStoreRule;

// The strategy text applying the site's rule at its path: body(argument(mapFusion)).
std::string site_strategy(const Site& s);

// The sites of a checked program where a step applies (each one tried), in
// pre-order.
std::vector<Site> find_sites(const rise::Checked& c);

// The same with the program after each site's step: trying a step is applying it, so
// a search that goes on from the sites (explore's, the autoscheduler's explore
// structures) takes the results instead of applying every step a second time.
struct AppliedSite {
  Site site;
  rise::Checked program;
};
// With `work`, each step is charged to it, and once it runs out the sites after are
// not tried (the search stops there).
std::vector<AppliedSite> applied_sites(const rise::Checked& c, elevate::WorkMeter* work = nullptr);

// The cost model (docs/tuning.md): over the arrays the lowered program stores in
// memory (toMem, oclToMem), `allocated` sums their sizes in bytes and `traffic` the
// bytes written and read again: twice the size times the number of times the store
// executes (the product of the lengths of the maps and reductions around it). Lower
// is better; traffic first, then the allocation.
// `iterations` counts the loop iterations the program executes (each map or
// reduction's length times the trips of the loops around it): the work a hoist
// removes, and a fusion too. The score puts both in bytes, an iteration as one
// 4-byte element passed over: score = traffic + 4 * iterations.
struct MemoryCost {
  int64_t traffic = 0;
  int64_t allocated = 0;
  int64_t iterations = 0;
  int stores = 0;
  int64_t score() const { return traffic + 4 * iterations; }
  bool operator<(const MemoryCost& o) const {
    return score() != o.score() ? score() < o.score() : allocated < o.allocated;
  }
};
MemoryCost memory_cost(const rise::Checked& lowered);

struct Variant {
  std::vector<Site> steps;        // in order
  rise::Checked program;          // after the steps, before lowering (explore's result:
                                  // empty, dropped once the search no longer needs it)
  MemoryCost cost;                // of the program after lowerToC
  std::string key;                // the printed program (variants are told apart by it)
  std::optional<double> time_ms;  // when measured (with a template: its best point's)
  std::string error;              // the measurement's failure
  std::string tuned;              // with a template: the best point's whole strategy
};

// The whole strategy of a variant: `RNF ; steps ; lowerToC`, or with a template
// `finish` (a strategy file, possibly with parameters), that file with its `main`
// renamed `finish` and `let main = RNF ; steps ; finish;` appended.
std::string variant_strategy(const Variant& v, const std::string& header = "",
                             const std::string& finish = "");

enum class ExploreSearch {
  Model,   // every variant when there are at most `exhaustive` of them, else a beam
           // search on the model; the best by the model are measured
  Random,  // random walks over the fusions; measured in the order drawn
};

struct ExploreConfig {
  const rise::Program* program = nullptr;
  std::string entry;
  rise::SizeMap sizes;
  std::string target = "c";
  int budget = 5;  // variants measured
  ExploreSearch search = ExploreSearch::Model;
  size_t exhaustive = 256;  // Model: enumerate every variant up to this many
  size_t beam = 4;          // Model: variants kept per step of the beam search
  // Model: new variants kept per round (the best by the model); once a round has
  // found this many, its other variants are not expanded. The examples' largest
  // round has about 500; a chain of K maps' second has K^2/2.
  size_t max_round = 1024;
  // The work of the search's rewrites (elevate::WorkMeter's units: term nodes visited
  // or built); 0: explore_work_limit's default for the program.
  int64_t max_work = 0;
  size_t walks = 32;  // Random: random walks drawn
  uint64_t seed = 0;
  // A template applied after each variant's steps instead of lowerToC; its
  // parameters are searched by `risec tune` (evolutionary, `trials` points measured)
  // for each variant measured, and a variant's time is its best point's.
  SourceRef finish;
  int trials = 8;
  std::ostream* progress = nullptr;
  bool shift_tails = true;    // c, openmp: shifted tails (--no-shift-tails: plain loops)
  bool bounds_checks = true;  // index checks (--no-bounds-checks: none)
};

struct ExploreResult {
  std::vector<Site> start_sites;  // the sites of the start program
  std::vector<Variant> variants;  // every variant seen, best by the model first
  std::vector<size_t> measured;   // indices into variants, in measurement order
  std::optional<size_t> best;     // the fastest measured
  std::string best_strategy;
  int64_t work = 0;           // the search's work (elevate::WorkMeter's units)
  bool work_limited = false;  // the search stopped at its work limit
  bool round_capped = false;  // a round's new variants were cut to max_round
};

// The default work limit of the search: kExploreWorkBase plus kExploreWorkPerNode per
// node of the checked program, above what the examples' and benchmarks' searches use
// (harris's, the largest: 0.83 million units of its 2.5 million limit; blur5's and
// sharpen's 0.3 million); a program whose variants grow faster than its size (a chain
// of K maps has O(K^2) variants of size O(K), and a beam search over them K^3 work)
// stops there with the variants found so far, the unchanged program always among
// them (it is lowered before the meter starts). A chain of 50 maps ends its beam
// search within its limit; one of 100 stops at its 3.3 million.
inline constexpr int64_t kExploreWorkBase = 2'000'000;
inline constexpr int64_t kExploreWorkPerNode = 1'000;
int64_t explore_work_limit(const rise::Expr& program, const ExploreConfig& cfg);

// Runs the exploration. Throws risec::Error (User) when no variant can be measured.
ExploreResult explore(const ExploreConfig& config, Measurer& measurer);

// The `explore` subcommand.
int cmd_explore(const ExploreArgs& o);

}  // namespace risec::driver
