// The pipeline decisions of the autoscheduler (docs/tuning.md, "Without a template")
// on random small pipelines, against the interpreter: a row stage over windows of K
// elements taken every S (S = 2 as in a pyramid level, whose clamped index crosses
// the border between two iterations), clamped or zero-padded by L before and R after,
// summed or maximised; then a 3-tap column stage over its transpose, clamped; then a
// pointwise stage zipping the two, each stage a let. Each program is compiled with
// the default lowering, with its lets inlined (stages computed where they are read:
// the row stage is recomputed for each tap of the column stage), with every stage
// parallel after lowering (parallelStages), and with both and the taps unrolled, at
// sizes that divide nothing (odd, and 1), and compared with the interpreter.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct Pipeline {
  int k, s, l, r;
  bool clamp, max;
  std::string text;
};

// img: h.(s*m + e).f32 with e = k - l - r - s >= 0, so that the padded row of
// s*m + k - s elements has m windows of k taken every s.
Pipeline random_pipeline(std::mt19937& rng) {
  Pipeline p{};
  p.s = std::uniform_int_distribution<int>(1, 2)(rng);
  p.k = std::uniform_int_distribution<int>(p.s + 1, 6)(rng);
  p.l = std::uniform_int_distribution<int>(0, p.k - p.s)(rng);
  p.r = std::uniform_int_distribution<int>(0, p.k - p.s - p.l)(rng);
  p.clamp = rng() % 2;
  p.max = rng() % 2;
  const int e = p.k - p.l - p.r - p.s;
  const std::string pad =
      p.clamp ? "padClamp(" + std::to_string(p.l) + ")(" + std::to_string(p.r) + ")"
              : "padCst(" + std::to_string(p.l) + ")(" + std::to_string(p.r) + ")(0.0f)";
  const std::string red = p.max ? "reduce(fmax)(-3.0e38f)" : "reduce(add)(0.0f)";
  p.text = "def stages = depFun((h: Nat, m: Nat) =>\n  fun(img: h.(" + std::to_string(p.s) + "*m+" +
           std::to_string(e) + ").f32 =>\n" + "    let a = img |> map(fun(row => row |> " + pad +
           " |> slide(" + std::to_string(p.k) + ")(" + std::to_string(p.s) +
           ") |> map(fun(w => w |> " + red + ")))) in\n" +
           "    let b = a |> transpose |> map(fun(col => col |> padClamp(1)(1) |> slide(3)(1) "
           "|> map(fun(w => w |> reduce(add)(0.0f))))) |> transpose in\n" +
           "    zip2D(a, b) |> map2D(fun(q => q._1 * 0.5f + q._2))))\n";
  return p;
}

