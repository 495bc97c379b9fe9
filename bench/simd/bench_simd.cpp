// Sierra's benchmarks with control flow that varies per lane (issue 19), on one core:
// Mandelbrot (examples/mandelbrot: points escape after different numbers of steps; and
// examples/mandelwhile, whose loop leaves early, iterateWhile) and
// binomial options pricing (examples/binomial: one reduction over a tree's leaves per
// option, with a payoff that is zero for some leaves). For each, risec's scalar.elv and
// vector.elv (`lanes` lanes: masks from vector comparisons, blends on them) against the
// same algorithm written by hand in C, compiled through the same runtime path
// (-O3 -march=native): a plain loop, and the loop under `#pragma omp simd` (what an
// ISPC-like SPMD compiler produces without intrinsics). Variants are timed interleaved
// (bench_util.h); the error column compares each with the hand-written plain loop.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/cpu.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;

// The hand-written kernels: the algorithms of the .rise files, one point (option) per
// iteration of the outer loop, which `omp simd` vectorises when RISEC_BENCH_SIMD is set.
const char* kMandelbrotSource = R"(
void mandel_hand__risec_call(void* const* b, const int* s) {
  float* out = (float*)b[0];
  const float* cr = (const float*)b[1];
  const float* ci = (const float*)b[2];
  const int n = s[0], blocks = s[1];
#ifdef RISEC_BENCH_SIMD
#pragma omp simd
#endif
  for (int i = 0; i < n; ++i) {
    float x = 0.0f, y = 0.0f, count = 0.0f;
    for (int block = 0; block < blocks; ++block) {
      for (int step = 0; step < 8; ++step) {
        int active = x * x + y * y < 4.0f;
        float nx = x * x - y * y + cr[i], ny = 2.0f * x * y + ci[i];
        x = active ? nx : x;
        y = active ? ny : y;
        count = active ? count + 1.0f : count;
      }
    }
    out[i] = count;
  }
}
)";

// Mandelbrot with an early exit (examples/mandelwhile): the loop over the steps leaves
// when the point escapes.
const char* kMandelWhileSource = R"(
void mandelwhile_hand__risec_call(void* const* b, const int* s) {
  float* out = (float*)b[0];
  const float* cr = (const float*)b[1];
  const float* ci = (const float*)b[2];
  const int n = s[0], k = s[1];
#ifdef RISEC_BENCH_SIMD
#pragma omp simd
#endif
  for (int i = 0; i < n; ++i) {
    float x = 0.0f, y = 0.0f, count = 0.0f;
    for (int step = 0; step < k; ++step) {
      if (!(x * x + y * y < 4.0f)) break;
      float nx = x * x - y * y + cr[i], ny = 2.0f * x * y + ci[i];
      x = nx;
      y = ny;
      count = count + 1.0f;
    }
    out[i] = count;
  }
}
)";

const char* kBinomialSource = R"(
#include <math.h>
void binomial_hand__risec_call(void* const* b, const int* s) {
  float* out = (float*)b[0];
  const float* S = (const float*)b[1];
  const float* X = (const float*)b[2];
  const float* T = (const float*)b[3];
  const int n = s[0], k = s[1];
  const float steps = (float)k - 1.0f;
#ifdef RISEC_BENCH_SIMD
#pragma omp simd
#endif
  for (int i = 0; i < n; ++i) {
    float spot = 5.0f + 25.0f * S[i], strike = 1.0f + 99.0f * X[i];
    float time = 0.25f + 9.75f * T[i];
    float dt = time / steps, vsdt = 0.3f * sqrtf(dt);
    float u = expf(vsdt), d = expf(-vsdt);
    float pu = (expf(0.02f * dt) - d) / (u - d);
    float lpu = logf(pu), lpd = logf(1.0f - pu), lspot = logf(spot);
    float sum = 0.0f, lw = steps * lpd;
    for (int jj = 0; jj < k; ++jj) {
      float j = (float)jj;
      float gain = expf(lspot + (2.0f * j - steps) * vsdt) - strike;
      sum += expf(lw) * (gain > 0.0f ? gain : 0.0f);
      lw += logf((steps - j) / (j + 1.0f)) + lpu - lpd;
    }
    out[i] = expf(-0.02f * time) * sum;
  }
}
)";

struct Bench {
  std::string example;      // examples/NAME/NAME.rise
  std::string size2;        // the name of its second size (k)
  const char* hand_source;  // the hand-written kernel
  const char* hand_name;    // its entry
  std::vector<const Buffer*> inputs;
  int n, k;
  std::string what;
};

