// bench_default_lowering: what a new user meets first. Programs the team did not write
// (bench/default_lowering/*.rise: a 5 x 5 morphological maximum with clamped borders,
// 3 x 3 and 5 x 5 box blurs with zero borders, unsharp masking, a 3-D 7-point stencil)
// compiled by risec's default lowering, no strategy: the c target on one thread and the
// openmp target on 1 and 2 threads, next to Halide 14 (JIT) with an expert schedule
// written for each (same algorithm, same order of operations): the output vectorised
// by the host's natural float width and split into strips of 32 rows (planes for the
// 3-D stencil), the strips parallel on 2 threads; sharpen's blur is computed per strip
// (compute_at) and vectorised too. Ratio: risec's time over Halide's on the same number
// of threads (docs/performance.md, "The default lowering against Halide").
//
//   ./build/bench/bench_default_lowering            # 2048 x 2048 (3-D: 128 x 256 x 256)
//   ./build/bench/bench_default_lowering --quick    # 1024 x 1024 (3-D: 64 x 128 x 128)
//
// Times: one warm-up call each, then rounds calling each variant once (bench_util.h);
// min and median. Outputs are compared with risec's c target's (relative 1e-5).
// Never fails on time; exits non-zero only when something cannot be compiled.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/diagnostics.h"

#ifdef RISEC_HAVE_HALIDE
#include <Halide.h>
#endif

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::Variant;

void set_threads(int t) {
  using SetThreadsFn = void (*)(int);
  static SetThreadsFn omp = [] {
    void* h = dlopen("libgomp.so.1", RTLD_NOW);
    return h ? reinterpret_cast<SetThreadsFn>(dlsym(h, "omp_set_num_threads")) : nullptr;
  }();
  if (omp) omp(t);
}

#ifdef RISEC_HAVE_HALIDE
// One of the programs as a Halide pipeline over the input's shape (x the innermost,
// contiguous dimension), with the expert schedule; `parallel` makes the strips
// parallel.
struct HalideProgram {
  Halide::ImageParam in;
  Halide::Func out;
  std::vector<int> shape;  // Halide's order: innermost first

