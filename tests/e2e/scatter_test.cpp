// scatter compiles (it used to be interpreter-only): the destination is cleared, then
// element i of the data is written at the position its index names, the last write
// winning for a repeated index, as the interpreter does. Checked against the
// interpreter for C and OpenMP, under the sanitizers (an index is read from memory, so
// an out-of-range write would be caught), and refused with a location for elements
// that are not scalars.
#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

// The mapped values land where `ixs` says (n of them into m places: with n > m some
// index repeats, with m > n some position stays zero), then every element is read.
const char* kScatter =
    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.f32 =>\n"
    "  scatter(ixs)(x |> map(fun(a => a * 2.0f))) |> map(fun(b => b + 1.0f)))))";

TEST(Scatter, GeneratedCodeMatchesTheInterpreter) {
  const std::string path = write_scratch("scatter.rise", kScatter);
  for (const char* sizes : {"n=40,m=7", "n=5,m=33"}) {
    EXPECT_TRUE(compile_and_check(path, "", sizes, "c"));
    EXPECT_TRUE(compile_and_check(path, "", sizes, "c", /*sanitize=*/true));
    EXPECT_TRUE(compile_and_check(path, "(parallel @ outermost(isApplied(isMap))) ; lowerToC",
                                  sizes, "openmp"));
  }
  // The indices are read where the data is written: no intermediate copy.
  CheckReport r = run_and_compare(path, "", "n=40,m=7");
  EXPECT_TRUE(r.comparison.ok);
  EXPECT_NE(r.compiled.unit.source.find("[(ixs["), std::string::npos) << r.compiled.unit.source;
}

TEST(Scatter, ElementsThatAreNotScalarsAreRefusedLocated) {
  const std::string path =
      write_scratch("scatter_rows.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.4.f32 =>\n"
                    "  scatter(ixs)(x))))");
  CliResult r = run_risec({"compile", path, "--size", "n=4,m=4"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("scatter_rows.rise:2:"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("not scalars"), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
