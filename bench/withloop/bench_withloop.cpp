// bench_withloop: the with-loop examples (issue 18, after StagedSAC) compiled by risec
// with the default lowering, against hand-written C with the same semantics and the
// same operation order, in one run:
//   life       examples/life       one Game of Life generation, dead border (0/1 cells)
//   pde1       examples/pde1       two relaxation sweeps of a 3-D Poisson problem
//   multigrid  examples/multigrid  restriction (2x2 mean) then prolongation by injection
//
//   ./build/bench/bench_withloop            # life 2048^2, pde1 96^3, multigrid 2048^2
//   ./build/bench/bench_withloop --quick    # smaller grids, fewer repetitions
//
// Timing as bench_stencil: one warm-up call each, then rounds calling every variant
// once (about 1.5 s per variant, 0.3 s with --quick); the table gives the median time.
// Results are compared with the hand-written one ("ok" when the largest relative
// difference is below 1e-6). Never fails on time; exits non-zero only when something
// cannot be compiled or loaded.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::TimingPolicy;
using risec::bench::Variant;

std::string defines(const std::vector<std::pair<const char*, int>>& d) {
  std::string s;
  for (auto [name, v] : d) s += "#define " + std::string(name) + " " + std::to_string(v) + "\n";
  return s;
}

// examples/life: the interior by the rule, the border rows and columns 0.
std::string hand_life(int n, int m) {
  return defines({{"N", n}, {"M", m}}) + R"(
void handlife__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  float* restrict o = (float*)b[0];
  const float* restrict a = (const float*)b[1];
  for (int j = 0; j < M; ++j) o[j] = 0.0f, o[(N - 1) * M + j] = 0.0f;
  for (int i = 1; i < N - 1; ++i) {
    const float* restrict u = a + (i - 1) * M;
    const float* restrict c = a + i * M;
    const float* restrict d = a + (i + 1) * M;
    float* restrict r = o + i * M;
    r[0] = 0.0f;
    for (int j = 1; j < M - 1; ++j) {
      float up = u[j - 1] + u[j] + u[j + 1];
      float down = d[j - 1] + d[j] + d[j + 1];
      float s = up + c[j - 1] + c[j + 1] + down;
      r[j] = (s == 3.0f || (s == 2.0f && c[j] == 1.0f)) ? 1.0f : 0.0f;
    }
    r[M - 1] = 0.0f;
  }
}
)";
}

// examples/pde1: two sweeps; the first into a temporary, the boundary copied.
std::string hand_pde1(int n) {
  return defines({{"N", n}}) + R"(
#include <stdlib.h>
#include <string.h>
#define AT(x, i, j, l) x[((i) * N + (j)) * N + (l)]
static void sweep(float* restrict o, const float* restrict u, const float* restrict f) {
  memcpy(o, u, sizeof(float) * N * N * N);
  for (int i = 1; i < N - 1; ++i)
    for (int j = 1; j < N - 1; ++j)
      for (int l = 1; l < N - 1; ++l) {
        float x = AT(u, i - 1, j, l) + AT(u, i + 1, j, l);
        float y = AT(u, i, j - 1, l) + AT(u, i, j + 1, l);
        float z = AT(u, i, j, l - 1) + AT(u, i, j, l + 1);
        AT(o, i, j, l) = (0.01f * AT(f, i, j, l) + x + y + z) / 6.0f;
      }
}
void handpde1__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  static float* v = 0;
  if (!v) v = (float*)aligned_alloc(64, sizeof(float) * N * N * N);
  sweep(v, (const float*)b[1], (const float*)b[2]);
  sweep((float*)b[0], v, (const float*)b[2]);
}
)";
}

// examples/multigrid on a (2N).(2M) grid: each even (i, j) gets the mean of the 2x2
// block at (i, j), the other points 0.
std::string hand_multigrid(int n, int m) {
  return defines({{"N", n}, {"M", m}}) + R"(
void handmg__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  float* restrict o = (float*)b[0];
  const float* restrict f = (const float*)b[1];
  for (int i = 0; i < N; ++i) {
    const float* restrict r0 = f + (2 * i) * (2 * M);
    const float* restrict r1 = r0 + 2 * M;
    float* restrict e = o + (2 * i) * (2 * M);
    for (int j = 0; j < M; ++j) {
      float top = r0[2 * j] + r0[2 * j + 1];
      float bottom = r1[2 * j] + r1[2 * j + 1];
      e[2 * j] = 0.25f * (top + bottom);
      e[2 * j + 1] = 0.0f;
    }
    for (int j = 0; j < 2 * M; ++j) e[2 * M + j] = 0.0f;
  }
}
)";
}

