// Row panels of networks of products (src/driver/schedule_row_panels.h) and what a
// parallel loop's fork and join costs the models (cost_model.h, schedule_blocked.h):
// every row-panel candidate of the bench MLP and of seeded random networks of one to
// three dense layers (with or without a bias and a relu) computes what the
// interpreter computes on the c and openmp targets, blocks every layer and has one
// parallel loop in all under openmp; the blocked model charges a packed operand's
// copy and each product's forks and joins; with forks and joins as dear as a quarter
// of a layer, the space measures a row panel first; a cheap first call never stops a
// candidate's timing. No timing; the sizes are multiples of 64 columns (every vector
// width divides them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "dense_nets.h"
#include "driver/commands.h"
#include "driver/compile.h"
#include "driver/cost_model.h"
#include "driver/measure.h"
#include "driver/run.h"
#include "driver/schedule_blocked.h"
#include "driver/schedule_row_panels.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "sanitized_sample.h"
#include "scoped_lanes.h"
#include "support/files.h"

namespace risec::driver {
namespace {

size_t panels_count(const std::string& s, const std::string& word) {
  size_t n = 0;
  for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + word.size())) ++n;
  return n;
}

// Every row-panel candidate of the bench MLP and of random networks of one to three
// layers matches the interpreter, blocks every layer (one unrolled k.i loop each) and,
// under openmp, has exactly one parallel loop: the panels.
TEST(RowPanels, EveryCandidateOfRandomNetworksMatchesTheInterpreter) {
  struct Case {
    std::string name, entry;
    rise::Program program;
    rise::SizeMap sizes;
    int layers;
  };
  std::vector<Case> cases;
  cases.push_back({"bench mlp",
                   "mlp",
                   load_program("bench/autoschedule/programs/mlp.rise"),
                   {{"b", 16}, {"k", 16}, {"h", 64}, {"o", 64}},
                   2});
  std::mt19937_64 rng(3434);
  const size_t randoms = per_build(6, 1);
  for (size_t i = 0; i < randoms; ++i) {
    const int layers = 1 + static_cast<int>(i % 3);
    const DenseNet n = random_dense_net(rng, layers, false);
    rise::SizeMap sizes{{"b", int64_t(16) << (rng() % 2)}, {"d0", int64_t(8) << (rng() % 2)}};
    for (int l = 1; l <= layers; ++l) sizes["d" + std::to_string(l)] = 64;
    cases.push_back(
        {"random " + std::to_string(i) + ":\n" + n.text, "net",
         rise::parse_program(std::make_shared<SourceFile>(SourceFile{"net.rise", n.text})), sizes,
         layers});
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& cs = cases[ci];
    SCOPED_TRACE(cs.name);
    const rise::Checked high = rise::check_program(cs.program, cs.entry, &cs.sizes);
    const std::optional<Contraction> con = find_contraction(high);
    ASSERT_TRUE(con);
    const std::vector<rise::Value> inputs = make_inputs(high, {}, 11 + ci);
    const rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    for (const std::string& target : cpu_targets(ci)) {
      ScheduleSpace space;
      const std::vector<ScheduleCandidate> panels = row_panel_candidates(
          high, *con, host_block_machine(2, 20000), target, per_build(3, 2), space);
      ASSERT_FALSE(panels.empty()) << target << ": " << space.drop_reason;
      for (const ScheduleCandidate& c : panels) {
        SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
        EXPECT_EQ(c.structure, "row panels");
        EXPECT_GT(c.block_score, 0);
        const std::string lowered = rise::print_expr(c.lowered.expr);
        EXPECT_EQ(panels_count(lowered, "reduceSeqUnroll"), static_cast<size_t>(cs.layers));
        EXPECT_EQ(panels_count(lowered, "mapPar"), target == "openmp" ? 1u : 0u);
        if (target == "openmp") {
          // Every layer is inside the parallel loop over the panels.
          std::string par;
          rise::for_each_subexpr(c.lowered.expr, [&](const rise::Expr& e) {
            if (e->kind != rise::ExprKind::App || !par.empty()) return par.empty();
            const rise::Spine sp = rise::spine(e);
            if (sp.head->kind == rise::ExprKind::Primitive && sp.head->prim &&
                sp.head->prim->name == "mapPar" && sp.args.size() == 2)
              par = rise::print_expr(e);
            return par.empty();
          });
          EXPECT_EQ(panels_count(par, "reduceSeqUnroll"), static_cast<size_t>(cs.layers));
        }
        const Execution ex = execute(
            [&] {
              CompileRequest r;
              r.program = &cs.program;
              r.entry = cs.entry;
              r.sizes = &cs.sizes;
              r.target = target;
              elevate::Strategy s = elevate::parse_strategy_file(
                  std::make_shared<SourceFile>(SourceFile{"candidate.elv", c.strategy_text()}));
              r.strategy = &s;
              return compile(r);
            }(),
            cs.sizes, inputs);
        const Comparison cmp = compare_values(ex.output, expected, type);
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      }
    }
  }
}

