// The default lowering on stencils (issue 34, "a better default lowering"): window
// reductions of up to 25 taps are unrolled (unrollReductions(25)), so the C backend
// splits their clamped or zero-padded borders off and the interior loop has plain
// indices; fmax and fmin of floats are comparisons GCC vectorises. The programs of
// bench/default_lowering (written for it, not examples) and many generated windows
// must match the interpreter at sizes whose borders meet, on the c and openmp targets,
// and fmax/fmin must give the interpreter's results on NaNs, infinities and zeros.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "e2e_util.h"
#include "elevate/default_lowering.h"
#include "elevate/library.h"
#include "elevate/parser.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "runtime/npy.h"
#include "support/random.h"

namespace risec::e2e {
namespace {

const std::vector<std::string> kDefaultPrograms = {"morph5", "box3", "box5", "sharpen"};

std::string program_path(const std::string& name) {
  return "bench/default_lowering/" + name + ".rise";
}

TEST(DefaultLowering, NamedProgramsMatchTheInterpreter) {
  // odd sizes, and sizes where the left and right (top and bottom) borders meet
  const std::vector<std::string> sizes = {"n=37,m=53", "n=1,m=1", "n=2,m=3", "n=4,m=5",
                                          "n=5,m=4",   "n=6,m=9", "n=3,m=40"};
  for (const std::string& p : kDefaultPrograms)
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_TRUE(compile_and_check(program_path(p), "", sizes[i], "c")) << p << " " << sizes[i];
      if (i % 2 == 0) {  // the openmp target (parallel rows) on every other size
        EXPECT_TRUE(compile_and_check(program_path(p), "", sizes[i], "openmp"))
            << p << " " << sizes[i];
      }
    }
  for (const char* s : {"n=9,m=11,o=13", "n=1,m=2,o=3", "n=2,m=1,o=1", "n=3,m=3,o=17"})
    for (const char* target : {"c", "openmp"})
      EXPECT_TRUE(compile_and_check(program_path("stencil7"), "", s, target)) << s;
}

TEST(DefaultLowering, BordersAreSplitOffAndTheInteriorHasNoClamps) {
  // The 25 taps of morph5 and box5 are unrolled: every index is plain in some loop
  // (no clamp left anywhere, the border parts having constant indices), the maximum
  // is no call into the C library, and the 25 taps are read with constant offsets.
  for (const char* p : {"morph5", "box5"}) {
    CliResult r = run_risec({"compile", program_path(p), "--size", "n=37,m=53"});
    ASSERT_EQ(r.exit_code, 0) << show(r);
    const std::string body = r.out.substr(r.out.find(std::string("void ") + p + "("));
    EXPECT_EQ(occurrences(body, "risec_min("), 0) << body;
    EXPECT_EQ(occurrences(body, "risec_max("), 0) << body;
    EXPECT_EQ(occurrences(body, "fmaxf("), 0) << body;
    EXPECT_EQ(occurrences(body, " < 25; "), 0) << body;  // no loop over the taps
  }
  // The same with a pair accumulator (bilateral's (w * q, w) sums over a 5 x 5
  // window): unrolled, the borders split off, and its exp inline, not libm's expf.
  CliResult b =
      run_risec({"compile", "bench/autoschedule/programs/bilateral.rise", "--size", "n=37,m=53"});
  ASSERT_EQ(b.exit_code, 0) << show(b);
  const std::string body = b.out.substr(b.out.find("void bilateral("));
  EXPECT_EQ(occurrences(body, "risec_min("), 0) << body;
  EXPECT_EQ(occurrences(body, "risec_max("), 0) << body;
  EXPECT_EQ(occurrences(body, " < 25; "), 0) << body;
  EXPECT_EQ(occurrences(body, "expf("), 0) << body;
  EXPECT_GT(occurrences(body, "risec_exp_f32("), 25) << body;
  // Without --strategy only: an explicit lowerToC keeps the 25 taps a loop.
  CliResult s = run_risec(
      {"compile", program_path("morph5"), "--strategy", "lowerToC", "--size", "n=37,m=53"});
  ASSERT_EQ(s.exit_code, 0) << show(s);
  EXPECT_GT(occurrences(s.out, "risec_min("), 1) << s.out;
  EXPECT_EQ(occurrences(s.out, " < 25; "), 1) << s.out;
}

// The program `text` after lowerToC.
rise::Expr lowered(const std::string& text) {
  rise::Program p =
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"unroll.rise", text}));
  rise::Checked c = rise::check_program(p, "");
  return driver::apply_strategy(elevate::make_strategy("lowerToC"), c, false).expr;
}

