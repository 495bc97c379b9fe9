// vectorizeWindows (elevate/rules_vector.cpp) and the access strides of the
// autoscheduler's cost model (driver/lane_stride.h), issue 34: a stencil's map over
// windows on vectors of neighbouring windows, each tap a shifted vector load.
//
// Over many generated stencils (1-D and 2-D windows of 2 to 5 taps, clamped, padded
// with a constant or not padded, sums, maxima and range-weighted sums as bilateral's,
// the centre read by index), vectorised at widths 2, 4 and 8 with and without the
// taps unrolled, on c and openmp: the result is the interpreter's. The issue's
// bilateral gets the decision in the autoscheduler's space, its candidates compute what
// the interpreter computes, and its interior reads whole vectors. The model sees the
// gathers: windows vectorised across rows, a column of a transposed matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "candidate_compile.h"
#include "driver/autoschedule.h"
#include "driver/commands.h"
#include "driver/compile.h"
#include "driver/cost_model.h"
#include "driver/run.h"
#include "driver/schedule_space.h"
#include "elevate/parser.h"
#include "rise/parser.h"
#include "sanitized_sample.h"
#include "support/diagnostics.h"
#include "support/files.h"

namespace risec::driver {
namespace {

rise::Program windows_parse(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"gen.rise", text}));
}

elevate::Strategy strategy(const std::string& text) {
  return elevate::parse_strategy_file(
      std::make_shared<SourceFile>(SourceFile{"s.elv", "let main = " + text + ";\n"}));
}

Compiled compile_with(const rise::Program& p, const rise::SizeMap& sizes, const std::string& target,
                      const std::string& text) {
  elevate::Strategy s = strategy(text);
  CompileRequest req;
  req.program = &p;
  req.sizes = &sizes;
  req.target = target;
  req.strategy = &s;
  return compile(req);
}

// A stencil over an n-array (1-D) or an n x m image (2-D): the windows of `k` taps
// (k x k), bordered by padClamp, padCst or nothing, each reduced by one of four
// functions of its taps (the last two read the centre by index, as bilateral's).
std::string stencil(std::mt19937& rng, bool two_d, int k) {
  const int border = static_cast<int>(rng() % 3);  // clamp, constant, none
  const int l = k / 2, r = k - 1 - l;
  const std::string ls = std::to_string(l), rs = std::to_string(r), ks = std::to_string(k);
  std::string pad;
  if (border == 0)
    pad = two_d ? "padClamp2D(" + ls + ")(" + rs + ")" : "padClamp(" + ls + ")(" + rs + ")";
  if (border == 1)
    pad = two_d ? "padCst2D(" + ls + ")(" + rs + ")(0.5f)" : "padCst(" + ls + ")(" + rs + ")(0.5f)";
  const std::string taps = two_d ? "join(w)" : "w";
  const std::string centre = two_d ? "w[" + std::to_string(l) + "][" + std::to_string(l) + "]"
                                   : "w[" + std::to_string(l) + "]";
  std::string body;
  switch (rng() % 4) {
    case 0:
      body = taps + " |> reduce(add)(0.0f)";
      break;
    case 1:
      body = taps + " |> map(fun(q => q * q + 1.0f)) |> reduce(fmax)(-inff)";
      break;
    case 2:
      body = "let c = " + centre + " in " + taps +
             " |> map(fun(q => exp(-((q - c) * (q - c)) / 0.1f) * q)) |> reduce(add)(0.0f)";
      break;
    default:
      body = "let c = " + centre + " in let a = " + taps +
             " |> map(fun(q => let d = q - c in (d * d, q))) |> reduce(fun(x, y => (x._1 + y._1, "
             "x._2 + y._2)))((0.0f, 0.0f)) in a._2 / (a._1 + 1.0f)";
      break;
  }
  if (two_d) {
    const std::string src = pad.empty() ? "img" : "img |> " + pad;
    return "def f = depFun((n: Nat, m: Nat) =>\n  fun(img: n.m.f32 =>\n    " + src +
           " |> slide2D(" + ks + ")(1) |> map2D(fun(w => " + body + "))))\n";
  }
  const std::string src = pad.empty() ? "x" : "x |> " + pad;
  return "def f = depFun((n: Nat) =>\n  fun(x: n.f32 =>\n    " + src + " |> slide(" + ks +
         ")(1) |> map(fun(w => " + body + "))))\n";
}

