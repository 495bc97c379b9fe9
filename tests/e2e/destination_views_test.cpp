// Destination views through maps of views: a computed array that the program
// returns through map(transpose), map(join), map(split(k)), map(asScalar), reverse,
// the padding views (padCst, padClamp, padCst2D, padClamp2D: the thesis's Map^D over
// views that are not layout views, and Repeat^D for padClamp's repeated edges) or
// nests of these is written straight into the output through the views (no temporary,
// no copy loop). Each program is checked against the interpreter on random inputs,
// also under the sanitizers (a wrong index would write out of bounds).
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct ViewsCase {
  const char* name;
  const char* program;
  const char* sizes;
};
// How ctest and gtest name a case's parameter (else: "N-byte object <...>").
void PrintTo(const ViewsCase& c, std::ostream* os) {
  *os << c.name;
}

// Each program computes a 3-D array with mapSeq and returns a view of it.
const ViewsCase kViewsCases[] = {
    {"mapTranspose",
     "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.f32 =>\n"
     "  x |> mapSeq(mapSeq(mapSeq(fun(a => a * 2.0f)))) |> map(transpose)))",
     "n=3,m=4,k=5"},
    {"mapJoin",
     "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.f32 =>\n"
     "  x |> mapSeq(mapSeq(mapSeq(fun(a => a + 1.0f)))) |> map(join)))",
     "n=3,m=4,k=5"},
    {"mapSplit",
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> mapSeq(mapSeq(fun(a => a - 1.0f))) |> map(split(2))))",
     "n=3,m=6"},
    {"joinMapTransposeThenMapJoin",
     // the shape tiling leaves around a result: blocks transposed back and joined
     "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.2.f32 =>\n"
     "  join(x |> mapSeq(mapSeq(mapSeq(mapSeq(fun(a => a * a))))) |> map(transpose)) |> "
     "map(join)))",
     "n=2,m=3,k=4"},
    {"nestedMapMapTranspose",
     "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.2.f32 =>\n"
     "  x |> mapSeq(mapSeq(mapSeq(mapSeq(fun(a => a * 3.0f))))) |> map(map(transpose))))",
     "n=2,m=3,k=4"},
    {"mapOfAViewChain",
     "def f = depFun((n: Nat, m: Nat, k: Nat) => fun(x: n.m.k.f32 =>\n"
     "  x |> mapSeq(mapSeq(mapSeq(fun(a => a + 2.0f)))) |> map(fun(b => join(transpose(b))))))",
     "n=2,m=3,k=4"},
    {"mapAsScalar",
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> mapSeq(fun(r => r |> asVector(4) |> mapSeq(fun(v => v * vectorFromScalar(2.0f)))))\n"
     "    |> map(asScalar)))",
     "n=3,m=8"},
    {"reverse",
     // written through reverse's write map, and read through its read map
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> reverse |> mapSeq(mapSeq(fun(a => a * 2.0f))) |> reverse))",
     "n=3,m=4"},
    {"mapReverse",
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> map(reverse) |> mapSeq(mapSeq(fun(a => a + 1.0f))) |> map(reverse) |> reverse))",
     "n=3,m=5"},
    // Map^D over padding views: a padded result written into its padded output.
    {"padCstOfAComputedArray",
     "def f = depFun((n: Nat) => fun(x: n.f32 =>\n"
     "  x |> mapSeq(fun(a => a * 2.0f)) |> padCst(2)(1)(0.5f)))",
     "n=7"},
    {"padClampOfAComputedArray",
     "def f = depFun((n: Nat) => fun(x: n.f32 =>\n"
     "  x |> mapSeq(fun(a => a + 1.0f)) |> padClamp(1)(3)))",
     "n=6"},
    {"padCst2DOfAStencil",
     "def f = depFun((n: Nat, m: Nat) => fun(A: (n+2).(m+2).f32 =>\n"
     "  A |> slide2D(3)(1) |> map2D(fun(w => 0.25f * (w[0][1] + w[2][1] + w[1][0] + "
     "w[1][2])))\n"
     "    |> padCst2D(1)(1)(0.0f)))",
     "n=5,m=4"},
    {"padClamp2DOfAStencil",
     "def f = depFun((n: Nat, m: Nat) => fun(A: (n+2).(m+2).f32 =>\n"
     "  A |> slide2D(3)(1) |> map2D(fun(w => w |> join |> reduce(add)(0.0f)))\n"
     "    |> padClamp2D(1)(1)))",
     "n=5,m=4"},
    {"padClamp2DWiderOnOneSide",
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> mapSeq(mapSeq(fun(a => a * a))) |> map(padClamp(2)(1)) |> padClamp(1)(2)))",
     "n=3,m=4"},
    {"padCstInsidePadClamp",
     "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
     "  x |> mapSeq(mapSeq(fun(a => a - 0.5f))) |> map(padCst(1)(2)(9.0f)) |> padClamp(2)(1)))",
     "n=3,m=4"},
    // Repeat^D: an element independent of the index, computed once and copied.
    {"repeatAReduction",
     "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 =>\n"
     "  generate(fun(i: idx[k] => x |> map(fun(v => v * v)) |> reduce(add)(0.0f)))))",
     "n=7,k=5"},
    {"repeatAComputedRow",
     "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 =>\n"
     "  generate(fun(i: idx[k] => x |> map(fun(v => v * 2.0f))))))",
     "n=6,k=4"},
};

class DestinationViews : public ::testing::TestWithParam<ViewsCase> {};

