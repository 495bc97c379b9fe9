// bench_image: image pipelines, risec against the image-processing peers, in one
// run, on 1 and 2 threads:
//   blur5: examples/blur5 (5-tap binomial [1 4 6 4 1]/16 along rows then columns,
//          zero border), against Halide 14 (JIT) and OpenCV 4.6 (cv::sepFilter2D,
//          BORDER_CONSTANT);
//   blur3: examples/blur3 (3-tap box, clamped border), against the same peers
//          (Halide repeat_edge, OpenCV BORDER_REPLICATE);
//   harris: examples/harris (Sobel, products, 3 x 3 box sums, corner response, no
//          padding) against Halide and OpenCV (cv::cornerHarris, ksize 3, blockSize 3,
//          k = 0.04: its Sobel sums are scaled by 1/12, so its response is risec's
//          / 12^4; it is rescaled and its interior, where its border handling does
//          not reach, compared);
//   jacobi5, jacobi3: examples/jacobi5 (5-point cross, clamped border) and
//          examples/jacobi3 (3 points along rows, clamped), against Halide and OpenCV
//          (cv::filter2D with the cross kernel or the 1 x 3 row, BORDER_REPLICATE).
// risec: the default lowering (no strategy, one thread), as a user who writes the
// blur gets, the examples' inline.elv (every stage inlined, parallel rows; the
// openmp target on 1 and 2 threads) and chunks_parallel.elv (chunks of rows, each
// with its own row pass; 1 and 2 threads); for Harris also line_buffer.elv (a ring of
// gradient-products rows, one thread), line_buffer_parallel.elv (a ring per chunk
// of rows, 1 and 2 threads) and line_buffer_grad_parallel.elv (the same with a ring
// of gradients, the products in the output loop) and tiles_parallel.elv (2-D tiles,
// each storing its gradients), for the Jacobi stencils their strategy files (one
// thread).
//
//   ./build/bench/bench_image            # 4096x4096
//   ./build/bench/bench_image --quick    # 1024x1024, fewer repetitions
//   ./build/bench/bench_image --only harris   # only these programs (comma-separated)
//
// The variants of one program are timed side by side (bench_util.h: a warm-up call
// each, then rounds calling each once; median, and the fastest call, which on the
// loaded shared machine is the better estimate of the time without other load). Outputs are
// compared with risec's: "ok" when max |x - ref| / max(1, |ref|) < 1e-5 (1e-3 for Harris; the peers
// add in other orders). Halide's expert schedule computes the intermediates per tile of 512 x 32
// outputs (128 x 32 for Harris), every stage vectorised by the host's natural float width (16
// lanes with AVX-512, 8 with AVX2), and the Jacobi stencils by strips of 32 rows, on one
// thread, or with the rows of tiles (strips) parallel on 2 threads; the Mullapudi2016 autoscheduler
// (the plugin of libhalide14-0-dev) chooses its own, parallel, schedule for 2 cores. Threads:
// omp_set_num_threads and cv::setNumThreads before each call, HL_NUM_THREADS=2 for Halide.
//
// Never fails on time; exits non-zero only when something cannot be compiled.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
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
// Halide 14's Mullapudi2016 autoscheduler (the plugin Debian's libhalide14-0-dev
// ships), told of 2 cores and a 32 MiB last-level cache, schedules the pipeline of
// `out` (estimates set by the caller).
void autoschedule(Halide::Func out) {
  static bool loaded = false;
  if (!loaded) {
    Halide::load_plugin(RISEC_HALIDE_AUTOSCHEDULER);
    loaded = true;
  }
  Halide::Pipeline p(out);
  p.auto_schedule("Mullapudi2016", Halide::get_host_target(),
                  Halide::MachineParams(2, 32 * 1024 * 1024, 40));
}