  HalideProgram(const std::string& name, std::vector<int> dims, bool parallel)
      : in(Halide::Float(32), static_cast<int>(dims.size())), shape(std::move(dims)) {
    Halide::Var x("x"), y("y"), z("z"), yo, yi;
    const int lanes = Halide::get_host_target().natural_vector_size<float>();
    Halide::Func clamped = Halide::BoundaryConditions::repeat_edge(in);
    Halide::Func zero = Halide::BoundaryConditions::constant_exterior(in, 0.0f);
    Halide::Func blur("blur");
    if (name == "morph5") {
      Halide::Expr e = -1.0e30f;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) e = Halide::max(e, clamped(x + dx, y + dy));
      out(x, y) = e;
    } else if (name == "box3" || name == "box5") {
      int r = name == "box3" ? 1 : 2;
      Halide::Expr e = 0.0f;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) e = e + zero(x + dx, y + dy);
      out(x, y) = e / float((2 * r + 1) * (2 * r + 1));
    } else if (name == "sharpen") {
      Halide::Expr e = 0.0f;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) e = e + clamped(x + dx, y + dy);
      blur(x, y) = e / 9.0f;
      out(x, y) = in(x, y) + 0.5f * (in(x, y) - blur(x, y));
    } else {  // stencil7
      out(x, y, z) = 0.4f * clamped(x, y, z) +
                     0.1f * (clamped(x, y, z - 1) + clamped(x, y, z + 1) + clamped(x, y - 1, z) +
                             clamped(x, y + 1, z) + clamped(x - 1, y, z) + clamped(x + 1, y, z));
    }
    if (name == "stencil7") {
      out.split(z, yo, yi, 8).vectorize(x, lanes);
    } else {
      out.split(y, yo, yi, 32).vectorize(x, lanes);
      if (name == "sharpen") blur.compute_at(out, yo).vectorize(x, lanes);
    }
    if (parallel) out.parallel(yo);
    out.compile_jit(Halide::get_host_target());
  }
  void run(float* o, const float* a) {
    Halide::Buffer<float> ib(const_cast<float*>(a), shape);
    Halide::Buffer<float> ob(o, shape);
    in.set(ib);
    out.realize(ob);
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  if (auto code = risec::bench::parse_quick_option(argc, argv, "bench_default_lowering", quick))
    return *code;
  setenv("HL_NUM_THREADS", "2", 1);  // before Halide's runtime starts its pool
  risec::bench::TimingPolicy policy = risec::bench::side_by_side_policy(quick, 100);
  const int n = quick ? 1024 : 2048;
  const int d3 = quick ? 64 : 128;
  risec::bench::print_side_by_side_header(
      "bench_default_lowering: risec's default lowering against Halide 14's expert schedule",
      policy, "program", "Halide's on as many threads");
  risec::bench::Table table({"program", "size", "variant", "threads", "median ms", "min ms",
                             "ratio (median)", "ratio (min)", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  struct Program {
    std::string name;
    risec::rise::SizeMap sizes;
    std::vector<int> halide_shape;
  };
  std::vector<Program> programs = {
      {"morph5", {{"n", n}, {"m", n}}, {n, n}},
      {"box3", {{"n", n}, {"m", n}}, {n, n}},
      {"box5", {{"n", n}, {"m", n}}, {n, n}},
      {"sharpen", {{"n", n}, {"m", n}}, {n, n}},
      {"stencil7", {{"n", d3}, {"m", 2 * d3}, {"o", 2 * d3}}, {2 * d3, 2 * d3, d3}},
  };
  try {
    for (const Program& p : programs) {
      size_t count = 1;
      std::string size;
      for (int d : p.halide_shape) count *= size_t(d);
      for (auto it = p.halide_shape.rbegin(); it != p.halide_shape.rend(); ++it)
        size += (size.empty() ? "" : "x") + std::to_string(*it);
      Buffer A(count);
      risec::bench::fill_random(A, 4242);
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      auto add = [&](const std::string& name, int threads, std::function<void(float*)> f) {
        outs.push_back(std::make_unique<Buffer>(count));
        float* o = outs.back()->data();
        Variant v;
        v.name = name;
        v.threads = threads;
        v.before = [threads] { set_threads(threads); };
        v.run = [f, o] { f(o); };
        vs.push_back(std::move(v));
      };
      std::string file = "bench/default_lowering/" + p.name + ".rise";
      for (std::string target : {"c", "openmp"}) {
        auto mod = std::make_shared<risec::runtime::Module>(
            risec::bench::compile_example(file, "", p.sizes, target));
        for (int t : target == "c" ? std::vector<int>{1} : std::vector<int>{1, 2})
          add("risec default, --target " + target, t, [mod, &A](float* o) {
            mod->call({o, A.data()}, {});
          });
      }
#ifdef RISEC_HAVE_HALIDE
      for (bool par : {false, true}) {
        auto h = std::make_shared<HalideProgram>(p.name, p.halide_shape, par);
        add(std::string("Halide 14 expert") + (par ? " (parallel strips)" : ""), par ? 2 : 1,
            [h, &A](float* o) { h->run(o, A.data()); });
      }
#endif
      std::fprintf(stderr, "  %s: timing %zu variants side by side\n", p.name.c_str(), vs.size());
      risec::bench::time_interleaved(vs, policy);
      for (size_t i = 0; i < vs.size(); ++i) {
        // the reference: Halide's variant on as many threads (the last ones)
        const Variant* peer = nullptr;
        for (const Variant& v : vs)
          if (v.name.rfind("Halide", 0) == 0 && v.threads == vs[i].threads) peer = &v;
        std::string check = "reference";
        if (i > 0) {
          double e = risec::bench::max_rel_error(*outs[i], *outs[0]);
          check = e < 1e-5 ? std::string("ok") : "MISMATCH (" + fmt("%.2g", e) + ")";
        }
        table.add({p.name, size, vs[i].name, std::to_string(vs[i].threads),
                   fmt("%.3f", vs[i].timing.median_s * 1e3), fmt("%.3f", vs[i].timing.min_s * 1e3),
                   peer ? fmt("%.2f", vs[i].timing.median_s / peer->timing.median_s) : "-",
                   peer ? fmt("%.2f", vs[i].timing.min_s / peer->timing.min_s) : "-", check});
      }
    }
#ifdef RISEC_HAVE_HALIDE
  } catch (const Halide::Error& e) {
    std::fprintf(stderr, "bench_default_lowering: Halide: %s\n", e.what());
    return 1;
#endif
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_default_lowering: %s", risec::format_error(e).c_str());
    return 1;
  }
  return risec::bench::print_results(table, load);
}
