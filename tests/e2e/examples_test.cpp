// End-to-end over the examples: every example, with the default lowering and with
// every strategy file in its folder, is compiled, run on seeded random inputs and
// compared with the interpreter — as a shared object, and as a standalone program
// under -fsanitize=address,undefined. Strategy files with "parallel" in their name or
// using `(parallel @` (mm's tune.elv) or `mapPar` target OpenMP; those whose text uses a GPU
// primitive (mapGlobal, mapWorkGroup, mapLocal, toGlobal, toLocal, toPrivate, oclReduceSeq) target
// OpenCL (on PoCL here). The mm ladder is also checked at 1024x1024x1024 against a plain C loop
// nest (the interpreter would take a minute there).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <unistd.h>

#include "build_info.h"
#include "driver/commands.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

namespace risec::e2e {
namespace {

namespace fs = std::filesystem;

struct ExampleCase {
  std::string example;   // folder name
  std::string file;      // examples/NAME/NAME.rise
  std::string strategy;  // "" for the default lowering, else the .elv path
  std::string target;
};

// How ctest and gtest name a case's parameter (else: "128-byte object <...>").
void PrintTo(const ExampleCase& c, std::ostream* os) {
  *os << c.example << " with "
      << (c.strategy.empty() ? std::string("the default lowering")
                             : fs::path(c.strategy).filename().string())
      << " on " << c.target;
}

std::vector<ExampleCase> all_cases() {
  std::vector<ExampleCase> out;
  for (const ExampleStrategy& e : example_strategies())
    out.push_back({e.example, e.file, e.strategy, e.target});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<ExampleCase>& info) {
  return example_case_name(info.param.example, info.param.strategy);
}

class Examples : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(Examples, MatchesTheInterpreter) {
  const ExampleCase& c = GetParam();
  auto it = example_sizes().find(c.example);
  ASSERT_NE(it, example_sizes().end())
      << "add sizes for the new example " << c.example << " to example_sizes() (e2e_util.cpp)";
  EXPECT_TRUE(compile_and_check(c.file, c.strategy, it->second, c.target));
}

TEST_P(Examples, MatchesTheInterpreterUnderSanitizers) {
  const ExampleCase& c = GetParam();
  auto it = example_sizes().find(c.example);
  ASSERT_NE(it, example_sizes().end());
  // The OpenCL runtime (PoCL) is not built with the sanitizers: its own threads and
  // allocations would be reported. The kernels run on PoCL in the test above.
  if (c.target == "opencl") GTEST_SKIP() << "OpenCL host code is not run under sanitizers";
  EXPECT_TRUE(compile_and_check(c.file, c.strategy, it->second, c.target, /*sanitize=*/true));
}

// The generated C compiles without any warning under -Wall -Wextra -Werror (spec
// cli.md), on both targets, generic (no --size) and specialised, with and without
// the size checks (-DRISEC_NO_CHECKS: a size only they use must not become unused).
// A case's program, strategy and sizes, loaded (the compile requests point into it).
struct Loaded {
  rise::Program program;
  std::optional<elevate::Strategy> strategy;
  std::string size_text;
  rise::SizeMap sizes;
};

std::unique_ptr<Loaded> load_case(const ExampleCase& c) {
  auto it = example_sizes().find(c.example);
  if (it == example_sizes().end()) return nullptr;
  auto l = std::make_unique<Loaded>();
  l->program = driver::load_program(source_path(c.file));
  if (!c.strategy.empty()) l->strategy = driver::load_strategy(source_path(c.strategy));
  l->size_text = it->second;
  l->sizes = driver::parse_sizes({it->second});
  return l;
}

// Whether clang is on the PATH (scripts/setup.sh installs it, for the fuzzers).
const bool kHaveClang = runtime::run_process({"clang", "--version"}).ok();

TEST_P(Examples, CompilesWithoutWarnings) {
  const ExampleCase& c = GetParam();
  std::unique_ptr<Loaded> l = load_case(c);
  ASSERT_NE(l, nullptr);
  const rise::Program& p = l->program;
  const std::optional<elevate::Strategy>& s = l->strategy;
  const rise::SizeMap& known = l->sizes;
  std::vector<std::string> targets{"openmp"};
  if (c.target == "c") targets.push_back("c");
  if (c.target == "opencl") targets = {"opencl"};  // the host function
  for (const std::string& target : targets) {
    for (bool generic : {true, false}) {
      SCOPED_TRACE(target + (generic ? " generic" : " " + l->size_text));
      driver::CompileRequest req;
      req.program = &p;
      req.sizes = generic ? nullptr : &known;
      req.strategy = s ? &*s : nullptr;
      req.target = target;
      driver::Compiled out;
      try {
        out = driver::compile(req);
      } catch (const Error& e) {
        // some strategies need known sizes (a refusal is located, not a warning)
        EXPECT_TRUE(generic) << e.message();
        EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();
        continue;
      }
      EXPECT_FALSE(out.unit.source.empty());
      // In the sanitizer build only risec's part runs (the compile above, which is
      // instrumented): the C it writes is the same as the Release build's, whose run of
      // this test gives it to GCC (docs/testing.md).
      if (risec::test::sanitized_build()) continue;
      // unique per process: ctest runs the cases in parallel
      std::string path = ::testing::TempDir() + "/risec_warnings_" + std::to_string(::getpid()) +
                         "_" + c.example + ".c";
      std::ofstream(path) << out.unit.source;
      for (bool checks : {true, false}) {
        std::vector<std::string> argv{"cc",      "-std=gnu99", "-fsyntax-only", "-Wall",
                                      "-Wextra", "-Werror",    "-Wno-psabi",    "-march=native"};
        if (target == "openmp") argv.push_back("-fopenmp");
        if (!checks) argv.push_back("-DRISEC_NO_CHECKS");
        argv.push_back(path);
        runtime::ProcessResult r = runtime::run_process(argv);
        EXPECT_TRUE(r.ok()) << (checks ? "" : "-DRISEC_NO_CHECKS ") << r.err;
      }
      // Clang too (CC=clang is supported), without -Wno-psabi: the unit's pragmas keep
      // it quiet (held-out L: unused static helpers warned under -Wall); once per target
      // (the generic unit has the same helpers).
      if (kHaveClang && !generic) {
        std::vector<std::string> argv{"clang",   "-std=gnu99", "-fsyntax-only", "-Wall",
                                      "-Wextra", "-Werror",    "-march=native"};
        if (target == "openmp") argv.push_back("-fopenmp");
        argv.push_back(path);
        runtime::ProcessResult r = runtime::run_process(argv);
        EXPECT_TRUE(r.ok()) << "clang: " << r.err;
      }
    }
  }
}

// Every lane loop the C printer marks for the C compiler (`RISEC_SIMD_LOOP` or
// `RISEC_SIMD_LANES(n)`, an `omp simd` loop over the lanes of a vector: arithmetic,
// math functions, blends) is
// vectorised by it with risec's own flags: a lane loop left scalar runs its lanes one
// by one (a vector exp calling the scalar expf per lane made binomial 9x slower with
// every other test passing). GCC's -fopt-info-vec reports each vectorised loop at its
// `for` line or the first line of its body.
TEST_P(Examples, LaneLoopsAreVectorised) {
  const ExampleCase& c = GetParam();
  if (c.target == "opencl") GTEST_SKIP() << "OpenCL kernels are compiled by the OpenCL driver";
  std::unique_ptr<Loaded> l = load_case(c);
  ASSERT_NE(l, nullptr);
  driver::CompileRequest req;
  req.program = &l->program;
  req.sizes = &l->sizes;
  req.strategy = l->strategy ? &*l->strategy : nullptr;
  req.target = c.target;
  driver::Compiled out = driver::compile(req);
  const std::string& src = out.unit.source;
  // the lines of the lane loops: a line holding only RISEC_SIMD_LOOP or
  // RISEC_SIMD_LANES(n) (not their #define)
  // A lane loop in the #else of a whole-vector helper's guard (exp with AVX-512
  // intrinsics, codegen::float_math_vector) is compiled only where the guard is false.
  std::vector<int> pragmas;
  int line = 1;
  FallbackLines fallback;
  for (size_t pos = 0; pos < src.size();) {
    size_t end = src.find('\n', pos);
    if (end == std::string::npos) end = src.size();
    std::string text = src.substr(pos, end - pos);
    const bool skip_fallback = fallback.skipped(text);
    size_t first = text.find_first_not_of(' ');
    if (!skip_fallback && first != std::string::npos &&
        (text.compare(first, std::string::npos, "RISEC_SIMD_LOOP") == 0 ||
         text.compare(first, 17, "RISEC_SIMD_LANES(") == 0))
      pragmas.push_back(line);
    pos = end + 1;
    ++line;
  }
  if (pragmas.empty()) GTEST_SKIP() << "no lane loops";
  std::string path =
      ::testing::TempDir() + "/risec_lanes_" + std::to_string(::getpid()) + "_" + c.example + ".c";
  std::ofstream(path) << src;
  runtime::CompileOptions opts;
  opts.openmp = c.target == "openmp";
  std::vector<std::string> argv = runtime::c_compiler();
  for (const std::string& f : runtime::compile_flags(opts, false)) argv.push_back(f);
  for (const char* f : {"-S", "-o", "/dev/null", "-fopt-info-vec-optimized"}) argv.push_back(f);
  argv.push_back(path);
  runtime::ProcessResult r = runtime::run_process(argv);
  // -fopt-info is GCC's; another $CC (clang) does not report this way
  if (!r.ok() && r.err.find("fopt-info") != std::string::npos)
    GTEST_SKIP() << "the C compiler does not take -fopt-info-vec (not GCC): " << r.err;
  ASSERT_TRUE(r.ok()) << r.err;
  // "FILE:LINE:COL: optimized: loop vectorized using N byte vectors"
  std::set<int> vectorised;
  const std::string mark = ": optimized: loop vectorized";
  for (size_t pos = r.err.find(mark); pos != std::string::npos; pos = r.err.find(mark, pos + 1)) {
    size_t bol = r.err.rfind('\n', pos);
    std::string head = r.err.substr(bol == std::string::npos ? 0 : bol + 1, pos - bol - 1);
    size_t c2 = head.rfind(':'), c1 = c2 == std::string::npos ? c2 : head.rfind(':', c2 - 1);
    if (c1 != std::string::npos) vectorised.insert(std::stoi(head.substr(c1 + 1, c2 - c1 - 1)));
  }
  for (int at : pragmas)
    EXPECT_TRUE(vectorised.count(at + 1) || vectorised.count(at + 2))
        << "the lane loop after line " << at << " was not vectorised:\n"
        << r.err;
}

INSTANTIATE_TEST_SUITE_P(All, Examples, ::testing::ValuesIn(all_cases()), case_name);

TEST(ExamplesList, EveryExampleHasSizes) {
  for (const ExampleCase& c : all_cases())
    EXPECT_TRUE(example_sizes().count(c.example)) << c.example;
}

// ---------------------------------------------------------------- mm at 1024

// The reference loop nest in i, k, j order: each C[i][j] is still the sum of A[i][k] *
// B[k][j] for k = 0, 1, .., 1023 in that order, but the inner loop runs along rows of
// B and C, which GCC vectorises, where the i, j, k order reads B down a column
// (4 KiB apart: every load a cache miss, in the same few cache sets): the test took
// 5.3 s of CPU time with that order, 1.8 s with this one.
const char* kNaiveMM =
    "void naive__risec_call(void* const* b, const int* sizes) {\n"
    "  (void)sizes;\n"
    "  float* restrict C = (float*)b[0]; const float* restrict A = (const float*)b[1];\n"
    "  const float* restrict B = (const float*)b[2];\n"
    "  for (int i = 0; i < 1024; ++i) {\n"
    "    for (int j = 0; j < 1024; ++j) C[i * 1024 + j] = 0.0f;\n"
    "    for (int k = 0; k < 1024; ++k) {\n"
    "      const float a = A[i * 1024 + k];\n"
    "      for (int j = 0; j < 1024; ++j) C[i * 1024 + j] += a * B[k * 1024 + j];\n"
    "    }\n"
    "  }\n"
    "}\n";

TEST(MMLadder, EveryStepAgreesWithACLoopNestAt1024) {
  runtime::Module naive = runtime::jit_compile(kNaiveMM, "naive");
  std::vector<float> A(1024 * 1024), B(1024 * 1024), expected(1024 * 1024);
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (float& a : A) a = next();
  for (float& b : B) b = next();
  naive.call({expected.data(), A.data(), B.data()}, {});

  for (const char* step : {"baseline", "blocking", "vectorization", "loop_permutation",
                           "array_packing", "cache_blocks", "parallel"}) {
    SCOPED_TRACE(step);
    std::string target = std::string(step) == "parallel" ? "openmp" : "c";
    rise::Program p = driver::load_program(source_path("examples/mm/mm.rise"));
    elevate::Strategy s =
        driver::load_strategy(source_path(std::string("examples/mm/") + step + ".elv"));
    rise::SizeMap sizes{{"n", 1024}, {"m", 1024}, {"k", 1024}};
    driver::CompileRequest req;
    req.program = &p;
    req.sizes = &sizes;
    req.strategy = &s;
    req.target = target;
    driver::Compiled c = driver::compile(req);
    runtime::CompileOptions opts;
    opts.openmp = target == "openmp";
    runtime::Module m = runtime::jit_compile(c.unit.source, c.unit.name, opts);
    std::vector<float> C(1024 * 1024, -1.0f);
    m.call({C.data(), A.data(), B.data()}, {});
    double max_rel = 0;
    for (size_t i = 0; i < C.size(); ++i)
      max_rel = std::max(max_rel, std::abs(double(C[i]) - expected[i]) /
                                      std::max(1.0, std::abs(double(expected[i]))));
    EXPECT_LT(max_rel, 1e-4) << step;
  }
}

}  // namespace
}  // namespace risec::e2e