// Schedules the pipeline of `out` (m x n outputs, the input `halo` larger in each
// dimension): 0 the expert schedule on one thread, 1 the same with the rows of tiles (or
// strips) parallel, 2 Mullapudi2016's. The expert schedule vectorises every stage by the
// host's natural float width (8 lanes with AVX2, 16 with AVX-512, as Mullapudi2016 does)
// and computes the `producers` per tile_w x 32 output tile (the blurs 512 wide, Harris,
// whose two gradients are each read by three 3x3 sums, 128 wide: each the fastest of the
// tiles tried, bench/results/journal/2026-11-27-image-halide-expert-schedule.md). A
// pipeline without producers is not tiled but split into strips of 32 rows: there a tile
// has nothing to keep in cache, its loads at the image's border are clamped lane by lane
// across the whole border tile (Halide partitions the loop over tiles, not the one
// inside), and jacobi3 tiled took twice as long.
void schedule_pipeline(Halide::ImageParam& in, Halide::Func out,
                       const std::vector<Halide::Func>& producers, int schedule, int halo, int n,
                       int m, int tile_w) {
  if (schedule == 2) {
    in.set_estimates({{0, m + halo}, {0, n + halo}});
    out.set_estimates({{0, m}, {0, n}});
    autoschedule(out);
    return;
  }
  const int lanes = Halide::get_host_target().natural_vector_size<float>();
  Halide::Var x = out.args()[0], y = out.args()[1], xo, yo, xi, yi;
  if (producers.empty()) {
    out.split(y, yo, yi, 32).vectorize(x, lanes);
  } else {
    out.tile(x, y, xo, yo, xi, yi, tile_w, 32).vectorize(xi, lanes);
    for (Halide::Func f : producers) f.compute_at(out, xo).vectorize(f.args()[0], lanes);
  }
  if (schedule == 1) out.parallel(yo);
}

// The blur as a Halide pipeline over an m x n image (x the column), both passes
// summing w[k] * value left to right as the RISE program does.
struct HalideBlur {
  Halide::ImageParam in{Halide::Float(32), 2};
  Halide::Func bx, by;
  Halide::Var x, y;
  // schedule: 0 the expert schedule on one thread, 1 the same with the tile rows
  // parallel, 2 Mullapudi2016's autoschedule (parallel).
  HalideBlur(const Blur& b, int schedule, int n, int m) {
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
    schedule_pipeline(in, by, {bx}, schedule, 0, n, m, 512);
    by.compile_jit(Halide::get_host_target());
  }
  void run(float* out, const float* img, int n, int m) {
    Halide::Buffer<float> ib(const_cast<float*>(img), m, n);
    Halide::Buffer<float> ob(out, m, n);
    in.set(ib);
    by.realize(ob);
  }
};

// Harris as examples/harris computes it, on an (m+4) x (n+4) image, output m x n: the
// gradients computed per 128 x 32 tile of the output, every stage vectorised by the
// natural width (schedule_pipeline).
struct HalideHarris {
  Halide::ImageParam in{Halide::Float(32), 2};
  Halide::Func ix, iy, sxx, sxy, syy, out;
  Halide::Var x, y;
  HalideHarris(int schedule, int n, int m) {
    const float sx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
    const float sy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
    Halide::Expr gx = 0.0f, gy = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        gx = gx + in(x + dx, y + dy) * sx[dy][dx];
        gy = gy + in(x + dx, y + dy) * sy[dy][dx];
      }
    ix(x, y) = gx;
    iy(x, y) = gy;
    Halide::Expr a = 0.0f, b = 0.0f, c = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx) {
        a = a + ix(x + dx, y + dy) * ix(x + dx, y + dy);
        b = b + ix(x + dx, y + dy) * iy(x + dx, y + dy);
        c = c + iy(x + dx, y + dy) * iy(x + dx, y + dy);
      }
    sxx(x, y) = a;
    sxy(x, y) = b;
    syy(x, y) = c;
    out(x, y) = (sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y)) -
                0.04f * (sxx(x, y) + syy(x, y)) * (sxx(x, y) + syy(x, y));
    schedule_pipeline(in, out, {ix, iy}, schedule, 4, n, m, 128);
    out.compile_jit(Halide::get_host_target());
  }
  void run(float* o, const float* img, int n, int m) {
    Halide::Buffer<float> ib(const_cast<float*>(img), m + 4, n + 4);
    Halide::Buffer<float> ob(o, m, n);
    in.set(ib);
    out.realize(ob);
  }
};

