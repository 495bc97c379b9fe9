// scatter compiles (it used to be interpreter-only): the destination is cleared, then
// element i of the data is written at the position its index names, the last write
// winning for a repeated index, as the interpreter does. Checked against the
// interpreter on random indices (with n > m some repeat) for C and OpenMP, under the
// sanitizers (an index is read from memory, so an out-of-range write would be caught).
// Elements may be arrays or pairs; a parallel map written through a scatter runs
// sequentially on the CPU and is refused on a GPU (repeated indices would race), and
// vector elements are refused with a location.
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

// Rows and pairs are scattered whole: each element's scalars land in the row or pair
// its index names.
TEST(Scatter, RowsAndPairsMatchTheInterpreter) {
  const std::string rows =
      write_scratch("scatter_rows.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.3.f32 =>\n"
                    "  scatter(ixs)(x |> map(map(fun(a => a * 2.0f)))))))");
  const std::string pairs = write_scratch(
      "scatter_pairs.rise",
      "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.f32 =>\n"
      "  scatter(ixs)(zip(x)(x |> map(fun(a => a + 1.0f)))) |> map(fun(p => p._1 * p._2)))))");
  for (const std::string& path : {rows, pairs})
    for (const char* sizes : {"n=17,m=5", "n=4,m=9"}) {
      EXPECT_TRUE(compile_and_check(path, "", sizes, "c")) << path << " " << sizes;
      EXPECT_TRUE(compile_and_check(path, "", sizes, "c", /*sanitize=*/true))
          << path << " " << sizes;
    }
}

// A mapPar whose elements are written through scatter becomes a sequential loop, so
// the last of several elements with one index wins (many repeats: 200 into 3).
TEST(Scatter, AParallelMapIntoAScatterRunsInOrder) {
  const std::string path =
      write_scratch("scatter_par.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.f32 =>\n"
                    "  scatter(ixs)(x |> mapPar(fun(a => a * 2.0f))))))");
  EXPECT_TRUE(compile_and_check(path, "", "n=200,m=3", "openmp"));
  CliResult r = run_risec({"compile", path, "--target", "openmp", "--size", "n=200,m=3"});
  ASSERT_EQ(r.exit_code, 0) << show(r);
  EXPECT_EQ(r.out.find("omp parallel"), std::string::npos) << r.out;
}

TEST(Scatter, AGpuMapIntoAScatterIsRefusedLocated) {
  const std::string path =
      write_scratch("scatter_gpu.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: n.f32 =>\n"
                    "  scatter(ixs)(x |> mapGlobal(0)(fun(a => a * 2.0f))))))");
  CliResult r = run_risec({"compile", path, "--target", "opencl", "--size", "n=8,m=8"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("scatter_gpu.rise:2:"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("sequential"), std::string::npos) << show(r);
}

TEST(Scatter, VectorElementsAreRefusedLocated) {
  const std::string path =
      write_scratch("scatter_vectors.rise",
                    "def f = depFun((n: Nat, m: Nat) => fun(ixs: n.idx[m] => fun(x: (n*4).f32 =>\n"
                    "  scatter(ixs)(x |> asVector(4)))))");
  CliResult r = run_risec({"compile", path, "--size", "n=4,m=4"});
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("scatter_vectors.rise:2:"), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("cannot be compiled yet"), std::string::npos) << show(r);
}

}  // namespace
}  // namespace risec::e2e
