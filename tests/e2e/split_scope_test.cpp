// Index-set splitting (dpia/split_loop.h) only at points bound outside the split loop:
// a clamp or padding guard whose side depends on an inner loop's variable (the
// window's index in a sliding window over a padded array) changes inside that inner
// loop, so it is no split point of the outer one (the bound would use a variable that
// is not declared there, and the C would not compile). Padded windows of every shape
// compile and match the interpreter, with the default lowering and with lowerToC.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

std::string program_1d(const std::string& pad, int window) {
  return "def f = depFun(n: Nat => fun(x: n.f32 => x |> " + pad + " |> slide(" +
         std::to_string(window) + ")(1) |> map(fun(w => w |> reduce(add)(0.0f)))))\n";
}

std::string program_2d(const std::string& pad, int window) {
  return "def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 => img |> " + pad + " |> slide2D(" +
         std::to_string(window) + ")(1) |> map2D(fun(win => win |> join |> reduce(add)(0.0f)))))\n";
}

void expect_match(const std::string& name, const std::string& text, const std::string& strategy,
                  const std::string& sizes, const std::string& target) {
  SCOPED_TRACE(name + " " + sizes + " " + target + " strategy '" + strategy + "'");
  std::string file = write_scratch(name + ".rise", text);
  CheckOptions o;
  o.target = target;
  EXPECT_TRUE(compile_and_check(file, strategy, sizes, o)) << text;
}

// The cases of the report: windows of 30 and 26 over arrays padded on the right by a
// clamp or a constant, and 2-D windows over clamped images (with lowerToC too).
TEST(SplitLoopScope, PaddedWindowsFromTheReport) {
  struct Case {
    std::string pad;
    int window;
  };
  for (const Case& c :
       {Case{"padClamp(0)(29)", 30}, Case{"padClamp(0)(29)", 26}, Case{"padClamp(0)(40)", 30},
        Case{"padCst(0)(29)(1.0f)", 30}, Case{"padClamp(1)(28)", 30}, Case{"padClamp(15)(14)", 30}})
    for (const char* target : {"c", "openmp"})
      for (const char* sizes : {"n=40", "n=13", "n=1"})
        expect_match("report1d", program_1d(c.pad, c.window), "", sizes, target);
  for (const char* target : {"c", "openmp"})
    for (const char* sizes : {"n=8,m=8", "n=3,m=11"}) {
      expect_match("report2d", program_2d("padClamp2D(0)(5)", 6), "", sizes, target);
      expect_match("report2d", program_2d("padClamp2D(0)(5)", 6), "lowerToC", sizes, target);
    }
  for (const char* target : {"c", "openmp"})
    for (const char* sizes : {"n=5,m=8", "n=9,m=5"})
      expect_match("report2d_rows", program_2d("map(padClamp(0)(4))", 5), "lowerToC", sizes,
                   target);
}

// Generated windows: random left and right pads (0 to the window) by clamp or by a
// constant, windows of 1 to 31 (1-D) and 1 to 9 (2-D), on sizes that leave at least
// one window; both lowerings, alternating the C and OpenMP targets.
TEST(SplitLoopScope, GeneratedPaddedWindows) {
  std::mt19937 rng(20261128);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int k = 0; k < 10; ++k) {
    int w = pick(1, 31), l = pick(0, w), r = pick(0, w);
    int n = pick(std::max(1, w - l - r), w + 12);
    std::string pad = pick(0, 1)
                          ? "padClamp(" + std::to_string(l) + ")(" + std::to_string(r) + ")"
                          : "padCst(" + std::to_string(l) + ")(" + std::to_string(r) + ")(0.5f)";
    std::string text = program_1d(pad, w), sizes = "n=" + std::to_string(n);
    const char* target = k % 2 ? "openmp" : "c";
    expect_match("gen1d", text, "", sizes, target);
    expect_match("gen1d", text, "lowerToC", sizes, target);
  }
  for (int k = 0; k < 6; ++k) {
    int w = pick(1, 9), l = pick(0, w), r = pick(0, w);
    int min = std::max(1, w - l - r);
    std::string sizes =
        "n=" + std::to_string(pick(min, min + 4)) + ",m=" + std::to_string(pick(min, min + 6));
    std::string amounts = "(" + std::to_string(l) + ")(" + std::to_string(r) + ")";
    std::string pad = pick(0, 1) ? "padClamp2D" + amounts : "padCst2D" + amounts + "(0.5f)";
    std::string text = program_2d(pad, w);
    const char* target = k % 2 ? "openmp" : "c";
    expect_match("gen2d", text, "", sizes, target);
    expect_match("gen2d", text, "lowerToC", sizes, target);
  }
}

