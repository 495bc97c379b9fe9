// The OpenCL target (docs/targets.md): golden checks on the generated kernels
// (barriers exactly where work items read local memory another wrote, __local and
// private declarations where the program chose them, float4 where it says vec[f32, 4],
// strided loops, one kernel per top-level launch), runs on PoCL checked against the
// interpreter, the command line (compile -o writing OUT.cl, run printing the device,
// --global/--local), and the refusals (a GPU primitive given to the C target).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "driver/commands.h"
#include "e2e_util.h"
#include "runtime/process.h"
#include "support/diagnostics.h"

using namespace risec;

namespace {

// Blocks of 64 doubled into local memory by the work items of a group, then written
// out reversed: each work item reads what another one wrote.
const char* kReverseLocal = R"(def revblocks = depFun(n: Nat => fun(x: (n*64).f32 =>
  x |> split(64) |> mapWorkGroup(0)(fun(b =>
    oclToMem(Local)(b |> mapLocal(0)(fun(v => v * 2.0f))) |> reverse
      |> mapLocal(0)(fun(v => v + 1.0f))))
  |> join))
)";

// A private array per work item, reversed.
const char* kReversePrivate = R"(def revpriv = depFun(n: Nat => fun(x: (n*4).f32 =>
  x |> split(4) |> mapGlobal(0)(fun(b =>
    oclToMem(Private)(b |> mapSeq(fun(v => v * 3.0f))) |> reverse
      |> mapSeq(fun(v => v - 1.0f))))
  |> join))
)";

// Vectors in the interface: typed float4 pointers.
const char* kVectorTyped = R"(def vscale = depFun(n: Nat => fun(x: n.vec[f32, 4] =>
  x |> mapGlobal(0)(fun(v => v * vectorFromScalar(2.0f)))))
)";

// Vectors over a scalar array: vload4/vstore4.
const char* kVectorScalar = R"(def vscale2 = depFun(n: Nat => fun(x: (n*4).f32 =>
  x |> asVector(4) |> mapGlobal(0)(fun(v => v * vectorFromScalar(2.0f))) |> asScalar))
)";

// `file` (a path) compiled for OpenCL with `strategy` (an .elv path, or none).
driver::Compiled compile_file(const std::string& file, const std::string& strategy = "") {
  rise::Program p = driver::load_program(e2e::source_path(file));
  std::optional<elevate::Strategy> s;
  if (!strategy.empty()) s = driver::load_strategy(e2e::source_path(strategy));
  driver::CompileRequest req;
  req.program = &p;
  req.strategy = s ? &*s : nullptr;
  req.target = "opencl";
  return driver::compile(req);
}

driver::Compiled compile_text(const std::string& name, const std::string& text) {
  return compile_file(e2e::write_scratch(name + ".rise", text));
}

size_t opencl_count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The text of kernel `name` in the unit's kernel source.
std::string kernel(const driver::Compiled& c, const std::string& name) {
  const std::string& s = c.unit.kernel_source;
  size_t at = s.find("__kernel void " + name + "(");
  if (at == std::string::npos) return "";
  size_t end = s.find("\n}\n", at);
  return s.substr(at, end - at + 3);
}