struct Program {
  const char* example;
  std::string size;
  risec::rise::SizeMap sizes;
  size_t out_count;
  std::vector<size_t> in_counts;
  std::string hand_src, hand_entry;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  if (std::optional<int> exit_code =
          risec::bench::parse_quick_option(argc, argv, "bench_withloop", quick))
    return *exit_code;
  TimingPolicy policy;
  policy.min_reps = quick ? 5 : 10;
  policy.max_reps = quick ? 20 : 200;
  policy.budget_s = quick ? 0.3 : 1.5;
  const int g = quick ? 512 : 2048, p = quick ? 48 : 96;

  std::printf("bench_withloop: with-loop examples against hand-written C, f32; %s\n",
              risec::bench::machine_description().c_str());
  std::printf("source %s; load average at start: %s\n", risec::bench::source_revision().c_str(),
              risec::bench::load_average().c_str());
  std::fflush(stdout);
  std::vector<Program> programs = {
      {"life",
       std::to_string(g) + "^2",
       {{"n", g}, {"m", g}},
       size_t(g) * g,
       {size_t(g) * g},
       hand_life(g, g),
       "handlife"},
      {"pde1",
       std::to_string(p) + "^3",
       {{"n", p}, {"m", p}, {"k", p}},
       size_t(p) * p * p,
       {size_t(p) * p * p, size_t(p) * p * p},
       hand_pde1(p),
       "handpde1"},
      {"multigrid",
       std::to_string(g) + "^2 fine",
       {{"n", g / 2}, {"m", g / 2}},
       size_t(g) * g,
       {size_t(g) * g},
       hand_multigrid(g / 2, g / 2),
       "handmg"},
  };
  risec::bench::Table table(
      {"example", "size", "variant", "median ms", "ratio to hand-written", "calls", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  try {
    for (const Program& pr : programs) {
      std::vector<std::unique_ptr<Buffer>> ins;
      for (size_t i = 0; i < pr.in_counts.size(); ++i) {
        ins.push_back(std::make_unique<Buffer>(pr.in_counts[i]));
        risec::bench::fill_random(*ins.back(), 4242 + static_cast<uint32_t>(i));
      }
      if (std::string(pr.example) == "life")  // live cells 0 or 1
        for (size_t i = 0; i < ins[0]->size(); ++i)
          (*ins[0])[i] = (*ins[0])[i] < 0.35f ? 1.0f : 0.0f;
      std::vector<risec::runtime::Module> mods;
      mods.push_back(risec::runtime::jit_compile(pr.hand_src, pr.hand_entry));
      std::string ex = pr.example;
      mods.push_back(
          risec::bench::compile_example("examples/" + ex + "/" + ex + ".rise", "", pr.sizes, "c"));
      const char* names[] = {"hand-written C", "risec (lowerToC)"};
      std::vector<std::unique_ptr<Buffer>> outs;
      std::vector<Variant> vs;
      for (size_t i = 0; i < mods.size(); ++i) {
        outs.push_back(std::make_unique<Buffer>(pr.out_count));
        Variant v;
        v.name = names[i];
        std::vector<void*> bufs = {outs.back()->data()};
        for (auto& in : ins) bufs.push_back(in->data());
        const risec::runtime::Module* mod = &mods[i];
        v.run = [mod, bufs] { mod->call(bufs, {}); };
        vs.push_back(std::move(v));
      }
      std::fprintf(stderr, "  %s %s: timing %zu variants side by side\n", pr.example,
                   pr.size.c_str(), vs.size());
      risec::bench::time_interleaved(vs, policy);
      risec::bench::add_timed_rows(table, {pr.example, pr.size}, vs, outs);
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_withloop: %s", risec::format_error(e).c_str());
    return 1;
  }
  return risec::bench::print_results(table, load);
}
