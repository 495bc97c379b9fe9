// bench_stencil: the 2-D Jacobi stencils of examples/jacobi5 (5-point) and
// examples/jacobi3 (3-point along rows), with clamped borders, compiled by risec
// against hand-written C loops with the same semantics and the same operation order,
// in one run.
//
//   ./build/bench/bench_stencil            # 4096x4096 and 1024x1024
//   ./build/bench/bench_stencil --quick    # 1024x1024 only, fewer repetitions
//
// Every variant is compiled through runtime::jit_compile (-O3 -march=native
// -ffp-contract=fast). The variants of one grid are timed side by side: one warm-up
// call each, then 10-200 rounds (5-20 with --quick) calling every variant once, about
// 1.5 s per variant; the table gives the median time and the number of timed calls.
// risec variants: the default lowering (lowerToC) and every strategy file (*.elv) of
// the example's folder except parallel ones. The hand-written loops are what an
// expert writes: the interior without any clamping, the border rows and columns
// separately. Results are compared with the hand-written one: "ok" when
// max |x - ref| / max(1, |ref|) < 1e-6 (the operations are the same, so the results
// should be identical).
//
// Never fails on time; exits non-zero only when something cannot be compiled or
// loaded.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/common/bench_util.h"
#include "support/diagnostics.h"

namespace {

using risec::bench::Buffer;
using risec::bench::fmt;
using risec::bench::parse_quick_option;
using risec::bench::TimingPolicy;
using risec::bench::Variant;

// out[i][j] = 0.2f * (N + S + E + W + C), left to right, as examples/jacobi5/jacobi5.rise:
//   0.2f * (nbh[0][1] + nbh[2][1] + nbh[1][2] + nbh[1][0] + nbh[1][1])
// with N = A[i-1][j], S = A[i+1][j], E = A[i][j+1], W = A[i][j-1], C = A[i][j] and
// indices clamped to the grid. Needs n, m >= 2.
std::string hand_jacobi5(int n, int m) {
  return "#define N " + std::to_string(n) + "\n#define M " + std::to_string(m) + "\n" + R"(
/* A row whose upper and lower neighbour rows are `up` and `dn` (clamped by the caller). */
static inline void row5(float* restrict o, const float* restrict up, const float* restrict c,
                        const float* restrict dn) {
  o[0] = 0.2f * (up[0] + dn[0] + c[1] + c[0] + c[0]);
  for (int j = 1; j < M - 1; ++j) o[j] = 0.2f * (up[j] + dn[j] + c[j + 1] + c[j - 1] + c[j]);
  o[M - 1] = 0.2f * (up[M - 1] + dn[M - 1] + c[M - 1] + c[M - 2] + c[M - 1]);
}
void hand5__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  float* restrict out = (float*)b[0];
  const float* restrict A = (const float*)b[1];
  row5(out, A, A, A + M);
  for (int i = 1; i < N - 1; ++i) row5(out + M * i, A + M * (i - 1), A + M * i, A + M * (i + 1));
  row5(out + M * (N - 1), A + M * (N - 2), A + M * (N - 1), A + M * (N - 1));
}
)";
}

// out[i][j] = (A[i][j-1] + A[i][j] + A[i][j+1]) / 3.0f, as examples/jacobi3/jacobi3.rise.
std::string hand_jacobi3(int n, int m) {
  return "#define N " + std::to_string(n) + "\n#define M " + std::to_string(m) + "\n" + R"(
void hand3__risec_call(void* const* b, const int* sizes) {
  (void)sizes;
  float* restrict out = (float*)b[0];
  const float* restrict A = (const float*)b[1];
  for (int i = 0; i < N; ++i) {
    const float* restrict c = A + M * i;
    float* restrict o = out + M * i;
    o[0] = (c[0] + c[0] + c[1]) / 3.0f;
    for (int j = 1; j < M - 1; ++j) o[j] = (c[j - 1] + c[j] + c[j + 1]) / 3.0f;
    o[M - 1] = (c[M - 2] + c[M - 1] + c[M - 1]) / 3.0f;
  }
}
)";
}

// The strategy files of examples/NAME/, sorted.
std::vector<std::string> strategies_of(const std::string& example) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  fs::path dir = risec::bench::source_path("examples/" + example);
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".elv")
      out.push_back("examples/" + example + "/" + f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  if (std::optional<int> exit_code = parse_quick_option(argc, argv, "bench_stencil", quick))
    return *exit_code;
  const TimingPolicy policy = risec::bench::side_by_side_policy(quick);
  risec::bench::print_side_by_side_header(
      "bench_stencil: 2-D Jacobi stencils with clamped borders, f32", policy, "grid",
      "hand-written");

  risec::bench::Table table(
      {"stencil", "size", "variant", "median ms", "ratio to hand-written", "calls", "check"});
  risec::bench::LoadMonitor load;
  load.start();
  std::vector<std::pair<int, int>> grid_sizes = {{4096, 4096}, {1024, 1024}};
  if (quick) grid_sizes = {{1024, 1024}};
  try {
    for (const char* example : {"jacobi5", "jacobi3"}) {
      std::string ex = example;
      for (auto [n, m] : grid_sizes) {
        std::string size = std::to_string(n) + "x" + std::to_string(m);
        size_t count = size_t(n) * m;
        Buffer A(count);
        risec::bench::fill_random(A, 4242);

        std::string hand_src = ex == "jacobi5" ? hand_jacobi5(n, m) : hand_jacobi3(n, m);
        std::string hand_entry = ex == "jacobi5" ? "hand5" : "hand3";
        std::vector<std::string> names = {"hand-written C"};
        std::vector<risec::runtime::Module> mods;
        mods.push_back(risec::runtime::jit_compile(hand_src, hand_entry));
        std::vector<std::string> strategies = {""};
        for (const std::string& st : strategies_of(ex))
          if (st.find("parallel") == std::string::npos)  // the comparison is sequential
            strategies.push_back(st);
        risec::rise::SizeMap sizes{{"n", n}, {"m", m}};
        for (const std::string& st : strategies) {
          mods.push_back(
              risec::bench::compile_example("examples/" + ex + "/" + ex + ".rise", st, sizes, "c"));
          names.push_back(st.empty() ? "risec (lowerToC)"
                                     : "risec " + std::filesystem::path(st).filename().string());
        }
        std::vector<std::unique_ptr<Buffer>> outs;
        std::vector<Variant> vs;
        for (size_t i = 0; i < mods.size(); ++i) {
          outs.push_back(std::make_unique<Buffer>(count));
          Variant v;
          v.name = names[i];
          float* o = outs.back()->data();
          const risec::runtime::Module* mod = &mods[i];
          v.run = [mod, o, &A] { mod->call({o, A.data()}, {}); };
          vs.push_back(std::move(v));
        }
        std::fprintf(stderr, "  %s %s: timing %zu variants side by side\n", ex.c_str(),
                     size.c_str(), vs.size());
        risec::bench::time_interleaved(vs, policy);
        risec::bench::add_timed_rows(table, {ex, size}, vs, outs);
      }
    }
  } catch (const risec::Error& e) {
    std::fprintf(stderr, "bench_stencil: %s", risec::format_error(e).c_str());
    return 1;
  }
  return risec::bench::print_results(table, load);
}
