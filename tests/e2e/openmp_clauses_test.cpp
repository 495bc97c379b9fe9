// The OpenMP target's loop clauses, checked in the generated code and by running it
// against the interpreter (also under the sanitizers): a perfect nest of parallel maps
// is collapsed, reducePar becomes a reduction clause for scalar and vector
// accumulators (the latter through a declared reduction), and a parallel map inside
// a parallel map runs sequentially.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "e2e_util.h"

namespace risec::e2e {
namespace {

CheckReport clauses_run(const std::string& name, const std::string& program,
                        const std::string& sizes, const std::string& strategy = "") {
  CheckOptions o;
  o.target = "openmp";
  std::string file = write_scratch(name + ".rise", program);
  CheckReport r = run_and_compare(file, strategy, sizes, o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  o.sanitize = true;
  EXPECT_TRUE(compile_and_check(file, strategy, sizes, o));
  return r;
}

size_t clauses_count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

TEST(OpenMPClauses, PerfectNestOfParallelMapsIsCollapsed) {
  CheckReport r = clauses_run("collapse",
                              "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                              "  x |> mapPar(mapPar(fun(a => a * 2.0f + 1.0f)))))",
                              "n=7,m=5");
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("#pragma omp parallel for collapse(2)"), std::string::npos) << src;
  EXPECT_EQ(clauses_count(src, "#pragma omp parallel"), 1u) << src;
}

TEST(OpenMPClauses, ScalarReductions) {
  for (const char* op : {"add", "mul", "fmin", "fmax"}) {
    SCOPED_TRACE(op);
    std::string init = std::string(op) == "mul"    ? "1.0f"
                       : std::string(op) == "fmin" ? "1000.0f"
                       : std::string(op) == "fmax" ? "-1000.0f"
                                                   : "0.0f";
    CheckReport r = clauses_run(std::string("reduce_") + op,
                                "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
                                "  x |> reducePar(" +
                                    std::string(op) + ")(" + init + ")))",
                                "n=40");
    // add and mul: OpenMP's operators; fmin and fmax of floats: a declared reduction
    // combining with the helper that ignores NaN as the interpreter does
    const std::string sym = std::string(op) == "add" ? "+"
                            : std::string(op) == "mul"
                                ? "*"
                                : "risec_" + std::string(op) + "_f32_reduction";
    EXPECT_NE(r.compiled.unit.source.find("reduction(" + sym + ":"), std::string::npos)
        << r.compiled.unit.source;
  }
}

// fmax and fmin ignore a NaN operand (the interpreter's std::fmax): a parallel
// reduction over data whose first half is NaN (a thread's whole share, under the
// static schedule), over all-NaN data (NaN only if the initial value is NaN too),
// and with a NaN initial value gives the interpreter's result. OpenMP's own min/max
// combine partial results with a comparison (unspecified for NaN) and start at -inf.
TEST(OpenMPClauses, MinMaxReductionsIgnoreNaNAsTheInterpreter) {
  for (const char* op : {"fmin", "fmax"}) {
    for (const char* init : {"nan", "0.5f"}) {
      for (const char* data : {"x |> padCst(n)(0)(nan)", "x |> padCst(0)(n)(nan)",
                               "x |> map(fun(a => a * nan)) |> padCst(n)(0)(nan)"}) {
        SCOPED_TRACE(std::string(op) + " " + init + " " + data);
        clauses_run(std::string("nan_") + op,
                    "def f = depFun(n: Nat => fun(x: n.f32 =>\n  " + std::string(data) +
                        " |> reducePar(" + op + ")(" + init + ")))",
                    "n=37");
      }
    }
  }
}

TEST(OpenMPClauses, VectorAccumulatorUsesADeclaredReduction) {
  CheckReport r = clauses_run("reduce_vec",
                              "def f = depFun(n: Nat => fun(x: (16*n).f32 =>\n"
                              "  x |> asVector(16) |> reducePar(add)(vectorFromScalar(0.0f))))",
                              "n=6");
  const std::string& src = r.compiled.unit.source;
  EXPECT_NE(src.find("#pragma omp declare reduction(risec_add_risec_f32x16"), std::string::npos)
      << src;
  EXPECT_NE(src.find("reduction(risec_add_risec_f32x16:"), std::string::npos) << src;
}

TEST(OpenMPClauses, InnerParallelMapRunsSequentially) {
  // the reduction between the two maps makes the nest imperfect: only the outer loop
  // is parallel
  CheckReport r =
      clauses_run("nested",
                  "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
                  "  x |> mapPar(fun(row => row |> mapPar(fun(a => a * a)) |> toMem |>\n"
                  "    reduceSeq(add)(0.0f)))))",
                  "n=6,m=9");
  const std::string& src = r.compiled.unit.source;
  EXPECT_EQ(clauses_count(src, "#pragma omp parallel"), 1u) << src;
}

// An array stored one array per component (pairs of scalars, pairs of rows) declared
// outside the parallel loop reaches the outlined body as one restrict pointer per
// component; the body used to stay inline, where GCC's outlining drops restrict.
TEST(OpenMPClauses, ComponentArraysReachTheOutlinedBodyAsRestrictPointers) {
  const std::string sig = "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n";
  const std::string programs[] = {
      sig + "  x |> map(map(fun(a => makePair(a)(a * 2.0f)))) |> toMem |>\n" +
          "    mapPar(mapSeq(fun(p => p._1 + p._2 * p._1)))))",
      sig + "  x |> map(fun(r => makePair(r)(r |> map(fun(a => a - 1.0f))))) |> toMem |>\n" +
          "    mapPar(fun(p => zip(p._1)(p._2) |> mapSeq(fun(q => q._1 * q._2))))))",
  };
  int k = 0;
  for (const std::string& p : programs) {
    CheckReport r = clauses_run("soa" + std::to_string(k++), p, "n=9,m=6", "lowerToC");
    const std::string& src = r.compiled.unit.source;
    EXPECT_TRUE(std::regex_search(
        src, std::regex(R"(static void f__par1\([^)]*const float\* restrict (\w+)_1, )"
                        R"(const float\* restrict \1_2\))")))
        << src;
    EXPECT_EQ(clauses_count(src, "#pragma omp parallel for\n"), 1u) << src;
  }
}

}  // namespace
}  // namespace risec::e2e