TEST(OpenCL, LocalMemoryIsDeclaredPerGroupWithABarrierAfterTheWritingMapLocal) {
  driver::Compiled c = compile_text("revblocks", kReverseLocal);
  std::string k = kernel(c, "revblocks_k0");
  ASSERT_FALSE(k.empty()) << c.unit.kernel_source;
  // Declared once, at kernel scope, before the work-group loop.
  EXPECT_EQ(opencl_count(k, "__local float"), 1u) << k;
  EXPECT_LT(k.find("__local float"), k.find("get_group_id(0)")) << k;
  // The writing mapLocal is followed by a barrier before the reading one; the
  // work-group body ends with one (its next iteration overwrites the local array).
  // The second mapLocal writes only global memory: no barrier of its own.
  size_t first = k.find("get_local_id(0)");
  size_t second = k.find("get_local_id(0)", first + 1);
  ASSERT_NE(second, std::string::npos) << k;
  size_t barrier = k.find("barrier(CLK_LOCAL_MEM_FENCE)", first);
  EXPECT_LT(barrier, second) << k;
  EXPECT_EQ(opencl_count(k, "barrier("), 2u) << k;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("revblocks.rise", kReverseLocal), "", "n=5",
                                     "opencl"));
  // More work groups than the launch has, and groups smaller than the block: the
  // strided loops still cover everything.
  e2e::CliResult r =
      e2e::run_risec({"run", e2e::scratch_path("revblocks.rise"), "--target", "opencl", "--size",
                      "n=9", "--check", "--global", "16", "--local", "8"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
}

// Local memory refilled by a sequential loop the whole group runs (as over the tiles
// of a tiled matrix multiplication): a barrier after the write, and one ending the
// loop body, since the next iteration overwrites what was just read; unrolled, the
// barrier before each copy's write does that.
const char* kSequentialLocal = R"(def seqlocal = depFun(n: Nat => fun(x: (n*256).f32 =>
  x |> split(256) |> mapWorkGroup(0)(fun(g => g |> split(64) |> mapSeq(fun(b =>
    oclToMem(Local)(b |> mapLocal(0)(fun(v => v * 2.0f))) |> reverse
      |> mapLocal(0)(fun(v => v + 1.0f)))) |> join)) |> join))
)";

TEST(OpenCL, BarriersGuardLocalMemoryAcrossSequentialIterations) {
  driver::Compiled c = compile_text("seqlocal", kSequentialLocal);
  std::string k = kernel(c, "seqlocal_k0");
  ASSERT_FALSE(k.empty()) << c.unit.kernel_source;
  EXPECT_EQ(opencl_count(k, "__local float"), 1u) << k;
  EXPECT_EQ(opencl_count(k, "barrier("), 2u) << k;
  // Both inside the sequential loop: after the writing mapLocal, and at its end.
  size_t seq = k.find("i2 < 4; i2 += 1) {");
  ASSERT_NE(seq, std::string::npos) << k;
  size_t write = k.find("get_local_id(0)", seq);
  size_t read = k.find("get_local_id(0)", write + 1);
  size_t first = k.find("barrier(", seq);
  size_t second = k.find("barrier(", first + 1);
  EXPECT_LT(write, first) << k;
  EXPECT_LT(first, read) << k;
  EXPECT_LT(read, second) << k;
  EXPECT_NE(k.find("barrier(CLK_LOCAL_MEM_FENCE);\n    }\n  }\n}"), std::string::npos) << k;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("seqlocal.rise", kSequentialLocal), "",
                                     "n=5", "opencl"));
  std::string unrolled = kSequentialLocal;
  unrolled.replace(unrolled.find("mapSeq"), 6, "mapSeqUnroll");
  driver::Compiled u = compile_text("seqlocal_unrolled", unrolled);
  EXPECT_EQ(opencl_count(kernel(u, "seqlocal_k0"), "barrier("), 8u) << u.unit.kernel_source;
  EXPECT_EQ(opencl_count(kernel(u, "seqlocal_k0"), "__local float"), 1u) << u.unit.kernel_source;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("seqlocal_unrolled.rise", unrolled), "",
                                     "n=5", "opencl"));
}

