// The CUDA target (docs/targets.md): every GPU strategy of the examples, and programs
// with local tiles, private arrays and float4 vectors, compile to .cu files that
// `nvcc -arch=sm_90` compiles with warnings as errors (one batch per core: nvcc
// starts slowly); golden checks of the kernels' shape (threadIdx/blockIdx loops,
// __shared__, __syncthreads() where the OpenCL target puts its barriers) and of the
// host function; `run` without a GPU fails clearly (exit 4). The runs against the
// interpreter need an NVIDIA GPU: without one they are skipped, and say so.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "build_info.h"
#include "driver/commands.h"
#include "e2e_util.h"
#include "runtime/jit.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

using namespace risec;

namespace {

// Why there is no CUDA GPU to run on, or "" when there is one. Asked in a child
// process: a process that initialised CUDA cannot use it in the children it forks
// (as risec run's isolation does).
std::string no_gpu_reason() {
  static const std::string reason = [] {
    pid_t pid = ::fork();
    if (pid == 0) {
      void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!h) ::_exit(2);
      auto init = reinterpret_cast<int (*)(unsigned)>(::dlsym(h, "cuInit"));
      auto cuda_count = reinterpret_cast<int (*)(int*)>(::dlsym(h, "cuDeviceGetCount"));
      int n = 0;
      ::_exit(init && cuda_count && init(0) == 0 && cuda_count(&n) == 0 && n > 0 ? 0 : 3);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
      return std::string("the GPU check could not run");
    switch (WEXITSTATUS(status)) {
      case 0:
        return std::string();
      case 2:
        return std::string("no CUDA driver (libcuda.so.1 cannot be loaded)");
      default:
        return std::string("the CUDA driver finds no GPU");
    }
  }();
  return reason;
}

// The nvcc command, or none (then the tests that need it are skipped, saying so).
std::optional<std::vector<std::string>> nvcc() {
  try {
    return runtime::nvcc_compiler();
  } catch (const Error&) {
    return std::nullopt;
  }
}

driver::Compiled compile(const std::string& file, const std::string& strategy,
                         const std::string& sizes, const std::string& target = "cuda") {
  rise::Program p = driver::load_program(e2e::source_path(file));
  std::optional<elevate::Strategy> s;
  if (!strategy.empty()) s = driver::load_strategy(e2e::source_path(strategy));
  rise::SizeMap known = driver::parse_sizes({sizes});
  driver::CompileRequest req;
  req.program = &p;
  req.sizes = sizes.empty() ? nullptr : &known;
  req.strategy = s ? &*s : nullptr;
  req.target = target;
  return driver::compile(req);
}

// The kernels of a unit: from the first kernel to the host code.
std::string kernels(const driver::Compiled& c) {
  const std::string& s = c.unit.uses_cuda ? c.unit.source : c.unit.kernel_source;
  size_t first = s.find(c.unit.uses_cuda ? "__global__ void " : "__kernel void ");
  size_t end = c.unit.uses_cuda ? s.find("/* The kernels' time") : s.size();
  return first == std::string::npos ? "" : s.substr(first, end - first);
}

size_t cuda_count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Programs beyond the examples: local memory refilled by a sequential loop, a private
// array, float4 memory, scalar memory read as float4, lanes, vector math.
const std::pair<const char*, const char*> kPrograms[] = {
    {"seqlocal", R"(def seqlocal = depFun(n: Nat => fun(x: (n*256).f32 =>
  x |> split(256) |> mapWorkGroup(0)(fun(g => g |> split(64) |> mapSeq(fun(b =>
    oclToMem(Local)(b |> mapLocal(0)(fun(v => v * 2.0f))) |> reverse
      |> mapLocal(0)(fun(v => v + 1.0f)))) |> join)) |> join))
)"},
    {"revpriv", R"(def revpriv = depFun(n: Nat => fun(x: n.4.f32 =>
  x |> mapGlobal(0)(fun(r => oclToMem(Private)(r |> mapSeq(fun(v => v * 2.0f))) |> reverse
    |> mapSeq(fun(v => v + 1.0f))))))
)"},
    {"vscale", R"(def vscale = depFun(n: Nat => fun(x: n.vec[f32, 4] =>
  x |> mapGlobal(0)(fun(v => v * vectorFromScalar(2.0f)))))
)"},
    {"vscale2", R"(def vscale2 = depFun(n: Nat => fun(x: (n*4).f32 =>
  x |> asVector(4) |> mapGlobal(0)(fun(v => v * vectorFromScalar(2.0f))) |> asScalar))
)"},
    {"lanes", R"(def lanes = depFun(n: Nat => fun(x: n.vec[f32, 4] => x |> mapGlobal(0)(fun(v =>
  lane(0)(v) + lane(3)(v) * (v |> lane(2)) - lane(0)(v * vectorFromScalar(2.0f))))))
)"},
    // Indices from data (issue 32): natAsIndex checked in the kernel (the fault
    // variable the host reads back), an input of indices checked on entry.
    {"bounds",
     R"(def bounds = depFun(n: Nat => fun(xs: n.i32 => fun(ixs: n.idx[n] => fun(x: n.f32 =>
  zip(xs)(gather(ixs)(x)) |> mapGlobal(0)(fun(p => idx(natAsIndex(n)(cast(p._1)))(x) - p._2))))))
)"},
    // Pairs holding arrays: a temporary between launches and an input and an output
    // (one buffer per component on the device).
    {"pairtmp", R"(def pairtmp = depFun(n: Nat => fun(x: n.4.f32 =>
  x |> mapGlobal(0)(fun(a => makePair(a |> mapSeq(fun(v => v * 2.0f)))(makePair(a[1])(a[2]))))
    |> oclToMem(Global) |> mapGlobal(0)(fun(w => w._1 |> mapSeq(fun(v => v * w._2._1 - w._2._2))))))
)"},
    {"pairio",
     R"(def pairio = depFun(n: Nat => fun(x: n.(3.i8, (f64, i16)) => fun(y: (n.u8, n.f32) =>
  zip(x)(zip(y._1)(y._2)) |> mapGlobal(0)(fun(p =>
    makePair(p._1._1 |> mapSeq(fun(b => (cast(b): f64) + p._1._2._1 + (cast(p._2._1): f64))))
            (makePair(p._2._2 * 2.0f)(p._1._2._2)))))))
)"},
    // Lanes gathered from a transposed or padded array: a compound literal of the lanes
    // (held-out finding F1: a macro argument on OpenCL; here an inline function's).
    {"vgather", R"(def vgather = depFun(n: Nat => fun(x: 4.n.f32 =>
  x |> transpose |> join |> asVector(4) |> mapGlobal(0)(fun(v => v * vectorFromScalar(2.0f)))
    |> asScalar))
)"},
    {"vpad", R"(def vpad = depFun(n: Nat => fun(x: (4*n).f32 =>
  x |> padClamp(2)(2) |> asVector(4) |> mapGlobal(0)(fun(v => v - vectorFromScalar(1.0f)))
    |> asScalar))
)"},
    {"vexp", R"(def vexp = depFun(n: Nat => fun(x: n.vec[f32, 4] =>
  x |> mapGlobal(0)(fun(v => exp(v) + sqrt(v) - v / vectorFromScalar(3.0f)))))
)"},
    // Integer vectors: / and % by a constant (the operators) and by data (the checked
    // helpers, lane by lane as a.x .. a.w: CUDA's vector structs have no subscript).
    {"vidiv", R"(def vidiv = depFun(n: Nat => fun(x: n.vec[i32, 4] => fun(y: n.vec[i32, 4] =>
  zip(x)(y) |> mapGlobal(0)(fun(p => p._1 % vectorFromScalar(7) + p._1 / vectorFromScalar(3)
    + p._1 % p._2 - p._1 / p._2)))))
)"},
    {"vldiv", R"(def vldiv = depFun(n: Nat => fun(x: n.vec[i64, 2] => fun(y: n.vec[u16, 4] =>
  zip(x)(y) |> mapGlobal(0)(fun(p => makePair(p._1 % vectorFromScalar(5i64) - p._1 / p._1)
    (p._2 % p._2 + p._2 / vectorFromScalar(9u16)))))))
)"},
    // natType values are 64-bit (int64_t) in kernels, inputs and outputs: a signed
    // integer cast to natType (checked in the kernel, risec_nat), a natType input
    // (checked by the host), natType arithmetic past 2^31.
    {"natwide", R"(def natwide = depFun(n: Nat => fun(a: n.i64 => fun(b: n.natType =>
  zip(a)(b) |> mapGlobal(0)(fun(p => (cast(p._1 * 100000000i64) : natType) * natType(3) + p._2
    - p._2 / (p._2 + natType(1)) % natType(9))))))
)"},
};

