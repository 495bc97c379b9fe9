// Dense layers blocked by the autoscheduler (src/driver/schedule_blocked.cpp): each
// layer's epilogue (its bias and activation, the activation written inside the layer
// or as a map after it) applied where a register block's accumulator is stored
// (block_steps, productEpilogueFusion), the accumulator a temporary of its own
// (dpia/register_block.h), and the rows an earlier layer computes stored
// once before a later layer's product (block_steps' hoist), whatever the loop order of
// the block loops. Seeded random networks of one to three layers: every blocked point
// compiles and computes what the interpreter computes, stores no array but the rows
// one layer hands the next (and a packed operand), and computes each layer once. No
// timing; the vector width is the host's, the sizes multiples of 64 columns (every
// width divides them).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "dense_nets.h"
#include "driver/commands.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "driver/schedule_blocked.h"
#include "driver/schedule_row_panels.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "sanitized_sample.h"
#include "support/files.h"

namespace risec::driver {
namespace {

// The blocked candidate of point p, as the space builds it; nullopt (with the reason
// in space.drop_reason) when a rule refuses a step.
std::optional<ScheduleCandidate> blocked(const BlockPoint& p, const rise::Checked& high,
                                         const std::string& target, ScheduleSpace& space) {
  ScheduleCandidate c;
  c.structure = "register blocks";
  c.block = "block " + std::to_string(p.ti) + "x" + std::to_string(p.tj);
  for (const BlockStep& b : block_steps(p, target))
    c.steps.push_back({b.decision, b.strategy, b.comment});
  if (!lower_candidate(c, high, space)) return std::nullopt;
  return c;
}

struct EpilogueCase {
  std::string name, entry;
  rise::Program program;
  rise::SizeMap sizes;
  int layers, bare;
};

std::vector<EpilogueCase> networks(size_t randoms, uint64_t seed) {
  std::vector<EpilogueCase> cases;
  cases.push_back({"bench mlp",
                   "mlp",
                   load_program("bench/autoschedule/programs/mlp.rise"),
                   {{"b", 16}, {"k", 16}, {"h", 128}, {"o", 64}},
                   2,
                   0});
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < randoms; ++i) {
    const int layers = 1 + static_cast<int>(i % 3);
    const DenseNet n = random_dense_net(rng, layers, true);
    // 12 rows: the blocks of 8 peel 4 rows off.
    const int64_t rows[] = {8, 12, 16};
    rise::SizeMap sizes{{"b", rows[rng() % 3]}, {"d0", int64_t(8) << (rng() % 2)}};
    for (int l = 1; l <= layers; ++l) sizes["d" + std::to_string(l)] = 64 << (rng() % 2);
    cases.push_back(
        {"random " + std::to_string(i) + ":\n" + n.text, "net",
         rise::parse_program(std::make_shared<SourceFile>(SourceFile{"net.rise", n.text})), sizes,
         layers, n.bare});
  }
  return cases;
}

// The arrays of floats the C code declares or allocates, register blocks' accumulators
// (acc..) left out: the buffers a program stores its intermediate results in.
size_t temporaries(const std::string& src) {
  const std::regex decl(R"(float\*? (restrict )?(\w+)(\[\d+\]| = \(float\*\)risec_alloc))");
  size_t n = 0;
  for (auto it = std::sregex_iterator(src.begin(), src.end(), decl); it != std::sregex_iterator();
       ++it)
    if ((*it)[2].str().rfind("acc", 0) != 0) ++n;
  return n;
}

// Every blocked point of the bench MLP and of seeded random networks (the model's
// best few of each shape and order) is lowered without a refusal, computes what the
// interpreter computes on the c and openmp targets, and, where the epilogue is fused
// (no chunks of kc), its C code stores no array but the rows each layer hands the next
// and the packed operand: no product's result is stored for its bias or its
// activation to read.
TEST(LayerEpilogue, BlockedPointsOfRandomNetworksFuseTheEpilogueAndMatchTheInterpreter) {
  const std::vector<EpilogueCase> cases = networks(per_build(8, 2), 3401);
  size_t fused = 0;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const EpilogueCase& cs = cases[ci];
    SCOPED_TRACE(cs.name);
    const rise::Checked high = rise::check_program(cs.program, cs.entry, &cs.sizes);
    const std::optional<Contraction> con = find_contraction(high);
    ASSERT_TRUE(con);
    const std::vector<rise::Value> inputs = make_inputs(high, {}, 7 + ci);
    const rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    for (const std::string& target : cpu_targets(ci)) {
      for (const BlockPoint& p :
           rank_block_points(*con, host_block_machine(2, 2600), per_build(6, 2))) {
        ScheduleSpace space;
        const std::optional<ScheduleCandidate> c = blocked(p, high, target, space);
        SCOPED_TRACE(target + ": block " + std::to_string(p.ti) + "x" + std::to_string(p.tj) +
                     (p.rows_outer ? "" : ", column blocks outer") + (p.pack ? ", packed" : "") +
                     (p.rest ? ", rows peeled" : ""));
        ASSERT_TRUE(c) << space.drop_reason;
        const Compiled compiled = compile_candidate(cs.program, cs.sizes, target, *c, cs.entry);
        if (p.kc == 0) {
          ++fused;
          EXPECT_LE(temporaries(compiled.unit.source), (cs.layers - 1) + (p.pack ? 1 : 0))
              << c->strategy_text() << "\n"
              << compiled.unit.source;
        }
        const Execution ex = execute(compiled, cs.sizes, inputs);
        const Comparison cmp = compare_values(ex.output, expected, type);
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch << "\n" << c->strategy_text();
      }
    }
  }
  EXPECT_GT(fused, 0u);
}

