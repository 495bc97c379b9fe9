// fmax and fmin compiled for C and OpenMP against the interpreter (std::fmax: a NaN
// operand gives the other one) on inputs with NaN, infinities and zeros of both signs
// at random positions (first, last, whole rows of NaN), f32 and f64, with initial
// values that are NaN or not: reductions over rows (loops, unrolled, vectorised with one
// or two vector accumulators, an OpenMP reduction whose private copies start at NaN) and
// a clamped 3 x 3 window (morph5's kind, unrolled). An operand provably never NaN makes
// the printers use the one-instruction form (dpia/not_nan.h): it does for a non-NaN
// initial value, never for a NaN one, and the results are the interpreter's exactly
// (the sign of a zero maximum is C's to choose: compared as equal).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

struct MinMaxCase {
  std::string op;  // fmax | fmin
  bool f64 = false;
  std::string init;  // a literal
  bool init_nan = false;
  bool swapped = false;  // fun(a, b => op(b, a))
  std::string form;      // rows | window | all
  std::string strategy;  // without the target's parallel step and lowerToC
  std::string target;
  int64_t n = 0, m = 0;
  std::string describe() const {
    return op + (f64 ? " f64" : " f32") + " init " + init + (swapped ? " swapped" : "") + " " +
           form + " [" + strategy + "] " + target + " n=" + std::to_string(n) +
           " m=" + std::to_string(m);
  }
};

std::string min_max_program(const MinMaxCase& c) {
  const std::string t = c.f64 ? "f64" : "f32";
  const std::string op = c.swapped ? "fun(a, b => " + c.op + "(b, a))" : c.op;
  const std::string red = "reduce(" + op + ")(" + c.init + ")";
  std::string body;
  if (c.form == "rows") body = "x |> map(fun(r => r |> " + red + "))";
  if (c.form == "window")
    body =
        "x |> padClamp2D(1)(1) |> slide2D(3)(1) |> map2D(fun(nbh => nbh |> join |> " + red + "))";
  if (c.form == "all") body = "x |> join |> " + red;
  return "def f = depFun((n: Nat, m: Nat) => fun(x: n.m." + t + " => " + body + "))\n";
}

// "" (the default lowering, parallel under OpenMP) or the case's strategy.
std::string min_max_strategy(const MinMaxCase& c) {
  if (c.strategy.empty()) return "";
  std::string s = c.strategy + " ; ";
  if (c.target == "openmp" && c.form == "rows")
    s += "(parallel @ outermost(isFullyApplied(isMap))) ; ";
  if (c.target == "openmp" && c.form == "window") s += "parallelOutput ; ";
  return s + "lowerToC";
}

MinMaxCase random_case(std::mt19937& rng) {
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<unsigned>(k)); };
  MinMaxCase c;
  c.op = pick(2) ? "fmax" : "fmin";
  c.f64 = pick(3) == 0;
  const std::string sfx = c.f64 ? "" : "f";
  switch (pick(5)) {
    case 0:
      c.init = "nan";
      c.init_nan = true;
      break;
    case 1:
      c.init = std::string(c.op == "fmax" ? "-inf" : "inf") + sfx;
      break;
    case 2:
      c.init = "0.5" + sfx;
      break;
    case 3:
      c.init = "-0.0" + sfx;
      break;
    default:
      c.init = (c.op == "fmax" ? "-3.0e38" : "3.0e38") + sfx;
  }
  c.swapped = pick(3) == 0;
  c.target = pick(2) ? "c" : "openmp";
  c.n = 4 + pick(6);
  switch (pick(7)) {
    case 0:  // an OpenMP reduction (private copies start at NaN) or a loop
      c.form = "all";
      c.m = 1 + pick(40);
      c.strategy = c.target == "openmp" ? "(reducePar @ outermost(isFullyApplied(isReduce)))" : "";
      if (c.target == "openmp") {  // reducePar's initial value is the neutral element
        c.init = std::string(c.op == "fmax" ? "-inf" : "inf") + sfx;
        c.init_nan = false;
      }
      break;
    case 1:
    case 2:
      c.form = "window";
      c.m = 3 + pick(20);
      c.strategy = pick(2) ? ""
                           : "RNF ; body(mapFusion) ; body(function(argument(body(mapFusion)))) ; "
                             "body(mapFusion) ; normalize(expandReduce) ; partialEval";
      break;
    default: {
      c.form = "rows";
      c.m = 1 + pick(60);
      const char* s[] = {"", "normalize(expandReduce)", "normalize(vectorizeReductionRemainder(4))",
                         "normalize(vectorizeReduction2Remainder(4))",
                         "normalize(vectorizeReduction4Remainder(4))"};
      c.strategy = s[pick(5)];
      if (c.strategy.find("expand") != std::string::npos) c.m = std::min<int64_t>(c.m, 30);
      if (c.strategy.find("Reduction2") != std::string::npos) c.m = std::max<int64_t>(c.m, 8);
      if (c.strategy.find("Reduction4") != std::string::npos) c.m = std::max<int64_t>(c.m, 16);
      if (c.strategy.find("Reduction") != std::string::npos) c.m = std::max<int64_t>(c.m, 4);
    }
  }
  return c;
}

