// The register-blocked candidates of the autoscheduler (src/driver/schedule_blocked.cpp):
// every point the space generates for random small products computes what the
// interpreter computes, and the model's ranking follows the operands' traffic. No
// timing; nothing assumes the host's vector width (lanes comes from the host, the
// sizes are multiples of 64, which every width divides).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "driver/schedule_blocked.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "sanitized_sample.h"
#include "support/files.h"

namespace risec::driver {
namespace {

// Every register-blocked candidate of mm at two seeded random shapes (rows a power
// of two from 2 to 16, columns 64 or 128, depth 4 to 32) compiles and equals the
// interpreter, on the c target and (one shape) openmp on two threads. Under the
// sanitizers the first shape only, on both targets (sanitized_sample.h).
TEST(ScheduleBlocked, EveryCandidateOfRandomShapesMatchesTheInterpreter) {
  const rise::Program mm = load_program("examples/mm/mm.rise");
  std::mt19937_64 rng(2026);
  std::vector<rise::SizeMap> shapes;
  for (size_t i = 0; i < per_build(2, 1); ++i) {
    const int64_t rows = int64_t(2) << (rng() % 4);
    const int64_t cols = 64 << (rng() % 2);
    const int64_t depth = int64_t(4) << (rng() % 4);
    shapes.push_back({{"n", rows}, {"m", cols}, {"k", depth}});
  }
  size_t checked = 0;
  for (size_t si = 0; si < shapes.size(); ++si) {
    const rise::SizeMap& sizes = shapes[si];
    const rise::Checked high = rise::check_program(mm, "", &sizes);
    const std::vector<rise::Value> inputs = make_inputs(high, {}, 11 + si);
    const rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    for (const std::string target : {"c", "openmp"}) {
      if (target == "openmp" && si > 0) continue;
      SpaceOptions o;
      o.target = target;
      o.threads = 2;
      o.tiles = {4};
      o.explore_variants = 1;
      const ScheduleSpace space = build_space(high, o);
      // Both loop orders of the block loops are in the space.
      bool rows_outer = false, cols_outer = false;
      for (const ScheduleCandidate& c : space.candidates) {
        if (c.block.empty()) continue;
        (c.block.find("column blocks outer") == std::string::npos ? rows_outer : cols_outer) = true;
        SCOPED_TRACE(target + " n=" + std::to_string(sizes.at("n")) +
                     " m=" + std::to_string(sizes.at("m")) + " k=" + std::to_string(sizes.at("k")) +
                     ": " + c.label() + "\n" + c.strategy_text());
        const Compiled compiled = compile_candidate(mm, sizes, target, c);
        const Execution ex = execute(compiled, sizes, inputs);
        const Comparison cmp = compare_values(ex.output, expected, type);
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
        ++checked;
      }
      EXPECT_TRUE(rows_outer && cols_outer) << target << " " << si;
    }
  }
  EXPECT_GT(checked, 0u);
}

// For two operands larger than L2, the model re-reads the one the outer block loop
// walks whole: of two points that differ only in which block loop is outermost, the
// one whose far operand is re-read fewer times (the larger block dimension inside)
// ranks better; at every vector width.
TEST(ScheduleBlocked, ModelPrefersTheOrderThatReReadsLess) {
  for (int64_t lanes : {4, 8, 16}) {
    BlockMachine m;
    m.lanes = lanes;
    m.registers = lanes >= 16 ? 32 : 16;
    m.l1 = 48 * 1024;
    m.l2 = 2 * 1024 * 1024;
    for (int64_t n : {1024, 2048}) {
      const Contraction c{n, n, n, true};
      const std::vector<BlockPoint> all = rank_block_points(c, m, 100000);
      ASSERT_FALSE(all.empty());
      size_t pairs = 0;
      for (const BlockPoint& a : all)
        for (const BlockPoint& b : all) {
          if (!a.rows_outer || b.rows_outer || a.ti != b.ti || a.tj != b.tj || a.kk != b.kk ||
              a.width != b.width || a.register_block != b.register_block || a.pack != b.pack ||
              a.panel || b.panel || a.prefetch != b.prefetch)
            continue;
          ++pairs;
          if (a.tj > a.ti) {
            EXPECT_LT(b.score, a.score) << lanes << " " << a.ti << "x" << a.tj;
          } else if (a.ti > a.tj) {
            EXPECT_LT(a.score, b.score) << lanes << " " << a.ti << "x" << a.tj;
          }
        }
      EXPECT_GT(pairs, 0u);
      // The best point keeps its accumulator in registers and re-reads the operand
      // of the smaller block dimension.
      const BlockPoint& best = all.front();
      EXPECT_TRUE(best.register_block) << lanes;
      EXPECT_EQ(best.rows_outer, best.ti >= best.tj) << lanes << " " << best.reason;
    }
  }
}

// Operands that fit L2 cost no re-reading from beyond it: the order then does not
// change the traffic term, and the reason says what is re-read.
TEST(ScheduleBlocked, SmallOperandsAreNotPenalisedAndTheReasonNamesTheStream) {
  BlockMachine m;
  m.lanes = 8;
  m.registers = 16;
  m.l1 = 32 * 1024;
  m.l2 = 1024 * 1024;
  const Contraction c{64, 128, 64, true};  // 32 KiB each
  const std::vector<BlockPoint> all = rank_block_points(c, m, 100000);
  for (const BlockPoint& a : all)
    for (const BlockPoint& b : all)
      if (a.rows_outer && !b.rows_outer && a.ti == b.ti && a.tj == b.tj && a.kk == b.kk &&
          a.width == b.width && a.register_block == b.register_block && a.pack == b.pack &&
          !a.panel && !b.panel && a.prefetch == b.prefetch) {
        EXPECT_DOUBLE_EQ(a.score, b.score) << a.ti << "x" << a.tj;
      }
  ASSERT_FALSE(all.empty());
  EXPECT_NE(all.front().reason.find("read again for each"), std::string::npos)
      << all.front().reason;
}

}  // namespace
}  // namespace risec::driver

