// Destination views through maps of views: a computed array that the program
// returns through map(transpose), map(join), map(split(k)), map(asScalar), reverse or
// nests of these is written straight into the output through the views (no temporary, no
// copy loop). Each program is checked against the interpreter, also under the
// sanitizers (a wrong index would write out of bounds).
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct Case {
  const char* name;
  const char* program;
  const char* sizes;
};

// Each program computes a 3-D array with mapSeq and returns a view of it.
const Case kCases[] = {
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
};

class DestinationViews : public ::testing::TestWithParam<Case> {};

TEST_P(DestinationViews, MatchTheInterpreterWithoutACopy) {
  const Case& c = GetParam();
  std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
  CheckReport r = run_and_compare(file, "", c.sizes);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  // the computed array is written into the output directly: no temporary
  const std::string& src = r.compiled.unit.source;
  EXPECT_EQ(src.find("tmp"), std::string::npos) << src;
  EXPECT_EQ(src.find("risec_alloc("), src.find("static inline void* risec_alloc(")) << src;
  EXPECT_TRUE(compile_and_check(file, "", c.sizes, "c", /*sanitize=*/true));
}

INSTANTIATE_TEST_SUITE_P(All, DestinationViews, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

}  // namespace
}  // namespace risec::e2e
