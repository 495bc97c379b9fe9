// `risec explore` (docs/tuning.md, "Exploring views and materialisation"): search the
// places where an intermediate array is stored in memory or kept as a view (fused
// into its consumer), in the spirit of Lin's exploration (the DPS/views thesis,
// chapter 6).
//
// The start is the program in RNF (maps fissioned as far as possible): every
// intermediate array that a map or a reduction computes is stored (lowerToC wraps it
// in toMem). A *site* is a place where the producer of an intermediate can be fused
// into its consumer: `map(f)(map(g)(x))` (mapFusion) or `reduce(op)(z)(map(g)(x))`
// (fuseReduceMap). A *variant* is the program after a sequence of such fusions, each
// at a site of the program before it; fusing one site can uncover another (fusing two
// maps brings a reduction next to the map it reads). A variant is a strategy:
// `RNF ; <fusion at a path> ; ... ; lowerToC`.
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

#include "driver/tune.h"

namespace risec::driver {

// A place to fuse in a program: the rule and the path to the node, as the ELEVATE
// traversals `body`, `function` and `argument` name it.
struct FusionSite {
  std::string rule;               // mapFusion | fuseReduceMap
  std::vector<std::string> path;  // from the root: "body", "function", "argument"
  std::string where;              // line:col of the consumer in the source
  bool operator==(const FusionSite& o) const { return rule == o.rule && path == o.path; }
};

// The strategy text applying `rule` at `path`: body(argument(mapFusion)).
std::string site_strategy(const FusionSite& s);

// The sites of a checked program where a fusion applies (each one tried), in
// pre-order.
std::vector<FusionSite> fusion_sites(const rise::Checked& c);

// The cost model (docs/tuning.md): over the arrays the lowered program stores in
// memory (toMem, oclToMem), `allocated` sums their sizes in bytes and `traffic` the
// bytes written and read again: twice the size times the number of times the store
// executes (the product of the lengths of the maps and reductions around it). Lower
// is better; traffic first, then the allocation.
struct MemoryCost {
  int64_t traffic = 0;
  int64_t allocated = 0;
  int stores = 0;
  bool operator<(const MemoryCost& o) const {
    return traffic != o.traffic ? traffic < o.traffic : allocated < o.allocated;
  }
};
MemoryCost memory_cost(const rise::Checked& lowered);

struct Variant {
  std::vector<FusionSite> steps;  // the fusions, in order
  rise::Checked program;          // after the steps, before lowering
  MemoryCost cost;                // of the program after lowerToC
  std::string key;                // the printed program (variants are told apart by it)
  std::optional<double> time_ms;  // when measured
  std::string error;              // the measurement's failure
};

// The whole strategy of a variant.
std::string variant_strategy(const Variant& v, const std::string& header = "");

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
  size_t walks = 32;        // Random: random walks drawn
  uint64_t seed = 0;
  std::ostream* progress = nullptr;
};

struct ExploreResult {
  std::vector<FusionSite> start_sites;  // the sites of the start program
  std::vector<Variant> variants;        // every variant seen, best by the model first
  std::vector<size_t> measured;         // indices into variants, in measurement order
  std::optional<size_t> best;           // the fastest measured
  std::string best_strategy;
};

// Runs the exploration. Throws risec::Error (User) when no variant can be measured.
ExploreResult explore(const ExploreConfig& config, Measurer& measurer);

// The `explore` subcommand.
int cmd_explore(const Options& o);

}  // namespace risec::driver