namespace risec::driver {
namespace {

// A dense layer with a bias and relu epilogue (the MLP of bench/autoschedule, and the
// same with other names and the bias added first) is recognised by its structure:
// the first layer's rows, columns and depth.
TEST(ScheduleBlocked, DenseLayersWithEpiloguesAreRecognised) {
  const rise::Program mlp = load_program("bench/autoschedule/programs/mlp.rise");
  const rise::SizeMap s{{"b", 8}, {"k", 16}, {"h", 32}, {"o", 64}};
  std::optional<Contraction> c = find_contraction(rise::check_program(mlp, "", &s));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rows, 8);
  EXPECT_EQ(c->cols, 32);
  EXPECT_EQ(c->depth, 16);
  EXPECT_TRUE(c->transposed_operand);
  const rise::Program other = rise::parse_program(std::make_shared<SourceFile>(SourceFile{
      "layer.rise",
      "def layer = depFun((p: Nat, q: Nat, r: Nat) =>\n"
      "  fun(inp: p.q.f32 => fun(wt: r.q.f32 => fun(bias: r.f32 =>\n"
      "    inp |> map(fun(v => zip(bias)(wt) |> map(fun(bw =>\n"
      "      fmax(bw._1 + (zip(v)(bw._2) |> map(fun(t => t._1 * t._2)) |> reduce(add)(0.0f)))"
      "(0.0f)))))))))\n"}));
  const rise::SizeMap s2{{"p", 4}, {"q", 8}, {"r", 16}};
  c = find_contraction(rise::check_program(other, "", &s2));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rows, 4);
  EXPECT_EQ(c->cols, 16);
  EXPECT_EQ(c->depth, 8);
  EXPECT_FALSE(c->transposed_operand);
}

}  // namespace
}  // namespace risec::driver

