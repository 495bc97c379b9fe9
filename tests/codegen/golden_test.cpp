// Golden tests for the *shape* of generated code where the shape is the point:
// simplified indices, destination views without conditionals, double buffering,
// vector types, and the located errors for programs that cannot be compiled.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "compile_util.h"
#include "driver/compile.h"
#include "elevate/parser.h"
#include "runtime/process.h"

using namespace risec;

namespace {

driver::Compiled compile(const std::string& text, const std::string& strategy,
                         const rise::SizeMap& sizes = {}, const std::string& target = "c",
                         const std::string& strategy_name = "<strategy>") {
  return test::compile_rise(text, strategy, sizes, target, strategy_name);
}

// The body of the generated function (without helpers and typedefs, and without
// the checks of size preconditions at its entry).
std::string function_body(const driver::Compiled& c) {
  const std::string& src = c.unit.source;
  size_t start = src.find("void " + c.unit.name + "(");
  size_t end = src.find("\n}\n", start);
  std::string body = src.substr(start, end - start);
  size_t checks = body.find("#ifndef RISEC_NO_CHECKS\n");
  if (checks != std::string::npos) {
    size_t endif = body.find("#endif\n", checks);
    body.erase(checks, endif + 7 - checks);
  }
  return body;
}

const char* kMv =
    "def mv = depFun((n: Nat, m: Nat) => fun(M: n.m.f32 => fun(x: m.f32 =>\n"
    "  M |> map(fun(row => zip(row)(x) |> map(fun(ax => ax._1 * ax._2)) |> reduce(add)(0.0f))))))";

const char* kSeq = "DFNF ; try(topDown(fuseReduceMap)) ; normalize(mapSeq <+ reduceSeq)";

}  // namespace

TEST(Golden, MatrixVectorIndicesHaveNoDivisionOrModulo) {
  driver::Compiled c = compile(kMv, kSeq);
  std::string body = function_body(c);
  EXPECT_NE(body.find("M["), std::string::npos) << body;
  EXPECT_EQ(body.find('/'), std::string::npos) << body;
  EXPECT_EQ(body.find('%'), std::string::npos) << body;
  // The paper's Listing 11 index: a row-major access with the row stride m.
  EXPECT_TRUE(std::regex_search(body, std::regex(R"(M\[i\d+ \+ i\d+\*m\])"))) << body;
  // Generic code: sizes and indices are 64-bit (a symbolic size may reach 2^31).
  EXPECT_NE(body.find("void mv(float* restrict output, int64_t n, int64_t m, const float* "
                      "restrict M, "
                      "const float* restrict x)"),
            std::string::npos)
      << body;
}

TEST(Golden, SizesBecomeConstantsWithSize) {
  driver::Compiled c = compile(kMv, kSeq, {{"n", 64}, {"m", 32}});
  std::string body = function_body(c);
  EXPECT_NE(body.find("void mv(float* restrict output, const float* restrict M, const float* "
                      "restrict x)"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("< 64"), std::string::npos) << body;
  EXPECT_TRUE(std::regex_search(body, std::regex(R"(M\[32\*i\d+ \+ i\d+\])"))) << body;
}

TEST(Golden, ConcatAndPadWriteWithoutConditionals) {
  driver::Compiled c = compile(
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.f32 => fun(y: m.f32 =>\n"
      "  concat(x |> mapSeq(fun(a => a * 2.0f)))(y |> padCst(2)(3)(0.0f)))))",
      "id");
  std::string body = function_body(c);
  EXPECT_EQ(body.find('?'), std::string::npos) << body;
  EXPECT_EQ(body.find("if"), std::string::npos) << body;
  // Three loops: the mapped part, the copied interior, and the two borders.
  EXPECT_GE(std::count(body.begin(), body.end(), '{'), 4) << body;
}

TEST(Golden, PadClampBordersAreSeparateLoops) {
  driver::Compiled c = compile(
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> padClamp(2)(2) |> mapSeq(fun(a => a))))",
      "id");
  // Reading a padded array inside a loop needs clamping, but writing one does not.
  driver::Compiled w = compile(
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> mapSeq(fun(a => a + 1.0f)) |> "
      "padCst(1)(1)(0.0f)))",
      "id");
  std::string body = function_body(w);
  EXPECT_EQ(body.find('?'), std::string::npos) << body;
  EXPECT_NE(function_body(c).find("risec_m"), std::string::npos) << function_body(c);
}

TEST(Golden, IterateUsesTwoBuffersAndSwaps) {
  driver::Compiled c = compile(
      "def f = depFun((m: Nat, k: Nat) => fun(x: (m*(2^k)).f32 =>\n"
      "  x |> iterate(k)(depFun((l: Nat) => fun(a: (l*2).f32 =>\n"
      "    a |> split(2) |> mapSeq(fun(p => p[0] + p[1])))))))",
      "id", {{"m", 1}, {"k", 4}});
  std::string body = function_body(c);
  EXPECT_NE(body.find("_buf1["), std::string::npos) << body;
  EXPECT_NE(body.find("_buf2["), std::string::npos) << body;
  EXPECT_NE(body.find("_flag ^= 1"), std::string::npos) << body;
  EXPECT_NE(body.find("_out = output"), std::string::npos) << body;
  std::string dpia_text = dpia::print(c.dpia);
  EXPECT_NE(dpia_text.find("newDoubleBuffer"), std::string::npos);
  EXPECT_NE(dpia_text.find("swap("), std::string::npos);
  EXPECT_NE(dpia_text.find("done("), std::string::npos);
}