// A register block written straight into plain memory (a row panel's product into the
// panel's buffer, the last layer into the output) accumulates in a temporary of its
// own, ti x tj floats, which the C compiler keeps in registers across the reduction:
// every row-panel candidate of the bench MLP declares one accumulator of each block's
// size per layer and matches the interpreter.
TEST(LayerEpilogue, RowPanelBlocksAccumulateInATemporaryOfTheirOwn) {
  const rise::Program mlp = load_program("bench/autoschedule/programs/mlp.rise");
  const rise::SizeMap sizes{{"b", 32}, {"k", 16}, {"h", 128}, {"o", 64}};
  const rise::Checked high = rise::check_program(mlp, "mlp", &sizes);
  const std::optional<Contraction> con = find_contraction(high);
  ASSERT_TRUE(con);
  const std::vector<rise::Value> inputs = make_inputs(high, {}, 3);
  const rise::Value expected = interpret(high, inputs);
  for (const std::string& target : cpu_targets(0)) {
    ScheduleSpace space;
    const std::vector<ScheduleCandidate> panels = row_panel_candidates(
        high, *con, host_block_machine(2, 2600), target, per_build(4, 2), space);
    ASSERT_FALSE(panels.empty()) << space.drop_reason;
    for (const ScheduleCandidate& c : panels) {
      SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
      // "row panels of P, block TIxTJ, ..."
      std::smatch m;
      ASSERT_TRUE(std::regex_search(c.block, m, std::regex(R"(block (\d+)x(\d+))")));
      const int64_t floats = std::stoll(m[1]) * std::stoll(m[2]);
      const Compiled compiled = compile_candidate(mlp, sizes, target, c, "mlp");
      const std::string& src = compiled.unit.source;
      std::set<int64_t> accumulators;
      const std::regex decl(R"(float acc\w*\[(\d+)\])");
      for (auto it = std::sregex_iterator(src.begin(), src.end(), decl);
           it != std::sregex_iterator(); ++it)
        accumulators.insert(std::stoll((*it)[1]));
      EXPECT_EQ(accumulators, (std::set<int64_t>{floats})) << src;
      const Execution ex = execute(compiled, sizes, inputs);
      const Comparison cmp = compare_values(ex.output, expected, entry_result_type(high));
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    }
  }
}

