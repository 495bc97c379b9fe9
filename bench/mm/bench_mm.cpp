// bench_mm: the matrix-multiplication ladder of examples/mm (the seven steps of TVM's
// CPU schedule, ELEVATE paper) against a naive C loop nest and OpenBLAS, in one run.
//
//   ./build/bench/bench_mm            # n = m = k = 1024, f32
//   ./build/bench/bench_mm --quick    # n = 512, fewer repetitions (smoke run)
//   ./build/bench/bench_mm --openblas-coretype Zen   # another OpenBLAS kernel
//   ./build/bench/bench_mm --parallel-only --tuned best.elv   # a `risec tune` result
//   ./build/bench/bench_mm --n 2048 ...   # another size (tune at the size measured)
//   ./build/bench/bench_mm --reps 30 ...  # exactly 30 timed rounds (a loaded machine)
//
// Timing: everything is compiled and loaded first; then every variant is called
// once untimed (warm-up), and 5-10 rounds (3-5 with --quick) call every variant once,
// in table order, each call timed alone; the table gives each variant's median and
// its fastest call (min), each with its ratio to OpenBLAS at the same threads.
// Interleaving makes a change of load on the shared machine hit all variants alike.
// After each round the program sleeps 0.2 s: OpenBLAS's worker threads spin for a
// while after a 2-thread call and would otherwise take a core from the next variant.
// GFLOP/s = 2 n^3 / median time. Each variant writes its own output buffer.
//
// Variants:
//   - naive C: i, j, k with a scalar accumulator, written with the interface of
//     generated code (a function with restrict parameters, sizes as constants) and
//     compiled through runtime::jit_compile (the same -O3 -march=native flags). It
//     is the reference every other result is checked against: max
//     |x - ref| / max(1, |ref|) below 1e-4 prints "ok".
//   - the seven steps, compiled by risec from examples/mm/STEP.elv at fixed sizes;
//     parallel.elv for the openmp target, at 1 thread and at 2 threads.
//   - with --tuned FILE.elv, that strategy (e.g. what `risec tune` wrote with -o) for
//     the openmp target, at 1 and at 2 threads ("risec tuned"); OpenBLAS's 1-thread
//     row is then timed even with --parallel-only.
//   - OpenBLAS cblas_sgemm at 1 and 2 threads (openblas_set_num_threads before each
//     call), loaded with dlopen("libopenblas.so.0") after
//     setting OPENBLAS_CORETYPE=SkylakeX on CPUs with avx512f only (DESIGN.md: there
//     OpenBLAS may pick a generic kernel; elsewhere its own detection is right);
//     "n/a" when missing.
//
// Threads: OMP_NUM_THREADS=2 is set at start, before libgomp is loaded (with the
// OpenMP module); before each call of the parallel step, omp_set_num_threads (found
// with dlsym in libgomp.so.1, the library the OpenMP module loaded) sets 1 or 2
// threads; all calls come from the main thread, whose ICV it sets. The ratio column
// divides by OpenBLAS at the same number of threads.
//
// Never fails on time; exits non-zero only when something cannot be compiled or
// loaded (a MISMATCH is printed, not fatal).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::TimingPolicy;
using risec::bench::Variant;

// cblas_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc),
// with the CBLAS enums as ints (CblasRowMajor = 101, CblasNoTrans = 111).
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
using SetThreadsFn = void (*)(int);
using GetStringFn = char* (*)();

struct OpenBlas {
  SgemmFn sgemm = nullptr;
  SetThreadsFn set_threads = nullptr;
  std::string corename = "?";
  std::string config = "?";
  std::string missing;  // why it is not available
};

OpenBlas load_openblas() {
  OpenBlas o;
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    o.missing = e ? e : "dlopen failed";
    return o;
  }
  o.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
  o.set_threads = reinterpret_cast<SetThreadsFn>(dlsym(h, "openblas_set_num_threads"));
  if (!o.sgemm || !o.set_threads) {
    o.missing = "cblas_sgemm or openblas_set_num_threads not found";
    o.sgemm = nullptr;
    return o;
  }
  if (auto f = reinterpret_cast<GetStringFn>(dlsym(h, "openblas_get_corename"))) o.corename = f();
  if (auto f = reinterpret_cast<GetStringFn>(dlsym(h, "openblas_get_config"))) o.config = f();
  return o;  // never closed: its threads live until exit
}

// omp_set_num_threads of the libgomp that the OpenMP module
// loaded (same soname, so the same library).
struct Omp {
  SetThreadsFn set_threads = nullptr;
};

Omp find_omp() {
  Omp o;
  void* h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen("libgomp.so.1", RTLD_NOW);
  if (!h) return o;
  o.set_threads = reinterpret_cast<SetThreadsFn>(dlsym(h, "omp_set_num_threads"));
  return o;
}