TEST(PipelineStages, RandomPipelinesMatchTheInterpreterUnderEveryStageDecision) {
  char tmpl[] = "/tmp/risec_stages_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::mt19937 rng(34);
  const std::vector<std::string> strategies = {
      "", "simplify ; normalize(inlineLet) ; normalize(zipMapFusion <+ mapFusion) ; lowerToC",
      "simplify ; lowerToC ; parallelStages",
      "DFNF ; normalize(inlineLet) ; normalize(zipMapFusion <+ mapFusion) ; "
      "normalize(expandReduce) ; partialEval ; lowerToC ; parallelStages"};
  int checked = 0;
  for (int i = 0; i < 8; ++i) {
    Pipeline p = random_pipeline(rng);
    const std::string file = dir + "/stages" + std::to_string(i) + ".rise";
    std::ofstream(file) << p.text;
    // h = 1 reads only the clamped border of the column stage; the others odd. The
    // strategies with parallelStages get a column stage of at least 32768 operations
    // (3 taps of 105 x 105 or more: smaller stages it leaves sequential, and fails when
    // all are).
    const int h = i == 0 ? 1 : 2 * std::uniform_int_distribution<int>(1, 6)(rng) + 1;
    const int m = 2 * std::uniform_int_distribution<int>(0, 6)(rng) + 1;
    const int big = 105 + 2 * std::uniform_int_distribution<int>(0, 5)(rng);
    for (size_t k = 0; k < strategies.size(); ++k) {
      const bool parallel = strategies[k].find("parallelStages") != std::string::npos;
      const std::string sizes = "h=" + std::to_string(parallel ? big : h) +
                                ",m=" + std::to_string(parallel ? big + 2 * i : m);
      CheckOptions o;
      o.target = k == 1 ? "c" : "openmp";
      o.seed = static_cast<uint64_t>(i * 10 + k);
      EXPECT_TRUE(compile_and_check(file, strategies[k], sizes, o))
          << "strategy '" << strategies[k] << "' at " << sizes << " on\n"
          << p.text;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 32);
  std::system(("rm -rf " + dir).c_str());
}

// parallelStages is a lowering rule: before lowerToC there is no mapSeq, and a
// program without a map outside every loop has nothing to make parallel.
TEST(PipelineStages, ParallelStagesRefusesWhatItCannotParallelise) {
  CliResult before = run_risec({"compile", "bench/autoschedule/programs/pyrdown.rise", "--size",
                                "n=8,m=8", "--strategy", "parallelStages ; lowerToC"});
  EXPECT_EQ(before.exit_code, 1) << show(before);
  EXPECT_NE(before.err.find("parallelStages"), std::string::npos) << show(before);
  // After lowering, both stages of pyrdown (the row pass lowerToC stores, and the
  // column pass writing the result) are OpenMP loops.
  CliResult after =
      run_risec({"compile", "bench/autoschedule/programs/pyrdown.rise", "--size", "n=64,m=64",
                 "--target", "openmp", "--strategy", "simplify ; lowerToC ; parallelStages"});
  ASSERT_EQ(after.exit_code, 0) << show(after);
  size_t pragmas = 0;
  for (size_t at = after.out.find("omp parallel for"); at != std::string::npos;
       at = after.out.find("omp parallel for", at + 1))
    ++pragmas;
  EXPECT_GE(pragmas, 2u) << after.out;
  // At sizes where every stage does fewer than 32768 operations (kept sequential), the
  // refusal says so rather than that there is no map.
  CliResult small =
      run_risec({"compile", "bench/autoschedule/programs/pyrdown.rise", "--size", "n=8,m=8",
                 "--target", "openmp", "--strategy", "simplify ; lowerToC ; parallelStages"});
  EXPECT_EQ(small.exit_code, 1) << show(small);
  EXPECT_NE(small.err.find("every stage does fewer than 32768 operations"), std::string::npos)
      << show(small);
}

// The sharpen (a clamped 3 x 3 blur, then in + 0.75 * (in - blurred)): with
// the stages inlined and fused through zip2D, the blurred image is never stored; the
// default lowering stores it (a heap array at this size).
TEST(PipelineStages, SharpenFusedThroughItsZipStoresNoImage) {
  auto compile = [](const std::string& strategy) {
    std::vector<std::string> args = {"compile", "bench/autoschedule/sharpen.rise", "--size",
                                     "n=512,m=512"};
    if (!strategy.empty()) args.insert(args.end(), {"--strategy", strategy});
    return run_risec(args);
  };
  CliResult plain = compile("");
  ASSERT_EQ(plain.exit_code, 0) << show(plain);
  EXPECT_NE(plain.out.find("risec_alloc(&risec_site_"), std::string::npos) << plain.out;
  CliResult fused =
      compile("simplify ; normalize(inlineLet) ; normalize(zipMapFusion <+ mapFusion) ; lowerToC");
  ASSERT_EQ(fused.exit_code, 0) << show(fused);
  EXPECT_EQ(fused.out.find("risec_alloc(&risec_site_"), std::string::npos) << fused.out;
  EXPECT_TRUE(compile_and_check(
      "bench/autoschedule/sharpen.rise",
      "simplify ; normalize(inlineLet) ; normalize(zipMapFusion <+ mapFusion) ; lowerToC",
      "n=13,m=7"));
}

}  // namespace
}  // namespace risec::e2e