TEST(DefaultLowering, UnrollingStopsAt25Copies) {
  // 13 rows of 2 taps: lowerToC unrolls the rows (at most 9 taps); the 26 copies of
  // the whole window are more than 25, so unrollReductions(25) has nothing to do and
  // fails, and unrollReductions(26) unrolls it.
  const std::string nest =
      "def f = depFun((n: Nat) => fun(x: n.f32 => x |> padClamp(6)(6) |> slide(13)(1) |>\n"
      "  map(fun(w => w |> split(1) |> map(fun(r => r |> padCst(0)(1)(0.0f) |>\n"
      "    reduce(add)(0.0f))) |> reduce(add)(0.0f)))))\n";
  rise::Expr low = lowered(nest);
  EXPECT_EQ(occurrences(rise::print_expr(low), "reduceSeq("), 1) << rise::print_expr(low);
  EXPECT_FALSE(elevate::unroll_reductions(25)(low).ok());
  auto all = elevate::unroll_reductions(26)(low);
  ASSERT_TRUE(all.ok()) << all.failure().reason;
  EXPECT_EQ(occurrences(rise::print_expr(all.expr()), "reduceSeq("), 0);
  EXPECT_EQ(occurrences(rise::print_expr(all.expr()), "reduceSeqUnroll("), 2);
  EXPECT_TRUE(compile_and_check(write_scratch("default_lowering_nest.rise", nest), "", "n=13"));
  // A flattened 5 x 5 window: 25 taps, unrolled by unrollReductions(25), not (24).
  std::string morph = source_path(program_path("morph5"));
  rise::Program p = driver::load_program(morph);
  rise::Expr m =
      driver::apply_strategy(elevate::make_strategy("lowerToC"), rise::check_program(p, ""), false)
          .expr;
  EXPECT_FALSE(elevate::unroll_reductions(24)(m).ok());
  auto u = elevate::unroll_reductions(25)(m);
  ASSERT_TRUE(u.ok()) << u.failure().reason;
  EXPECT_EQ(occurrences(rise::print_expr(u.expr()), "reduceSeqUnroll("), 1);
}

// A reduction over groups of k vectors (vectorizeReduction2 and 4's interleaved
// accumulators) counts k copies a step: a pass over a row, which unrolled in full let
// GCC keep a row's loads of two passes in registers (docs/performance.md, layer norm).
TEST(DefaultLowering, UnrollingCountsEachAccumulatorOfAVectorReduction) {
  const std::string row = "def f = depFun((n: Nat) => fun(x: n.f32 => x |> reduce(add)(0.0f)))\n";
  rise::Program p =
      rise::parse_program(std::make_shared<SourceFile>(SourceFile{"vec_unroll.rise", row}));
  auto low = [&](const std::string& rule) {
    rise::SizeMap sizes{{"n", 128}};
    rise::Checked c = rise::check_program(p, "", &sizes);
    return driver::apply_strategy(elevate::parse_strategy("normalize(" + rule + ") ; lowerToC"), c,
                                  false)
        .expr;
  };
  // one accumulator of 4 lanes: 32 steps of one vector, more than 25 copies; 8 lanes: 16
  EXPECT_FALSE(elevate::unroll_reductions(25)(low("vectorizeReduction(4)")).ok());
  EXPECT_TRUE(elevate::unroll_reductions(25)(low("vectorizeReduction(8)")).ok());
  // four accumulators of 4 lanes: 8 steps of 4 vectors, 32 copies, not unrolled by 25
  rise::Expr four = low("vectorizeReduction4(4)");
  EXPECT_FALSE(elevate::unroll_reductions(25)(four).ok()) << rise::print_expr(four);
  auto all = elevate::unroll_reductions(32)(four);
  ASSERT_TRUE(all.ok()) << all.failure().reason;
  EXPECT_EQ(occurrences(rise::print_expr(all.expr()), "reduceSeqUnroll("), 1);
  // two accumulators of 4 lanes: 16 steps of 2 vectors, 32 copies
  EXPECT_FALSE(elevate::unroll_reductions(25)(low("vectorizeReduction2(4)")).ok());
  EXPECT_TRUE(compile_and_check(write_scratch("vec_unroll.rise", row),
                                "normalize(vectorizeReduction4(4)) ; lowerToC ; "
                                "try(unrollReductions(25))",
                                "n=128"));
}