namespace risec::driver {
namespace {

// One dense layer read from `in` (rows of depth `k`) with weights `w` (k x cols),
// with or without a bias `b` (added before or after the product) and a relu, its
// element names `row` and `col`.
struct LayerText {
  bool bias = false, bias_first = false, relu = false;
  std::string row = "row", col = "col";
};

std::string layer(const std::string& in, const std::string& w, const std::string& b,
                  const LayerText& t) {
  const std::string colv = t.bias ? t.col + "._1" : t.col;
  const std::string dot =
      "(zip(" + t.row + ")(" + colv + ") |> map(fun(pr => pr._1 * pr._2)) |> reduce(add)(0.0f))";
  std::string e = dot;
  if (t.bias)
    e = t.bias_first ? "(" + t.col + "._2 + " + dot + ")" : "(" + dot + " + " + t.col + "._2)";
  if (t.relu) e = "fmax(" + e + ")(0.0f)";
  const std::string cols = t.bias ? "zip(transpose(" + w + "))(" + b + ")" : "transpose(" + w + ")";
  return in + " |> map(fun(" + t.row + " => " + cols + " |> map(fun(" + t.col + " => " + e + "))))";
}

// A program of one or two layers (x: b.k, the first layer's weights k.h, the second's
// h.o), the first layer called through a definition when `through_def`.
std::string mlp_text(const std::vector<LayerText>& layers, bool through_def) {
  const bool two = layers.size() == 2;
  std::string params = "fun(x: b.k.f32 => fun(wa: k.h.f32 => ";
  std::string close = "))";
  if (layers[0].bias) params += "fun(ba: h.f32 => ", close += ")";
  if (two) params += "fun(wb: h.o.f32 => ", close += ")";
  if (two && layers[1].bias) params += "fun(bb: o.f32 => ", close += ")";
  std::string text;
  std::string first = layer("x", "wa", "ba", layers[0]);
  if (through_def) {
    text += "def dense1 = fun(wq, bq, xq => " + layer("xq", "wq", "bq", layers[0]) + ")\n";
    first = "dense1(wa, " + std::string(layers[0].bias ? "ba" : "wa") + ", x)";
  }
  std::string body = first;
  if (two) body = "let hid = " + first + " in " + layer("hid", "wb", "bb", layers[1]);
  text += "def net = depFun((b: Nat, k: Nat, h: Nat" + std::string(two ? ", o: Nat" : "") +
          ") =>\n  " + params + body + close + ")\n";
  return text;
}

// Occurrences of `word` in s.
size_t blocked_count(const std::string& s, const std::string& word) {
  size_t n = 0;
  for (size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + word.size())) ++n;
  return n;
}

// The MLP of bench/autoschedule and seeded random dense networks (one or two layers,
// with or without a bias, added first or last, with or without a relu, other names,
// through a definition or not): every product of the program gets register-blocked
// candidates, none is refused, each blocks every layer (its k.i loop unrolled), and
// each computes what the interpreter computes, on the c and openmp targets (under the
// sanitizers on one of them, in turn: sanitized_sample.h).
TEST(ScheduleBlocked, EveryLayerOfDenseNetworksIsBlockedAndMatchesTheInterpreter) {
  struct Case {
    std::string name, text;
    size_t layers;
    rise::Program program;
  };
  std::vector<Case> cases;
  cases.push_back({"bench mlp", "bench/autoschedule/programs/mlp.rise", 2,
                   load_program("bench/autoschedule/programs/mlp.rise")});
  std::mt19937_64 rng(34);
  const std::vector<std::string> rows = {"row", "r_7", "xrow"}, cols = {"col", "cb", "w_col"};
  for (int i = 0; i < 5; ++i) {
    std::vector<LayerText> layers(1 + (i % 2));
    for (size_t j = 0; j < layers.size(); ++j) {
      LayerText& t = layers[j];
      t.bias = (i + j) % 3 != 0;  // every combination of bias and relu among the cases
      t.relu = (i + j) % 2 == 0;
      t.bias_first = rng() % 2;
      t.row = rows[rng() % rows.size()];
      t.col = cols[rng() % cols.size()];
    }
    const std::string text = mlp_text(layers, i >= 3);
    cases.push_back(
        {"random " + std::to_string(i), text, layers.size(),
         rise::parse_program(std::make_shared<SourceFile>(SourceFile{"net.rise", text}))});
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& cs = cases[ci];
    SCOPED_TRACE(cs.name + ":\n" + cs.text);
    const rise::Program& prog = cs.program;
    const std::string entry = ci == 0 ? "mlp" : "net";
    // Rows 4 or 8, depth 8 or 16, columns 64: every vector width divides them.
    const int64_t n = 4 << (ci % 2), k = 8 << (ci / 2 % 2);
    rise::SizeMap sizes{{"b", n}, {"k", k}, {"h", 64}};
    if (cs.layers == 2) sizes["o"] = 64;
    const rise::Checked high = rise::check_program(prog, entry, &sizes);
    ASSERT_TRUE(find_contraction(high));
    const std::vector<rise::Value> inputs = make_inputs(high, {}, 5 + ci);
    const rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    for (const std::string& target : cpu_targets(ci)) {
      SpaceOptions o;
      o.target = target;
      o.threads = 2;
      o.tiles = {};
      o.explore_variants = 0;
      o.register_blocks = 2;
      o.row_panels = 0;  // (schedule_row_panels_test.cpp checks those)
      const ScheduleSpace space = build_space(high, o);
      size_t blocked = 0;
      for (const ScheduleCandidate& c : space.candidates) {
        if (c.block.empty()) continue;
        ++blocked;
        SCOPED_TRACE(target + ": " + c.label() + "\n" + c.strategy_text());
        // (twice per layer where the last rows are peeled off and blocked on their own)
        const size_t parts = c.block.find("rows peeled") == std::string::npos ? 1 : 2;
        EXPECT_EQ(blocked_count(rise::print_expr(c.lowered.expr), "reduceSeqUnroll"),
                  cs.layers * parts);
        const Execution ex =
            execute(compile_candidate(prog, sizes, target, c, entry), sizes, inputs);
        const Comparison cmp = compare_values(ex.output, expected, type);
        EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      }
      EXPECT_EQ(blocked, o.register_blocks) << target << ": " << space.drop_reason;
    }
  }
}

}  // namespace
}  // namespace risec::driver