// The Jacobi stencils on an m x n grid with clamped borders: jacobi5 sums
// N + S + E + W + C and multiplies by 0.2, jacobi3 sums W + C + E and divides by 3, as
// the RISE programs do; scheduled as the other pipelines (no producers: strips of rows).
struct HalideJacobi {
  Halide::ImageParam in{Halide::Float(32), 2};
  Halide::Func out;
  Halide::Var x, y;
  HalideJacobi(bool five, int schedule, int n, int m) {
    Halide::Func c = Halide::BoundaryConditions::repeat_edge(in);
    if (five)
      out(x, y) = 0.2f * (c(x, y - 1) + c(x, y + 1) + c(x + 1, y) + c(x - 1, y) + c(x, y));
    else
      out(x, y) = (c(x - 1, y) + c(x, y) + c(x + 1, y)) / 3.0f;
    schedule_pipeline(in, out, {}, schedule, 0, n, m, 0);
    out.compile_jit(Halide::get_host_target());
  }
  void run(float* o, const float* a, int n, int m) {
    Halide::Buffer<float> ib(const_cast<float*>(a), m, n);
    Halide::Buffer<float> ob(o, m, n);
    in.set(ib);
    out.realize(ob);
  }
};
#endif

// A variant writing into an output buffer of its own.
// Sets the thread count of OpenMP (risec's openmp target: the libgomp the module
// loaded) and OpenCV before each call; Halide's thread pool has 2 threads
// (HL_NUM_THREADS) and only its parallel schedules use them.
void set_threads(int t) {
  using SetThreadsFn = void (*)(int);
  static SetThreadsFn omp = [] {
    void* h = dlopen("libgomp.so.1", RTLD_NOW);
    return h ? reinterpret_cast<SetThreadsFn>(dlsym(h, "omp_set_num_threads")) : nullptr;
  }();
  if (omp) omp(t);
#ifdef RISEC_HAVE_OPENCV
  cv::setNumThreads(t);
#endif
}

void add_variant(std::vector<Variant>& vs, std::vector<std::unique_ptr<Buffer>>& outs, size_t count,
                 const std::string& name, int threads, std::function<void(float*)> f) {
  outs.push_back(std::make_unique<Buffer>(count));
  float* o = outs.back()->data();
  Variant v;
  v.name = name;
  v.threads = threads;
  v.before = [threads] { set_threads(threads); };
  v.run = [f, o] { f(o); };
  vs.push_back(std::move(v));
}

// Times the variants side by side and adds their rows to the table; outputs are
// compared with the first variant's (max |x - ref| / max(1, |ref|) < tol) after
// `before_check` (untimed: e.g. a peer's result rescaled into its output buffer).
void time_and_report(risec::bench::Table& table, const std::string& what, std::vector<Variant>& vs,
                     const std::vector<std::unique_ptr<Buffer>>& outs, const TimingPolicy& policy,
                     double tol, const std::function<void()>& before_check = {}) {
  std::fprintf(stderr, "  %s: timing %zu variants side by side\n", what.c_str(), vs.size());
  risec::bench::time_interleaved(vs, policy);
  if (before_check) before_check();
  double t0 = vs[0].timing.median_s;
  for (size_t i = 0; i < vs.size(); ++i) {
    std::string check = "reference";
    if (i > 0) {
      double e = risec::bench::max_rel_error(*outs[i], *outs[0]);
      check = e < tol ? std::string("ok") : "MISMATCH (" + fmt("%.2g", e) + ")";
    }
    table.add({what, vs[i].name, std::to_string(vs[i].threads),
               fmt("%.3f", vs[i].timing.median_s * 1e3), fmt("%.3f", vs[i].timing.min_s * 1e3),
               fmt("%.3f", vs[i].timing.median_s / t0), std::to_string(vs[i].timing.reps), check});
  }
}

