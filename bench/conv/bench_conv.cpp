// bench_conv: convolutions specialised on their weights with --bind (docs/cli.md,
// "Binding inputs") against the generic code that reads the weights at run time,
// in one run: examples/conv2d (5 x 5 window, zero border) with a dense binomial
// kernel and with a sparse one (a cross: 9 non-zero weights of 25), and
// examples/conv1d (5 taps, two of them zero).
//
//   ./build/bench/bench_conv            # conv2d 2048x2048, conv1d 2^24
//   ./build/bench/bench_conv --quick    # conv2d 512x512, conv1d 2^20, fewer repetitions
//
// Both variants are the default lowering (lowerToC), one thread, compiled through
// runtime::jit_compile (-O3 -march=native -ffp-contract=fast); the generic one gets the
// weights as an input, the bound one has them folded in (zero weights removed, the tap
// loops unrolled). The variants of one case are timed side by side: one warm-up call
// each, then 10-200 rounds (5-20 with --quick) calling every variant once, about 1.5 s
// per variant; the table gives the median time and the number of timed calls. The
// bound result is compared with the generic one: "ok" when max |x - ref| / max(1,
// |ref|) < 1e-5 (the same products summed in the same order, less the zero ones).
//
// Never fails on time; exits non-zero only when something cannot be compiled or
// loaded.
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "runtime/npy.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::parse_quick_option;
using risec::bench::TimingPolicy;
using risec::bench::Variant;

struct Case {
  std::string example;            // examples/NAME/NAME.rise
  std::string kernel;             // a name for the weights
  std::vector<int64_t> shape;     // of the weights
  std::vector<float> weights;     // row-major
  risec::rise::SizeMap sizes;     // of the program
  size_t input_count, out_count;  // elements of the data input and of the result
  std::string size;               // for the table
};

std::vector<float> binomial5x5() {
  const float b[5] = {1, 4, 6, 4, 1};
  std::vector<float> w;
  for (float r : b)
    for (float c : b) w.push_back(r * c / 256.0f);
  return w;
}

std::vector<float> cross5x5() {
  std::vector<float> w(25, 0.0f);
  const float k[5] = {-1, 2, -8, 2, -1};
  for (int i = 0; i < 5; ++i) {
    w[size_t(2 * 5 + i)] += k[i];
    w[size_t(i * 5 + 2)] += k[i];
  }
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  if (std::optional<int> exit_code = parse_quick_option(argc, argv, "bench_conv", quick))
    return *exit_code;
  const TimingPolicy policy = risec::bench::side_by_side_policy(quick);
  risec::bench::print_side_by_side_header(
      "bench_conv: convolutions with their weights bound (--bind) vs read at run time, f32, one "
      "thread",
      policy, "case", "generic");

  const int64_t side = quick ? 512 : 2048;
  const int64_t len = quick ? (int64_t{1} << 20) : (int64_t{1} << 24);
  const size_t pixels = size_t(side * side);
  const std::string img_size = std::to_string(side) + "x" + std::to_string(side);
  const std::vector<Case> cases = {
      {"conv2d",
       "binomial 5x5 (25 non-zero)",
       {5, 5},
       binomial5x5(),
       {{"n", side}, {"m", side}},
       pixels,
       pixels,
       img_size},
      {"conv2d",
       "cross 5x5 (9 non-zero)",
       {5, 5},
       cross5x5(),
       {{"n", side}, {"m", side}},
       pixels,
       pixels,
       img_size},
      {"conv1d",
       "[1, 0, 2, 0, 0.5] (3 non-zero)",
       {5},
       {1.0f, 0.0f, 2.0f, 0.0f, 0.5f},
       {{"n", len}},
       size_t(len + 4),
       size_t(len),
       "2^" + std::to_string(quick ? 20 : 24)},
  };

  risec::bench::Table table(
      {"program", "size", "weights", "variant", "median ms", "ratio to generic", "calls", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  risec::runtime::TempDir dir("risec-bench-conv-");
  try {
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const Case& k = cases[ci];
      const std::string program = "examples/" + k.example + "/" + k.example + ".rise";
      Buffer in(k.input_count), w(k.weights.size());
      risec::bench::fill_random(in, 4242);
      for (size_t i = 0; i < k.weights.size(); ++i) w[i] = k.weights[i];
      risec::runtime::NdArray wa = risec::runtime::make_array(risec::runtime::DType::F32, k.shape);
      for (size_t i = 0; i < k.weights.size(); ++i) wa.as<float>()[i] = k.weights[i];
      const std::string wfile = dir.path() + "/w" + std::to_string(ci) + ".npy";
      risec::runtime::write_npy(wfile, wa);
      const std::map<std::string, std::string> bind = {{"w", wfile}};

      std::vector<risec::runtime::Module> mods;
      mods.push_back(risec::bench::compile_example(program, "", k.sizes, "c"));
      mods.push_back(risec::bench::compile_example(program, "", k.sizes, "c", nullptr, &bind));
      Buffer out_generic(k.out_count), out_bound(k.out_count);
      std::vector<Variant> vs(2);
      vs[0].name = "risec generic (w an input)";
      vs[0].run = [&] { mods[0].call({out_generic.data(), in.data(), w.data()}, {}); };
      vs[1].name = "risec --bind w";
      vs[1].run = [&] { mods[1].call({out_bound.data(), in.data()}, {}); };
      std::fprintf(stderr, "  %s %s %s: timing 2 variants side by side\n", k.example.c_str(),
                   k.size.c_str(), k.kernel.c_str());
      risec::bench::time_interleaved(vs, policy);
      const double e = risec::bench::max_rel_error(out_bound, out_generic);
      const double tg = vs[0].timing.median_s;
      for (size_t i = 0; i < vs.size(); ++i)
        table.add({k.example, k.size, k.kernel, vs[i].name,
                   fmt("%.3f", vs[i].timing.median_s * 1e3),
                   fmt("%.3f", vs[i].timing.median_s / tg), std::to_string(vs[i].timing.reps),
                   i == 0     ? std::string("reference")
                   : e < 1e-5 ? std::string("ok")
                              : "MISMATCH (" + fmt("%.2g", e) + ")"});
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_conv: %s", risec::format_error(e).c_str());
    return 1;
  }
  std::printf("\n");
  table.print();
  std::printf("load average at end: %s; CPU used by other processes during the run: %s\n",
              risec::bench::load_average().c_str(), load.describe().c_str());
  return 0;
}