// Every GPU example (generic in the sizes, or at its test sizes where the strategy
// needs them) and the programs above as .cu files, compiled by nvcc -arch=sm_90 with every warning
// an error, in two batches at once.
TEST(Cuda, EveryGpuProgramCompilesWithNvccWithoutWarnings) {
  // The generated text is the same in both builds; nvcc's time is spent once.
  if (risec::test::sanitized_build())
    GTEST_SKIP() << "the sanitizer build does not compile the CUDA output again: the Release "
                    "suite does";
  auto cc = nvcc();
  if (!cc) GTEST_SKIP() << "nvcc not found (set $NVCC): the CUDA output is not compiled";
  std::vector<std::string> files;
  auto add = [&](const std::string& name, const driver::Compiled& c) {
    files.push_back(e2e::write_scratch("cu_" + name + ".cu", c.unit.source));
  };
  std::vector<e2e::GpuStrategy> gpu = e2e::gpu_strategies();
  ASSERT_GE(gpu.size(), 10u);
  for (const e2e::GpuStrategy& g : gpu) {
    SCOPED_TRACE(g.strategy);
    std::string file = "examples/" + g.example + "/" + g.example + ".rise";
    std::string name = g.example + "_" + g.strategy.substr(g.strategy.rfind('/') + 1);
    name.resize(name.size() - 4);
    // Generic in the sizes (symbolic bounds, 64-bit indices) where the strategy allows.
    try {
      add(name, compile(file, g.strategy, ""));
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::User) << e.message();  // a strategy needing known sizes
      add(name, compile(file, g.strategy, g.sizes));
    }
  }
  for (const auto& [name, text] : kPrograms)
    add(name, compile(e2e::write_scratch(std::string(name) + ".rise", text), "", "n=8"));
  std::vector<runtime::ProcessResult> results(2);
  std::vector<std::thread> jobs;
  for (size_t b = 0; b < results.size(); ++b)
    jobs.emplace_back([&, b] {
      std::vector<std::string> argv = *cc;
      argv.insert(argv.end(),
                  {"-arch=sm_90", "-std=c++17", "-c", "-Werror", "all-warnings", "-Xcompiler",
                   "-Wall,-Wextra,-Werror", "-odir", e2e::scratch_path("")});
      for (size_t i = b; i < files.size(); i += results.size()) argv.push_back(files[i]);
      results[b] = runtime::run_process(argv);
    });
  for (std::thread& j : jobs) j.join();
  for (const runtime::ProcessResult& r : results)
    EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err << r.out;
}