// The statements of `c` up to each store to `output` (each output element's reads),
// counted when they read `img` and neither clamp an index nor guard a read.
int tiled_clamp_free_stores(const std::string& c) {
  int clean = 0;
  size_t from = 0;
  for (size_t at = c.find("output[", from); at != std::string::npos;
       from = at + 1, at = c.find("output[", from)) {
    const std::string part = c.substr(from, at - from);
    const size_t end = c.find(';', at);
    const std::string stmt = part + c.substr(at, end - at);
    if (stmt.find("img[") != std::string::npos && stmt.find("risec_max(") == std::string::npos &&
        stmt.find("risec_min(") == std::string::npos && stmt.find(" ? ") == std::string::npos)
      ++clean;
  }
  return clean;
}

// A tiled stencil over a clamped image (tile(t, t) on the map over windows; or a
// padded one, whose reads are guarded): the loop over a row's tiles, and on the c
// target the loop over the tile rows too, is split where its inner loops' clamps
// stop changing side, so the tiles in the middle read plain indices (before, every tile clamped
// every tap per element, and GCC gathered them lane by lane: sharpen's tiled candidates 24-29 ms
// against 2.8 ms). Equal to the interpreter on c and openmp, with the taps in a loop and unrolled;
// tiles not in the middle (2 x 2 tiles, one tile row) too. Fails without the tile points: every
// store's reads then clamp.
TEST(SplitLoopScope, TiledClampedWindowsSplitTheTileLoops) {
  struct TiledCase {
    int window, tile;
    const char* sizes;
    bool middle;         // at least three tiles each way: some tile clamps nowhere
    bool zeros = false;  // padCst2D (guarded reads) instead of padClamp2D
  };
  for (const TiledCase& t : {TiledCase{3, 8, "n=32,m=40", true}, TiledCase{5, 4, "n=16,m=20", true},
                             TiledCase{3, 4, "n=8,m=8", false}, TiledCase{3, 8, "n=8,m=32", false},
                             TiledCase{3, 8, "n=32,m=40", true, true}})
    for (const char* target : {"c", "openmp"})
      for (const char* taps : {"", " ; try(unrollReductions(25))"}) {
        const int h = t.window / 2;
        const std::string amounts = "(" + std::to_string(h) + ")(" + std::to_string(h) + ")";
        const std::string pad = t.zeros ? "padCst2D" + amounts + "(0.5f)" : "padClamp2D" + amounts;
        const std::string tile = std::to_string(t.tile);
        const std::string strategy =
            "DFNF ; tile(" + tile + ", " + tile + ") @ outermost(mapNest(2)) ; lowerToC" + taps;
        SCOPED_TRACE(std::string(target) + " " + t.sizes + " " + strategy);
        std::string file = write_scratch("tiled_clamps.rise", program_2d(pad, t.window));
        CheckOptions o;
        o.target = target;
        CheckReport r = run_and_compare(file, strategy, t.sizes, o);
        EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n"
                                     << r.compiled.unit.source;
        // (Taps in a loop over a flattened window read i / w and i % w, not linear
        // in the tap: their clamps stay; every candidate of the autoscheduler unrolls
        // them.)
        if (t.middle && std::string(target) == "c" && *taps) {
          EXPECT_GE(tiled_clamp_free_stores(r.compiled.unit.source), 1) << r.compiled.unit.source;
        }
      }
}

}  // namespace
}  // namespace risec::e2e