// The naive loop nest with the interface of generated code (restrict parameters, the
// sizes as constants), so that GCC sees the same aliasing facts as in risec's code.
std::string naive_source(int n) {
  std::string src = R"(static void naive(float* restrict C, const float* restrict A,
                  const float* restrict B) {
  for (int i = 0; i < @N@; ++i)
    for (int j = 0; j < @N@; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < @N@; ++k) acc += A[i * @N@ + k] * B[k * @N@ + j];
      C[i * @N@ + j] = acc;
    }
}
void naive__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  naive((float*)b[0], (const float*)b[1], (const float*)b[2]);
}
)";
  for (size_t at; (at = src.find("@N@")) != std::string::npos;)
    src.replace(at, 3, std::to_string(n));
  return src;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool parallel_only = false;  // the README's main job: the parallel step beside OpenBLAS
  std::string coretype = risec::bench::default_openblas_coretype();
  std::string tuned;  // --tuned FILE.elv
  int size = 0;       // --n N
  int reps = 0;       // --reps R: exactly R timed rounds (a loaded machine wants more)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a == "--parallel-only") {
      parallel_only = true;
    } else if (a == "--openblas-coretype" && i + 1 < argc) {
      coretype = argv[++i];
    } else if (a == "--tuned" && i + 1 < argc) {
      tuned = argv[++i];
    } else if (a == "--n" && i + 1 < argc) {
      size = std::atoi(argv[++i]);
      if (size < 64 || size % 64) {
        std::fprintf(stderr, "bench_mm: --n must be a multiple of 64\n");
        return 2;
      }
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
      if (reps < 1) {
        std::fprintf(stderr, "bench_mm: --reps must be positive\n");
        return 2;
      }
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: bench_mm [--quick] [--parallel-only] [--tuned FILE.elv] [--n N] "
          "[--reps R] [--openblas-coretype NAME]\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_mm: unknown option '%s' (try --help)\n", a.c_str());
      return 2;
    }
  }
  // Before libgomp and OpenBLAS are loaded: both read their environment then.
  setenv("OMP_NUM_THREADS", "2", 1);
  if (!coretype.empty()) setenv("OPENBLAS_CORETYPE", coretype.c_str(), 1);

  const int n = size ? size : quick ? 512 : 1024;
  TimingPolicy policy;
  policy.min_reps = quick ? 3 : 5;
  policy.max_reps = quick ? 5 : 10;
  policy.budget_s = quick ? 0.3 : 2.0;
  if (reps) {
    policy.min_reps = policy.max_reps = reps;
    policy.budget_s = 1e9;
  }
  const double flop = 2.0 * n * double(n) * n;
  const size_t count = size_t(n) * n;

  Buffer A(count), B(count), ref(count);
  risec::bench::fill_random(A, 12345);
  risec::bench::fill_random(B, 67890);

  std::printf("bench_mm: C = A * B, f32, n = m = k = %d; %s\n", n,
              risec::bench::machine_description().c_str());
  std::printf("source %s; load average at start: %s\n", risec::bench::source_revision().c_str(),
              risec::bench::load_average().c_str());
  std::fflush(stdout);

  try {
    // Compile and load everything first.
    std::fprintf(stderr, "compiling...\n");
    risec::runtime::Module naive = risec::runtime::jit_compile(naive_source(n), "naive");
    risec::rise::SizeMap sizes{{"n", n}, {"m", n}, {"k", n}};
    const char* sequential[] = {"baseline",         "blocking",      "vectorization",
                                "loop_permutation", "array_packing", "cache_blocks"};
    std::vector<risec::runtime::Module> steps;
    for (const char* step : sequential) {
      if (parallel_only) break;
      steps.push_back(risec::bench::compile_example(
          "examples/mm/mm.rise", std::string("examples/mm/") + step + ".elv", sizes, "c"));
    }
    risec::runtime::Module par = risec::bench::compile_example(
        "examples/mm/mm.rise", "examples/mm/parallel.elv", sizes, "openmp");
    std::optional<risec::runtime::Module> par_tuned;
    if (!tuned.empty())
      par_tuned = risec::bench::compile_example("examples/mm/mm.rise", tuned, sizes, "openmp");
    // The same strategy compiled without --size: generic in n, m, k (which it checks
    // are multiples of its tiles on entry), called with the sizes.
    std::optional<risec::runtime::Module> par_generic;
    if (!parallel_only)
      par_generic = risec::bench::compile_example("examples/mm/mm.rise", "examples/mm/parallel.elv",
                                                  {}, "openmp");
    Omp omp = find_omp();
    OpenBlas blas = load_openblas();

    // The reference result, computed once before timing.
    naive.call({ref.data(), A.data(), B.data()}, {});

    // The variants, each with its own output buffer (checked after timing).
    std::vector<Variant> vs;
    std::vector<std::unique_ptr<Buffer>> outs;
    auto add = [&](const std::string& name, int threads, std::function<void(float*)> run,
                   std::function<void()> before = {}) {
      outs.push_back(std::make_unique<Buffer>(count));
      float* c = outs.back()->data();
      Variant v;
      v.name = name;
      v.threads = threads;
      v.run = [run, c] { run(c); };
      v.before = std::move(before);
      vs.push_back(std::move(v));
    };
    auto call = [&](const risec::runtime::Module& m) {
      return [&m, &A, &B](float* c) { m.call({c, A.data(), B.data()}, {}); };
    };
    auto blas_threads = [&](int threads) {
      return std::function<void()>([&blas, threads] { blas.set_threads(threads); });
    };
    auto sgemm_run = [&](float* c) {
      blas.sgemm(101, 111, 111, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f, c, n);
    };
    auto omp_threads = [&](int threads) {
      return std::function<void()>([&omp, threads] {
        if (omp.set_threads) omp.set_threads(threads);
      });
    };

    add("naive C (i, j, k)", 1, call(naive));
    if (blas.sgemm && (!parallel_only || par_tuned))
      add("OpenBLAS sgemm", 1, sgemm_run, blas_threads(1));
    if (par_tuned && omp.set_threads) add("risec tuned", 1, call(*par_tuned), omp_threads(1));
    for (size_t i = 0; i < steps.size(); ++i)
      add(std::string("risec ") + sequential[i], 1, call(steps[i]));
    if (omp.set_threads && !parallel_only) add("risec parallel", 1, call(par), omp_threads(1));
    add("risec parallel", 2, call(par), omp_threads(2));
    if (par_generic)
      add(
          "risec parallel, generic sizes", 2,
          [&m = *par_generic, &A, &B, n](float* c) {
            m.call({c, A.data(), B.data()}, {n, n, n});
          },
          omp_threads(2));
    if (par_tuned) add("risec tuned", 2, call(*par_tuned), omp_threads(2));
    if (blas.sgemm) add("OpenBLAS sgemm", 2, sgemm_run, blas_threads(2));

    std::fprintf(stderr, "timing %zu variants side by side...\n", vs.size());
    // After each round, a pause: OpenBLAS's worker threads poll for work for a while
    // after a multi-threaded call and would take a core from the next variants.
    risec::bench::LoadMonitor load;
    load.start();
    risec::bench::time_interleaved(vs, policy, [&] {
      if (blas.sgemm) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    });

    // Ratios to OpenBLAS at the same number of threads.
    // Also by the fastest call of each: on a loaded machine the minimum is the call that
    // was disturbed least.
    auto blas_timing = [&](int threads) -> risec::bench::Timing {
      for (const Variant& v : vs)
        if (v.name == "OpenBLAS sgemm" && v.threads == threads) return v.timing;
      return {};
    };
    risec::bench::Table table({"variant", "threads", "median ms", "GFLOP/s",
                               "vs OpenBLAS (same threads)", "min ms", "vs OpenBLAS (min)",
                               "check"});
    for (size_t i = 0; i < vs.size(); ++i) {
      const Variant& v = vs[i];
      double gflops = flop / v.timing.median_s * 1e-9;
      risec::bench::Timing bt = blas_timing(v.threads);
      double b = bt.median_s;
      std::string ratio = b > 0 ? fmt("%.3f", b / v.timing.median_s) : "n/a";
      std::string ratio_min = bt.min_s > 0 ? fmt("%.3f", bt.min_s / v.timing.min_s) : "n/a";
      std::string check = "reference";
      if (i > 0) {
        double e = risec::bench::max_rel_error(*outs[i], ref);
        check = e < 1e-4 ? std::string("ok") : "MISMATCH (" + fmt("%.2g", e) + ")";
      }
      table.add({v.name, std::to_string(v.threads), fmt("%.2f", v.timing.median_s * 1e3),
                 fmt("%.1f", gflops), ratio, fmt("%.2f", v.timing.min_s * 1e3), ratio_min, check});
    }
    if (!blas.sgemm)
      for (int t : {1, 2})
        table.add({"OpenBLAS sgemm", std::to_string(t), "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"});
    std::printf(
        "median (and min) of %d timed calls per variant after one warm-up, variants "
        "interleaved; GFLOP/s = 2 n^3 / median\n\n",
        vs.front().timing.reps);
    table.print();
    std::printf("load average at end: %s; CPU used by other processes while timing: %s\n",
                risec::bench::load_average().c_str(), load.describe().c_str());
    if (blas.sgemm)
      std::printf("\nOpenBLAS: OPENBLAS_CORETYPE=%s, core %s, config %s\n",
                  coretype.empty() ? "(its own detection)" : coretype.c_str(),
                  blas.corename.c_str(), blas.config.c_str());
    else
      std::printf("\nOpenBLAS: n/a (%s)\n", blas.missing.c_str());
    if (omp.set_threads) {
      std::printf("OpenMP: threads set before each call with omp_set_num_threads (libgomp.so.1)\n");
    } else {
      std::printf(
          "OpenMP: omp_set_num_threads not found; parallel step at OMP_NUM_THREADS=2 only\n");
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_mm: %s", risec::format_error(e).c_str());
    return 1;
  }
  return 0;
}