// The paper's Listing 4: work groups over blocks of rows, a work item per row, the
// dot product's accumulator private; nothing is shared, so no barrier.
TEST(OpenCL, Listing4HasWorkGroupAndLocalLoopsAndNoBarrier) {
  driver::Compiled c = compile_file("examples/mv/mv.rise", "examples/mv/listing4.elv");
  std::string k = kernel(c, "mv_k0");
  ASSERT_FALSE(k.empty()) << c.unit.kernel_source;
  EXPECT_EQ(opencl_count(c.unit.kernel_source, "__kernel void"), 1u);
  EXPECT_NE(k.find("= (int64_t)get_group_id(0); i1 < n/64; i1 += (int64_t)get_num_groups(0))"),
            std::string::npos)
      << k;
  EXPECT_NE(k.find("= (int64_t)get_local_id(0); i2 < 64; i2 += (int64_t)get_local_size(0))"),
            std::string::npos)
      << k;
  EXPECT_EQ(opencl_count(k, "barrier("), 0u) << k;
  EXPECT_EQ(opencl_count(k, "__local"), 0u) << k;
  // The issue's acceptance run.
  e2e::CliResult r =
      e2e::run_risec({"run", "examples/mv/mv.rise", "--strategy", "examples/mv/listing4.elv",
                      "--target", "opencl", "--size", "n=4096,m=4096", "--check", "--repeat", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("check: passed (4096 elements"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("opencl: platform "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs, kernel time)"), std::string::npos) << r.out;
}

// Several top-level launches run in sequence; the chunk sums live in a global
// buffer between them; the sequential rest is a kernel of one work item.
TEST(OpenCL, SeveralLaunchesInSequence) {
  driver::Compiled c = compile_file("examples/dot/dot.rise", "examples/dot/global_chunks.elv");
  EXPECT_EQ(opencl_count(c.unit.kernel_source, "__kernel void"), 2u) << c.unit.kernel_source;
  EXPECT_NE(kernel(c, "dot_k0").find("get_global_id(0)"), std::string::npos);
  std::string k1 = kernel(c, "dot_k1");
  EXPECT_EQ(opencl_count(k1, "get_global_id"), 0u) << k1;
  // The host creates the buffer between the launches and launches both.
  EXPECT_EQ(opencl_count(c.unit.source, "risec_launch(risec_kernels["), 2u);
  // Output, x, y, the chunk sums: each kept between calls (risec_buffer allocates, 0 bytes too).
  EXPECT_EQ(opencl_count(c.unit.source, "risec_buffer(&risec_b_"), 4u);
  EXPECT_EQ(opencl_count(c.unit.source, "clReleaseMemObject(risec_b_"), 4u);  // the release
  EXPECT_TRUE(e2e::compile_and_check("examples/dot/dot.rise", "examples/dot/global_chunks.elv",
                                     "n=4096", "opencl"));
  // Generic in n, linked into a standalone program that gets n on its command line.
  e2e::CheckOptions o;
  o.target = "opencl";
  o.generic = true;
  EXPECT_TRUE(e2e::compile_and_check("examples/dot/dot.rise", "examples/dot/global_chunks.elv",
                                     "n=4096", o));
}

// A temporary too large for a work item's private memory (here of symbolic size)
// between sequential parts is a global buffer the host creates, not a refusal. Both
// parts run in one work item: consecutive one-work-item launches are one kernel.
TEST(OpenCL, LargeSequentialTemporariesAreGlobalBuffers) {
  const char* text = R"(def seqbig = depFun(n: Nat => fun(x: n.f32 =>
  toMem(x |> mapSeq(fun(v => v * 2.0f))) |> reverse |> mapSeq(fun(v => v + 1.0f))))
)";
  driver::Compiled c = compile_text("seqbig", text);
  EXPECT_EQ(opencl_count(c.unit.kernel_source, "__kernel void"), 1u) << c.unit.kernel_source;
  EXPECT_NE(kernel(c, "seqbig_k0").find("__global float* restrict tmp"), std::string::npos)
      << c.unit.kernel_source;
  EXPECT_TRUE(
      e2e::compile_and_check(e2e::write_scratch("seqbig.rise", text), "", "n=5000", "opencl"));
}