// The rows a later layer reads are computed once, before its product, whatever the
// order of its block loops. In a row panel, a later layer's rows are the panel's rows
// of the earlier layer: with the later layer's column blocks outermost (two or more),
// the panel's earlier layer would be computed again for each of them without the
// hoist that stores them first. The measure is the cost model's count of computed
// floats (estimate_cost's elements): every row-panel candidate of seeded random
// networks (and of every whole-product point, which stores them anyway) computes no
// more than the default lowering, which computes every layer once, and a panel
// candidate with several column blocks computes at least 3% fewer than the same
// candidate without the hoist (the earlier layer is at least a sixteenth of the later
// one here, computed at least once more).
TEST(LayerEpilogue, RowsAnEarlierLayerComputesAreComputedOnce) {
  std::vector<EpilogueCase> cases = networks(per_build(9, 2), 77);
  size_t compared = 0;
  const std::string hoist =
      "try(everywhere(isLayerNest ; hoist(isFullyApplied(isMap) ; containsComputation, id))) ; ";
  const CostMachine cm = host_cost_machine("c");
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    EpilogueCase& cs = cases[ci];
    if (cs.layers < 2) continue;
    cs.sizes["b"] = 32;  // panels of 8 and 16 rows
    SCOPED_TRACE(cs.name);
    const rise::Checked high = rise::check_program(cs.program, cs.entry, &cs.sizes);
    const std::optional<Contraction> con = find_contraction(high);
    ASSERT_TRUE(con);
    SpaceOptions o;
    o.target = "c";
    o.tiles = {};
    o.strips = {};
    o.explore_variants = 0;
    o.register_blocks = 0;
    o.row_panels = 0;
    o.max_candidates = 1;
    const ScheduleSpace ds = build_space(high, o);
    ASSERT_FALSE(ds.candidates.empty());
    ASSERT_TRUE(ds.candidates.front().is_default);
    const double once = estimate_cost(ds.candidates.front().lowered, cm).elements;
    // The smallest later layer's columns: with tj below them, its column blocks are
    // several.
    int64_t later_cols = 1 << 30;
    for (int l = 2; l <= cs.layers; ++l)
      later_cols =
          std::min(later_cols, cs.sizes.at(cs.entry == "mlp" ? "o" : "d" + std::to_string(l)));
    ScheduleSpace space;
    std::vector<ScheduleCandidate> all =
        row_panel_candidates(high, *con, host_block_machine(2, 2600), "c", 8, space);
    ASSERT_FALSE(all.empty()) << space.drop_reason;
    for (const BlockPoint& p : rank_block_points(*con, host_block_machine(2, 2600), 6))
      if (std::optional<ScheduleCandidate> c = blocked(p, high, "c", space)) all.push_back(*c);
    for (const ScheduleCandidate& with : all) {
      SCOPED_TRACE(with.structure + ", " + with.block);
      const double hoisted = estimate_cost(with.lowered, cm).elements;
      EXPECT_LE(hoisted, once * 1.01) << rise::print_expr(with.lowered.expr);
      std::smatch m;
      if (with.structure != "row panels" ||
          with.block.find("column blocks outer") == std::string::npos ||
          !std::regex_search(with.block, m, std::regex(R"(block \d+x(\d+))")) ||
          std::stoll(m[1]) >= later_cols)
        continue;
      ScheduleCandidate without = with;
      bool removed = false;
      for (ScheduleStep& st : without.steps)
        if (size_t at = st.strategy.find(hoist); at != std::string::npos) {
          st.strategy.erase(at, hoist.size());
          removed = true;
        }
      ASSERT_TRUE(removed) << with.strategy_text();
      ASSERT_TRUE(lower_candidate(without, high, space)) << space.drop_reason;
      const double again = estimate_cost(without.lowered, cm).elements;
      EXPECT_GT(again, hoisted * 1.03) << rise::print_expr(without.lowered.expr);
      ++compared;
    }
  }
  EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace risec::driver