TEST_P(DestinationViews, MatchTheInterpreterWithoutACopy) {
  const ViewsCase& c = GetParam();
  std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
  CheckReport r = run_and_compare(file, "", c.sizes);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  // the computed array is written into the output directly: no temporary
  const std::string& src = r.compiled.unit.source;
  EXPECT_EQ(src.find("tmp"), std::string::npos) << src;
  EXPECT_EQ(src.find("risec_alloc("), src.find("static inline void* risec_alloc(")) << src;
  EXPECT_TRUE(compile_and_check(file, "", c.sizes, "c", /*sanitize=*/true));
}

INSTANTIATE_TEST_SUITE_P(All, DestinationViews, ::testing::ValuesIn(kViewsCases),
                         [](const ::testing::TestParamInfo<ViewsCase>& i) { return i.param.name; });

// The body of the generated function `f`.
std::string function_body(const std::string& src) {
  size_t b = src.find("void f(");
  return b == std::string::npos ? "" : src.substr(b, src.find("\n}\n", b) - b);
}

// The padded stencils have no conditional in any loop: borders and interior are
// written by loops of their own.
TEST(DestinationViews, PaddedStencilsHaveNoConditional) {
  for (const char* name : {"padCst2DOfAStencil", "padClamp2DOfAStencil"})
    for (const ViewsCase& c : kViewsCases)
      if (std::string(c.name) == name) {
        std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
        CheckReport r = run_and_compare(file, "", c.sizes);
        std::string body = function_body(r.compiled.unit.source);
        ASSERT_FALSE(body.empty()) << r.compiled.unit.source;
        EXPECT_EQ(body.find(" ? "), std::string::npos) << body;
        EXPECT_EQ(body.find("if ("), std::string::npos) << body;
        EXPECT_EQ(body.find("risec_min"), std::string::npos) << body;
      }
}

// Repeat^D computes the repeated element once: no line reading x is inside another
// loop (each is at most at the function's first loop level, 4 spaces), and the
// copies read the output.
TEST(DestinationViews, RepeatedElementIsComputedOnce) {
  for (const ViewsCase& c : kViewsCases) {
    if (std::string(c.name).rfind("repeat", 0) != 0) continue;
    std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
    CheckReport r = run_and_compare(file, "", c.sizes);
    EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch;
    std::string body = function_body(r.compiled.unit.source);
    int reads = 0;
    for (size_t x = body.find("x["); x != std::string::npos; x = body.find("x[", x + 1)) {
      size_t line = body.rfind('\n', x) + 1;
      size_t indent = body.find_first_not_of(' ', line) - line;
      EXPECT_LE(indent, 4u) << c.name << ": x is read inside a nested loop\n" << body;
      ++reads;
    }
    EXPECT_GT(reads, 0) << body;
    EXPECT_NE(body.find("= output["), std::string::npos) << body;
  }
}

// On the OpenCL target (PoCL), where the interior is written by a GPU map and the
// borders by the loops after it, or inside each work item.
TEST(DestinationViews, PaddingAndPointUpdatesOnOpenCL) {
  const ViewsCase gpu[] = {
      {"gpuPadClamp2D",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapGlobal(0)(mapSeq(fun(a => a * 2.0f))) |> padClamp2D(1)(1)))",
       "n=16,m=8"},
      {"gpuPadCst2D",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapGlobal(0)(mapSeq(fun(a => a * 2.0f))) |> padCst2D(1)(2)(0.5f)))",
       "n=16,m=8"},
      {"gpuPadClampPerWorkItem",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapGlobal(0)(fun(r => r |> mapSeq(fun(a => a + 1.0f)) |> padClamp(2)(1)))))",
       "n=16,m=8"},
      {"gpuUpdate",
       "def f = depFun((n: Nat) => fun(i: idx[n] => fun(x: n.f32 =>\n"
       "  x |> mapGlobal(0)(fun(a => a * 2.0f)) |> update(i)(7.0f))))",
       "n=16"},
  };
  for (const ViewsCase& c : gpu)
    EXPECT_TRUE(compile_and_check(write_scratch(std::string(c.name) + ".rise", c.program), "",
                                  c.sizes, "opencl"))
        << c.name;
}

// Where the destination cannot be read back (a transposed output), padClamp and a
// repeated element fall back to a temporary; still the interpreter's values.
TEST(DestinationViews, FallbacksMatchTheInterpreter) {
  const ViewsCase fallbacks[] = {
      {"padClampIntoATranspose",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapSeq(mapSeq(fun(a => a * 2.0f))) |> padClamp(1)(2) |> transpose))",
       "n=3,m=4"},
      {"padCstWithTheRowsFirstElement",
       "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
       "  x |> mapSeq(mapSeq(fun(a => a + 1.0f))) |> map(fun(r => padCst(1)(1)(r[0])(r)))))",
       "n=3,m=4"},
      {"repeatIntoATranspose",
       "def f = depFun((n: Nat, k: Nat) => fun(x: n.f32 =>\n"
       "  generate(fun(i: idx[k] => x |> map(fun(v => v * 2.0f)))) |> transpose))",
       "n=6,k=4"},
  };
  for (const ViewsCase& c : fallbacks) {
    std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
    CheckReport r = run_and_compare(file, "", c.sizes);
    EXPECT_TRUE(r.comparison.ok) << c.name << ": " << r.comparison.first_mismatch << "\n"
                                 << r.compiled.unit.source;
    EXPECT_TRUE(compile_and_check(file, "", c.sizes, "c", /*sanitize=*/true)) << c.name;
  }
}

}  // namespace
}  // namespace risec::e2e
