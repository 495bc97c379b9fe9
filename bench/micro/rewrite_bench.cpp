// Rewriting is interactive: the time to apply each mm strategy file to the 1024^3
// program (parse and check included separately). No assertions on time.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "elevate/parser.h"
#include "rise/check.h"
#include "rise/parser.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/" + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

risec::rise::Checked mm1024() {
  auto src = std::make_shared<risec::SourceFile>(
      risec::SourceFile{"mm.rise", read("examples/mm/mm.rise")});
  risec::rise::Program p = risec::rise::parse_program(src);
  risec::rise::SizeMap sizes{{"n", 1024}, {"m", 1024}, {"k", 1024}};
  return risec::rise::check_program(p, "", &sizes);
}

void BM_CheckMM(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(mm1024());
}
BENCHMARK(BM_CheckMM)->Unit(benchmark::kMillisecond);

void BM_RewriteMM(benchmark::State& state, const char* step) {
  risec::rise::Checked c = mm1024();
  std::string path = std::string("examples/mm/") + step + ".elv";
  risec::elevate::Strategy s = risec::elevate::parse_strategy(read(path), path);
  for (auto _ : state) {
    risec::elevate::Result r = s(c.expr);
    if (!r.ok()) state.SkipWithError(r.failure().reason.c_str());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_CAPTURE(BM_RewriteMM, baseline, "baseline")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, blocking, "blocking")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, vectorization, "vectorization")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, loop_permutation, "loop_permutation")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, array_packing, "array_packing")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, cache_blocks, "cache_blocks")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RewriteMM, parallel, "parallel")->Unit(benchmark::kMillisecond);

}  // namespace
