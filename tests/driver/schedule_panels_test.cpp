// Panels and kc chunks of the register-blocked candidates (src/driver/schedule_blocked.h,
// "panel" and "kc"): every such point of seeded random products, rows the panels do
// not divide (the rows outside them peeled, and those again by the block), depths some
// kc divides or none does, computes what the interpreter computes on the c and openmp
// targets; a panel is a multiple of the block and a kc divides the depth; the model charges the
// whole product's re-reading of A from beyond L2 and not a panel's. No timing; `lanes` is given (4
// and 8), never the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "dense_nets.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "driver/schedule_blocked.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "support/files.h"

namespace risec::driver {
namespace {

TEST(SchedulePanels, PanelPointsOfRandomShapesMatchTheInterpreter) {
  const rise::Program mm = load_program("examples/mm/mm.rise");
  std::mt19937_64 rng(3434);
  size_t checked = 0, with_kc = 0;
  for (int64_t lanes : {4, 8}) {
    // Rows 64 or 128 (panels of 30 or 66 rows for blocks of 6, with rows outside
    // them), columns 2 or 4 vectors, depth 128 (kc 64) or 96 (no kc divides it:
    // panels without chunks).
    const int64_t rows = int64_t(64) << (rng() % 2);
    const int64_t cols = 2 * lanes * int64_t(1 + rng() % 2);
    for (int64_t depth : {int64_t(128), int64_t(96)}) {
      const rise::SizeMap sizes{{"n", rows}, {"m", cols}, {"k", depth}};
      const rise::Checked high = rise::check_program(mm, "", &sizes);
      const std::optional<Contraction> con = find_contraction(high);
      ASSERT_TRUE(con);
      const std::vector<rise::Value> inputs = make_inputs(high, {}, 7 + lanes);
      const rise::Value expected = interpret(high, inputs);
      const rise::Type type = entry_result_type(high);
      BlockMachine m;
      m.lanes = lanes;
      m.registers = 16;
      // The model's first point of each block height, panel and kc (or none).
      std::vector<BlockPoint> picked;
      for (const BlockPoint& p : rank_block_points(*con, m, 100000)) {
        if (!p.panel) continue;
        EXPECT_TRUE(p.register_block && !p.rows_outer);
        EXPECT_EQ(p.panel % p.ti, 0) << p.panel;
        EXPECT_EQ(p.rest, con->rows % p.panel);
        if (p.kc) {
          EXPECT_TRUE(depth % p.kc == 0 && p.kc < depth && p.kc % p.kk == 0) << p.kc;
        }
        const bool seen = std::any_of(picked.begin(), picked.end(), [&](const BlockPoint& q) {
          return q.ti == p.ti && q.panel == p.panel && q.kc == p.kc;
        });
        if (!seen && picked.size() < 6) picked.push_back(p);
      }
      ASSERT_FALSE(picked.empty());
      for (const BlockPoint& p : picked)
        for (const std::string target : {"c", "openmp"}) {
          const std::string text = block_steps_text(p, target);
          SCOPED_TRACE(target + " lanes " + std::to_string(lanes) + " n=" + std::to_string(rows) +
                       " m=" + std::to_string(cols) + " k=" + std::to_string(depth) + ": " + text);
          EXPECT_NE(text.find("splitJoin(" + std::to_string(p.panel) + ")"), std::string::npos);
          const elevate::Strategy s = elevate::parse_strategy_file(
              std::make_shared<SourceFile>(SourceFile{"panel.elv", "let main = " + text + ";\n"}),
              {{"lanes", lanes}});
          CompileRequest req;
          req.program = &mm;
          req.sizes = &sizes;
          req.target = target;
          req.strategy = &s;
          const Execution ex = execute(compile(req), sizes, inputs);
          const Comparison cmp = compare_values(ex.output, expected, type);
          EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
          ++checked;
          with_kc += p.kc ? 1 : 0;
        }
    }
  }
  EXPECT_GE(checked, 16u);
  EXPECT_GT(with_kc, 0u);
}

// Over seeded random sizes, panels are multiples of the block (at most half the rows,
// the rest peeled) and chunks divide the depth; the kept points hold both forms (whole and in
// panels) when the space has both.
TEST(SchedulePanels, PanelsAndChunksDivideTheirSizes) {
  std::mt19937_64 rng(512);
  BlockMachine m;
  m.lanes = 8;
  m.registers = 16;
  for (int i = 0; i < 40; ++i) {
    const Contraction c{int64_t(16 + rng() % 600), 8 * int64_t(1 + rng() % 64),
                        int64_t(8 + rng() % 1200), true};
    const std::vector<BlockPoint> all = rank_block_points(c, m, 1000000);
    bool any_panel = false;
    for (const BlockPoint& p : all) {
      if (!p.panel) {
        EXPECT_EQ(p.kc, 0);
        continue;
      }
      any_panel = true;
      EXPECT_EQ(p.panel % p.ti, 0) << c.rows << " " << p.panel;
      EXPECT_EQ(p.rest, c.rows % p.panel) << c.rows << " " << p.panel;
      EXPECT_LE(2 * p.panel, c.rows);
      if (p.kc) {
        EXPECT_TRUE(c.depth % p.kc == 0 && p.kc < c.depth) << c.depth << " " << p.kc;
      }
    }
    const std::vector<BlockPoint> kept = rank_block_points(c, m, 8);
    const size_t panels = static_cast<size_t>(
        std::count_if(kept.begin(), kept.end(), [](const BlockPoint& p) { return p.panel > 0; }));
    if (any_panel && kept.size() == 8) {
      EXPECT_GT(panels, 0u) << c.rows << " " << c.depth;
      EXPECT_LT(panels, 8u) << c.rows << " " << c.depth;
    }
  }
}

// A product whose A exceeds L2 (2048^3): a panel of A that fits L2, taller than the
// block is wide, with a kc x tj sliver of B and the panel's P x tj accumulators that
// fit L1, is estimated cheaper than the same
// block re-reading all of A from beyond L2, and its reason says what it re-reads.
TEST(SchedulePanels, ModelChargesAReReadFromBeyondL2) {
  for (int64_t lanes : {8, 16}) {
    BlockMachine m;
    m.lanes = lanes;
    m.registers = lanes >= 16 ? 32 : 16;
    m.l1 = 48 * 1024;
    m.l2 = 2 * 1024 * 1024;
    const int64_t n = 2048;
    const Contraction c{n, n, n, true};
    const std::vector<BlockPoint> all = rank_block_points(c, m, 1000000);
    size_t pairs = 0;
    for (const BlockPoint& w : all) {
      if (w.panel || !w.register_block || w.rows_outer || w.prefetch) continue;
      for (const BlockPoint& p : all) {
        if (!p.panel || !p.kc || p.ti != w.ti || p.tj != w.tj || p.kk != w.kk ||
            p.width != w.width || p.pack != w.pack || p.panel % p.ti)
          continue;
        EXPECT_NE(p.reason.find("panels of " + std::to_string(p.panel) + " rows"),
                  std::string::npos)
            << p.reason;
        // (B from beyond L2 once per panel, 4 / P bytes a multiply-add, against A once
        // per column block, 4 / tj: compared where the panel is the taller)
        if (p.panel * n * 4 > m.l2 || p.kc * p.tj * 4 > m.l1 || p.panel * p.tj * 4 > m.l1 ||
            p.panel <= p.tj)
          continue;
        ++pairs;
        EXPECT_LT(p.score, w.score) << lanes << " " << p.reason << " / " << w.reason;
      }
    }
    EXPECT_GT(pairs, 0u) << lanes;
  }
}

// A product whose A is given transposed (k x n, read through transpose), alone or with
// B transposed too, gets the register-blocked candidates (whole and in panels), and
// every one computes what the interpreter computes, at rows no block divides.
TEST(SchedulePanels, ProductsWithATransposedAreBlocked) {
  const std::string dot =
      "zip(rowA)(colB) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))))\n";
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"a transposed",
       "def mmat = depFun((n: Nat, m: Nat, k: Nat) =>\n"
       "  fun(At: k.n.f32 => fun(Bt: m.k.f32 =>\n"
       "    transpose(At) |> map(fun(rowA => Bt |> map(fun(colB =>\n" +
           dot},
      {"both transposed",
       "def mmat = depFun((n: Nat, m: Nat, k: Nat) =>\n"
       "  fun(At: k.n.f32 => fun(B: k.m.f32 =>\n"
       "    transpose(At) |> map(fun(rowA => transpose(B) |> map(fun(colB =>\n" +
           dot}};
  for (const auto& [name, text] : programs) {
    SCOPED_TRACE(name + ":\n" + text);
    const rise::Program prog =
        rise::parse_program(std::make_shared<SourceFile>(SourceFile{"mmat.rise", text}));
    const rise::SizeMap sizes{{"n", 70}, {"m", 32}, {"k", 128}};
    const rise::Checked high = rise::check_program(prog, "", &sizes);
    ASSERT_TRUE(find_contraction(high));
    const std::vector<rise::Value> inputs = make_inputs(high, {}, 21);
    const rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    SpaceOptions o;
    o.target = "c";
    o.tiles = {};
    o.explore_variants = 0;
    o.register_blocks = 6;
    const ScheduleSpace space = build_space(high, o);
    size_t blocked = 0, panels = 0;
    for (const ScheduleCandidate& c : space.candidates) {
      if (c.block.empty()) continue;
      ++blocked;
      panels += c.block.find("panels of") != std::string::npos;
      SCOPED_TRACE(c.label() + "\n" + c.strategy_text());
      const Execution ex = execute(compile_candidate(prog, sizes, "c", c), sizes, inputs);
      const Comparison cmp = compare_values(ex.output, expected, type);
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    }
    EXPECT_GE(blocked, 4u) << space.drop_reason;
    EXPECT_GT(panels, 0u);
  }
}

}  // namespace
}  // namespace risec::driver