// The shape of each GPU example's kernels is OpenCL's: as many kernels, local arrays
// and barriers, in the same places.
TEST(Cuda, KernelsHaveTheOpenCLTargetsLaunchesSharedMemoryAndBarriers) {
  for (const e2e::GpuStrategy& g : e2e::gpu_strategies()) {
    SCOPED_TRACE(g.strategy);
    std::string file = "examples/" + g.example + "/" + g.example + ".rise";
    std::string cu = kernels(compile(file, g.strategy, g.sizes));
    std::string cl = kernels(compile(file, g.strategy, g.sizes, "opencl"));
    EXPECT_EQ(cuda_count(cu, "__global__ void "), cuda_count(cl, "__kernel void ")) << cu;
    EXPECT_EQ(cuda_count(cu, "__shared__ "), cuda_count(cl, "__local ")) << cu;
    EXPECT_EQ(cuda_count(cu, "__syncthreads();"), cuda_count(cl, "barrier(CLK_LOCAL_MEM_FENCE);"))
        << cu;
    EXPECT_EQ(cuda_count(cu, "threadIdx."),
              cuda_count(cl, "get_global_id(") + cuda_count(cl, "get_local_id("))
        << cu;
    EXPECT_EQ(cuda_count(cu, "blockIdx."),
              cuda_count(cl, "get_global_id(") + cuda_count(cl, "get_group_id("))
        << cu;
  }
}

// mm tiled: A's rows of the block in one __shared__ array, copied by the block's
// threads; __syncthreads() after the copy (the threads then read rows others copied)
// and at the end of the block's iteration, no other; 4 private accumulators.
TEST(Cuda, TiledMMStagesRowsInSharedMemoryBetweenTwoSyncs) {
  std::string k =
      kernels(compile("examples/mm/mm.rise", "examples/mm/opencl_tiled.elv", "n=64,m=64,k=64"));
  EXPECT_EQ(cuda_count(k, "__shared__ __align__(16) float "), 1u) << k;
  EXPECT_EQ(cuda_count(k, "__syncthreads();"), 2u) << k;
  size_t shared = k.find("__shared__");
  size_t groups = k.find("for (int i1 = (int)blockIdx.x; i1 < 8; i1 += (int)gridDim.x) {");
  size_t first_sync = k.find("__syncthreads();");
  size_t compute = k.find("(int)threadIdx.x;");
  EXPECT_LT(shared, groups) << k;
  EXPECT_LT(groups, first_sync) << k;
  EXPECT_LT(first_sync, compute) << "the copy must be complete before the products read it";
  EXPECT_NE(k.find("__syncthreads();\n  }\n}"), std::string::npos) << k;
  EXPECT_TRUE(std::regex_search(k, std::regex(R"(float acc\d+\[4\];)")))
      << k;  // the private register block
}