TEST(Golden, CircularBufferLoadsEachInputOnce) {
  driver::Compiled c = compile(
      "def f = depFun(n: Nat => fun(x: (n+2).f32 =>\n"
      "  x |> circularBuffer(3)(3)(fun(a => a * 2.0f)) |> mapSeq(fun(w => w[0] + w[1] + w[2]))))",
      "id");
  std::string body = function_body(c);
  // Inside the loop, x is read exactly once (the newest element of the window).
  size_t loop = body.find("for (int");
  loop = body.find("for (int", loop + 1) == std::string::npos ? loop : loop;
  std::string in_loop = body.substr(body.rfind("for (int"));
  EXPECT_EQ(std::count(in_loop.begin(), in_loop.end(), 'x'), 1) << body;
}

TEST(Golden, VectorTypesAndLoads) {
  driver::Compiled c = compile(
      "def f = depFun(n: Nat => fun(x: (n*8).f32 =>\n"
      "  x |> asVector(8) |> mapSeq(fun(v => v * vectorFromScalar(2.0f))) |> asScalar))",
      "id");
  std::string src = c.unit.source;
  EXPECT_NE(src.find("vector_size(32)"), std::string::npos) << src;
  std::string body = function_body(c);
  EXPECT_NE(body.find("risec_f32x8_load(&x["), std::string::npos) << body;
  EXPECT_NE(body.find("risec_f32x8_store(&output["), std::string::npos) << body;
}

// ---------------------------------------------------------------- errors

namespace {

Error compile_error(const std::string& text, const std::string& strategy,
                    const std::string& target = "c") {
  try {
    compile(text, strategy, {}, target);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a compile error";
  return Error(ErrorKind::Internal, "none");
}

}  // namespace

TEST(CodegenErrors, MissingMemoryChoiceIsLocated) {
  Error e = compile_error(
      "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
      "  x |> mapSeq(fun(a => a * 2.0f)) |> reduceSeq(fun(acc, b => acc + b))(0.0f)))",
      "id");
  EXPECT_EQ(e.kind(), ErrorKind::User);
  EXPECT_NE(e.message().find("must be stored in memory"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("toMem"), std::string::npos) << e.message();
  EXPECT_EQ(e.span().start().line, 2);
}

TEST(CodegenErrors, ParallelPrimitiveForTheCTarget) {
  Error e =
      compile_error("def f = depFun(n: Nat => fun(x: n.f32 => x |> mapPar(fun(a => a))))", "id");
  EXPECT_EQ(e.kind(), ErrorKind::User);
  EXPECT_NE(e.message().find("mapPar needs the OpenMP target"), std::string::npos) << e.message();
  EXPECT_EQ(e.span().start().col, 47);
}

TEST(CodegenErrors, ParallelStrategyForTheCTargetPointsAtTheRewrittenMap) {
  // the mapPar comes from the strategy, not the source: the error names the map it
  // was made from (terms built by rules inherit the location they rewrote)
  Error e = compile_error(kMv, "(parallel @ outermost(isApplied(isMap))) ; lowerToC");
  EXPECT_EQ(e.kind(), ErrorKind::User);
  EXPECT_NE(e.message().find("mapPar needs the OpenMP target"), std::string::npos) << e.message();
  ASSERT_TRUE(e.span().known());
  EXPECT_EQ(e.span().start().line, 2);
  EXPECT_EQ(e.span().start().col, 8);  // M |> map(...
}

TEST(CodegenErrors, OpenCLPrimitiveForTheCTarget) {
  Error e = compile_error(
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> mapGlobal(0)(fun(a => a))))", "id");
  EXPECT_NE(e.message().find("mapGlobal needs an OpenCL or CUDA target"), std::string::npos)
      << e.message();
}

TEST(CodegenErrors, HighLevelReduceIsNotLowered) {
  Error e =
      compile_error("def f = depFun(n: Nat => fun(x: n.f32 => x |> reduce(add)(0.0f)))", "id");
  EXPECT_NE(e.message().find("no implementation choice"), std::string::npos) << e.message();
}

TEST(CodegenErrors, SizesThatDoNotDivide) {
  rise::SizeMap sizes{{"n", 30}};
  try {
    compile(
        "def f = depFun(n: Nat => fun(x: n.f32 => x |> split(4) |> mapSeq(mapSeq(fun(a => a))) |> "
        "join))",
        "id", sizes);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::User);
    EXPECT_NE(e.message().find("not a multiple of 4"), std::string::npos) << e.message();
    EXPECT_TRUE(e.span().known());
  }
}

TEST(Golden, DeadTemporariesAreRemoved) {
  driver::Compiled c = compile(
      "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
      "  let unused = toMem(x |> mapSeq(fun(a => a * 3.0f))) in x |> mapSeq(fun(b => b + 1.0f))))",
      "id");
  std::string body = function_body(c);
  EXPECT_EQ(body.find("3.0f"), std::string::npos) << body;
  EXPECT_EQ(body.find("risec_alloc"), std::string::npos) << body;
  EXPECT_NE(body.find("1.0f"), std::string::npos) << body;
}

