// update(i)(v)(x), a point update (the thesis's At^D destination view): x is written
// into the destination, then v into element i of it. Checked against the interpreter
// on random inputs (several seeds, so several indices), also under the sanitizers (the
// index is read from memory), and the generated code has no conditional, no
// temporary, and writes v outside every loop.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

struct UpdateCase {
  const char* name;
  const char* program;
  const char* sizes;
};
// How ctest and gtest name a case's parameter (else: "N-byte object <...>").
void PrintTo(const UpdateCase& c, std::ostream* os) {
  *os << c.name;
}

const UpdateCase kUpdateCases[] = {
    {"anInput",
     "def f = depFun((n: Nat) => fun(i: idx[n] => fun(v: f32 => fun(x: n.f32 =>\n"
     "  update(i)(v)(x)))))",
     "n=9"},
    // a computed array written in place, and a computed value (a reduction) at i
    {"computedArrayAndValue",
     "def f = depFun((n: Nat) => fun(i: idx[n] => fun(x: n.f32 =>\n"
     "  update(i)(x |> reduce(add)(0.0f))(x |> map(fun(a => a * 2.0f))))))",
     "n=11"},
    // a whole row replaced by a computed row
    {"aRow",
     "def f = depFun((n: Nat, m: Nat) => fun(i: idx[n] => fun(r: m.f32 => fun(x: n.m.f32 =>\n"
     "  x |> map(map(fun(a => a + 1.0f))) |> update(i)(r |> map(fun(a => 0.0f - a)))))))",
     "n=5,m=3"},
    // a point update in every row (under a map), then read by another map
    {"inEveryRowThenRead",
     "def f = depFun((n: Nat, m: Nat) => fun(i: idx[m] => fun(x: n.m.f32 =>\n"
     "  x |> map(fun(row => update(i)(1.0f)(row |> map(fun(a => a * a))))) |> toMem\n"
     "    |> map(map(fun(a => a + 1.0f))))))",
     "n=4,m=6"},
};

class PointUpdate : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(PointUpdate, MatchesTheInterpreterWithoutAConditional) {
  const UpdateCase& c = GetParam();
  std::string file = write_scratch(std::string(c.name) + ".rise", c.program);
  for (uint64_t seed : {1u, 2u, 3u}) {
    CheckOptions o;
    o.seed = seed;
    CheckReport r = run_and_compare(file, "", c.sizes, o);
    EXPECT_TRUE(r.comparison.ok) << "seed " << seed << ": " << r.comparison.first_mismatch << "\n"
                                 << r.compiled.unit.source;
  }
  CheckReport r = run_and_compare(file, "", c.sizes);
  const std::string& src = r.compiled.unit.source;
  size_t body = src.find("void f(");
  ASSERT_NE(body, std::string::npos) << src;
  std::string f = src.substr(body, src.find("\n}\n", body) - body);
  // The computation after the check of the index inputs on entry (a loop over them
  // once, codegen/c/bounds_checks.cpp) has no conditional.
  if (size_t check = f.rfind("RISEC_IDX_INPUT"); check != std::string::npos)
    f = f.substr(f.find("\n  }\n", check) + 5);
  EXPECT_EQ(f.find(" ? "), std::string::npos) << f;
  EXPECT_EQ(f.find("if ("), std::string::npos) << f;
  if (std::string(c.name) != "inEveryRowThenRead") {
    EXPECT_EQ(f.find("tmp"), std::string::npos) << f;
    // v is stored at the index read from memory, outside the loop that writes x (at
    // most in a loop of its own over a row: 4 spaces)
    int stores = 0;
    for (size_t at = f.find("output["); at != std::string::npos; at = f.find("output[", at + 1)) {
      size_t line = f.rfind('\n', at) + 1;
      std::string text = f.substr(line, f.find('\n', at) - line);
      if (text.find("ix") == std::string::npos || text.find("output[") > text.find('=')) continue;
      EXPECT_LE(text.find_first_not_of(' '), 4u) << f;
      ++stores;
    }
    EXPECT_EQ(stores, 1) << f;
  }
  EXPECT_TRUE(compile_and_check(file, "", c.sizes, "c", /*sanitize=*/true));
}

INSTANTIATE_TEST_SUITE_P(All, PointUpdate, ::testing::ValuesIn(kUpdateCases),
                         [](const ::testing::TestParamInfo<UpdateCase>& i) {
                           return i.param.name;
                         });

}  // namespace
}  // namespace risec::e2e