// n x m inputs: ordinary values, with NaN, infinities and zeros of both signs at random
// positions; row 0 all NaN, row 1 NaN first, row 2 NaN last, row 3 zeros of both signs.
std::vector<double> values(std::mt19937& rng, int64_t n, int64_t m) {
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0};
  std::uniform_real_distribution<double> u(-100, 100);
  std::vector<double> v(static_cast<size_t>(n * m));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double& x = v[static_cast<size_t>(i * m + j)];
      x = rng() % 5 == 0 ? specials[rng() % 5] : std::round(u(rng) * 4) / 4;
      if (i == 0 || (i == 1 && j == 0) || (i == 2 && j == m - 1)) x = NAN;
      if (i == 3) x = rng() % 2 ? 0.0 : -0.0;
    }
  return v;
}

std::string write_input(const std::string& name, bool f64, int64_t n, int64_t m,
                        const std::vector<double>& v) {
  runtime::NdArray a = runtime::make_array(f64 ? runtime::DType::F64 : runtime::DType::F32, {n, m});
  for (size_t i = 0; i < v.size(); ++i) {
    if (f64)
      a.as<double>()[i] = v[i];
    else
      a.as<float>()[i] = static_cast<float>(v[i]);
  }
  std::string path = scratch_path(name);
  runtime::write_npy(path, a);
  return path;
}

// Compiles and runs the case against the interpreter; returns the C source.
std::string min_max_check(const MinMaxCase& c, std::mt19937& rng, int i) {
  SCOPED_TRACE(c.describe());
  const std::string file =
      write_scratch("minmax_nan" + std::to_string(i) + ".rise", min_max_program(c));
  CheckOptions o;
  o.target = c.target;
  o.rtol = o.atol = 0;
  o.inputs = {{"x", write_input("minmax_nan" + std::to_string(i) + ".npy", c.f64, c.n, c.m,
                                values(rng, c.n, c.m))}};
  CheckReport r = run_and_compare(file, min_max_strategy(c),
                                  "n=" + std::to_string(c.n) + ",m=" + std::to_string(c.m), o);
  EXPECT_TRUE(r.comparison.ok) << r.comparison.mismatches << " mismatches\n"
                               << r.compiled.unit.source;
  const std::string& src = r.compiled.unit.source;
  const bool cheap = src.find("_not_nan") != std::string::npos;
  // a NaN initial value: no operand of the reduction is provably not NaN
  if (c.init_nan) {
    EXPECT_FALSE(cheap) << src;
  }
  // a non-NaN one: the chain of the reduction is (but not in an OpenMP reduction, whose
  // partial results start at NaN, nor in a reduction of one element, folded away)
  if (!c.init_nan && c.form != "all" && c.m > 1) {
    EXPECT_TRUE(cheap) << src;
  }
  return src;
}

TEST(MinMaxNaN, RandomReductionsWithNaNsInfinitiesAndZerosMatchTheInterpreter) {
  std::mt19937 rng(34);
  for (int i = 0; i < 48; ++i) min_max_check(random_case(rng), rng, i);
}

// The case: morph5's window (here 3 x 3) reduced from a non-NaN literal, unrolled
// by the tuned strategy, uses only the one-instruction form, on both CPU targets.
TEST(MinMaxNaN, UnrolledWindowUsesOnlyTheCheapForm) {
  std::mt19937 rng(5);
  for (const char* target : {"c", "openmp"}) {
    MinMaxCase c;
    c.op = "fmax";
    c.init = "-3.0e38f";
    c.form = "window";
    c.strategy =
        "RNF ; body(mapFusion) ; body(function(argument(body(mapFusion)))) ; body(mapFusion) ; "
        "normalize(expandReduce) ; partialEval";
    c.target = target;
    c.n = 9;
    c.m = 13;
    std::string src = min_max_check(c, rng, 100);
    EXPECT_EQ(src.find("risec_fmax_f32("), std::string::npos) << src;
  }
}

// A vectorised maximum from a non-NaN literal: its vector accumulator is never NaN, and
// so are its lanes, which the lanes' tree combines with the one-instruction form too
// (NaN elements among the inputs: the comparison with the interpreter is exact).
TEST(MinMaxNaN, VectorisedMaxLanesUseOnlyTheCheapForm) {
  std::mt19937 rng(6);
  for (const char* strategy : {"normalize(vectorizeReductionRemainder(4))",
                               "normalize(vectorizeReduction4Remainder(4))"}) {
    MinMaxCase c;
    c.op = "fmax";
    c.init = "-3.0e38f";
    c.form = "rows";
    c.strategy = strategy;
    c.target = "c";
    c.n = 3;
    c.m = 64;
    std::string src = min_max_check(c, rng, 101);
    EXPECT_EQ(src.find("risec_fmax_f32("), std::string::npos) << src;
  }
}

}  // namespace
}  // namespace risec::e2e