TEST(OpenCL, CompileWritesKernelsHostAndHeader) {
  std::string out = e2e::scratch_path("scal_ocl");
  e2e::CliResult r =
      e2e::run_risec({"compile", "examples/scal/scal.rise", "--strategy",
                      "examples/scal/global.elv", "--target", "opencl", "-o", out + ".c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string cl = read(out + ".cl"), host = read(out + ".c"), h = read(out + ".h");
  EXPECT_NE(cl.find("__kernel void scal_k0("), std::string::npos) << cl;
  EXPECT_NE(cl.find("get_global_id(0)"), std::string::npos) << cl;
  // The host has the C target's signature and embeds the kernels.
  EXPECT_NE(host.find("void scal(float* restrict output, int64_t n, const float* restrict alpha, "
                      "const float* restrict x)"),
            std::string::npos)
      << host;
  EXPECT_NE(host.find("\"__kernel void scal_k0("), std::string::npos);
  EXPECT_NE(host.find("clEnqueueNDRangeKernel"), std::string::npos);
  EXPECT_NE(h.find("void scal(float* restrict output, int64_t n"), std::string::npos) << h;
}

// A GPU primitive given to the C target: located, exit 1.
TEST(OpenCL, GpuPrimitiveForTheCTargetIsRefused) {
  std::string path = e2e::write_scratch("revblocks_c.rise", kReverseLocal);
  for (const char* target : {"c", "openmp"}) {
    e2e::CliResult r = e2e::run_risec({"compile", path, "--target", target});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("revblocks_c.rise:2:21: error: mapWorkGroup needs an OpenCL or CUDA "
                         "target; the " +
                         std::string(target) + " target cannot run it"),
              std::string::npos)
        << r.err;
  }
  e2e::CliResult r = e2e::run_risec({"run", "examples/scal/scal.rise", "--strategy",
                                     "examples/scal/global.elv", "--size", "n=8"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("mapGlobal needs an OpenCL or CUDA target"), std::string::npos) << r.err;
  // --global is an OpenCL option, of up to three positive sizes.
  r = e2e::run_risec({"run", "examples/scal/scal.rise", "--size", "n=8", "--global", "4"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const char* bad : {"0", "4,", ",4", "4,,4", "1,2,3,4", "x", "-4", "4.5"}) {
    r = e2e::run_risec({"run", "examples/scal/scal.rise", "--strategy", "examples/scal/global.elv",
                        "--target", "opencl", "--size", "n=8", "--local", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--local expects up to three positive sizes"), std::string::npos) << r.err;
  }
  // A size past 9 digits is too large, not "not positive".
  r = e2e::run_risec({"run", "examples/scal/scal.rise", "--strategy", "examples/scal/global.elv",
                      "--target", "opencl", "--size", "n=8", "--global", "8,99999999999"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--global 99999999999 is too large: a launch size is at most 999999999"),
            std::string::npos)
      << r.err;
}

// A --local of many work items whose private arrays overflow a CPU device's stack (PoCL
// runs a work group on one) ends in SIGSEGV, which alone reads as an index out of
// bounds: the message says what --local did (held-out finding F7). Where the device
// copes, the result is right.
TEST(OpenCL, LocalSizeOverflowingPrivateArraysIsNamed) {
  const std::string file = e2e::write_scratch("local_private.rise", R"(
def soft = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(fun(row =>
    let e = row |> map(fun(v => exp(v))) |> toMem in
    let s = e |> reduce(add)(0.0f) in
    e |> map(fun(v => v / s))))))
)");
  e2e::CliResult r = e2e::run_risec(
      {"run", file, "--target", "opencl", "--size", "n=512,m=4096", "--local", "512", "--check"});
  if (r.exit_code == 0) {
    EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.err.find("SIGSEGV"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("with --local 512: on a CPU OpenCL device a work group's work items "
                         "share one stack"),
              std::string::npos)
        << r.err;
  }
  // The same work groups asked for through the environment (held-out F10).
  r = e2e::run_risec({"run", file, "--target", "opencl", "--size", "n=512,m=4096", "--check"},
                     {"RISEC_OPENCL_LOCAL=512"});
  if (r.exit_code != 0) {
    EXPECT_NE(r.err.find("with RISEC_OPENCL_LOCAL=512: on a CPU OpenCL device"), std::string::npos)
        << r.err;
  }
}

TEST(OpenCL, IterateIsRefused) {
  e2e::CliResult r = e2e::run_risec(
      {"compile", "examples/treesum/treesum.rise", "--target", "opencl", "--size", "m=3,k=4"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("iterate (double buffering"), std::string::npos) << r.err;
}

TEST(OpenCL, MapLocalOutsideAWorkGroupIsRefused) {
  std::string path = e2e::write_scratch("lonely.rise", R"(def lonely = depFun(n: Nat =>
  fun(x: n.f32 => x |> mapLocal(0)(fun(v => v + 1.0f))))
)");
  e2e::CliResult r = e2e::run_risec({"compile", path, "--target", "opencl"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("mapLocal outside a work group"), std::string::npos) << r.err;
}

TEST(OpenCL, PrivateArraysAreDeclaredPerWorkItem) {
  driver::Compiled c = compile_text("revpriv", kReversePrivate);
  std::string k = kernel(c, "revpriv_k0");
  ASSERT_FALSE(k.empty()) << c.unit.kernel_source;
  EXPECT_EQ(opencl_count(k, "__local"), 0u) << k;
  EXPECT_EQ(opencl_count(k, "barrier("), 0u) << k;
  // Inside the work item's loop.
  size_t loop = k.find("get_global_id(0)");
  size_t decl = k.find("float tmp");
  ASSERT_NE(decl, std::string::npos) << k;
  EXPECT_LT(loop, decl) << k;
  EXPECT_NE(k.find("[4];"), std::string::npos) << k;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("revpriv.rise", kReversePrivate), "", "n=7",
                                     "opencl"));
}

TEST(OpenCL, VectorsAreFloat4) {
  driver::Compiled typed = compile_text("vscale", kVectorTyped);
  std::string k = kernel(typed, "vscale_k0");
  EXPECT_NE(k.find("__global const float4* restrict x"), std::string::npos) << k;
  EXPECT_NE(k.find("__global float4* restrict output"), std::string::npos) << k;
  EXPECT_EQ(opencl_count(k, "vload"), 0u) << k;
  // only the helper macros: _load, _load_aligned and _load_even's two
  EXPECT_EQ(opencl_count(typed.unit.kernel_source, "vload4"), 4u);
  driver::Compiled scalar = compile_text("vscale2", kVectorScalar);
  std::string k2 = kernel(scalar, "vscale2_k0");
  EXPECT_NE(k2.find("__global const float* restrict x"), std::string::npos) << k2;
  EXPECT_NE(k2.find("float4_load("), std::string::npos) << k2;
  EXPECT_NE(k2.find("float4_store("), std::string::npos) << k2;
  EXPECT_NE(scalar.unit.kernel_source.find("#define float4_load(...) vload4(0, (__VA_ARGS__))"),
            std::string::npos);
  EXPECT_TRUE(
      e2e::compile_and_check(e2e::write_scratch("vscale.rise", kVectorTyped), "", "n=9", "opencl"));
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("vscale2.rise", kVectorScalar), "", "n=9",
                                     "opencl"));
  // OpenCL has no 32-lane vectors: refused at the primitive.
  std::string wide =
      e2e::write_scratch("wide.rise", R"(def wide = depFun(n: Nat => fun(x: (n*32).f32 =>
  x |> asVector(32) |> mapGlobal(0)(fun(v => v + vectorFromScalar(1.0f))) |> asScalar))
)");
  e2e::CliResult r = e2e::run_risec({"compile", wide, "--target", "opencl"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("wide.rise:2:78: error: asScalar: a vector of 32 lanes cannot be compiled "
                       "for OpenCL"),
            std::string::npos)
      << r.err;
}