// A generated window program: an h x w window over an n x m image, padded by
// clamping or with zeros, reduced by add, fmax or fmin (flattened with join, or row by
// row), then scaled.
struct Window {
  int h, w;
  bool clamp;
  int op;  // 0 add, 1 fmax, 2 fmin
  bool rows;
  std::string text() const {
    std::string red = op == 0   ? "reduce(add)(0.0f)"
                      : op == 1 ? "reduce(fmax)(-1.0e30f)"
                                : "reduce(fmin)(1.0e30f)";
    // the window's rows: h - 1 of padding split before and after, likewise columns
    int t = (h - 1) / 2, b = h - 1 - t, l = (w - 1) / 2, r = w - 1 - l;
    auto pad = [&](int a, int z, bool inner) {
      std::string s = clamp ? "padClamp(" + std::to_string(a) + ")(" + std::to_string(z) + ")"
                            : "padCst(" + std::to_string(a) + ")(" + std::to_string(z) + ")(" +
                                  (inner ? "0.0f" : "generate(fun(i => 0.0f))") + ")";
      return s;
    };
    std::string win =
        rows ? "win |> map(fun(row => row |> " + red + ")) |> " + red : "win |> join |> " + red;
    return "def f = depFun((n: Nat, m: Nat) => fun(img: n.m.f32 =>\n  img |> map(" +
           pad(l, r, true) + ") |> " + pad(t, b, false) + " |> map(slide(" + std::to_string(w) +
           ")(1)) |> slide(" + std::to_string(h) + ")(1) |> map(transpose)\n" +
           "  |> map(map(fun(win => (" + win + ") * 0.5f)))))\n";
  }
};

TEST(DefaultLowering, GeneratedWindowsMatchTheInterpreter) {
  const uint64_t seed = 3434;
  for (uint64_t k = 0; k < 36; ++k) {
    auto draw = [&](uint64_t salt, uint64_t mod) {
      return static_cast<int>(runtime::derive_seed(seed, k * 16 + salt) % mod);
    };
    Window win{1 + draw(0, 5), 1 + draw(1, 6), draw(2, 2) == 0, draw(3, 3), draw(4, 3) == 0};
    int n = 1 + draw(5, 9), m = 1 + draw(6, 23);
    std::string name = "default_lowering_gen" + std::to_string(k) + ".rise";
    std::string file = write_scratch(name, win.text());
    std::string sizes = "n=" + std::to_string(n) + ",m=" + std::to_string(m);
    CheckOptions o;
    o.target = k % 3 == 0 ? "openmp" : "c";
    o.seed = k;
    EXPECT_TRUE(compile_and_check(file, "", sizes, o)) << win.text() << sizes;
  }
}

// A .npy file of f32 values with the shape, in the scratch directory.
std::string default_npy(const std::string& name, const std::vector<int64_t>& shape,
                        const std::vector<float>& values) {
  runtime::NdArray a = runtime::make_array(runtime::DType::F32, shape);
  for (size_t i = 0; i < values.size(); ++i) a.as<float>()[i] = values[i];
  std::string path = scratch_path(name + ".npy");
  runtime::write_npy(path, a);
  return path;
}

TEST(DefaultLowering, FmaxAndFminKeepTheLibrarysResultsOnSpecialValues) {
  // Pairs of NaN, infinities, zeros of both signs and ordinary values, element by
  // element, through the vectorisable helpers, against the interpreter.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {nan, inf, -inf, 0.0f, -0.0f, 1.5f, -2.0f, 1.5f};
  std::vector<float> a, b;
  for (float x : specials)
    for (float y : specials) {
      a.push_back(x);
      b.push_back(y);
    }
  const int n = static_cast<int>(a.size());
  for (const char* op : {"fmax", "fmin"}) {
    std::string text = std::string("def f = depFun((n: Nat) => fun(x: n.f32 => fun(y: n.f32 =>\n") +
                       "  zip(x)(y) |> map(fun(p => " + op + "(p._1)(p._2))))))\n";
    std::string file = write_scratch(std::string("default_lowering_") + op + ".rise", text);
    CheckOptions o;
    o.inputs = {{"x", default_npy("dl_x", {n}, a)}, {"y", default_npy("dl_y", {n}, b)}};
    o.atol = 0;
    o.rtol = 0;
    EXPECT_TRUE(compile_and_check(file, "", "n=" + std::to_string(n), o)) << op;
    // a reduction too (the accumulator is the first operand)
    std::string red = std::string("def f = depFun((n: Nat) => fun(x: n.f32 =>\n") +
                      "  x |> reduce(" + op + ")(0.0f)))\n";
    std::string rfile = write_scratch(std::string("default_lowering_r") + op + ".rise", red);
    for (int len : {1, 7, 25, 64}) {
      CheckOptions r;
      std::vector<float> vals;
      for (int i = 0; i < len; ++i) vals.push_back(specials[(i * 5 + len) % specials.size()]);
      r.inputs = {{"x", default_npy("dl_r" + std::to_string(len), {len}, vals)}};
      r.atol = 0;
      r.rtol = 0;
      EXPECT_TRUE(compile_and_check(rfile, "", "n=" + std::to_string(len), r)) << op << len;
    }
  }
}

}  // namespace
}  // namespace risec::e2e