// --quick, --only NAME[,NAME..] (the programs to run: blur5 blur3 harris jacobi5 jacobi3).
std::optional<int> parse_options(int argc, char** argv, bool& quick, std::set<std::string>& only) {
  const std::set<std::string> programs = {"blur5", "blur3", "harris", "jacobi5", "jacobi3"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--only") {
      if (i + 1 == argc) {
        std::fprintf(stderr, "bench_image: --only needs a list of programs (try --help)\n");
        return 2;
      }
      std::string list = argv[++i];
      for (size_t b = 0; b <= list.size();) {
        size_t e = std::min(list.find(',', b), list.size());
        std::string name = list.substr(b, e - b);
        if (!programs.count(name)) {
          std::fprintf(stderr,
                       "bench_image: --only: unknown program '%s' (blur5, blur3, "
                       "harris, jacobi5, jacobi3)\n",
                       name.c_str());
          return 2;
        }
        only.insert(name);
        b = e + 1;
      }
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: bench_image [--quick] [--only PROGRAM[,PROGRAM..]]\n"
          "  PROGRAM: blur5 blur3 harris jacobi5 jacobi3 (default: all)\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_image: unknown option '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::set<std::string> only;
  if (std::optional<int> exit_code = parse_options(argc, argv, quick, only)) return *exit_code;
  auto wanted = [&only](const std::string& name) { return only.empty() || only.count(name) > 0; };
  setenv("HL_NUM_THREADS", "2", 1);  // before Halide's runtime starts its pool
  TimingPolicy policy;
  policy.min_reps = quick ? 5 : 10;
  policy.max_reps = quick ? 20 : 100;
  policy.budget_s = quick ? 0.3 : 1.5;
  int n = quick ? 1024 : 4096, m = n;
  std::printf("bench_image: image pipelines, f32, %dx%d, 1 and 2 threads; %s\n", n, m,
              risec::bench::machine_description().c_str());
  std::printf("source %s; load average at start: %s\n", risec::bench::source_revision().c_str(),
              risec::bench::load_average().c_str());
  std::fflush(stdout);
  risec::bench::Table table(
      {"program", "variant", "threads", "median ms", "min ms", "ratio to risec", "calls", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  std::vector<Blur> blurs = {{"blur5", {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f}, false},
                             {"blur3", {1.0f / 3, 1.0f / 3, 1.0f / 3}, true}};
  const std::string expert = "Halide 14 (JIT, expert schedule)";
  const std::string autosched = "Halide 14 (JIT, Mullapudi2016)";
  try {
    for (const Blur& b : blurs) {
      if (!wanted(b.name)) continue;
      size_t count = size_t(n) * m;
      Buffer A(count);
      risec::bench::fill_random(A, 4242);
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      auto add = [&](const std::string& name, int threads, std::function<void(float*)> f) {
        add_variant(vs, outs, count, name, threads, std::move(f));
      };
      risec::rise::SizeMap sizes{{"n", n}, {"m", m}};
      std::string dir = "examples/" + b.name + "/";
      auto mod = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example(dir + b.name + ".rise", "", sizes, "c"));
      add("risec (lowerToC)", 1, [mod, &A](float* o) { mod->call({o, A.data()}, {}); });
      if (b.name == "blur5") {
        auto inl = std::make_shared<risec::runtime::Module>(
            risec::bench::compile_example(dir + "blur5.rise", dir + "inline.elv", sizes, "openmp"));
        for (int t : {1, 2})
          add("risec inline.elv", t, [inl, &A](float* o) { inl->call({o, A.data()}, {}); });
      }
      // chunks of u - 4 (blur5) or u - 2 (blur3) rows, each with its own row pass: 64 rows
      // (32 with --quick)
      const int halo = b.name == "blur5" ? 4 : 2;
      std::vector<std::string> chunk{"u=" + std::to_string((quick ? 32 : 64) + halo)};
      auto ch = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example(dir + b.name + ".rise", dir + "chunks_parallel.elv", sizes,
                                        "openmp", nullptr, nullptr, chunk));
      for (int t : {1, 2})
        add("risec chunks_parallel.elv (" + chunk[0] + ")", t, [ch, &A](float* o) {
          ch->call({o, A.data()}, {});
        });
#ifdef RISEC_HAVE_HALIDE
      for (int sched : {0, 1, 2}) {
        auto hb = std::make_shared<HalideBlur>(b, sched, n, m);
        add(sched == 2 ? autosched : expert, sched == 0 ? 1 : 2,
            [hb, &A, n, m](float* o) { hb->run(o, A.data(), n, m); });
      }
#endif
#ifdef RISEC_HAVE_OPENCV
      std::vector<float> w = b.w;
      for (int t : {1, 2})
        add("OpenCV sepFilter2D", t, [w, &A, n, m, &b](float* o) {
          cv::Mat src(n, m, CV_32F, A.data()), dst(n, m, CV_32F, o);
          cv::Mat k(1, static_cast<int>(w.size()), CV_32F, const_cast<float*>(w.data()));
          cv::sepFilter2D(src, dst, CV_32F, k, k, cv::Point(-1, -1), 0,
                          b.clamp ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT);
        });
#endif
      time_and_report(table, b.name, vs, outs, policy, 1e-5);
    }
    // Harris: the default lowering and inline.elv against Halide (the output is 4
    // pixels smaller), and OpenCV's cornerHarris.
    if (wanted("harris")) {
      int hn = n - 4, hm = m - 4;
      Buffer A(size_t(n) * m);
      risec::bench::fill_random(A, 4242);
      size_t count = size_t(hn) * hm;
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      risec::rise::SizeMap sizes{{"n", hn}, {"m", hm}};
      auto mod = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example("examples/harris/harris.rise", "", sizes, "c"));
      add_variant(vs, outs, count, "risec (lowerToC)", 1, [mod, &A](float* o) {
        mod->call({o, A.data()}, {});
      });
      auto inl = std::make_shared<risec::runtime::Module>(risec::bench::compile_example(
          "examples/harris/harris.rise", "examples/harris/inline.elv", sizes, "openmp"));
      for (int t : {1, 2})
        add_variant(vs, outs, count, "risec inline.elv", t, [inl, &A](float* o) {
          inl->call({o, A.data()}, {});
        });
      auto lb = std::make_shared<risec::runtime::Module>(risec::bench::compile_example(
          "examples/harris/harris.rise", "examples/harris/line_buffer.elv", sizes, "c"));
      add_variant(vs, outs, count, "risec line_buffer.elv", 1, [lb, &A](float* o) {
        lb->call({o, A.data()}, {});
      });
      // chunks of u - 2 output rows: 30 divides 1020, 33 divides 4092
      std::vector<std::string> chunk{quick ? "u=32" : "u=35"};
      // the ring of products and the ring of gradients, on 1 and 2 threads
      for (const char* elv : {"line_buffer_parallel.elv", "line_buffer_grad_parallel.elv"}) {
        auto m = std::make_shared<risec::runtime::Module>(risec::bench::compile_example(
            "examples/harris/harris.rise", std::string("examples/harris/") + elv, sizes, "openmp",
            nullptr, nullptr, chunk));
        for (int t : {1, 2})
          add_variant(vs, outs, count, std::string("risec ") + elv + " (" + chunk[0] + ")", t,
                      [m, &A](float* o) {
                        m->call({o, A.data()}, {});
                      });
      }
      // 2-D tiles: chunks of u - 2 rows in tiles of tw columns, j output rows side by
      // side (44 | 4092, 124 | 4092, 4 | 44; 30 | 1020, 102 | 1020, 2 | 30)
      std::vector<std::string> tiles{quick ? "u=32" : "u=46", quick ? "tw=102" : "tw=124",
                                     quick ? "j=2" : "j=4"};
      auto tm = std::make_shared<risec::runtime::Module>(risec::bench::compile_example(
          "examples/harris/harris.rise", "examples/harris/tiles_parallel.elv", sizes, "openmp",
          nullptr, nullptr, tiles));
      for (int t : {1, 2})
        add_variant(vs, outs, count,
                    "risec tiles_parallel.elv (" + tiles[0] + "," + tiles[1] + "," + tiles[2] + ")",
                    t, [tm, &A](float* o) {
                      tm->call({o, A.data()}, {});
                    });
#ifdef RISEC_HAVE_HALIDE
      for (int sched : {0, 1, 2}) {
        auto hh = std::make_shared<HalideHarris>(sched, hn, hm);
        add_variant(vs, outs, count, sched == 2 ? autosched : expert, sched == 0 ? 1 : 2,
                    [hh, &A, hn, hm](float* o) { hh->run(o, A.data(), hn, hm); });
      }
#endif
      std::function<void()> rescale;
#ifdef RISEC_HAVE_OPENCV
      // cornerHarris on the whole (n+4) x (m+4) image (BORDER_DEFAULT: reflected); its
      // Sobel results carry a factor 1/12 (1 / (2^(ksize-1) * blockSize)), so its
      // response is risec's / 12^4. Output pixel (i, j) of risec is the image pixel
      // (i + 2, j + 2), whose 5 x 5 neighbourhood lies inside the image: no border.
      std::vector<std::pair<std::shared_ptr<cv::Mat>, float*>> cv_results;
      for (int t : {1, 2}) {
        auto r = std::make_shared<cv::Mat>(n, m, CV_32F);
        add_variant(vs, outs, count, "OpenCV cornerHarris", t, [r, &A, n, m](float*) {
          cv::Mat src(n, m, CV_32F, A.data());
          cv::cornerHarris(src, *r, 3, 3, 0.04);
        });
        cv_results.emplace_back(r, outs.back()->data());
      }
      rescale = [cv_results, hn, hm] {
        const float s = 12.0f * 12.0f * 12.0f * 12.0f;
        for (const auto& [r, o] : cv_results)
          for (int i = 0; i < hn; ++i)
            for (int j = 0; j < hm; ++j) o[size_t(i) * hm + j] = r->at<float>(i + 2, j + 2) * s;
      };
#endif
      time_and_report(table, "harris", vs, outs, policy, 1e-3, rescale);
    }
    // The Jacobi stencils: the default lowering and the examples' strategy files
    // against Halide and OpenCV's filter2D.
    for (const char* name : {"jacobi5", "jacobi3"}) {
      if (!wanted(name)) continue;
      bool five = std::string(name) == "jacobi5";
      size_t count = size_t(n) * m;
      Buffer A(count);
      risec::bench::fill_random(A, 4242);
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      auto add = [&](const std::string& v, int threads, std::function<void(float*)> f) {
        add_variant(vs, outs, count, v, threads, std::move(f));
      };
      risec::rise::SizeMap sizes{{"n", n}, {"m", m}};
      std::string dir = std::string("examples/") + name + "/";
      std::string prog = dir + name + ".rise";
      auto mod = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example(prog, "", sizes, "c"));
      add("risec (lowerToC)", 1, [mod, &A](float* o) { mod->call({o, A.data()}, {}); });
      std::string elv = five ? "line_buffer.elv" : "padded_row.elv";
      auto st = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example(prog, dir + elv, sizes, "c"));
      add("risec " + elv, 1, [st, &A](float* o) { st->call({o, A.data()}, {}); });
      // parallel.elv: the default lowering with parallel output rows
      auto par = std::make_shared<risec::runtime::Module>(
          risec::bench::compile_example(prog, dir + "parallel.elv", sizes, "openmp"));
      for (int t : {1, 2})
        add("risec parallel.elv", t, [par, &A](float* o) { par->call({o, A.data()}, {}); });
#ifdef RISEC_HAVE_HALIDE
      for (int sched : {0, 1, 2}) {
        auto hj = std::make_shared<HalideJacobi>(five, sched, n, m);
        add(sched == 2 ? autosched : expert, sched == 0 ? 1 : 2,
            [hj, &A, n, m](float* o) { hj->run(o, A.data(), n, m); });
      }
#endif
#ifdef RISEC_HAVE_OPENCV
      for (int t : {1, 2})
        add("OpenCV filter2D", t, [five, &A, n, m](float* o) {
          cv::Mat src(n, m, CV_32F, A.data()), dst(n, m, CV_32F, o);
          cv::Mat k = five ? (cv::Mat_<float>(3, 3) << 0, 0.2f, 0, 0.2f, 0.2f, 0.2f, 0, 0.2f, 0)
                           : (cv::Mat_<float>(1, 3) << 1.0f / 3, 1.0f / 3, 1.0f / 3);
          cv::filter2D(src, dst, CV_32F, k, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
        });
#endif
      time_and_report(table, name, vs, outs, policy, 1e-5);
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
  return risec::bench::print_results(table, load);
}