// The headers of two programs whose interfaces share pair or vector types can be
// included in one file (held-out R: a second typedef of the pair struct, and for the C
// target a second definition of the vector helpers, were errors): each generated type
// is defined between include guards named after it. C and OpenCL targets, C99 with
// -pedantic, C11 and C++.
TEST(OpenCL, HeadersOfTwoProgramsSharingTypesIncludeTogether) {
  const char* pairs = R"(def NAME = depFun(n: Nat => fun(a: n.vec[f32, 4] => fun(b: n.i32 =>
  zip(a)(b) |> map(fun(p => (fst(p) * vectorFromScalar(2.0f), snd(p) + 1))))))
)";
  const char* scalars = R"(def NAME = depFun(n: Nat => fun(a: n.f32 => fun(b: n.i32 =>
  zip(a)(b) |> map(fun(p => (fst(p) + 1.0f, snd(p)))))))
)";
  for (const std::string target : {"c", "opencl"}) {
    std::string includes;
    for (const auto& [name, text] :
         {std::pair{std::string("hp_one"), pairs}, std::pair{std::string("hp_two"), pairs},
          std::pair{std::string("hs_one"), scalars}, std::pair{std::string("hs_two"), scalars}}) {
      std::string src = text;
      src.replace(src.find("NAME"), 4, name);
      const std::string stem = e2e::scratch_path(target + "_" + name);
      e2e::CliResult r = e2e::run_risec(
          {"compile", e2e::write_scratch(name + ".rise", src), "--target", target, "-o", stem});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      includes += "#include \"" + stem + ".h\"\n";
    }
    const std::string user =
        e2e::write_scratch("hp_user_" + target + ".c", includes + "int main(void) { return 0; }\n");
    for (const std::vector<std::string>& cc :
         {std::vector<std::string>{"cc", "-std=c99", "-pedantic"},
          std::vector<std::string>{"cc", "-std=c11"},
          std::vector<std::string>{"c++", "-x", "c++"}}) {
      std::vector<std::string> argv = cc;
      argv.insert(argv.end(),
                  {"-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-march=native", user});
      runtime::ProcessResult r = runtime::run_process(argv);
      EXPECT_TRUE(r.ok()) << target << " " << runtime::format_command(argv) << "\n" << r.err;
    }
  }
}