TEST(Golden, ClampedBordersAreSplitOffTheInteriorLoop) {
  driver::Compiled c = compile(
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
      "  x |> padClamp2D(1)(1) |> slide2D(3)(1) |> map(map(fun(w =>\n"
      "    w[0][1] + w[1][0] + w[1][1] + w[1][2] + w[2][1])))))",
      "lowerToC", {{"n", 64}, {"m", 48}});
  std::string body = function_body(c);
  // The clamps are resolved in every part: no min/max is left.
  EXPECT_EQ(body.find("risec_min"), std::string::npos) << body;
  EXPECT_EQ(body.find("risec_max"), std::string::npos) << body;
  // An interior loop of m - 2 iterations over plain indices.
  // An interior loop over plain indices (the last clamp switches at m - 2).
  EXPECT_NE(body.find("< 45;"), std::string::npos) << body;
}

// Innermost map loops of a constant trip count that 16 f32 lanes do not divide run as
// blocks of 16 with the last one shifted inwards (dpia/shift_tail.h); loops that read
// what they write, and loops without a tail, stay plain.
TEST(Golden, ShiftedTailsOnlyForIdempotentLoopsWithATail) {
  const std::regex shifted(
      R"(for \(int (\w+)_b = 0; \1_b < 126; \1_b \+= 16\) \{\n *int \1_base = \1_b < 110 \? )"
      R"(\1_b : 110;\n *RISEC_BLOCK_LOOP\n *for \(int \1_l = 0; \1_l < 16; \1_l \+= 1\) \{\n *)"
      R"(int \1 = \1_base \+ )"
      R"(\1_l;\n *output\[\1\] = x\[\1\] \* 2\.0f;)");
  for (const char* target : {"c", "openmp"}) {
    driver::Compiled c =
        compile("def f = fun(x: 126.f32 => x |> map(fun(a => a * 2.0f)))", "lowerToC", {}, target);
    std::string map = function_body(c);
    EXPECT_TRUE(std::regex_search(map, shifted)) << map;
    // Defined (a GCC pragma that keeps a block one vector loop) only where used.
    EXPECT_NE(c.unit.source.find("#define RISEC_BLOCK_LOOP _Pragma(\"GCC unroll 1\")"),
              std::string::npos)
        << c.unit.source;
  }
  // Off when asked (--no-shift-tails).
  rise::Program p = test::parse_rise("def f = fun(x: 126.f32 => x |> map(fun(a => a * 2.0f)))");
  driver::CompileRequest req;
  req.program = &p;
  req.shift_tails = false;
  std::string plain = function_body(driver::compile(req));
  EXPECT_EQ(plain.find("_base"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("RISEC_BLOCK_LOOP"), std::string::npos) << plain;
  EXPECT_NE(plain.find("< 126;"), std::string::npos) << plain;
  // A multiple of the width: no tail.
  std::string whole =
      function_body(compile("def f = fun(x: 128.f32 => x |> map(fun(a => a * 2.0f)))", "lowerToC"));
  EXPECT_EQ(whole.find("_base"), std::string::npos) << whole;
  // A reduction: the accumulator is read and written.
  std::string sum =
      function_body(compile("def f = fun(x: 126.f32 => x |> reduce(add)(0.0f))", "lowerToC"));
  EXPECT_EQ(sum.find("_base"), std::string::npos) << sum;
  EXPECT_NE(sum.find("< 126;"), std::string::npos) << sum;
  // An in-place update: column sums into the output row by row; only the loop that
  // zeroes it is shifted.
  std::string cols = function_body(
      compile("def f = depFun(n: Nat => fun(x: n.126.f32 =>\n"
              "  x |> reduce(fun(acc => fun(row => zip(acc)(row) |> map(fun(p => p._1 + p._2)))))\n"
              "    (generate(fun(j => 0.0f)))))",
              "lowerToC"));
  EXPECT_EQ(std::count(cols.begin(), cols.end(), '?'), 1) << cols;
  EXPECT_TRUE(std::regex_search(cols, std::regex(R"(_base \+ \w+_l;\n *output\[\w+\] = 0\.0f;)")))
      << cols;
}

TEST(Golden, MapParIsAnOpenMPParallelLoop) {
  driver::Compiled c = compile(
      "def f = depFun(n: Nat => fun(x: n.4.f32 =>\n"
      "  x |> map(fun(r => r |> map(fun(a => a * 2.0f))))))",
      "(parallel @ outermost(isApplied(isMap))) ; lowerToC", {}, "openmp");
  std::string src = c.unit.source;
  EXPECT_NE(src.find("#pragma omp parallel for"), std::string::npos) << src;
  EXPECT_TRUE(c.unit.uses_openmp);
  // The same program for the C target is rejected where mapPar is.
  EXPECT_THROW(compile("def f = depFun(n: Nat => fun(x: n.4.f32 => x |> map(fun(r => r |> "
                       "map(fun(a => a * 2.0f))))))",
                       "(parallel @ outermost(isApplied(isMap))) ; lowerToC", {}, "c"),
               Error);
}

TEST(Golden, VectorizeProducesVectorTypesNotScalarLoops) {
  driver::Compiled c =
      compile("def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => exp(a) * 2.0f + 1.0f))))",
              "(vectorize(16) @ outermost(isApplied(isMap))) ; lowerToC", {{"n", 1024}});
  std::string src = c.unit.source;
  std::string body = function_body(c);
  EXPECT_NE(src.find("vector_size(64)"), std::string::npos) << src;
  EXPECT_NE(body.find("risec_f32x16_load(&x["), std::string::npos) << body;
  EXPECT_NE(body.find("risec_f32x16_store(&output["), std::string::npos) << body;
  EXPECT_NE(body.find("risec_f32x16_exp("), std::string::npos) << body;
  // The vector loop runs n/16 times.
  EXPECT_NE(body.find("< 64;"), std::string::npos) << body;
  // exp on vectors is a lane loop under omp simd (of risec_exp_f32), not a call per element.
  EXPECT_NE(src.find("RISEC_SIMD_LOOP"), std::string::npos);
}

// Sierra's varying control flow: vectorised Mandelbrot tests the escape of 8 points at
// once (a vector comparison giving a mask) and updates them with blends on the mask; no
// loop runs over the lanes and no scalar conditional chooses per lane; a block of steps
// is skipped when no lane is active.
TEST(Golden, VectorisedMandelbrotComparesAndBlendsVectors) {
  std::string text =
      runtime::read_file(std::string(RISEC_SOURCE_DIR) + "/examples/mandelbrot/mandelbrot.rise");
  driver::Compiled c = compile(text, "(vectorize(8) @ outermost(isFullyApplied(isMap))) ; lowerToC",
                               {{"n", 64}, {"b", 4}});
  std::string body = function_body(c);
  EXPECT_NE(body.find("risec_boolx8 "), std::string::npos) << body;
  EXPECT_NE(body.find(" < risec_f32x8_broadcast(4.0f)"), std::string::npos) << body;
  EXPECT_NE(body.find("risec_f32x8_blend("), std::string::npos) << body;
  EXPECT_EQ(body.find(" ? "), std::string::npos) << body;
  // three loops: over the vectors of points, the blocks and the steps; none over lanes
  size_t loops = 0;
  for (size_t at = body.find("for ("); at != std::string::npos; at = body.find("for (", at + 1))
    ++loops;
  EXPECT_EQ(loops, 3u) << body;
  // a block runs only while some lane is active
  EXPECT_NE(body.find("if (risec_boolx8_any("), std::string::npos) << body;
  EXPECT_NE(c.unit.source.find("typedef int32_t risec_boolx8 __attribute__((vector_size(32)))"),
            std::string::npos);
}

// Sierra's varying while: vectorised Mandelbrot with an early exit (iterateWhile) runs
// one loop over the steps of 8 points at once; it leaves when no lane's escape test
// (a vector comparison) holds, and updates the lanes with blends on that mask, so the
// escaped lanes keep their values. No loop runs over the lanes, none per point.
TEST(Golden, VectorisedMandelbrotWhileLeavesWhenNoLaneIsActive) {
  std::string text =
      runtime::read_file(std::string(RISEC_SOURCE_DIR) + "/examples/mandelwhile/mandelwhile.rise");
  driver::Compiled c = compile(text, "(vectorize(8) @ outermost(isFullyApplied(isMap))) ; lowerToC",
                               {{"n", 64}, {"k", 100}});
  std::string body = function_body(c);
  EXPECT_NE(body.find(" < risec_f32x8_broadcast(4.0f)"), std::string::npos) << body;
  EXPECT_NE(body.find("risec_boolx8 "), std::string::npos) << body;
  EXPECT_NE(body.find("risec_f32x8_blend("), std::string::npos) << body;
  // the exit: no lane active
  EXPECT_NE(body.find("if (!risec_boolx8_any("), std::string::npos) << body;
  EXPECT_NE(body.find("break;"), std::string::npos) << body;
  EXPECT_EQ(body.find(" ? "), std::string::npos) << body;
  // two loops: over the vectors of points (64/8) and over the steps (at most 100)
  size_t loops = 0;
  for (size_t at = body.find("for ("); at != std::string::npos; at = body.find("for (", at + 1))
    ++loops;
  EXPECT_EQ(loops, 2u) << body;
  EXPECT_NE(body.find("< 8;"), std::string::npos) << body;
  EXPECT_NE(body.find("< 100;"), std::string::npos) << body;
  // the scalar program leaves its loop per point, with a scalar test
  driver::Compiled s = compile(text, "lowerToC", {{"n", 64}, {"k", 100}});
  std::string scalar = function_body(s);
  EXPECT_NE(scalar.find("break;"), std::string::npos) << scalar;
  EXPECT_EQ(scalar.find("risec_f32x"), std::string::npos) << scalar;
}

TEST(Golden, GemvRowBlocksShareEachLoadOfX) {
  auto read = [](const std::string& rel) {
    return runtime::read_file(std::string(RISEC_SOURCE_DIR) + "/" + rel);
  };

  // The strategy's vectors are `lanes` wide: 16 here, as on an AVX-512 machine.
  setenv("RISEC_LANES", "16", 1);
  driver::Compiled c =
      compile(read("examples/gemv/gemv.rise"), read("examples/gemv/parallel_rows4.elv"),
              {{"n", 64}, {"m", 128}}, "openmp");
  unsetenv("RISEC_LANES");
  const std::string& src = c.unit.source;
  EXPECT_NE(src.find("#pragma omp parallel for"), std::string::npos) << src;
  // One loop over x (128 / 16 steps) with four vector accumulators, unrolled: four
  // multiply-adds, each on a different row of A, all with the same vector of x.
  std::regex fma(R"((acc\d+)\[(\d)\] = \1\[\2\] \+ risec_f32x16_load\(&A\[[^\]]*\]\) \* )"
                 R"(risec_f32x16_load\(&x\[16\*i\d+\]\);)");
  auto begin = std::sregex_iterator(src.begin(), src.end(), fma);
  std::set<std::string> rows;
  for (auto it = begin; it != std::sregex_iterator(); ++it) rows.insert((*it)[2]);
  EXPECT_EQ(rows, (std::set<std::string>{"0", "1", "2", "3"})) << src;
  EXPECT_NE(src.find("< 8;"), std::string::npos) << src;
}

TEST(Golden, OutlinedParallelBodyGetsTheSizesOfADestinationView) {
  // the output is written through map(map(split(k))) (the destination view's sizes
  // reach the outlined loop body as parameters), in place
  driver::Compiled c = compile(
      "def f = depFun((n: Nat, m: Nat, j: Nat, k: Nat) => fun(x: n.m.j.f32 =>\n"
      "  x |> mapPar(mapSeq(mapSeq(fun(a => a * 2.0f)))) |> map(map(split(k)))))",
      "lowerToC", {}, "openmp");
  const std::string& src = c.unit.source;
  EXPECT_TRUE(std::regex_search(src, std::regex(R"(static void f__par1\([^)]*int64_t k[,)])")))
      << src;
  EXPECT_EQ(src.find("tmp"), std::string::npos) << src;  // written in place
}

// The OpenCL target's host function has exactly the C target's signature, so either
// unit can be linked in place of the other.
TEST(Golden, OpenCLHostHasTheCSignature) {
  driver::Compiled c = compile(kMv, kSeq);
  driver::Compiled cl = compile(kMv, kSeq, {}, "opencl");
  std::string sig =
      "void mv(float* restrict output, int64_t n, int64_t m, const float* restrict "
      "M, const float* restrict x)";
  EXPECT_NE(c.unit.header.find(sig + ";"), std::string::npos) << c.unit.header;
  EXPECT_NE(cl.unit.header.find(sig + ";"), std::string::npos) << cl.unit.header;
  EXPECT_NE(cl.unit.source.find(sig + " {"), std::string::npos) << cl.unit.source;
  EXPECT_TRUE(cl.unit.uses_opencl);
  EXPECT_FALSE(c.unit.uses_opencl);
  // A program without parallel maps is one kernel run by one work item.
  EXPECT_NE(cl.unit.kernel_source.find("__kernel void mv_k0("), std::string::npos);
  EXPECT_EQ(cl.unit.kernel_source.find("get_global_id"), std::string::npos);
}

namespace {

std::string read_example(const std::string& relative) {
  std::ifstream in(std::string(RISEC_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The innermost loops of a function body: (loop variable, body text). For a loop with
// a shifted tail (dpia/shift_tail.h), the loop over a block's iterations i_l whose body
// starts with `int i = i_base + i_l;`, the variable is i.
std::vector<std::pair<std::string, std::string>> innermost_loops(const std::string& body) {
  std::vector<std::pair<std::string, std::string>> out;
  std::regex head(R"(for \(int (\w+) = 0; \w+ < \d+; \w+ \+= 1\) \{)");
  for (std::sregex_iterator it(body.begin(), body.end(), head), end; it != end; ++it) {
    size_t open = static_cast<size_t>(it->position(0) + it->length(0));
    int depth = 1;
    size_t k = open;
    for (; k < body.size() && depth > 0; ++k) depth += body[k] == '{' ? 1 : body[k] == '}' ? -1 : 0;
    std::string inner = body.substr(open, k - open);
    if (inner.find("for (") != std::string::npos) continue;
    std::string var = (*it)[1];
    std::smatch lane;
    if (std::regex_search(inner, lane, std::regex(R"(^\s*int (\w+) = \1_base \+ (\w+);)")) &&
        lane[2] == var)
      var = lane[1];
    out.emplace_back(var, inner);
  }
  return out;
}

// A function body without the starts of the blocks of loops with shifted tails
// (`int i_base = i_b < 110 ? i_b : 110;`, once per block of 16 iterations): the
// conditionals left are those of the code.
std::string without_block_starts(const std::string& body) {
  return std::regex_replace(body, std::regex(R"(int (\w+)_base = \1_b < \d+ \? \1_b : \d+;)"), "");
}

}  // namespace

// The separable blur as users write it (rows, transpose, rows, transpose; padCst,
// slide, zip with a literal weight array, reduce), with no strategy: the products
// are fused into the reductions, the weights are built once (not per pixel), the
// borders are split off so no conditional is left, and every innermost loop stores
// consecutive elements (the column pass is interchanged).
TEST(Golden, DefaultLoweringOfASeparableBlur) {
  for (const char* ex : {"examples/blur5/blur5.rise", "examples/blur3/blur3.rise"}) {
    driver::Compiled c = compile(read_example(ex), "lowerToC", {{"n", 64}, {"m", 48}});
    std::string body = function_body(c);
    EXPECT_EQ(without_block_starts(body).find('?'), std::string::npos) << ex << "\n" << body;
    EXPECT_EQ(body.find("risec_min"), std::string::npos) << ex << "\n" << body;
    // Small arrays (the weights, and the literal they are computed from) are
    // declared before any loop: none is built per pixel. (The intermediate image, on
    // the stack at this size, is declared after the loop computing the weights.)
    size_t first_loop = body.find("for (");
    std::regex stack_array(R"(float \w+\[(\d+)\])");
    int arrays = 0;
    for (std::sregex_iterator it(body.begin(), body.end(), stack_array), end; it != end; ++it) {
      if (std::stoi((*it)[1]) > 16) continue;
      ++arrays;
      EXPECT_LT(static_cast<size_t>(it->position(0)), first_loop) << ex << "\n" << body;
    }
    EXPECT_GE(arrays, 1) << ex << "\n" << body;
    auto loops = innermost_loops(body);
    ASSERT_FALSE(loops.empty()) << body;
    for (const auto& [var, inner] : loops) {
      std::regex store(R"((\w+)\[([^\]]*)\] = )");
      int stores = 0;
      for (std::sregex_iterator it(inner.begin(), inner.end(), store), end; it != end; ++it) {
        std::string idx = (*it)[2];
        ++stores;
        EXPECT_NE(idx.find(var), std::string::npos) << var << ": " << inner;
        EXPECT_EQ(idx.find("*" + var), std::string::npos) << var << ": " << inner;
      }
      EXPECT_GT(stores, 0) << inner;
    }
  }
}

// blur5 with inline.elv on the openmp target: the parallel map over the transposed
// columns is swapped with the column loop inside (the parallel loop runs over rows,
// the stores are contiguous) and split at the padded rows: the outlined parallel body
// has no conditional and its innermost loops store along rows; nothing is stored but
// the output.
TEST(Golden, InlinedBlurRunsInParallelOverRowsWithoutConditionals) {
  driver::Compiled c =
      compile(read_example("examples/blur5/blur5.rise"), read_example("examples/blur5/inline.elv"),
              {{"n", 64}, {"m", 48}}, "openmp");
  const std::string& src = c.unit.source;
  size_t par = src.find("static void blur5__par");
  ASSERT_NE(par, std::string::npos) << src;
  std::string body = src.substr(par, src.find("\n}\n", par) - par);
  EXPECT_EQ(without_block_starts(body).find('?'), std::string::npos) << body;
  EXPECT_EQ(src.find("risec_alloc"), std::string::npos) << src;
  auto loops = innermost_loops(body);
  ASSERT_FALSE(loops.empty()) << body;
  for (const auto& [var, inner] : loops) {
    std::regex store(R"(output\[([^\]]*)\] = )");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(inner, m, store)) << inner;
    EXPECT_NE(std::string(m[1]).find(var), std::string::npos) << var << ": " << inner;
    EXPECT_EQ(std::string(m[1]).find("*" + var), std::string::npos) << var << ": " << inner;
  }
}

// Harris with line_buffer.elv: each row of gradient products is computed once, into a
// ring of three rows (allocated once); the loop of an output row reads only the ring,
// never the image, so no gradient is computed inside a 3 x 3 window. The innermost
// loops that fill the ring are the prologue's two rows and one per step.
TEST(Golden, HarrisLineBufferComputesEachGradientRowOnce) {
  driver::Compiled c =
      compile(read_example("examples/harris/harris.rise"),
              read_example("examples/harris/line_buffer.elv"), {{"n", 20}, {"m", 29}});
  std::string body = function_body(c);
  // the ring of (ix*ix, (ix*iy, iy*iy)), one array per component: win_1, win_2_1, win_2_2
  std::regex ring(R"(\b(win\d*)_2_1\[)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(body, m, ring)) << body;
  std::string win = m[1];
  int fills = 0, outputs = 0;
  for (const auto& [var, inner] : innermost_loops(body)) {
    if (inner.find("output[") != std::string::npos) {
      ++outputs;
      EXPECT_EQ(inner.find("img["), std::string::npos) << inner;
      EXPECT_NE(inner.find(win + "_1["), std::string::npos) << inner;
    } else if (inner.find(win + "_1[") != std::string::npos) {
      ++fills;
      EXPECT_NE(inner.find("img["), std::string::npos) << inner;
    }
  }
  EXPECT_EQ(outputs, 1) << body;
  EXPECT_EQ(fills, 3) << body;
  // structure of arrays: no member of a struct is read or written
  EXPECT_EQ(body.find("]._"), std::string::npos) << body;
}

// line_buffer_parallel.elv: the same per chunk of rows, in the outlined parallel body.
TEST(Golden, HarrisParallelLineBuffersHaveARingPerChunk) {
  driver::Compiled c = compile(read_example("examples/harris/harris.rise"),
                               read_example("examples/harris/line_buffer_parallel.elv"),
                               {{"n", 60}, {"m", 29}}, "openmp");
  const std::string& src = c.unit.source;
  size_t par = src.find("static void harris__par");
  ASSERT_NE(par, std::string::npos) << src;
  std::string body = src.substr(par, src.find("\n}\n", par) - par);
  ASSERT_NE(body.find("win"), std::string::npos) << body;
  int outputs = 0;
  for (const auto& [var, inner] : innermost_loops(body))
    if (inner.find("output[") != std::string::npos) {
      ++outputs;
      EXPECT_EQ(inner.find("img["), std::string::npos) << inner;
    }
  EXPECT_EQ(outputs, 1) << body;
  EXPECT_NE(src.find("#pragma omp parallel for"), std::string::npos) << src;
}

// line_buffer_grad_parallel.elv: the ring per chunk holds the gradients (ix, iy), two
// arrays, not the three products; the output loop multiplies values read from the ring
// (ix*iy among them) and never reads the image. The ring is filled by one loop (both
// gradients) for each of the prologue's two rows and for each step.
TEST(Golden, HarrisGradientRingHoldsTwoArrays) {
  driver::Compiled c = compile(read_example("examples/harris/harris.rise"),
                               read_example("examples/harris/line_buffer_grad_parallel.elv"),
                               {{"n", 60}, {"m", 29}}, "openmp");
  const std::string& src = c.unit.source;
  size_t par = src.find("static void harris__par");
  ASSERT_NE(par, std::string::npos) << src;
  std::string body = src.substr(par, src.find("\n}\n", par) - par);
  std::regex ring(R"(\b(win\d*)_2\[)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(body, m, ring)) << body;
  std::string win = m[1];
  EXPECT_EQ(body.find(win + "_2_"), std::string::npos) << body;  // no third component
  EXPECT_EQ(body.find(win + "_3"), std::string::npos) << body;
  std::regex mixed(win + R"(_1\[[^\]]*\] \* )" + win + R"(_2\[)");
  int fills = 0, outputs = 0;
  for (const auto& [var, inner] : innermost_loops(body)) {
    if (inner.find("output[") != std::string::npos) {
      ++outputs;
      EXPECT_EQ(inner.find("img["), std::string::npos) << inner;
      EXPECT_TRUE(std::regex_search(inner, mixed)) << inner;
      // the three box sums advance side by side, one statement each per tap
      // (fuseReductions): 9 steps of (sxx, (sxy, syy)), not three sums in a row
      std::regex step(
          R"((\w+)\._1 = (\w+)\._1 \+ [^;]*;\s*\1\._2\._1 = \2\._2\._1 \+ [^;]*;\s*\1\._2\._2 = \2\._2\._2 \+)");
      auto steps = std::distance(std::sregex_iterator(inner.begin(), inner.end(), step),
                                 std::sregex_iterator());
      EXPECT_EQ(steps, 9) << inner;
    } else if (inner.find(win + "_") != std::string::npos) {
      ++fills;
      EXPECT_NE(inner.find("img["), std::string::npos) << inner;
      EXPECT_NE(inner.find(win + "_1["), std::string::npos) << inner;
      EXPECT_NE(inner.find(win + "_2["), std::string::npos) << inner;
    }
  }
  EXPECT_EQ(outputs, 1) << body;
  EXPECT_EQ(fills, 3) << body;
  EXPECT_EQ(body.find("]._"), std::string::npos) << body;
}

// chunks_parallel.elv (blur5, blur3): each parallel chunk stores the row pass of the
// u rows it reads (u x m floats: nothing else is stored) and its output loop reads
// only that buffer.
TEST(Golden, BlurChunksStoreTheirRowPass) {
  for (const auto& [ex, u] : std::vector<std::pair<std::string, int>>{{"blur5", 8}, {"blur3", 5}}) {
    const std::string elv = "examples/" + ex + "/chunks_parallel.elv";
    driver::Compiled c =
        compile(read_example("examples/" + ex + "/" + ex + ".rise"), read_example(elv),
                {{"n", 24}, {"m", 20}}, "openmp", std::string(RISEC_SOURCE_DIR) + "/" + elv);
    const std::string& src = c.unit.source;
    size_t par = src.find("static void " + ex + "__par");
    ASSERT_NE(par, std::string::npos) << src;
    std::string body = src.substr(par, src.find("\n}\n", par) - par);
    std::smatch m;
    std::regex buffer(R"(float (\w+)\[(\d+)\] __attribute__)");
    ASSERT_TRUE(std::regex_search(body, m, buffer)) << body;
    EXPECT_EQ(std::stoi(m[2]), u * 20) << body;
    std::string tmp = m[1];
    EXPECT_EQ(body.find("__attribute__"), body.rfind("__attribute__")) << body;  // one buffer
    EXPECT_EQ(body.find("risec_alloc"), std::string::npos) << body;
    int outputs = 0;
    for (const auto& [var, inner] : innermost_loops(body))
      if (inner.find("output[") != std::string::npos) {
        ++outputs;
        EXPECT_EQ(inner.find("img["), std::string::npos) << ex << "\n" << inner;
        EXPECT_NE(inner.find(tmp + "["), std::string::npos) << ex << "\n" << inner;
      }
    EXPECT_GE(outputs, 1) << body;
    EXPECT_NE(src.find("#pragma omp parallel for"), std::string::npos) << src;
  }
}

// tiles_parallel.elv: each chunk of rows in tiles of columns. A tile stores its
// gradients (ix, iy) in two arrays of u x (tw + 2) floats, one pair per tile (no ring:
// no index modulo 3), filled by one loop reading the image; the output loop reads only
// them and computes j = 2 output rows side by side, the three box sums of each side by
// side: with rs = 1 as three row sums each (9 sums of 3 products per output), with
// rs = 0 in the program's order (9 steps of the three sums per output).
TEST(Golden, HarrisTilesStoreOnlyTheirGradients) {
  for (int rs : {1, 0}) {
    SCOPED_TRACE("rs = " + std::to_string(rs));
    std::string strategy = read_example("examples/harris/tiles_parallel.elv");
    // tw = 62: two tiles of the 124 columns; the declarations of tw and rs replaced
    for (const auto& [name, value] : {std::pair<std::string, int>{"tw", 62}, {"rs", rs}}) {
      const std::string decl = "param " + name + " in [";
      ASSERT_NE(strategy.find(decl), std::string::npos) << decl;
      strategy.insert(strategy.find(decl), decl + std::to_string(value) + "];\n//");
    }
    driver::Compiled c =
        compile(read_example("examples/harris/harris.rise"), strategy, {{"n", 60}, {"m", 124}},
                "openmp", std::string(RISEC_SOURCE_DIR) + "/examples/harris/tiles_parallel.elv");
    const std::string& src = c.unit.source;
    size_t par = src.find("static void harris__par");
    ASSERT_NE(par, std::string::npos) << src;
    std::string body = src.substr(par, src.find("\n}\n", par) - par);
    // u = 32 rows of tw + 2 = 64 gradients, twice (one array per component), on the
    // stack or the heap; nothing else is stored
    std::regex alloc(
        R"((\w+)_[12](\[2048\] __attribute__|\s*=\s*\(float\*\)risec_alloc\(&risec_site_\d+, sizeof\(float\) \* \(size_t\)\(2048\)\)))");
    auto allocs = std::distance(std::sregex_iterator(body.begin(), body.end(), alloc),
                                std::sregex_iterator());
    EXPECT_EQ(allocs, 2) << body;
    size_t all_allocs = 0;
    for (const char* store : {"risec_alloc(", "__attribute__((aligned"})
      for (size_t at = body.find(store); at != std::string::npos; at = body.find(store, at + 1))
        ++all_allocs;
    EXPECT_EQ(all_allocs, 2u) << body;
    EXPECT_EQ(body.find("%3"), std::string::npos) << body;
    EXPECT_EQ(body.find("% 3"), std::string::npos) << body;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(body, m, alloc)) << body;
    std::string tile = m[1];
    auto count = [](const std::string& text, const std::string& pattern) {
      std::regex r(pattern);
      return std::distance(std::sregex_iterator(text.begin(), text.end(), r),
                           std::sregex_iterator());
    };
    int fills = 0, outputs = 0;
    for (const auto& [var, inner] : innermost_loops(body)) {
      if (inner.find("output[") != std::string::npos) {
        ++outputs;
        EXPECT_EQ(inner.find("img["), std::string::npos) << inner;
        EXPECT_NE(inner.find(tile + "_1["), std::string::npos) << inner;
        EXPECT_NE(inner.find(tile + "_2["), std::string::npos) << inner;
        EXPECT_EQ(count(inner, R"(output\[)"), 2) << inner;  // two rows side by side
        // rs = 0: nine steps of the three sums per output, a product each
        if (rs == 0) {
          EXPECT_EQ(count(inner, R"((\w+)\._1 = (\w+)\._1 \+ [^;]*;\s*\1\._2\._1 = \2\._2\._1 \+)"),
                    18)
              << inner;
        } else {
          // a row sum: acc = acc + t[..] * t[..], three times per sum, 9 sums per output
          std::string prod =
              R"((\w+) = \1 \+ )" + tile + R"(_[12]\[[^\]]*\] \* )" + tile + "_[12]\\[";
          EXPECT_EQ(count(inner, prod), 2 * 9 * 3) << inner;
          // each output adds its three rows' sums to the three accumulators
          EXPECT_EQ(count(inner, R"(\w+\._2\._2 = \w+\._2\._2 \+ \w+;)"), 2 * 3) << inner;
        }
      } else if (inner.find(tile + "_1[") != std::string::npos) {
        ++fills;
        EXPECT_NE(inner.find("img["), std::string::npos) << inner;
        EXPECT_NE(inner.find(tile + "_2["), std::string::npos) << inner;
      }
    }
    EXPECT_EQ(outputs, 1) << body;
    EXPECT_EQ(fills, 1) << body;
    EXPECT_NE(src.find("#pragma omp parallel for"), std::string::npos) << src;
  }
}