// The panels' heights divide the rows into at least two panels and one per thread.
TEST(RowPanels, HeightsLeaveEveryThreadAPanel) {
  EXPECT_EQ(row_panel_heights(64, 2), (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(row_panel_heights(64, 4), (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(row_panel_heights(16, 1), (std::vector<int64_t>{8}));
  EXPECT_TRUE(row_panel_heights(8, 2).empty());
  EXPECT_TRUE(row_panel_heights(36, 2).empty());
}

// The blocked model charges each product's forks and joins (two with a packed
// operand: the packing loop is parallel too) and the packed operand's copy: on the
// same point, a dearer fork and join adds exactly its share of a thread's
// multiply-adds, twice for a packed point; with one thread nothing.
TEST(RowPanels, BlockedModelChargesForksJoinsAndPacking) {
  const Contraction c{64, 512, 256, true};
  using Key = std::tuple<int64_t, int64_t, int64_t, int, bool, bool, bool, int64_t, int64_t>;
  auto scores = [&](int threads, double fj) {
    std::map<Key, BlockPoint> out;
    for (const BlockPoint& p : rank_block_points(c, host_block_machine(threads, fj), 100000))
      out[{p.ti, p.tj, p.kk, p.width, p.rows_outer, p.register_block, p.pack, p.panel, p.kc}] = p;
    return out;
  };
  const double fmas = 64.0 * 512 * 256;
  const auto cheap = scores(2, 0), dear = scores(2, 50000), one = scores(1, 50000),
             one_cheap = scores(1, 0);
  ASSERT_EQ(cheap.size(), dear.size());
  size_t packed = 0;
  for (const auto& [k, p] : cheap) {
    const BlockPoint& q = dear.at(k);
    EXPECT_NEAR(q.score - p.score, (p.pack ? 2 : 1) * 50000.0 * 2 / fmas, 1e-9);
    EXPECT_DOUBLE_EQ(one.at(k).score, one_cheap.at(k).score);
    if (p.pack) {
      ++packed;
      EXPECT_NE(p.reason.find("B packed every call"), std::string::npos) << p.reason;
    }
  }
  EXPECT_GT(packed, 0u);
  // The copy is a share of the product that shrinks with the rows: 8 / rows bytes per
  // multiply-add, so 64 rows pay a larger share of the estimate than 1024 rows.
  auto copy_share = [&](int64_t rows) {
    const Contraction k{rows, 512, 256, true};
    for (const BlockPoint& p : rank_block_points(k, host_block_machine(1, 0), 100000)) {
      const size_t at = p.reason.find("B packed every call (");
      if (p.pack && p.ti == 8 && !p.rows_outer && p.register_block && !p.panel &&
          at != std::string::npos)
        return std::atoi(p.reason.c_str() + at + std::string("B packed every call (").size());
    }
    return -1;
  };
  const int small = copy_share(64), tall = copy_share(1024);
  ASSERT_GE(tall, 0);
  EXPECT_GT(small, tall);
}

// The bench MLP's space on two threads with a fork and join of 50000 cycles (about
// 20 us: OMP_WAIT_POLICY=passive on a virtual machine): a row-panel candidate comes
// before every whole-product blocked one (each of those starts two or four parallel
// loops and runs the epilogues on one thread), and the first row panel comes no
// later than with forks and joins free.
TEST(RowPanels, DearForksAndJoinsPutRowPanelsFirst) {
  // At AVX-512's 16 lanes, where this order was measured (Zen 4: row panels the
  // fastest); at 8 the model puts a register-blocked candidate first (a thread's
  // multiply-adds cost twice as much there, so the forks weigh half).
  ScopedLanes lanes("16");
  const rise::Program mlp = load_program("bench/autoschedule/programs/mlp.rise");
  const rise::SizeMap sizes{{"b", 64}, {"k", 256}, {"h", 512}, {"o", 128}};
  const rise::Checked high = rise::check_program(mlp, "mlp", &sizes);
  auto first_blocked = [&](double fj) {
    SpaceOptions o;
    o.target = "openmp";
    o.threads = 2;
    o.fork_join_cycles = fj;
    o.tiles = {};
    o.strips = {};
    o.explore_variants = 0;
    o.register_blocks = 6;
    o.row_panels = 3;
    o.max_candidates = 1;
    const ScheduleSpace s = build_space(high, o);
    std::vector<std::string> kinds;
    for (const ScheduleCandidate& c : s.candidates)
      if (!c.block.empty()) kinds.push_back(c.structure);
    return kinds;
  };
  const std::vector<std::string> dear = first_blocked(50000);
  ASSERT_GE(dear.size(), 4u);
  EXPECT_EQ(dear.front(), "row panels");
  EXPECT_EQ(std::count(dear.begin(), dear.end(), std::string("row panels")), 3);
  const std::vector<std::string> free = first_blocked(0);
  const auto first_panel = [](const std::vector<std::string>& k) {
    return std::find(k.begin(), k.end(), std::string("row panels")) - k.begin();
  };
  EXPECT_LE(first_panel(dear), first_panel(free));
}

// A first call above the stop threshold stops a candidate's timing only when it is
// dear to repeat; a cheap one (a cold first call of a sub-millisecond kernel) never.
TEST(RowPanels, CheapFirstCallsNeverStopTheTiming) {
  EXPECT_FALSE(stop_after_first_call(1.5, 1.2));
  EXPECT_FALSE(stop_after_first_call(kAlwaysRepeatBelowMs / 2, 1.0));
  EXPECT_TRUE(stop_after_first_call(kAlwaysRepeatBelowMs * 2, kAlwaysRepeatBelowMs));
  EXPECT_FALSE(stop_after_first_call(kAlwaysRepeatBelowMs * 2, kAlwaysRepeatBelowMs * 3));
}

// A cold first call within kWarmRecheckFactor of the stop threshold is checked by a
// warm call before the candidate is stopped; a far slower one costs that one call.
TEST(RowPanels, ColdFirstCallsAreCheckedWarmBeforeStopping) {
  struct Calls {
    std::vector<int> made;  // calls per new process
    double cold, warm;
    double operator()(int k, double) {
      made.push_back(k);
      return k == 1 ? cold : warm;
    }
  };
  const double stop = 10;
  // Sharpen's vectorised candidates: 40 ms cold, 4 ms warm: timed in full (5 calls).
  Calls sharp{{}, 40, 4};
  EXPECT_EQ(time_after_first_call(40, stop, 5, std::ref(sharp)), 4);
  EXPECT_EQ(sharp.made, (std::vector<int>{2, 2}));
  // Slow when warm too: stopped after the warm check.
  Calls slow{{}, 60, 55};
  EXPECT_EQ(time_after_first_call(60, stop, 5, std::ref(slow)), 55);
  EXPECT_EQ(slow.made, (std::vector<int>{2}));
  // Far slower than the threshold: that one call.
  Calls hopeless{{}, 20000, 20000};
  EXPECT_EQ(time_after_first_call(20000, stop, 5, std::ref(hopeless)), 20000);
  EXPECT_TRUE(hopeless.made.empty());
  // Below the threshold: the rest of the calls, the first one counted.
  Calls fast{{}, 3, 2};
  EXPECT_EQ(time_after_first_call(3, stop, 5, std::ref(fast)), 2);
  EXPECT_EQ(fast.made, (std::vector<int>{4}));
  // One call asked for: nothing more.
  Calls once{{}, 40, 4};
  EXPECT_EQ(time_after_first_call(40, stop, 1, std::ref(once)), 40);
  EXPECT_TRUE(once.made.empty());
}

// The cost model's fork and join: dearer under OMP_WAIT_POLICY=passive than without
// it, and charged once per parallel loop started.
TEST(RowPanels, PassiveWaitPolicyMakesForksDearer) {
  const char* saved = std::getenv("OMP_WAIT_POLICY");
  const std::string keep = saved ? saved : "";
  unsetenv("OMP_WAIT_POLICY");
  const double spin = host_cost_machine("openmp").fork_join_cycles;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  const double passive = host_cost_machine("openmp").fork_join_cycles;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  EXPECT_DOUBLE_EQ(host_cost_machine("openmp").fork_join_cycles, passive);
  if (saved)
    setenv("OMP_WAIT_POLICY", keep.c_str(), 1);
  else
    unsetenv("OMP_WAIT_POLICY");
  EXPECT_GT(spin, 0);
  EXPECT_GT(passive, spin);
}

}  // namespace
}  // namespace risec::driver