// A header whose interface has OpenCL vector types starts as every header does and
// includes CL/cl.h with an OpenCL version set: a user's file including it compiles
// without a word from the compiler (cl_version.h printed a note when none was set;
// held-out Q), and a version the user chose is kept. The interface names CL/cl.h's
// types (cl_float4) and the header declares no `float4` of its own, so a user's type
// of that name does not collide with it (held-out Q).
TEST(OpenCL, VectorHeaderIncludesClHeaderQuietly) {
  driver::Compiled typed = compile_text("vscale", kVectorTyped);
  const std::string& h = typed.unit.header;
  EXPECT_EQ(h.rfind("/* Generated by risec", 0), 0u) << h;
  EXPECT_LT(h.find("#pragma once"), h.find("#include <CL/cl.h>")) << h;
  EXPECT_EQ(h.find("typedef cl_float4"), std::string::npos) << h;
  EXPECT_NE(h.find("cl_float4* restrict output"), std::string::npos) << h;
  EXPECT_NE(h.find("const cl_float4* restrict x"), std::string::npos) << h;
  e2e::write_scratch("vscale_user.h", h);
  for (const std::string& first :
       {std::string(), std::string("#define CL_TARGET_OPENCL_VERSION 200\n"),
        std::string("typedef struct { float x, y, z, w; } float4;\n")}) {
    std::string user = e2e::write_scratch(
        "vscale_user.c", first + "#include \"vscale_user.h\"\nint main(void) { return 0; }\n");
    runtime::ProcessResult r =
        runtime::run_process({"cc", "-fsyntax-only", "-Wall", "-Wextra", "-march=native", user});
    EXPECT_TRUE(r.ok()) << r.describe() << r.err;
    EXPECT_EQ(r.err + r.out, "") << first;
  }
}