// Every generated stencil, vectorised across its windows at widths 2, 4 and 8 (the
// window's taps unrolled after lowering or left a loop), computes the interpreter's
// result on c and openmp.
TEST(WindowVectors, StencilsVectorisedAcrossWindowsComputeWhatTheInterpreterComputes) {
  std::mt19937 rng(3434);
  const int programs = static_cast<int>(per_build(24, 2));
  int checked = 0;
  for (int k = 0; k < programs; ++k) {
    const bool two_d = k % 2 == 0;
    const int taps = 2 + static_cast<int>(rng() % 4);
    const std::string text = stencil(rng, two_d, taps);
    SCOPED_TRACE(text);
    rise::Program p = windows_parse(text);
    const int64_t width = int64_t{2} << (rng() % 3);
    // the windows' count a multiple of the width (the rule's precondition)
    const int64_t len = width * (3 + static_cast<int64_t>(rng() % 3)) +
                        (taps - 1) * (text.find("pad") == std::string::npos);
    rise::SizeMap sizes =
        two_d ? rise::SizeMap{{"n", 5 + k % 3}, {"m", len}} : rise::SizeMap{{"n", len}};
    rise::Checked high = rise::check_program(p, "", &sizes);
    std::vector<rise::Value> inputs = make_inputs(high, {}, 7 + k);
    rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    const std::string target = k % 4 < 2 ? "c" : "openmp";
    const std::string vec =
        "vectorizeWindows(" + std::to_string(width) + ") @ innermost(isApplied(isMap))";
    for (const std::string& s : {"simplify ; " + vec + " ; lowerToC ; try(unrollReductions(25))",
                                 "DFNF ; " + vec + " ; lowerToC"}) {
      SCOPED_TRACE(target + ": " + s);
      Compiled c = compile_with(p, sizes, target, s);
      // taps at constant offsets: the interior's reads are vector loads
      if (s.find("unrollReductions") != std::string::npos) {
        EXPECT_NE(c.unit.source.find("_load("), std::string::npos) << "no vector load";
      }
      Comparison cmp = compare_values(execute(c, sizes, inputs).output, expected, type);
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * programs);
}

// Downsampling stencils: windows of slide(k)(2) along each row (pyrdown's horizontal
// pass), zipped with a literal array of weights (each weight broadcast to the lanes) or
// reduced plainly, clamped, padded with a constant or not padded; vectorised across
// windows at widths 4 and 8 with the taps unrolled, each tap's lanes read every second
// element: one _load_even (two loads and a shuffle, codegen/c), not a gather. The
// result is the interpreter's on c and openmp, and on opencl (PoCL) for some.
TEST(WindowVectors, DownsamplingWindowsReadEveryOtherElementAndComputeWhatTheInterpreterComputes) {
  std::mt19937 rng(2024);
  const int programs = static_cast<int>(per_build(16, 2));
  for (int k = 0; k < programs; ++k) {
    const int taps = 2 + static_cast<int>(rng() % 4);
    const int l = taps / 2, r = taps - 1 - l;
    const int border = k % 3;  // clamp, constant, none
    std::string pad = border == 0 ? "padClamp(" + std::to_string(l) + ")(" + std::to_string(r) + ")"
                      : border == 1
                          ? "padCst(" + std::to_string(l) + ")(" + std::to_string(r) + ")(0.5f)"
                          : "";
    std::string weights;
    for (int t = 0; t < taps; ++t)
      weights += std::string(t ? ", " : "") + std::to_string(0.125 * (t + 1)) + "f";
    const std::string body =
        rng() % 2 ? "zip(w)([" + weights + "]) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f)"
                  : "w |> reduce(fmax)(-inff)";
    const std::string row = "row |> " + (pad.empty() ? "" : pad + " |> ") + "slide(" +
                            std::to_string(taps) + ")(2) |> map(fun(w => " + body + "))";
    const std::string text =
        "def f = depFun((n: Nat, m: Nat) =>\n  fun(img: n.m.f32 =>\n    "
        "img |> map(fun(row => " +
        row + "))))\n";
    SCOPED_TRACE(text);
    rise::Program p = windows_parse(text);
    const int64_t width = k % 2 ? 8 : 4;
    // windows: (m + padding - taps) / 2 + 1 (slide's type: the difference even), a
    // multiple of the width
    const int64_t windows = width * (1 + static_cast<int64_t>(rng() % 3));
    const int64_t padding = pad.empty() ? 0 : taps - 1;
    const int64_t m = 2 * (windows - 1) + taps - padding;
    rise::SizeMap sizes{{"n", 3 + k % 3}, {"m", m}};
    rise::Checked high = rise::check_program(p, "", &sizes);
    std::vector<rise::Value> inputs = make_inputs(high, {}, 11 + k);
    rise::Value expected = interpret(high, inputs);
    const rise::Type type = entry_result_type(high);
    const std::string s = "simplify ; vectorizeWindows(" + std::to_string(width) +
                          ") @ innermost(isApplied(isMap)) ; lowerToC ; try(unrollReductions(25))";
    std::vector<std::string> targets = {"c", "openmp"};
    if (k % 4 == 0) targets.push_back("opencl");
    for (const std::string& target : targets) {
      SCOPED_TRACE(target + ": " + s);
      Compiled c = compile_with(p, sizes, target, s);
      EXPECT_NE(c.unit.source.find("_load_even(&"), std::string::npos) << c.unit.source;
      Comparison cmp = compare_values(execute(c, sizes, inputs).output, expected, type);
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    }
  }
}

// What the rule refuses, with its reason: a map over scalars, a width that does not
// divide the windows.
TEST(WindowVectors, RefusesMapsOverScalarsAndWidthsThatDoNotDivide) {
  rise::Program p = windows_parse(
      "def f = depFun((n: Nat) => fun(x: n.f32 => x |> padClamp(1)(1) |> slide(3)(1) |> "
      "map(fun(w => w |> reduce(add)(0.0f)))))\n");
  rise::SizeMap sizes{{"n", 12}};
  try {
    compile_with(p, sizes, "c", "vectorizeWindows(5) @ innermost(isApplied(isMap)) ; lowerToC");
    FAIL() << "5 does not divide 12";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vectorizeWindows(5)"), std::string::npos) << e.what();
  }
  rise::Program q =
      windows_parse("def g = depFun((n: Nat) => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))\n");
  try {
    compile_with(q, sizes, "c", "vectorizeWindows(4) @ innermost(isApplied(isMap)) ; lowerToC");
    FAIL() << "a map over scalars has no windows";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not arrays"), std::string::npos) << e.what();
  }
}

// The bilateral: its space has candidates vectorised across windows, a sample of
// them computes what the interpreter computes, and the interior of the one with the taps
// unrolled reads whole vectors (at 8 lanes, whatever the host's width).
TEST(WindowVectors, BilateralGetsTheDecisionAndItsInteriorReadsWholeVectors) {
  rise::Program p = load_program("bench/autoschedule/programs/bilateral.rise");
  rise::SizeMap sizes{{"n", 12}, {"m", 64}};
  rise::Checked high = rise::check_program(p, "", &sizes);
  std::vector<rise::Value> inputs = make_inputs(high, {}, 34);
  rise::Value expected = interpret(high, inputs);
  const rise::Type type = entry_result_type(high);
  for (const std::string target : {"openmp"}) {
    ScheduleSpace space = build_space(high, small_row_space(target));
    std::vector<const ScheduleCandidate*> windows;
    for (const ScheduleCandidate& c : space.candidates)
      if (c.vector == "lanes, windows") windows.push_back(&c);
    ASSERT_FALSE(windows.empty()) << target;
    std::mt19937 rng(7);
    std::shuffle(windows.begin(), windows.end(), rng);
    windows.resize(1);
    for (const ScheduleCandidate* c : windows) {
      SCOPED_TRACE(target + ": " + c->label() + "\n" + c->strategy_text());
      Compiled compiled = compile_candidate(p, sizes, target, *c);
      Comparison cmp = compare_values(execute(compiled, sizes, inputs).output, expected, type);
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
    }
  }
  Compiled c = compile_with(p, sizes, "openmp",
                            "simplify ; parallelOutput ; vectorizeWindows(8) @ "
                            "innermost(isApplied(isMap)) ; lowerToC ; try(unrollReductions(25))");
  // 25 taps, each one load in the interior (and the border vectors gathered)
  size_t loads = 0;
  for (size_t at = c.unit.source.find("_load("); at != std::string::npos;
       at = c.unit.source.find("_load(", at + 1))
    ++loads;
  EXPECT_GE(loads, 25u) << c.unit.source;
  Comparison cmp = compare_values(execute(c, sizes, inputs).output, expected, type);
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch;
}

// The model's access strides: a stencil vectorised across its windows along the rows
// reads consecutive lanes; the same stencil over the transposed image (its windows
// neighbours along the columns of the input) gathers them and scores worse; a map over
// a transposed matrix's columns vectorised gathers, over its rows not.
TEST(WindowVectors, TheCostModelSeesGatheredVectorReads) {
  rise::Program p = windows_parse(
      "def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 => img |> padClamp2D(1)(1) |> "
      "slide2D(3)(1) |> map2D(fun(w => join(w) |> reduce(add)(0.0f)))))\n"
      "def t = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 => img |> transpose |> "
      "padClamp2D(1)(1) |> slide2D(3)(1) |> map2D(fun(w => join(w) |> reduce(add)(0.0f)))))\n");
  rise::SizeMap sizes{{"n", 32}, {"m", 32}};
  int rewrites = 0;
  // The model's features of `entry` of `prog` after `strategy`.
  auto cost = [&](const rise::Program& prog, const char* entry, const std::string& strategy) {
    return estimate_cost(
        rewrite_with(strategy, rise::check_program(prog, entry, &sizes), &rewrites), CostMachine{});
  };
  const std::string windows = "vectorizeWindows(8) @ innermost(isApplied(isMap)) ; lowerToC";
  const CostFeatures along = cost(p, "f", "DFNF ; " + windows),
                     across = cost(p, "t", "DFNF ; " + windows);
  EXPECT_EQ(along.gathers, 0);
  EXPECT_GT(across.gathers, 0);
  EXPECT_LT(along.score, across.score);

  rise::Program q = windows_parse(
      "def g = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> transpose |> "
      "map(fun(col => col |> map(fun(v => v * 2.0f))))))\n"
      "def h = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 => x |> "
      "map(fun(row => row |> map(fun(v => v * 2.0f))))))\n");
  const std::string rows = "vectorize(8) @ innermost(isFullyApplied(isMap)) ; lowerToC";
  EXPECT_GT(cost(q, "g", rows).gathers, 0);
  EXPECT_EQ(cost(q, "h", rows).gathers, 0);
  // Downsampling windows (slide(3)(2)) along the rows read every other element: two
  // loads and a shuffle, not a gather; across the rows (the transposed image) gathered.
  rise::Program d = windows_parse(
      "def r = depFun((n: Nat, m: Nat) => fun(img: n.(2*m+1).f32 => img |> "
      "map(fun(row => row |> slide(3)(2) |> map(fun(w => w |> reduce(add)(0.0f)))))))\n"
      "def c = depFun((n: Nat, m: Nat) => fun(img: (2*m+1).n.f32 => img |> transpose |> "
      "map(fun(row => row |> slide(3)(2) |> map(fun(w => w |> reduce(add)(0.0f)))))))\n");
  EXPECT_EQ(cost(d, "r", "simplify ; " + windows).gathers, 0);
  EXPECT_GT(cost(d, "c", "simplify ; " + windows).gathers, 0);
}

}  // namespace
}  // namespace risec::driver
