// Golden checks on the kernels risec generates for the Lift CGO'17 suite
// (examples/*/opencl*.elv; the examples test runs each on PoCL against the
// interpreter): the parallelism and memory each strategy chose show in the kernel.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "driver/commands.h"
#include "e2e_util.h"
#include "support/diagnostics.h"

using namespace risec;

namespace {

// A program (path from the source root) compiled with a strategy (an absolute path or
// one from the source root) for OpenCL at the given sizes.
driver::Compiled compile_opencl(const std::string& program, const std::string& strategy,
                                const std::string& sizes) {
  rise::Program p = driver::load_program(e2e::source_path(program));
  elevate::Strategy s = driver::load_strategy(e2e::source_path(strategy));
  rise::SizeMap known = driver::parse_sizes({sizes});
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = &known;
  req.strategy = &s;
  req.target = "opencl";
  return driver::compile(req);
}

// The kernels of an example compiled with one of its strategies for OpenCL.
std::string suite_kernels(const std::string& example, const std::string& strategy,
                          const std::string& sizes) {
  std::string source = compile_opencl("examples/" + example + "/" + example + ".rise",
                                      "examples/" + example + "/" + strategy + ".elv", sizes)
                           .unit.kernel_source;
  size_t first = source.find("__kernel ");  // after the preamble's helpers
  return first == std::string::npos ? "" : source.substr(first);
}

// The text of examples/mm/gpu_tiled.elv, for variants of it.
std::string gpu_tiled_text() {
  std::ifstream in(e2e::source_path("examples/mm/gpu_tiled.elv"));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t suite_occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The particles are vec[f32, 4] in the program: typed float4 pointers, no vload.
TEST(OpenCLSuite, NBodyAndMDPassParticlesAsFloat4) {
  for (const auto& [example, sizes] :
       {std::pair<std::string, std::string>{"nbody", "n=64"}, {"md", "n=64,k=8"}}) {
    SCOPED_TRACE(example);
    std::string k = suite_kernels(example, "opencl", sizes);
    EXPECT_NE(k.find("__global const float4* restrict pos"), std::string::npos) << k;
    EXPECT_EQ(k.find("vload4"), std::string::npos) << k;
    EXPECT_NE(k.find("get_global_id(0)"), std::string::npos) << k;
  }
}

// Listing 4's scheme: work groups over blocks of rows, work items over rows, no local
// memory and so no barrier.
TEST(OpenCLSuite, RowBlockedKernelsUseWorkGroupsAndLocalIdsWithoutBarriers) {
  for (const auto& [example, sizes] :
       {std::pair<std::string, std::string>{"gemv", "n=128,m=32"}, {"gesummv", "n=128"}}) {
    SCOPED_TRACE(example);
    std::string k = suite_kernels(example, "opencl", sizes);
    EXPECT_EQ(suite_occurrences(k, "get_group_id(0)"), 1u) << k;
    EXPECT_EQ(suite_occurrences(k, "get_local_id(0)"), 1u) << k;
    EXPECT_EQ(k.find("barrier("), std::string::npos) << k;
    EXPECT_EQ(k.find("__local"), std::string::npos) << k;
  }
}

// atax is two launches in sequence: A * x, then A^T * tmp.
TEST(OpenCLSuite, AtaxIsTwoKernels) {
  std::string k = suite_kernels("atax", "opencl", "m=128,n=64");
  EXPECT_EQ(suite_occurrences(k, "__kernel void "), 2u) << k;
  EXPECT_NE(k.find("__kernel void atax_k0("), std::string::npos) << k;
  EXPECT_NE(k.find("__kernel void atax_k1("), std::string::npos) << k;
}

// conv2d is a 2-D launch: rows in dimension 1, columns in dimension 0.
TEST(OpenCLSuite, Conv2dIsATwoDimensionalLaunch) {
  std::string k = suite_kernels("conv2d", "opencl", "n=32,m=32");
  EXPECT_NE(k.find("get_global_id(1)"), std::string::npos) << k;
  EXPECT_NE(k.find("get_global_id(0)"), std::string::npos) << k;
}

// mm tiled: A's rows of the group in one __local array, written by the group's copy;
// a barrier after the copy (the work items then read rows others copied) and one
// before the next block overwrites it, no other; 4 private accumulators per work item.
TEST(OpenCLSuite, TiledMMStagesRowsInLocalMemoryBetweenTwoBarriers) {
  std::string k = suite_kernels("mm", "opencl_tiled", "n=64,m=64,k=64");
  EXPECT_EQ(suite_occurrences(k, "__local float "), 1u) << k;
  EXPECT_EQ(suite_occurrences(k, "barrier(CLK_LOCAL_MEM_FENCE)"), 2u) << k;
  size_t local = k.find("__local float ");
  size_t first_barrier = k.find("barrier(");
  size_t compute = k.find("get_local_id(0)");
  EXPECT_LT(local, first_barrier);
  EXPECT_LT(first_barrier, compute) << "the copy must be complete before the products read it";
  EXPECT_NE(k.find("[4];"), std::string::npos) << k;  // the private register block
}

// A local tile above the private-memory stack limit (8 rows x 1024 floats = 32 KiB) is
// still a __local array: nothing to free (the C printer used to free it as a heap
// buffer, and the kernel did not build).
TEST(OpenCLSuite, LargeLocalTilesAreNotFreed) {
  std::string k = suite_kernels("mm", "opencl_tiled", "n=16,m=32,k=1024");
  EXPECT_NE(k.find("__local float "), std::string::npos) << k;
  EXPECT_EQ(k.find("free("), std::string::npos) << k;
  EXPECT_TRUE(e2e::compile_and_check("examples/mm/mm.rise", "examples/mm/opencl_tiled.elv",
                                     "n=16,m=32,k=1024", "opencl"));
}

// GPU mm with a register block per work item kept across the k-tiles: the work-group
// level accumulator is a private array declared before the work items' loops (each
// work item's 4 x 4 part of it: dpia/distribute), zeroed, updated and copied out only
// by mapLocals, from tiles of A and B the group copies into local
// memory in each step; checked against the interpreter at several sizes.
TEST(OpenCLSuite, GpuTiledMMKeepsAPrivateAccumulatorAcrossKTiles) {
  std::string k = suite_kernels("mm", "gpu_tiled", "n=64,m=64,k=64");
  size_t acc = k.find("float acc");
  ASSERT_NE(acc, std::string::npos) << k;
  // each work item holds only its 4 x 4 block of the 32 x 32 accumulator
  EXPECT_EQ(k.find("[1024];"), std::string::npos) << k;
  EXPECT_EQ(k.find("[16];", acc) + 4, k.find(';', acc)) << k;
  EXPECT_LT(acc, k.find("get_local_id(1)")) << "declared at work-group level";
  // the zeroing, the tile copies, the k-tile step and the copy-out
  EXPECT_EQ(suite_occurrences(k, "get_local_id(1)"), 5u) << k;
  // A's and B's k-tiles in local memory, both copies before one barrier, and one at the
  // end of the step: two per k-tile, none elsewhere
  EXPECT_EQ(suite_occurrences(k, "__local float "), 2u) << k;
  EXPECT_EQ(suite_occurrences(k, "barrier(CLK_LOCAL_MEM_FENCE)"), 2u) << k;
  size_t step = k.find("for (int", k.find("] = 0.0f;"));
  size_t first = k.find("barrier(", step);
  EXPECT_LT(k.find("= B[", step), first) << k;
  // A's rows are read as float4 (B's tile, read along B's rows, is not contiguous per row)
  EXPECT_LT(k.find("float4_load(&A["), first) << k;
  for (const char* sizes : {"n=64,m=64,k=64", "n=96,m=32,k=24", "n=32,m=128,k=8"})
    EXPECT_TRUE(
        e2e::compile_and_check("examples/mm/mm.rise", "examples/mm/gpu_tiled.elv", sizes, "opencl"))
        << sizes;
}

// Each work item's block is its part of the accumulator: a launch with fewer work items
// than blocks (--local 4,4 for 8 x 8 blocks) would compute wrong results; it stops with
// a message instead.
TEST(OpenCLSuite, DistributedAccumulatorNeedsAWorkItemPerBlock) {
  e2e::CliResult r =
      e2e::run_risec({"run", "examples/mm/mm.rise", "--strategy", "examples/mm/gpu_tiled.elv",
                      "--target", "opencl", "--size", "n=32,m=32,k=8", "--local", "4,4"});
  EXPECT_NE(r.exit_code, 0) << e2e::show(r);
  EXPECT_NE(r.err.find("needs at least 8 work items in dimension"), std::string::npos)
      << e2e::show(r);
}

// gpu_tiled.elv without its zeroing by the work items: the group's sequential code
// writes the whole accumulator, the work items each their own blocks, so every work item
// would keep all of it and update only its blocks. Correct here (the copy-out reads the
// same blocks), but nothing can check that (held-out J: a copy-out reading other
// elements was 100% wrong): refused, saying how to distribute it.
TEST(OpenCLSuite, AccumulatorWrittenByTheGroupAndTheWorkItemsIsRefused) {
  std::string text = gpu_tiled_text();
  size_t from = text.find("  ; (function(argument(idAfter ; idToCopy ;");
  size_t to = text.find("  ; normalize(oclReduceSeq(Private))");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to);
  text.erase(from, to - from);
  std::string strategy = e2e::write_scratch("gpu_tiled_group_zeroes.elv", text);
  e2e::CliResult r = e2e::run_risec({"compile", "examples/mm/mm.rise", "--strategy", strategy,
                                     "--target", "opencl", "--size", "n=64,m=64,k=64"});
  EXPECT_EQ(r.exit_code, 1) << e2e::show(r);
  EXPECT_NE(r.err.find("is written in part by the work items of a mapLocal"), std::string::npos)
      << e2e::show(r);
  EXPECT_NE(r.err.find("mm.rise:"), std::string::npos) << e2e::show(r);
  // the held-out reproducer: a reduction of rows whose result is read reversed
  const std::string reversed = e2e::write_scratch(
      "group_reversed.rise",
      "def f = depFun((n: Nat, k: Nat) => fun(x: n.k.8.f32 =>\n"
      "  x |> map(fun(blk => blk |> reduce(fun(acc => fun(row => zip(acc)(row) |> map(fun(p => "
      "p._1 * 0.5f + p._2)))))(generate(fun(i => 0.0f))) |> reverse |> map(fun(v => v))))))\n");
  e2e::CliResult h = e2e::run_risec(
      {"run", reversed, "--target", "opencl", "--size", "n=4,k=3", "--check", "--strategy",
       "(mapWorkGroup(0) @ outermost(isApplied(isMap))) ; (mapLocal(0) @ "
       "outermost(isApplied(isMap))) ; (mapLocal(0) @ outermost(isApplied(isMap))) ; lowerToC"});
  EXPECT_EQ(h.exit_code, 1) << e2e::show(h);
  EXPECT_NE(h.err.find("is written in part by the work items"), std::string::npos) << e2e::show(h);
}

// A copy-out over other blocks than the step's (rows and columns straight over
// mapLocal(1) x mapLocal(0), 32 x 32 iterations for 8 x 8 work items) would read other
// work items' parts of the accumulator: refused (exit 1), naming the array.
TEST(OpenCLSuite, DistributedAccumulatorReadOverOtherBlocksIsRefused) {
  std::string text = gpu_tiled_text();
  auto replace = [&](const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("(tile(4, 4) @ outermost(copyOut))", "(function(mapLocal(1)) @ outermost(copyOut))");
  replace("overWorkItems(isFullyApplied(isReduceSeq))",
          "(function(argument(body(function(mapLocal(0))))) @ "
          "outermost(isFullyApplied(isPrimitive(mapLocal)) ; "
          "argument(isFullyApplied(isReduceSeq))))");
  std::string strategy = e2e::write_scratch("gpu_tiled_strided_copy.elv", text);
  e2e::CliResult r = e2e::run_risec({"compile", "examples/mm/mm.rise", "--strategy", strategy,
                                     "--target", "opencl", "--size", "n=64,m=64,k=64"});
  EXPECT_EQ(r.exit_code, 1) << e2e::show(r);
  EXPECT_NE(r.err.find("is distributed over the work items"), std::string::npos) << e2e::show(r);
}

// Without the copy-out by mapLocals, every work item would copy the whole accumulator,
// most of it other work items' blocks: refused, located.
TEST(OpenCLSuite, DistributedAccumulatorReadByTheGroupIsRefused) {
  std::string strategy = e2e::write_scratch("gpu_tiled_no_copy.elv", R"(
let computing = isApplied(isMap) ; containsComputation;
let main = DFNF ; (fuseReduceMap @ topDown)
  ; (tile(32, 32) @ outermost(mapNest(2)))
  ; (reduceMapFission @ outermost(isApplied(isApplied(isReduceSeq))))
  ; (splitStrategy(8) @ innermost(isFullyApplied(isReduce)))
  ; reorder([1, 2, 5, 3, 4, 6])
  ; (mapWorkGroup(1) @ outermost(computing)) ; (mapWorkGroup(0) @ outermost(computing))
  ; (tile(4, 4) @ outermost(mapNest(2)))
  ; (mapLocal(1) @ outermost(computing)) ; (mapLocal(0) @ outermost(computing))
  ; normalize(oclReduceSeq(Private)) ; lowerToC;
)");
  try {
    compile_opencl("examples/mm/mm.rise", strategy, "n=64,m=64,k=64");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("private memory shared between work items"), std::string::npos)
        << e.message();
    EXPECT_TRUE(e.span().known());
  }
}

}  // namespace