// The same level nested in the same dimension would stride over the same ids twice
// and skip work: refused.
TEST(OpenCL, NestingTheHardwareCannotRunIsRefused) {
  std::string path = e2e::write_scratch("nest.rise", R"(def nest = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 => x |> mapGlobal(0)(fun(r => r |> mapGlobal(0)(fun(v => v + 1.0f))))))
)");
  e2e::CliResult r = e2e::run_risec({"compile", path, "--target", "opencl"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("dimension 0 is already used by the enclosing map"), std::string::npos)
      << r.err;
  // Different dimensions are a 2-D launch.
  std::string ok = e2e::write_scratch("nest2.rise", R"(def nest2 = depFun((n: Nat, m: Nat) =>
  fun(x: n.m.f32 => x |> mapGlobal(1)(fun(r => r |> mapGlobal(0)(fun(v => v + 1.0f))))))
)");
  EXPECT_TRUE(e2e::compile_and_check(ok, "", "n=5,m=7", "opencl"));
}

// OpenCL's math builtins take vectors: no lane loop.
TEST(OpenCL, VectorMathCallsTheBuiltins) {
  const char* text = R"(def vexp = depFun(n: Nat => fun(x: n.vec[f32, 4] =>
  x |> mapGlobal(0)(fun(v => exp(v) + sqrt(v)))))
)";
  driver::Compiled c = compile_text("vexp", text);
  std::string k = kernel(c, "vexp_k0");
  EXPECT_NE(k.find("output[i1] = expf(x[i1]) + sqrtf(x[i1]);"), std::string::npos) << k;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("vexp.rise", text), "", "n=9", "opencl"));
}

// RISEC_OPENCL_PLATFORM picks the platform by index or by part of its name.
TEST(OpenCL, PlatformIsChosenByTheEnvironment) {
  std::vector<std::string> args = {"run",        "examples/scal/scal.rise",
                                   "--strategy", "examples/scal/global.elv",
                                   "--target",   "opencl",
                                   "--size",     "n=8"};
  e2e::CliResult r = e2e::run_risec(args, {"RISEC_OPENCL_PLATFORM=0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("opencl: platform "), std::string::npos) << r.out;
  r = e2e::run_risec(args, {"RISEC_OPENCL_PLATFORM=no such platform"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("no OpenCL platform with a device matches RISEC_OPENCL_PLATFORM=no such "
                       "platform"),
            std::string::npos)
      << r.err;
}

// oclReduceSeq(a) keeps its accumulator in `a`: Private is a work item's variable; a
// Local or Global scalar would be written by every work item at once: refused.
TEST(OpenCL, ReductionAccumulatorsLiveWhereTheProgramSays) {
  const char* text = R"(def red = depFun(n: Nat => fun(x: (n*16).f32 =>
  x |> split(16) |> mapGlobal(0)(fun(c => c |> oclReduceSeq(Private)(fun(a, v => a + v))(0.0f)))))
)";
  driver::Compiled c = compile_text("red", text);
  std::string k = kernel(c, "red_k0");
  EXPECT_NE(k.find("    float acc"), std::string::npos) << k;
  EXPECT_TRUE(e2e::compile_and_check(e2e::write_scratch("red.rise", text), "", "n=50", "opencl"));
  std::string local = text;
  local.replace(local.find("Private"), 7, "Local");
  e2e::CliResult r =
      e2e::run_risec({"compile", e2e::write_scratch("redlocal.rise", local), "--target", "opencl"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("local memory written outside a work group"), std::string::npos) << r.err;
}

}  // namespace