// GPU mm with register blocking (examples/mm/gpu_tiled.elv, also compiled by nvcc
// above): each thread keeps only its 4 x 4 part of the block's 32 x 32 accumulator in
// a private array (dpia/distribute), A's and B's k-tiles are in two __shared__ arrays,
// and both copies share one __syncthreads(), with one more at the end of the k-tile
// step: two in all. The host launches at least the 8 x 8 threads the accumulator is
// split over (stopping otherwise), as the OpenCL host does.
TEST(Cuda, GpuTiledMMKeepsAPrivateAccumulatorSplitOverTheBlock) {
  driver::Compiled c =
      compile("examples/mm/mm.rise", "examples/mm/gpu_tiled.elv", "n=64,m=64,k=64");
  std::string k = kernels(c);
  size_t acc = k.find("float acc");
  ASSERT_NE(acc, std::string::npos) << k;
  EXPECT_EQ(k.find("[1024];"), std::string::npos) << k;
  EXPECT_EQ(k.find("[16];", acc) + 4, k.find(';', acc)) << k;
  EXPECT_LT(acc, k.find("threadIdx.y")) << "declared at block level";
  EXPECT_EQ(cuda_count(k, "__shared__ __align__(16) float "), 2u) << k;
  EXPECT_EQ(cuda_count(k, "__syncthreads();"), 2u) << k;
  size_t step = k.find("for (int", k.find("] = 0.0f;"));
  ASSERT_NE(step, std::string::npos) << k;
  size_t first = k.find("__syncthreads();", step);
  EXPECT_LT(k.find("= B[", step), first) << "both copies before the first sync\n" << k;
  size_t second = k.find("__syncthreads();", first + 1);
  ASSERT_NE(second, std::string::npos) << k;
  EXPECT_EQ(k.find_first_not_of(" \n", second + 16), k.find('}', second)) << "one ends the step\n"
                                                                          << k;
  const std::string& host = c.unit.source;
  EXPECT_NE(host.find("need[3] = {(size_t)(8), (size_t)(8), 0}"), std::string::npos) << host;
  EXPECT_NE(host.find("needs at least %lu work items"), std::string::npos) << host;
}

