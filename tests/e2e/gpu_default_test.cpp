// The default lowering on the GPU targets (docs/targets.md, "The default lowering"):
// without a strategy, `--target opencl` and `cuda` map each stage's map over global
// threads (globalOutput; CUDA: a nest of two maps in two dimensions, columns in
// dimension 0, else one; OpenCL, whose device may be a CPU: one dimension), falling
// back to one dimension, then to one work item, where compile's checks refuse the
// mapping. Every example (but treesum, whose iterate the GPU targets
// refuse) and every autoscheduler program runs so on PoCL and matches the interpreter;
// random programs (fuzz/program_gen) that the former default (one work item) compiled
// compile and match too; the CUDA code of the same programs compiles with nvcc; the
// kernels of a matrix product, a map and two stages are parallel launches (a regression
// to one work item fails), a scalar reduction stays one work item; a 2-D mapping the
// nesting check refuses falls back to 1-D, in compile and in the autoscheduler's
// default alike; extents smaller than any group still compute every element; maps over
// sliding windows (circularBuffer, rotateValues) stay sequential loops.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <thread>

#include "build_info.h"
#include "driver/commands.h"
#include "driver/compile.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"
#ifdef RISEC_HAVE_PROGRAM_GEN
#include "program_gen.h"
#endif

namespace risec::e2e {
namespace {

struct GpuDefaultCase {
  std::string name;   // the gtest parameter name
  std::string file;   // the program
  std::string sizes;  // its test sizes
};

void PrintTo(const GpuDefaultCase& c, std::ostream* os) {
  *os << c.file << " at " << c.sizes;
}

// Every example with its test sizes (treesum's iterate is refused by the GPU targets,
// with or without a strategy) and the autoscheduler's programs.
std::vector<GpuDefaultCase> gpu_default_cases() {
  std::vector<GpuDefaultCase> out;
  for (const auto& [name, sizes] : example_sizes())
    if (name != "treesum") out.push_back({name, "examples/" + name + "/" + name + ".rise", sizes});
  const std::pair<const char*, const char*> programs[] = {
      {"bilateral", "n=16,m=12"}, {"lapband", "n=16,m=12"}, {"layernorm", "n=3,d=40"},
      {"mlp", "b=4,k=8,h=6,o=5"}, {"pyrdown", "n=16,m=12"}, {"softmax", "n=3,d=37"}};
  for (const auto& [name, sizes] : programs)
    out.push_back({std::string("as_") + name,
                   std::string("bench/autoschedule/programs/") + name + ".rise", sizes});
  return out;
}

// `file` compiled without a strategy for `target`, at `sizes` ("" generic).
driver::Compiled gd_compile(const std::string& file, const std::string& sizes,
                            const std::string& target) {
  rise::Program p = driver::load_program(source_path(file));
  rise::SizeMap known = driver::parse_sizes({sizes});
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = sizes.empty() ? nullptr : &known;
  req.target = target;
  return driver::compile(req);
}

size_t gd_count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The kernels of an OpenCL unit, each its text.
std::vector<std::string> gd_kernels(const driver::Compiled& c) {
  std::vector<std::string> out;
  const std::string& s = c.unit.kernel_source;
  for (size_t at = s.find("__kernel void "); at != std::string::npos;) {
    size_t next = s.find("__kernel void ", at + 1);
    out.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return out;
}

class GpuDefault : public ::testing::TestWithParam<GpuDefaultCase> {};

TEST_P(GpuDefault, OpenCLMatchesTheInterpreter) {
  const GpuDefaultCase& c = GetParam();
  EXPECT_TRUE(compile_and_check(c.file, "", c.sizes, "opencl"));
}

INSTANTIATE_TEST_SUITE_P(All, GpuDefault, ::testing::ValuesIn(gpu_default_cases()),
                         [](const ::testing::TestParamInfo<GpuDefaultCase>& info) {
                           return info.param.name;
                         });

// On OpenCL a matrix product is one 1-D launch, a work item per row (its device may
// be a CPU, where a work item per element made stencils ~50x slower); on CUDA one 2-D
// launch, rows in dimension 1 and columns in dimension 0 (adjacent work items write
// adjacent elements), the mapping globalOutput(2) gives OpenCL too (checked on PoCL);
// a map is a 1-D launch; a row-wise program whose rows are a let (softmax) a work item
// per row; both stages of a two-stage program (the tutorial's layer: dot products,
// then a ReLU of them) are parallel launches; a reduction to a scalar stays one work
// item.
TEST(GpuDefaultLaunch, StagesAreParallelLaunches) {
  driver::Compiled mm = gd_compile("examples/mm/mm.rise", "n=64,m=32,k=16", "opencl");
  std::vector<std::string> k = gd_kernels(mm);
  ASSERT_EQ(k.size(), 1u) << mm.unit.kernel_source;
  EXPECT_NE(k[0].find("= (int)get_global_id(0); i1 < 64;"), std::string::npos) << k[0];
  EXPECT_EQ(gd_count(k[0], "get_global_id(1)"), 0u) << k[0];
  EXPECT_NE(k[0].find("for (int i2 = 0; i2 < 32; i2 += 1)"), std::string::npos) << k[0];
  EXPECT_TRUE(compile_and_check("examples/mm/mm.rise", "", "n=64,m=32,k=16", "opencl"));
  const std::string two_d = "simplify ; try(globalOutput(2)) ; lowerToC";
  CliResult mm2 = run_risec({"compile", "examples/mm/mm.rise", "--target", "opencl", "--size",
                             "n=64,m=32,k=16", "--strategy", write_scratch("gd_2d.elv", two_d)});
  ASSERT_EQ(mm2.exit_code, 0) << show(mm2);
  const size_t rows = mm2.out.find("= (int)get_global_id(1); i1 < 64;");
  const size_t cols = mm2.out.find("= (int)get_global_id(0); i2 < 32;");
  EXPECT_NE(rows, std::string::npos) << mm2.out;
  EXPECT_LT(rows, cols) << mm2.out;
  EXPECT_NE(mm2.out.find("output[32*i1 + i2] ="), std::string::npos) << mm2.out;
  EXPECT_TRUE(compile_and_check("examples/mm/mm.rise", two_d, "n=64,m=32,k=16", "opencl"));

  driver::Compiled scal = gd_compile("examples/scal/scal.rise", "n=64", "opencl");
  EXPECT_EQ(gd_count(scal.unit.kernel_source, "get_global_id(0)"), 1u) << scal.unit.kernel_source;
  EXPECT_EQ(gd_count(scal.unit.kernel_source, "get_global_id(1)"), 0u) << scal.unit.kernel_source;

  driver::Compiled softmax =
      gd_compile("bench/autoschedule/programs/softmax.rise", "n=3,d=37", "opencl");
  k = gd_kernels(softmax);
  ASSERT_EQ(k.size(), 1u) << softmax.unit.kernel_source;
  EXPECT_NE(k[0].find("= (int)get_global_id(0); i1 < 3;"), std::string::npos) << k[0];

  driver::Compiled layer = gd_compile("docs/tutorial/07-gpu/layer.rise", "n=64,m=32", "opencl");
  k = gd_kernels(layer);
  ASSERT_EQ(k.size(), 2u) << layer.unit.kernel_source;
  for (const std::string& kernel : k)
    EXPECT_NE(kernel.find("get_global_id(0); i"), std::string::npos) << kernel;
  EXPECT_TRUE(compile_and_check("docs/tutorial/07-gpu/layer.rise", "", "n=64,m=32", "opencl"));

  driver::Compiled dot = gd_compile("examples/dot/dot.rise", "n=64", "opencl");
  EXPECT_EQ(gd_count(dot.unit.kernel_source, "get_global_id"), 0u) << dot.unit.kernel_source;

  driver::Compiled cu = gd_compile("examples/mm/mm.rise", "n=64,m=32,k=16", "cuda");
  EXPECT_NE(cu.unit.source.find("blockIdx.y * blockDim.y + threadIdx.y"), std::string::npos)
      << cu.unit.source;
  EXPECT_NE(cu.unit.source.find("blockIdx.x * blockDim.x + threadIdx.x"), std::string::npos)
      << cu.unit.source;
}

// A 2-D mapping that compile's nesting check refuses (the program's own mapGlobal(1)
// inside the inner map) falls back to the 1-D one, which compiles and computes the
// result (the former default, one work item, refused this program: its mapGlobal would
// be inside a sequential loop at the top): CUDA's default falls back so, and OpenCL's
// (1-D) has it. The autoscheduler's default is the same fallback, written as text that
// compiles as it.
TEST(GpuDefaultLaunch, TwoDimensionsFallBackToOneWhereTheChecksRefuse) {
  const std::string file = write_scratch("gd_fallback.rise", R"(
def fb = depFun((n: Nat, m: Nat) => fun(x: n.m.4.f32 =>
  x |> map(fun(r => r |> map(fun(c => c |> mapGlobal(1)(fun(v => v * 2.0f))))))))
)");
  CliResult two = run_risec({"compile", file, "--target", "opencl", "--size", "n=3,m=5",
                             "--strategy", "simplify ; try(globalOutput(2)) ; lowerToC"});
  EXPECT_EQ(two.exit_code, 1) << show(two);
  EXPECT_NE(two.err.find("mapGlobal(1) inside mapGlobal(1)"), std::string::npos) << show(two);
  driver::Compiled c = gd_compile(file, "n=3,m=5", "opencl");
  const std::string& k = c.unit.kernel_source;
  EXPECT_NE(k.find("= (int)get_global_id(0); i1 < 3;"), std::string::npos) << k;
  EXPECT_LT(k.find("get_global_id(0)"), k.find("get_global_id(1)")) << k;
  EXPECT_TRUE(compile_and_check(file, "", "n=3,m=5", "opencl"));
  rise::Program p = driver::load_program(file);
  rise::SizeMap sizes{{"n", 3}, {"m", 5}};
  for (const char* target : {"cuda", "opencl"}) {
    const std::string text = elevate::default_lowering_text(
        driver::default_lowering_checked(rise::check_program(p, "", &sizes), target));
    EXPECT_EQ(text, "simplify ; try(globalOutput(1)) ; lowerToC") << target;
    EXPECT_TRUE(compile_and_check(file, text, "n=3,m=5", "opencl"));
  }
  driver::Compiled cu = gd_compile(file, "n=3,m=5", "cuda");
  EXPECT_NE(cu.unit.source.find("blockIdx.x * blockDim.x + threadIdx.x"), std::string::npos)
      << cu.unit.source;
  // a program the 2-D mapping suits keeps it on CUDA; OpenCL's default is 1-D
  rise::Program mm = driver::load_program(source_path("examples/mm/mm.rise"));
  rise::SizeMap mm_sizes{{"n", 8}, {"m", 8}, {"k", 8}};
  EXPECT_EQ(elevate::default_lowering_text(
                driver::default_lowering_checked(rise::check_program(mm, "", &mm_sizes), "cuda")),
            "simplify ; try(globalOutput(2)) ; lowerToC");
  EXPECT_EQ(elevate::default_lowering_text(
                driver::default_lowering_checked(rise::check_program(mm, "", &mm_sizes), "opencl")),
            "simplify ; try(globalOutput(1)) ; lowerToC");
}

// The windows of circularBuffer and rotateValues are filled as a sequential loop steps
// through them: the map over them stays a loop, at the top (one work item) or inside
// a row's work item, never a mapGlobal, which the translation refuses ("must be
// consumed by a sequential map"). globalOutput(2) on rows of windows is therefore the
// 1-D launch over the rows, not a refusal; the defaults compute the interpreter's
// result.
TEST(GpuDefaultLaunch, SlidingWindowMapsStaySequential) {
  const std::string flat = write_scratch("gd_windows_flat.rise", R"(
def f = depFun((n: Nat) => fun(a: (n+2).i32 => a |> circularBuffer(3)(3)(fun(x => x * 2 - 1)) |>
  map(fun(w => w[0] * w[2] - w[1]))))
)");
  const std::string rows = write_scratch("gd_windows_rows.rise", R"(
def g = depFun((m: Nat) => depFun((n: Nat) => fun(a: m.(n+2).f32 => a |> map(fun(row => row |>
  rotateValues(3)(fun(x => x * 2.0f)) |> map(fun(w => w[0] - w[2] + w[1])))))))
)");
  EXPECT_TRUE(compile_and_check(flat, "", "n=11", "opencl"));
  EXPECT_TRUE(compile_and_check(rows, "", "m=5,n=11", "opencl"));
  const std::string two_d = "simplify ; globalOutput(2) ; lowerToC";
  CliResult r = run_risec({"compile", rows, "--target", "opencl", "--size", "m=5,n=11",
                           "--strategy", write_scratch("gd_windows_2d.elv", two_d)});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_NE(r.out.find("= (int)get_global_id(0); i1 < 5;"), std::string::npos) << r.out;
  EXPECT_EQ(gd_count(r.out, "get_global_id(1)"), 0u) << r.out;
  EXPECT_TRUE(compile_and_check(rows, two_d, "m=5,n=11", "opencl"));
  driver::Compiled cu = gd_compile(rows, "m=5,n=11", "cuda");
  EXPECT_NE(cu.unit.source.find("blockIdx.x * blockDim.x + threadIdx.x"), std::string::npos)
      << cu.unit.source;
  EXPECT_EQ(gd_count(cu.unit.source, "blockIdx.y"), 0u) << cu.unit.source;
}

// Extents smaller than any work group, and launches of fewer work items than elements
// (--global), still compute every element: the loops are strided.
TEST(GpuDefaultLaunch, SmallExtentsAndSmallLaunchesComputeEveryElement) {
  for (const char* sizes : {"n=1,m=1,k=1", "n=1,m=3,k=2", "n=5,m=1,k=3"})
    EXPECT_TRUE(compile_and_check("examples/mm/mm.rise", "", sizes, "opencl")) << sizes;
  EXPECT_TRUE(compile_and_check("examples/scal/scal.rise", "", "n=1", "opencl"));
  for (const char* global : {"1", "3,2"}) {
    CliResult r = run_risec({"run", "examples/mm/mm.rise", "--target", "opencl", "--size",
                             "n=7,m=5,k=3", "--global", global, "--check"});
    EXPECT_EQ(r.exit_code, 0) << show(r);
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << show(r);
  }
}

// A work item per row of softmax keeps its row of exponentials (1024 floats) in
// private memory: such a launch gets groups of a few work items (32 here) instead of
// the platform's choice, with which PoCL (4096 work items a group, 16 MB of copies)
// stopped with SIGSEGV at this size. Smaller private arrays leave the choice to the
// platform.
TEST(GpuDefaultLaunch, LargePrivateArraysGetSmallGroups) {
  const std::string file = "bench/autoschedule/programs/softmax.rise";
  driver::Compiled c = gd_compile(file, "n=4096,d=1024", "opencl");
  EXPECT_NE(c.unit.source.find("risec_local[3] = {32, 1, 1}"), std::string::npos) << c.unit.source;
  CliResult r = run_risec({"run", file, "--target", "opencl", "--size", "n=4096,d=1024", "-o",
                           scratch_path("gd_softmax.npy")});
  EXPECT_EQ(r.exit_code, 0) << show(r);
  EXPECT_TRUE(compile_and_check(file, "", "n=5,d=2048", "opencl"));
  driver::Compiled small = gd_compile(file, "n=64,d=16", "opencl");
  EXPECT_NE(small.unit.source.find("risec_local[3] = {1, 1, 1}"), std::string::npos)
      << small.unit.source;
}

// Random programs (fuzz/program_gen: maps, reductions, zips, splits, slides, pads,
// lets, with-loops ...): every one the former default (one work item) compiled for
// OpenCL compiles with the new one and matches the interpreter on PoCL, and some get a
// parallel launch. RISEC_FUZZ_SEED picks other programs, RISEC_FUZZ_VERBOSE prints them.
TEST(GpuDefaultRandom, GeneratedProgramsMatchTheInterpreterOnOpenCL) {
#ifndef RISEC_HAVE_PROGRAM_GEN
  GTEST_SKIP() << "fuzz/program_gen needs clang's FuzzedDataProvider.h, not found at configure";
#else
  const char* seed = std::getenv("RISEC_FUZZ_SEED");  // other programs, locally
  std::mt19937_64 rng(seed ? std::strtoull(seed, nullptr, 10) : 20261129);
  int checked = 0, parallel = 0;
  for (int trial = 0; trial < 24; ++trial) {
    std::vector<uint8_t> bytes(256 + rng() % 768);  // longer: larger programs
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    FuzzedDataProvider in(bytes.data(), bytes.size());
    const std::string text = fuzz::generate_program(in);
    const std::string file = write_scratch("gd_gen_" + std::to_string(trial) + ".rise", text);
    const std::string sizes = "n=" + std::to_string(1 + rng() % 6);
    SCOPED_TRACE(text + "--- at " + sizes);
    if (std::getenv("RISEC_FUZZ_VERBOSE"))
      std::fprintf(stderr, "%s--- at %s\n", text.c_str(), sizes.c_str());
    CheckOptions o;
    o.target = "opencl";
    o.seed = static_cast<uint64_t>(trial);
    try {
      run_and_compare(file, "simplify ; lowerToC", sizes, o);
    } catch (const Error&) {
      continue;  // the former default refused it too (e.g. an iterate)
    }
    try {
      CheckReport r = run_and_compare(file, "", sizes, o);
      ++checked;
      parallel += r.compiled.unit.kernel_source.find("get_global_id") != std::string::npos;
      EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
    } catch (const Error& e) {
      ADD_FAILURE() << "the default lowering refused: " << format_error(e);
    }
  }
  std::printf("gpu default: %d generated programs checked, %d with a parallel launch\n", checked,
              parallel);
  // Most generated programs are views, scalars or reductions (one work item); some
  // compute an array with a map.
  EXPECT_GE(checked, 12);
  EXPECT_GE(parallel, 2);
#endif
}

// The CUDA code of every program above, without a strategy (generic in the sizes
// where the program allows), compiles with nvcc -arch=sm_90, every warning an error.
TEST(GpuDefaultCuda, EveryProgramCompilesWithNvccWithoutWarnings) {
  // The generated text is the same in both builds; nvcc's time is spent once.
  if (risec::test::sanitized_build())
    GTEST_SKIP() << "the sanitizer build does not compile the CUDA output again: the Release "
                    "suite does";
  std::optional<std::vector<std::string>> cc;
  try {
    cc = runtime::nvcc_compiler();
  } catch (const Error&) {
    GTEST_SKIP() << "nvcc not found (set $NVCC): the CUDA output is not compiled";
  }
  std::vector<std::string> files;
  for (const GpuDefaultCase& c : gpu_default_cases()) {
    SCOPED_TRACE(c.file);
    driver::Compiled out;
    try {
      out = gd_compile(c.file, "", "cuda");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();  // a program needing known sizes
      out = gd_compile(c.file, c.sizes, "cuda");
    }
    files.push_back(write_scratch("gd_" + c.name + ".cu", out.unit.source));
  }
  std::vector<runtime::ProcessResult> results(2);
  std::vector<std::thread> jobs;
  for (size_t b = 0; b < results.size(); ++b)
    jobs.emplace_back([&, b] {
      std::vector<std::string> argv = *cc;
      argv.insert(argv.end(), {"-arch=sm_90", "-std=c++17", "-c", "-Werror", "all-warnings",
                               "-Xcompiler", "-Wall,-Wextra,-Werror", "-odir", scratch_path("")});
      for (size_t i = b; i < files.size(); i += results.size()) argv.push_back(files[i]);
      results[b] = runtime::run_process(argv);
    });
  for (std::thread& j : jobs) j.join();
  for (const runtime::ProcessResult& r : results)
    EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err << r.out;
}

}  // namespace
}  // namespace risec::e2e
