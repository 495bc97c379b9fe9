// bench_image: separable image blurs, risec against the image-processing peers, in
// one run, single-threaded:
//   blur5: examples/blur5 (5-tap binomial [1 4 6 4 1]/16 along rows then columns,
//          zero border), against Halide 14 (JIT, an expert schedule) and OpenCV 4.6
//          (cv::sepFilter2D, BORDER_CONSTANT);
//   blur3: examples/blur3 (3-tap box, clamped border), against the same peers
//          (Halide repeat_edge, OpenCV BORDER_REPLICATE).
// risec uses its default lowering (no strategy), as a user who writes the blur gets.
//
//   ./build/bench/bench_image            # 4096x4096
//   ./build/bench/bench_image --quick    # 1024x1024, fewer repetitions
//
// The variants of one blur are timed side by side (bench_util.h: a warm-up call each,
// then rounds calling each once; median). Outputs are compared with risec's:
// "ok" when max |x - ref| / max(1, |ref|) < 1e-5 (the peers add in other orders).
// Halide's intermediate is computed per tile of 256 x 32 outputs and both stages are
// vectorised by 8 lanes (the schedule of Halide's blur tutorial, on one thread);
// OpenCV runs with cv::setNumThreads(1).
//
// Never fails on time; exits non-zero only when something cannot be compiled.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/diagnostics.h"

#ifdef RISEC_HAVE_HALIDE
#include <Halide.h>
#endif
#ifdef RISEC_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::TimingPolicy;
using risec::bench::Variant;

struct Blur {
  std::string name;      // the example
  std::vector<float> w;  // the 1-D weights, in the order of the taps
  bool clamp;            // clamped border (else zero)
};

#ifdef RISEC_HAVE_HALIDE
// The blur as a Halide pipeline over an m x n image (x the column), both passes
// summing w[k] * value left to right as the RISE program does.
struct HalideBlur {
  Halide::ImageParam in{Halide::Float(32), 2};
  Halide::Func bx, by;
  Halide::Var x, y, xo, yo, xi, yi;
  explicit HalideBlur(const Blur& b) {
    Halide::Func padded = b.clamp ? Halide::BoundaryConditions::repeat_edge(in)
                                  : Halide::BoundaryConditions::constant_exterior(in, 0.0f);
    int r = static_cast<int>(b.w.size()) / 2;
    Halide::Expr sx = 0.0f, sy = 0.0f;
    for (int k = 0; k < static_cast<int>(b.w.size()); ++k) sx = sx + padded(x + k - r, y) * b.w[k];
    bx(x, y) = sx;
    Halide::Func bxp = b.clamp ? Halide::BoundaryConditions::repeat_edge(
                                     bx, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}})
                               : Halide::BoundaryConditions::constant_exterior(
                                     bx, 0.0f, {{0, in.dim(0).extent()}, {0, in.dim(1).extent()}});
    for (int k = 0; k < static_cast<int>(b.w.size()); ++k) sy = sy + bxp(x, y + k - r) * b.w[k];
    by(x, y) = sy;
    by.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 8);
    bx.compute_at(by, xo).vectorize(x, 8);
    by.compile_jit(Halide::get_host_target());
  }
  void run(float* out, const float* img, int n, int m) {
    Halide::Buffer<float> ib(const_cast<float*>(img), m, n);
    Halide::Buffer<float> ob(out, m, n);
    in.set(ib);
    by.realize(ob);
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: bench_image [--quick]\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_image: unknown option '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  TimingPolicy policy;
  policy.min_reps = quick ? 5 : 10;
  policy.max_reps = quick ? 20 : 100;
  policy.budget_s = quick ? 0.3 : 1.5;
  int n = quick ? 1024 : 4096, m = n;
#ifdef RISEC_HAVE_OPENCV
  cv::setNumThreads(1);
#endif
  std::printf("bench_image: separable blurs, f32, %dx%d, one thread; %s\n", n, m,
              risec::bench::machine_description().c_str());
  std::printf("source %s; load average at start: %s\n", risec::bench::source_revision().c_str(),
              risec::bench::load_average().c_str());
  std::fflush(stdout);
  risec::bench::Table table({"blur", "variant", "median ms", "ratio to risec", "calls", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  std::vector<Blur> blurs = {{"blur5", {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f}, false},
                             {"blur3", {1.0f / 3, 1.0f / 3, 1.0f / 3}, true}};
  try {
    for (const Blur& b : blurs) {
      size_t count = size_t(n) * m;
      Buffer A(count);
      risec::bench::fill_random(A, 4242);
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      auto add = [&](const std::string& name, std::function<void(float*)> f) {
        outs.push_back(std::make_unique<Buffer>(count));
        float* o = outs.back()->data();
        Variant v;
        v.name = name;
        v.run = [f, o] { f(o); };
        vs.push_back(std::move(v));
      };
      risec::rise::SizeMap sizes{{"n", n}, {"m", m}};
      auto mod = std::make_shared<risec::runtime::Module>(risec::bench::compile_example(
          "examples/" + b.name + "/" + b.name + ".rise", "", sizes, "c"));
      add("risec (lowerToC)", [mod, &A](float* o) { mod->call({o, A.data()}, {}); });
#ifdef RISEC_HAVE_HALIDE
      auto hb = std::make_shared<HalideBlur>(b);
      add("Halide 14 (JIT, expert schedule)",
          [hb, &A, n, m](float* o) { hb->run(o, A.data(), n, m); });
#endif
#ifdef RISEC_HAVE_OPENCV
      std::vector<float> w = b.w;
      add("OpenCV sepFilter2D", [w, &A, n, m, &b](float* o) {
        cv::Mat src(n, m, CV_32F, A.data()), dst(n, m, CV_32F, o);
        cv::Mat k(1, static_cast<int>(w.size()), CV_32F, const_cast<float*>(w.data()));
        cv::sepFilter2D(src, dst, CV_32F, k, k, cv::Point(-1, -1), 0,
                        b.clamp ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT);
      });
#endif
      std::fprintf(stderr, "  %s: timing %zu variants side by side\n", b.name.c_str(), vs.size());
      risec::bench::time_interleaved(vs, policy);
      double t0 = vs[0].timing.median_s;
      for (size_t i = 0; i < vs.size(); ++i) {
        std::string check = "reference";
        if (i > 0) {
          double e = risec::bench::max_rel_error(*outs[i], *outs[0]);
          check = e < 1e-5 ? std::string("ok") : "MISMATCH (" + fmt("%.2g", e) + ")";
        }
        table.add({b.name, vs[i].name, fmt("%.3f", vs[i].timing.median_s * 1e3),
                   fmt("%.3f", vs[i].timing.median_s / t0), std::to_string(vs[i].timing.reps),
                   check});
      }
    }
#ifdef RISEC_HAVE_HALIDE
  } catch (const Halide::Error& e) {
    std::fprintf(stderr, "bench_image: Halide: %s\n", e.what());
    return 1;
#endif
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_image: %s", risec::format_error(e).c_str());
    return 1;
  }
  std::printf("\n");
  table.print();
  std::printf("load average at end: %s; CPU used by other processes during the run: %s\n",
              risec::bench::load_average().c_str(), load.describe().c_str());
  return 0;
}