// Symbolic sizes: each kernel twice, with `int` index arithmetic (64-bit integers are
// emulated on NVIDIA GPUs) and with int64_t (NAME_kK_i64); the host runs the 32-bit
// one when every quantity over the sizes (lengths, element counts, trip counts) is
// below 2^31. Known sizes below 2^31 give only the `int` kernel.
TEST(Cuda, KernelsIndexWithIntWhereTheHostFindsTheSizesFit) {
  driver::Compiled c = compile("examples/mm/mm.rise", "examples/mm/gpu_tiled.elv", "");
  std::string k = kernels(c);
  size_t wide = k.find("__global__ void mm_k0_i64(");
  ASSERT_NE(wide, std::string::npos) << k;
  std::string narrow = k.substr(0, wide);
  EXPECT_NE(narrow.find("__global__ void mm_k0(float* __restrict__ output, const float* "
                        "__restrict__ A, const float* __restrict__ B, int n, int m, int k)"),
            std::string::npos)
      << narrow;
  EXPECT_EQ(narrow.find("int64_t"), std::string::npos) << narrow;
  EXPECT_TRUE(std::regex_search(
      narrow,
      std::regex(
          R"(for \(int (i\d+) = \(int\)blockIdx\.y; \1 < n/32; \1 \+= \(int\)gridDim\.y\))")))
      << narrow;
  EXPECT_GE(cuda_count(narrow, "for (int "), 10u) << narrow;
  std::string wide_text = k.substr(wide);
  EXPECT_EQ(cuda_count(wide_text, "for (int "), 0u) << wide_text;
  EXPECT_EQ(cuda_count(wide_text, "for (int64_t "), cuda_count(narrow, "for (int ")) << wide_text;
  // The host: the sizes and the arrays' element counts checked, then the choice.
  const std::string& host = c.unit.source;
  for (const char* bound :
       {"risec_fits_int(n)", "risec_fits_int(m*n)", "risec_fits_int(k*n)", "risec_fits_int(k*m)"})
    EXPECT_NE(host.find(std::string("risec_narrow = risec_narrow && ") + bound), std::string::npos)
        << bound << "\n"
        << host;
  EXPECT_NE(host.find("if (risec_narrow) {\n    if (risec_block[0].x == 8 && risec_block[0].y == 8 "
                      "&& risec_block[0].z == 1)\n      mm_k0<8, 8, 1><<<"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("} else {\n    if (risec_block[0].x == 8 && risec_block[0].y == 8 && "
                      "risec_block[0].z == 1)\n      mm_k0_i64<8, 8, 1><<<"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("risec_shape((risec_narrow ? (const void*)(mm_k0<0, 0, 0>) : (const "
                      "void*)(mm_k0_i64<0, 0, 0>))"),
            std::string::npos)
      << host;
  // Known sizes: one kernel, int.
  std::string known =
      kernels(compile("examples/mm/mm.rise", "examples/mm/gpu_tiled.elv", "n=64,m=64,k=64"));
  EXPECT_EQ(known.find("_i64"), std::string::npos) << known;
  EXPECT_EQ(known.find("int64_t"), std::string::npos) << known;
}

// examples/mm/cuda_tiled.elv: 256 threads, 8 x 8 accumulators each, both k-tiles
// (16 x 128) in shared memory as [k][128], so that a thread's reads of one k are 8
// consecutive floats of each (nvcc loads them as float4), A's copy transposing it.
TEST(Cuda, CudaTiledMMKeepsBothTilesAsRowsOfK) {
  driver::Compiled c =
      compile("examples/mm/mm.rise", "examples/mm/cuda_tiled.elv", "n=256,m=128,k=64");
  std::string k = kernels(c);
  EXPECT_EQ(cuda_count(k, "__shared__ __align__(16) float "), 2u) << k;
  EXPECT_EQ(cuda_count(k, "[2048];"), 2u) << k;
  EXPECT_TRUE(std::regex_search(k, std::regex(R"(float acc\d+\[64\];)"))) << k;
  EXPECT_EQ(cuda_count(k, "__syncthreads();"), 2u) << k;
  // The copies: B's rows and A's columns of the tile as rows of 128 floats in shared memory.
  std::regex copy_b(R"(mem__\w+\[128\*i\d+ \+ i\d+\] = B\[)");
  std::regex copy_a(R"(mem__\w+\[128\*i\d+ \+ i\d+\] = A\[)");
  EXPECT_TRUE(std::regex_search(k, copy_b)) << k;
  EXPECT_TRUE(std::regex_search(k, copy_a)) << k;
  // The products read row i31 (the k in the tile) of both at 8 * the thread's index.
  std::regex product(
      R"(acc\d+\[63\] = acc\d+\[63\] \+ mem__\w+\[8\*i\d+ \+ 128\*i\d+ \+ 7\] \* mem__\w+\[8\*i\d+ \+ 128\*i\d+ \+ 7\];)");
  EXPECT_TRUE(std::regex_search(k, product)) << k;
  EXPECT_NE(c.unit.source.find("need[3] = {(size_t)(16), (size_t)(16), 0}"), std::string::npos);
  // The block size is the program's (16 x 16): the kernel is a template over it, whose
  // instance for 16 x 16 strides by constants and unrolls the copies (8 iterations).
  EXPECT_NE(c.unit.source.find(
                "template <int RISEC_BX, int RISEC_BY, int RISEC_BZ>\n__global__ void mm_k0("),
            std::string::npos);
  EXPECT_TRUE(std::regex_search(
      k,
      std::regex(
          R"(#pragma unroll\n +for \(int (i\d+) = \(int\)risec_thread<RISEC_BX>\(threadIdx\.x\); )"
          R"(\1 < 128; \1 \+= \(int\)\(RISEC_BX > 0 \? RISEC_BX : \(int\)blockDim\.x\)\))")))
      << k;
  EXPECT_NE(c.unit.source.find("if (risec_block[0].x == 16 && risec_block[0].y == 16 && "
                               "risec_block[0].z == 1)\n    mm_k0<16, 16, 1><<<"),
            std::string::npos)
      << c.unit.source;
  EXPECT_NE(c.unit.source.find("else\n    mm_k0<0, 0, 0><<<"), std::string::npos);
}

// Shared memory beyond CUDA's 48 KiB of static shared memory (opencl_tiled.elv's rows
// of A at k = 4096: 128 KiB) is dynamic: parts of one extern __shared__ buffer, the
// kernel's limit raised to it and the size given at the launch; the host stops with
// a message naming the kernel and the arrays when the device allows less. Smaller
// tiles stay static.
TEST(Cuda, SharedMemoryBeyond48KiBIsDynamic) {
  driver::Compiled c =
      compile("examples/mm/mm.rise", "examples/mm/opencl_tiled.elv", "n=4096,m=4096,k=4096");
  std::string k = kernels(c);
  EXPECT_EQ(k.find("__shared__ __align__(16) float "), std::string::npos) << k;
  EXPECT_NE(k.find("extern __shared__ __align__(16) unsigned char risec_shared[];"),
            std::string::npos)
      << k;
  std::regex part(R"(float\* const (\w+) = \(float\*\)\(risec_shared \+ 0\);)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(k, m, part)) << k;
  const std::string& host = c.unit.source;
  std::string bytes = "(size_t)(0 + (sizeof(float) * 32768 + 15) / 16 * 16)";
  for (const char* instance : {"mm_k0<32, 8, 1>", "mm_k0<0, 0, 0>"}) {
    EXPECT_NE(host.find("RISEC_CUDA(cudaFuncSetAttribute((const void*)(" + std::string(instance) +
                        "), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(" + bytes + ")));"),
              std::string::npos)
        << instance << "\n"
        << host;
    EXPECT_NE(
        host.find(std::string(instance) + "<<<risec_grid[0], risec_block[0], " + bytes + ">>>("),
        std::string::npos)
        << instance << "\n"
        << host;
  }
  EXPECT_NE(host.find("risec_shared_bytes(\"mm_k0\", \"" + m[1].str() + "[32768]\", " + bytes),
            std::string::npos)
      << host;
  std::string small =
      kernels(compile("examples/mm/mm.rise", "examples/mm/opencl_tiled.elv", "n=64,m=64,k=64"));
  EXPECT_EQ(small.find("extern __shared__"), std::string::npos) << small;
  auto cc = nvcc();
  if (!cc) GTEST_SKIP() << "nvcc not found (set $NVCC): the dynamic shared memory is not compiled";
  std::string cu = e2e::write_scratch("dynshared.cu", host);
  std::vector<std::string> argv = *cc;
  argv.insert(argv.end(),
              {"-arch=sm_90", "-std=c++17", "-c", "-Werror", "all-warnings", "-Xcompiler",
               "-Wall,-Wextra,-Werror", "-o", e2e::scratch_path("dynshared.o"), cu});
  runtime::ProcessResult r = runtime::run_process(argv);
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err << r.out;
}

// Shared memory refilled by a sequential loop the whole block runs: __syncthreads()
// after the writing threadIdx loop and at the end of the loop body (the next
// iteration overwrites what was just read), as OpenCL's barriers.
TEST(Cuda, SequentialLoopsOverSharedMemoryEndWithASync) {
  std::string file = e2e::write_scratch("seqlocal.rise", kPrograms[0].second);
  std::string k = kernels(compile(file, "", "n=5"));
  EXPECT_EQ(cuda_count(k, "__shared__ __align__(16) float "), 1u) << k;
  EXPECT_EQ(cuda_count(k, "__syncthreads();"), 2u) << k;
  size_t seq = k.find("i2 < 4; i2 += 1) {");
  ASSERT_NE(seq, std::string::npos) << k;
  size_t write = k.find("threadIdx.x", seq);
  size_t first = k.find("__syncthreads();", seq);
  size_t read = k.find("threadIdx.x", write + 1);
  EXPECT_LT(write, first) << k;
  EXPECT_LT(first, read) << k;
  EXPECT_NE(k.find("__syncthreads();\n    }\n  }\n}"), std::string::npos) << k;
}

// Global maps are strided over the whole grid; 2-D launches use y for dimension 1.
TEST(Cuda, GlobalMapsStrideOverTheGridInEachDimension) {
  std::string k =
      kernels(compile("examples/conv2d/conv2d.rise", "examples/conv2d/opencl.elv", "n=32,m=32"));
  EXPECT_NE(k.find("(int)(blockIdx.y * blockDim.y + threadIdx.y); "), std::string::npos) << k;
  EXPECT_NE(k.find("+= (int)(gridDim.y * blockDim.y)"), std::string::npos) << k;
  EXPECT_NE(k.find("(int)(blockIdx.x * blockDim.x + threadIdx.x); "), std::string::npos) << k;
  // Row blocks: blocks over rows, threads over the rows of a block; nothing shared.
  k = kernels(compile("examples/gemv/gemv.rise", "examples/gemv/opencl.elv", "n=128,m=32"));
  EXPECT_EQ(cuda_count(k, "(int)blockIdx.x;"), 1u) << k;
  EXPECT_EQ(cuda_count(k, "(int)risec_thread<RISEC_BX>(threadIdx.x);"), 1u) << k;
  EXPECT_EQ(cuda_count(k, "__syncthreads"), 0u) << k;
  // atax: two launches in sequence.
  k = kernels(compile("examples/atax/atax.rise", "examples/atax/opencl.elv", "m=128,n=64"));
  EXPECT_NE(k.find("__global__ void atax_k0("), std::string::npos) << k;
  EXPECT_NE(k.find("__global__ void atax_k1("), std::string::npos) << k;
}

// vec[f32, 4] is float4: typed pointers where the memory holds vectors, float4_load /
// float4_store over scalar memory, lane-wise math.
TEST(Cuda, VectorsAreFloat4) {
  auto by_name = [](const char* want) {
    for (const auto& [name, text] : kPrograms)
      if (std::string(name) == want)
        return compile(e2e::write_scratch(std::string(name) + ".rise", text), "", "n=8");
    return driver::Compiled{};
  };
  driver::Compiled typed = by_name("vscale");
  // CUDA's header of the vector types, after the header's comment and `#pragma once`.
  const std::string& h = typed.unit.header;
  EXPECT_EQ(h.rfind("/* Generated by risec", 0), 0u) << h;
  ASSERT_NE(h.find("#include <vector_types.h>\n"), std::string::npos) << h;
  EXPECT_LT(h.find("#pragma once\n"), h.find("#include <vector_types.h>\n")) << h;
  std::string k = kernels(typed);
  EXPECT_NE(k.find("const float4* __restrict__ x"), std::string::npos) << k;
  EXPECT_NE(k.find("float4* __restrict__ output"), std::string::npos) << k;
  driver::Compiled scalar = by_name("vscale2");
  k = kernels(scalar);
  EXPECT_NE(k.find("const float* __restrict__ x"), std::string::npos) << k;
  EXPECT_NE(k.find("float4_load("), std::string::npos) << k;
  EXPECT_NE(k.find("float4_store("), std::string::npos) << k;
  EXPECT_NE(scalar.unit.source.find("inline __device__ float4 operator*(float4 a, float4 b)"),
            std::string::npos);
  driver::Compiled math = by_name("vexp");
  EXPECT_NE(math.unit.source.find(
                "float4 float4_exp(float4 a0) { return make_float4(expf(a0.x), expf(a0.y), "
                "expf(a0.z), expf(a0.w)); }"),
            std::string::npos)
      << math.unit.source;
  // CUDA's vector types have at most 4 lanes: refused at the primitive.
  std::string wide =
      e2e::write_scratch("wide8.rise", R"(def wide8 = depFun(n: Nat => fun(x: (n*8).f32 =>
  x |> asVector(8) |> mapGlobal(0)(fun(v => v + vectorFromScalar(1.0f))) |> asScalar))
)");
  e2e::CliResult r = e2e::run_risec({"compile", wide, "--target", "cuda"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("wide8.rise:2:77: error: asScalar: a vector of 8 lanes cannot be compiled "
                       "for CUDA"),
            std::string::npos)
      << r.err;
}

// The host function: the C target's signature, extern "C"; every CUDA runtime call's
// status checked (but in the release and the clean-up after a reported failure);
// kernels launched with <<<grid, block>>> and their errors read.
TEST(Cuda, HostFunctionHasTheCSignatureAndChecksEveryCall) {
  driver::Compiled cu = compile("examples/atax/atax.rise", "examples/atax/opencl.elv", "");
  driver::Compiled c = compile("examples/atax/atax.rise", "", "", "c");
  size_t at = c.unit.source.find("\nvoid atax(");
  ASSERT_NE(at, std::string::npos) << c.unit.source;
  std::string sig = c.unit.source.substr(at + 1, c.unit.source.find(" {", at) - at - 1);
  EXPECT_NE(cu.unit.source.find("extern \"C\" " + sig + " {"), std::string::npos) << sig << "\n"
                                                                                  << cu.unit.source;
  std::string host = cu.unit.source.substr(cu.unit.source.find("extern \"C\" " + sig));
  // The release of the kept buffers is the exception: it may run as the process ends,
  // after the CUDA runtime has shut down, so it ignores cudaFree's status.
  const size_t release = host.find("void atax__risec_release(void) {");
  ASSERT_NE(release, std::string::npos) << host;
  EXPECT_EQ(cuda_count(host.substr(release), "(void)cudaFree(risec_b_"), 4u);  // A, x, tmp1, output
  host = host.substr(0, release);
  // So is the clean-up after a failure the host has reported (in-process code returns
  // from there): its calls may fail again.
  const size_t failed = host.find("\nrisec_failed:\n");
  ASSERT_NE(failed, std::string::npos) << host;
  EXPECT_EQ(cuda_count(host.substr(failed), "(void)cudaEventDestroy(risec_"), 2u);
  EXPECT_EQ(cuda_count(host.substr(failed), "(void)cudaDeviceSynchronize()"), 1u);
  host = host.substr(0, failed);
  std::regex call(R"(\bcuda[A-Z]\w*\()");
  size_t calls = 0;
  std::istringstream lines(host);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, call)) {
      ++calls;
      EXPECT_NE(line.find("RISEC_CUDA("), std::string::npos) << line;
    }
  EXPECT_GE(calls, 10u);
  // Two launches, each of a 32-bit kernel or its int64_t twin (symbolic sizes), the
  // first (work groups of 64) also of the instance for its fixed block size or any.
  EXPECT_EQ(cuda_count(host, "<<<risec_grid["), 6u);
  EXPECT_EQ(cuda_count(host, "if (risec_narrow)"), 2u);
  EXPECT_EQ(cuda_count(host, "RISEC_CUDA(cudaGetLastError());"), 2u);
  EXPECT_NE(host.find("cudaEventElapsedTime"), std::string::npos);
  // compile -o writes OUT.cu and OUT.h.
  std::string out = e2e::scratch_path("atax_cli");
  e2e::CliResult r =
      e2e::run_risec({"compile", "examples/atax/atax.rise", "--strategy",
                      "examples/atax/opencl.elv", "--target", "cuda", "-o", out + ".cu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::ifstream(out + ".cu").good());
  EXPECT_TRUE(std::ifstream(out + ".h").good());
  EXPECT_FALSE(std::ifstream(out + ".c").good());
}

// Without a GPU, run fails with a clear message and exit 4 (an external tool), never a
// crash; so does a missing nvcc.
TEST(Cuda, RunWithoutAGpuOrNvccFailsClearly) {
  std::vector<std::string> args = {"run",        "examples/scal/scal.rise",
                                   "--strategy", "examples/scal/global.elv",
                                   "--target",   "cuda",
                                   "--size",     "n=64"};
  e2e::CliResult r = e2e::run_risec(args, {"NVCC=/nonexistent/nvcc"});
  EXPECT_EQ(r.exit_code, 4) << e2e::show(r);
  EXPECT_NE(r.err.find("$NVCC names '/nonexistent/nvcc', which is not an executable"),
            std::string::npos)
      << r.err;
  if (!nvcc()) GTEST_SKIP() << "nvcc not found: the run without a GPU is not tested";
  if (no_gpu_reason().empty())
    GTEST_SKIP() << "a CUDA GPU is present: the message for a machine without one is not tested";
  r = e2e::run_risec(args);
  EXPECT_EQ(r.exit_code, 4) << e2e::show(r);
  EXPECT_NE(r.err.find("no CUDA GPU: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the CUDA target needs an NVIDIA GPU"), std::string::npos) << r.err;
}

// The address-space and nesting rules are OpenCL's, located the same way; names C++
// or CUDA reserve are renamed.
TEST(Cuda, ProgramsTheHardwareCannotRunAreRefusedAsForOpenCL) {
  std::string nest = e2e::write_scratch("cunest.rise", R"(def cunest = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 => x |> mapGlobal(0)(fun(r => r |> mapGlobal(0)(fun(v => v + 1.0f))))))
)");
  std::string local = e2e::write_scratch("culocal.rise", R"(def culocal = depFun(n: Nat =>
  fun(x: n.f32 => x |> mapLocal(0)(fun(v => v + 1.0f))))
)");
  for (const std::string& file : {nest, local}) {
    e2e::CliResult cl = e2e::run_risec({"compile", file, "--target", "opencl"});
    e2e::CliResult cu = e2e::run_risec({"compile", file, "--target", "cuda"});
    EXPECT_EQ(cl.exit_code, 1) << cl.err;
    EXPECT_EQ(cu.exit_code, 1) << cu.err;
    EXPECT_EQ(cu.err, cl.err);
  }
  std::string names = e2e::write_scratch("cunames.rise", R"(def cunames = depFun(n: Nat =>
  fun(new: n.f32 => fun(threadIdx: n.f32 =>
    zip(new)(threadIdx) |> mapGlobal(0)(fun(p => p._1 + p._2)))))
)");
  auto cc = nvcc();
  driver::Compiled c = compile(names, "", "n=8");
  EXPECT_NE(c.unit.source.find("const float* __restrict__ risec_u_new"), std::string::npos)
      << c.unit.source;
  if (!cc) GTEST_SKIP() << "nvcc not found: the renamed program is not compiled";
  std::string cu = e2e::write_scratch("cunames.cu", c.unit.source);
  std::vector<std::string> argv = *cc;
  argv.insert(argv.end(), {"-arch=sm_90", "-c", "-Werror", "all-warnings", "-o",
                           e2e::scratch_path("cunames.o"), cu});
  runtime::ProcessResult r = runtime::run_process(argv);
  EXPECT_TRUE(r.ok()) << r.err << r.out;
}

