// halide_sharpen_morph.cpp (bench_autoschedule_halide): The Halide 14 peers of bench/autoschedule's
// programs (docs/performance.md, "The autoscheduler"): the same sharpening filter and 5 x 5
// dilation as Halide pipelines (JIT), scheduled by Halide's Mullapudi2016 autoscheduler (the plugin
// Debian's libhalide14-0-dev ships), told of 2 cores and a 32 MiB last-level cache, as bench/image
// does. Run with HL_NUM_THREADS=2. Prints the minimum and the median of the repetitions of each, in
// ms. Never fails on time.
//
//   bench_autoschedule_halide [N] [REPS]      # N x N images (default 2048), 20 reps
#include <Halide.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

void autoschedule(Halide::ImageParam& in, Halide::Func out, int n) {
  static bool loaded = false;
  if (!loaded) {
    Halide::load_plugin(RISEC_HALIDE_AUTOSCHEDULER);
    loaded = true;
  }
  in.set_estimates({{0, n}, {0, n}});
  out.set_estimates({{0, n}, {0, n}});
  Halide::Pipeline p(out);
  p.auto_schedule("Mullapudi2016", Halide::get_host_target(),
                  Halide::MachineParams(2, 32 * 1024 * 1024, 40));
}

// bench/autoschedule/sharpen.rise: a 3 x 3 binomial blur (clamped borders), then
// in + 0.75 * (in - blurred).
Halide::Func sharpen(Halide::ImageParam& in) {
  Halide::Var x("x"), y("y");
  Halide::Func c = Halide::BoundaryConditions::repeat_edge(in);
  Halide::Func blurred("blurred"), out("sharpen");
  const float w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  Halide::Expr s = 0.0f;
  for (int dy = 0; dy < 3; ++dy)
    for (int dx = 0; dx < 3; ++dx) s = s + c(x + dx - 1, y + dy - 1) * (w[dy][dx] / 16.0f);
  blurred(x, y) = s;
  out(x, y) = in(x, y) + 0.75f * (in(x, y) - blurred(x, y));
  return out;
}

// bench/autoschedule/morph5.rise: the maximum over the 5 x 5 window (clamped borders).
Halide::Func morph5(Halide::ImageParam& in) {
  Halide::Var x("x"), y("y");
  Halide::Func c = Halide::BoundaryConditions::repeat_edge(in);
  Halide::Func out("morph5");
  Halide::RDom r(-2, 5, -2, 5);
  out(x, y) = Halide::maximum(c(x + r.x, y + r.y));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  Halide::Buffer<float> img(n, n), out(n, n);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) img(x, y) = u(rng);
  std::printf("Halide 14, Mullapudi2016, %d x %d, HL_NUM_THREADS=%s\n", n, n,
              std::getenv("HL_NUM_THREADS") ? std::getenv("HL_NUM_THREADS") : "(unset)");
  for (const std::string name : {"sharpen", "morph5"}) {
    Halide::ImageParam in(Halide::Float(32), 2, "in");
    Halide::Func f = name == "sharpen" ? sharpen(in) : morph5(in);
    autoschedule(in, f, n);
    f.compile_jit();
    in.set(img);
    f.realize(out);  // warm-up
    std::vector<double> ms;
    for (int k = 0; k < reps; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      f.realize(out);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s: min %.3f ms, median %.3f ms (%d runs)\n", name.c_str(), ms.front(),
                ms[ms.size() / 2], reps);
  }
  return 0;
}