bool run(const Bench& b, bool quick) {
  const std::string dir = "examples/" + b.example + "/";
  risec::rise::SizeMap sizes{{"n", b.n}, {b.size2, b.k}};
  struct Config {
    std::string name;
    std::string strategy;  // "" for a hand-written loop
    bool simd = false;
  };
  const std::vector<Config> configs = {
      {"risec scalar.elv", dir + "scalar.elv"},
      {"risec vector.elv", dir + "vector.elv"},
      {"hand-written C loop", ""},
      {"hand-written C loop, omp simd", "", true},
  };
  std::vector<risec::runtime::Module> modules;
  std::vector<Buffer> outputs;
  for (const Config& c : configs) {
    if (c.strategy.empty()) {
      risec::runtime::CompileOptions opts;
      if (c.simd) opts.extra_flags = {"-DRISEC_BENCH_SIMD"};
      modules.push_back(risec::runtime::jit_compile(b.hand_source, b.hand_name, opts));
    } else {
      modules.push_back(
          risec::bench::compile_example(dir + b.example + ".rise", c.strategy, sizes, "c"));
    }
    outputs.emplace_back(size_t(b.n));
  }
  std::vector<risec::bench::Variant> variants;
  for (size_t i = 0; i < configs.size(); ++i) {
    const risec::runtime::Module* m = &modules[i];
    std::vector<void*> buffers{outputs[i].data()};
    for (const Buffer* in : b.inputs) buffers.push_back(in->data());
    std::vector<int> args;
    if (configs[i].strategy.empty()) args = {b.n, b.k};
    variants.push_back({configs[i].name, 1, [=] { m->call(buffers, args); }, {}, {}});
  }
  risec::bench::TimingPolicy policy;
  if (quick) policy = {2, 3, 0.5};
  risec::bench::time_interleaved(variants, policy);

  std::printf("## %s\n\n%s; n = %d, %s = %d\n\n", b.example.c_str(), b.what.c_str(), b.n,
              b.size2.c_str(), b.k);
  risec::bench::Table table({"variant", "median (ms)", "min (ms)", "speedup vs risec scalar",
                             "error vs hand-written loop"});
  bool ok = true;
  const size_t reference = 2;
  for (size_t i = 0; i < configs.size(); ++i) {
    // Mandelbrot's counts: points near the set's border diverge at the rounding of
    // one step (an FMA here and not there), so the share of points whose count differs
    // is reported (at most 1%); binomial: the max relative error.
    std::string e;
    if (b.example == "mandelbrot" || b.example == "mandelwhile") {
      size_t differ = 0;
      for (size_t p = 0; p < outputs[i].size(); ++p)
        differ += outputs[i][p] != outputs[reference][p];
      double share = double(differ) / double(outputs[i].size());
      e = fmt("%.2f%% of counts differ", 100.0 * share);
      if (!(share <= 0.01)) {
        e += " FAIL";
        ok = false;
      }
    } else {
      double err = risec::bench::max_rel_error(outputs[i], outputs[reference]);
      e = fmt("%.1e", err);
      if (!(err <= 1e-3)) {
        e += " FAIL";
        ok = false;
      }
    }
    table.add({configs[i].name, fmt("%.2f", variants[i].timing.median_s * 1e3),
               fmt("%.2f", variants[i].timing.min_s * 1e3),
               fmt("%.2f", variants[0].timing.median_s / variants[i].timing.median_s), e});
  }
  table.print();
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  if (auto code = risec::bench::parse_quick_option(argc, argv, "bench_simd", quick)) return *code;
  std::printf("# Lane-varying control flow: risec scalar vs vector vs hand-written C\n\n");
  std::printf("machine: %s; lanes = %d (vector.elv's `lanes`); one core\n\n",
              risec::bench::machine_description().c_str(),
              static_cast<int>(risec::machine_lanes()));
  std::fflush(stdout);
  try {
    // Mandelbrot on a w x w grid of [-2, 1] x [-1.5, 1.5]
    const int w = quick ? 128 : 512;
    Buffer cr(size_t(w) * w), ci(size_t(w) * w);
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c) {
        cr[size_t(r) * w + c] = -2.0f + 3.0f * float(c) / float(w);
        ci[size_t(r) * w + c] = -1.5f + 3.0f * float(r) / float(w);
      }
    const int options = quick ? 1 << 10 : 1 << 14;
    Buffer s(options), x(options), t(options);
    risec::bench::fill_random(s, 21);
    risec::bench::fill_random(x, 22);
    risec::bench::fill_random(t, 23);
    bool ok = run({"mandelbrot",
                   "b",
                   kMandelbrotSource,
                   "mandel_hand",
                   {&cr, &ci},
                   w * w,
                   32,
                   "escape counts (at most 8*b steps) of a grid over [-2, 1] x [-1.5, 1.5]"},
                  quick);
    ok &= run({"mandelwhile",
               "k",
               kMandelWhileSource,
               "mandelwhile_hand",
               {&cr, &ci},
               w * w,
               256,
               "the same escape counts (at most k steps), each point's loop left when it escapes "
               "(iterateWhile; vectors: when no lane is active)"},
              quick);
    ok &= run({"binomial",
               "k",
               kBinomialSource,
               "binomial_hand",
               {&s, &x, &t},
               options,
               256,
               "European calls on trees of k - 1 steps (k leaves), random spot, strike, time"},
              quick);
    std::printf("load average: %s\n", risec::bench::load_average().c_str());
    if (!ok) {
      std::printf("\nRESULTS DISAGREE\n");
      return 1;
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "%s\n", risec::format_error(e).c_str());
    return 1;
  }
  return 0;
}