// On a GPU: every GPU example matches the interpreter, and so do the programs above.
TEST(Cuda, GpuExamplesMatchTheInterpreter) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found: the CUDA runs are not tested";
  std::string why = no_gpu_reason();
  if (!why.empty()) GTEST_SKIP() << "no CUDA GPU (" << why << "): the CUDA runs are not tested";
  for (const e2e::GpuStrategy& g : e2e::gpu_strategies()) {
    SCOPED_TRACE(g.strategy);
    EXPECT_TRUE(e2e::compile_and_check("examples/" + g.example + "/" + g.example + ".rise",
                                       g.strategy, g.sizes, "cuda"));
  }
  for (const auto& [name, text] : kPrograms)
    EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch(std::string(name) + ".rise", text), "",
                                       "n=9", "cuda"));
}

// On a GPU: --global/--local override the launch (the loops are strided, so any size
// is correct), and run names the device and reports the kernels' time.
TEST(Cuda, LaunchSizesCanBeOverriddenOnAGpu) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found: the CUDA runs are not tested";
  std::string why = no_gpu_reason();
  if (!why.empty()) GTEST_SKIP() << "no CUDA GPU (" << why << "): the CUDA runs are not tested";
  e2e::CliResult r =
      e2e::run_risec({"run", "examples/gemv/gemv.rise", "--strategy", "examples/gemv/opencl.elv",
                      "--target", "cuda", "--size", "n=4096,m=4096", "--check", "--repeat", "2",
                      "--global", "96", "--local", "32"});
  EXPECT_EQ(r.exit_code, 0) << e2e::show(r);
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cuda: device "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel time"), std::string::npos) << r.out;
}

}  // namespace