namespace risec::driver {
namespace {

// Rows that a block does not divide (6 and 12 rows, or any block on rows of a prime
// count): the point peels the last rows % ti rows off (peelRemainder) and blocks them
// on their own. Seeded random shapes whose rows 6 does not divide, with `lanes` given
// (4 and 8; the vector width of the host never enters), and 13 rows (a remainder of
// one row); every peeled point of a few kinds compiles and equals the interpreter.
TEST(ScheduleBlocked, PeeledBlocksOfRandomShapesMatchTheInterpreter) {
  const rise::Program mm = load_program("examples/mm/mm.rise");
  std::mt19937_64 rng(6016);
  size_t checked = 0;
  for (int64_t lanes : {4, 8}) {
    std::vector<std::vector<int64_t>> shapes = {{13, 2 * lanes, 8}};
    const int64_t rows = 6 * int64_t(1 + rng() % 3) + int64_t(1 + rng() % 5);
    shapes.push_back({rows, 2 * lanes * int64_t(1 + rng() % 2), int64_t(4) << (rng() % 2)});
    for (size_t si = 0; si < shapes.size(); ++si) {
      const rise::SizeMap sizes{{"n", shapes[si][0]}, {"m", shapes[si][1]}, {"k", shapes[si][2]}};
      const rise::Checked high = rise::check_program(mm, "", &sizes);
      const std::optional<Contraction> con = find_contraction(high);
      ASSERT_TRUE(con);
      const std::vector<rise::Value> inputs = make_inputs(high, {}, 3 + si);
      const rise::Value expected = interpret(high, inputs);
      const rise::Type type = entry_result_type(high);
      BlockMachine m;
      m.lanes = lanes;
      m.registers = 16;
      // Of the peeled points, the first of each block height, loop order and order of
      // the block loops (the model's order).
      std::vector<BlockPoint> picked;
      for (const BlockPoint& p : rank_block_points(*con, m, 100000)) {
        if (!p.rest || p.panel) continue;  // (panels: schedule_panels_test.cpp)
        EXPECT_EQ(p.rest, con->rows % p.ti);
        EXPECT_NE(p.reason.find("rows a block of"), std::string::npos) << p.reason;
        const bool seen = std::any_of(picked.begin(), picked.end(), [&](const BlockPoint& q) {
          return q.ti == p.ti && q.register_block == p.register_block &&
                 q.rows_outer == p.rows_outer;
        });
        if (!seen && picked.size() < 4) picked.push_back(p);
      }
      ASSERT_FALSE(picked.empty());
      for (const BlockPoint& p : picked)
        for (const std::string target : {"c", "openmp"}) {
          if (target == "openmp" && si > 0) continue;
          std::string text;
          for (const BlockStep& b : block_steps(p, target))
            text += (text.empty() ? "" : " ; ") + b.strategy;
          SCOPED_TRACE(target + " lanes " + std::to_string(lanes) + " n=" +
                       std::to_string(sizes.at("n")) + " m=" + std::to_string(sizes.at("m")) +
                       " k=" + std::to_string(sizes.at("k")) + ": " + text);
          EXPECT_NE(text.find("peelRemainder(" + std::to_string(p.ti) + ")"), std::string::npos);
          const elevate::Strategy s = elevate::parse_strategy_file(
              std::make_shared<SourceFile>(SourceFile{"peeled.elv", "let main = " + text + ";\n"}),
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
        }
    }
  }
  EXPECT_GE(checked, 8u);
}

// peelRemainder(n) is refused where there is nothing to peel: n divides the length,
// or the length is less than n (every map of mm 12 x 12 x 12 is 12 long).
TEST(ScheduleBlocked, PeelRemainderRefusesWhatItCannotSplit) {
  const rise::Program mm = load_program("examples/mm/mm.rise");
  const rise::SizeMap sizes{{"n", 12}, {"m", 12}, {"k", 12}};
  const rise::Checked high = rise::check_program(mm, "", &sizes);
  for (int64_t n : {1, 4, 6, 12, 13, 24, 5, 7}) {
    const elevate::Strategy s = elevate::parse_strategy_file(std::make_shared<SourceFile>(
        SourceFile{"peel.elv", "let main = DFNF ; (peelRemainder(" + std::to_string(n) +
                                   ") @ outermost(isFullyApplied(isMap)));\n"}));
    const elevate::Result r = s(high.expr, elevate::Env{});
    EXPECT_EQ(r.ok(), n == 5 || n == 7) << n << (r.ok() ? "" : ": " + r.failure().reason);
  }
}

}  // namespace
}  // namespace risec::driver
