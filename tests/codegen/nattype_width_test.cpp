// natType values are the interpreter's int64_t on every target (docs/language.md,
// docs/codegen.md): values of 2^31 or more, stored, computed, cast to and from, read
// from natType inputs and written to natType outputs, must come out of compiled code
// (c, openmp, opencl; default lowering, no strategy) exactly as the interpreter gives
// them. The held-out tester's programs by name (compiled code truncated them to 32 bits,
// c saturating and opencl wrapping), then random natType arithmetic whose values lie
// around 2^31 and 2^32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../driver/sanitized_sample.h"
#include "compile_util.h"
#include "driver/compile.h"
#include "driver/run.h"
#include "support/diagnostics.h"

namespace risec {
namespace {

constexpr int64_t kNatTwo31 = int64_t{1} << 31;
const char* const kNatTargets[] = {"c", "openmp", "opencl"};

driver::Compiled compile_nat_program(const std::string& text, const rise::SizeMap& sizes,
                                     const std::string& target) {
  static std::vector<std::unique_ptr<rise::Program>> keep;
  keep.push_back(std::make_unique<rise::Program>(test::parse_rise(text)));
  driver::CompileRequest req;
  req.program = keep.back().get();
  req.sizes = &sizes;
  req.target = target;
  return driver::compile(req);
}

// `text` compiled for every target stops on the array `xs` of `elem`s with `words` in
// its error (the interpreter's words).
void expect_fault_on_every_target(const std::string& text, const rise::SizeMap& sizes,
                                  rise::ScalarKind elem, const std::vector<rise::Value>& xs,
                                  const std::string& words) {
  for (const char* target : kNatTargets) {
    SCOPED_TRACE(std::string(target) + " " + text);
    driver::Compiled compiled = compile_nat_program(text, sizes, target);
    try {
      driver::execute(compiled, sizes, {rise::array_of(rise::scalar(elem), xs)});
      ADD_FAILURE() << "no failure";
    } catch (const Error& e) {
      EXPECT_NE(format_error(e).find(words), std::string::npos) << format_error(e);
    }
  }
}

// The largest integer in a value (natType, index or integer scalars, in arrays).
int64_t nat_test_largest(const rise::Value& v) {
  switch (v.kind()) {
    case rise::ValueKind::Array: {
      int64_t m = INT64_MIN;
      for (int64_t i = 0; i < v.size(); ++i) m = std::max(m, nat_test_largest(v.at(i)));
      return m;
    }
    case rise::ValueKind::Nat:
    case rise::ValueKind::Index:
    case rise::ValueKind::Scalar:
      return v.raw_int();
    default:
      return INT64_MIN;
  }
}

// Runs `text` on every target at `sizes` on `inputs` (seeded ones when empty) and expects
// the interpreter's result exactly; returns the largest value the interpreter gave.
int64_t expect_nat_as_interpreter(const std::string& text, const rise::SizeMap& sizes,
                                  std::vector<rise::Value> inputs = {}) {
  int64_t largest = INT64_MIN;
  for (const char* target : kNatTargets) {
    SCOPED_TRACE(std::string(target) + "\n" + text);
    try {
      driver::Compiled compiled = compile_nat_program(text, sizes, target);
      if (inputs.empty()) inputs = driver::make_inputs(compiled.high, {}, 11);
      driver::Execution run = driver::execute(compiled, sizes, inputs);
      rise::Value expected = driver::interpret(compiled.high, inputs);
      largest = nat_test_largest(expected);
      driver::Comparison cmp = driver::compare_values(
          run.output, expected, driver::entry_result_type(compiled.high), 0.0, 0.0);
      EXPECT_TRUE(cmp.ok) << cmp.first_mismatch << " (compiled vs interpreter)\n"
                          << compiled.unit.source.substr(
                                 compiled.unit.source.size() -
                                 std::min<size_t>(3000, compiled.unit.source.size()));
    } catch (const Error& e) {
      ADD_FAILURE() << format_error(e);
    }
  }
  return largest;
}

TEST(NatTypeWidth, HeldOutPrograms) {
  struct Case {
    const char* name;
    const char* text;
    int64_t n;
    int64_t least_largest;  // the interpreter's largest value is at least this
  };
  const Case cases[] = {
      {"map cast to natType",
       "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => cast(x * 100000000i64) : "
       "natType))))",
       5, kNatTwo31},
      {"natType from an index",
       "def f = depFun(n: Nat => fun(a: n.f32 => (generate(fun(i => indexAsNat(i))) : n.natType) "
       "|> map(fun(k: natType => k * 1000000000 + 7))))",
       5, kNatTwo31},
      {"natType accumulator",
       "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => cast(x) : natType)) |> "
       "reduce(fun(u, v => u * 3 + v))(natType(1)) |> fun(s => cast(s) : i64)))",
       30, kNatTwo31},
      {"scalar natType arithmetic",
       "def f = depFun(n: Nat => fun(a: n.i32 => a |> map(fun(x => cast(cast(x) : natType * "
       "natType(100000000) / natType(7)) : i64))))",
       6, kNatTwo31 / 7},  // x * 10^8 passes 2^31 before the division
      {"select",
       "def f = depFun(n: Nat => fun(a: n.i32 => a |> map(fun(x => let k = cast(x) : natType in "
       "select(k > 50)(k * 100000000)(k)))))",
       6, kNatTwo31},
      // the let alone: once refused by lowerToC's re-check ('cannot infer the type of
      // let', the annotation gone), before re-inference kept what annotations fixed
      {"let of a natType cast alone",
       "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => let k = cast(x * "
       "100000000i64) : natType in cast(k) : i64))))",
       5, kNatTwo31},
      {"toMem then cast to i64",
       "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => cast(x * 100000000i64) : "
       "natType)) |> toMem |> map(fun(k: natType => cast(k) : i64))))",
       5, kNatTwo31},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    rise::SizeMap sizes;
    sizes["n"] = c.n;
    // The seeded inputs reach 2^31 (else this test would not test the width).
    EXPECT_GE(expect_nat_as_interpreter(std::string(c.text) + "\n", sizes), c.least_largest);
  }
}

// natType inputs and outputs hold 64-bit values (the ABI's int64_t): 2^31, 2^32 + 1 and
// 2^33 go in and come out whole.
TEST(NatTypeWidth, InputsAndOutputsAre64Bit) {
  const std::string text =
      "def f = depFun(n: Nat => fun(b: n.natType => b |> map(fun(v => v * natType(3) + "
      "natType(1)))))\n";
  rise::SizeMap sizes;
  sizes["n"] = 4;
  std::vector<rise::Value> nats;
  for (int64_t v : {kNatTwo31, (int64_t{1} << 32) + 1, int64_t{5}, int64_t{1} << 33})
    nats.push_back(rise::Value::nat(v));
  EXPECT_EQ(expect_nat_as_interpreter(text, sizes, {rise::array_of(rise::nat_data(), nats)}),
            3 * (int64_t{1} << 33) + 1);
}

// A signed integer cast to natType: a negative one fails as in the interpreter, with
// its words, on every target (a value of 2^31 or more is no longer negative in C).
TEST(NatTypeWidth, NegativeCastsFailAlike) {
  const std::string text =
      "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => cast(x - 3000000000i64) : "
      "natType))))\n";
  rise::SizeMap sizes;
  sizes["n"] = 3;
  std::vector<rise::Value> xs = {rise::Value::integer(rise::ScalarKind::I64, 7000000000),
                                 rise::Value::integer(rise::ScalarKind::I64, 5),
                                 rise::Value::integer(rise::ScalarKind::I64, 3000000000)};
  expect_fault_on_every_target(text, sizes, rise::ScalarKind::I64, xs,
                               "cast: the negative value -2999999995 to natType");
}

// A u64 of 2^63 or more does not fit in natType (a negative int64_t): the interpreter's
// error on every target, not a negative natType value.
TEST(NatTypeWidth, LargeU64CastsFailAlike) {
  const std::string text =
      "def f = depFun(n: Nat => fun(a: n.u64 => a |> map(fun(x => cast(x) : natType))))\n";
  rise::SizeMap sizes;
  sizes["n"] = 2;
  std::vector<rise::Value> xs = {rise::Value::from_u64(rise::ScalarKind::U64, 5),
                                 rise::Value::from_u64(rise::ScalarKind::U64, uint64_t{1} << 63)};
  expect_fault_on_every_target(text, sizes, rise::ScalarKind::U64, xs,
                               "cast: 9223372036854775808 does not fit in natType");
}

// natType arithmetic that fails in the interpreter fails alike on every target: a
// subtraction below 0, a division or modulo by 0 (the i64 words: natType values are
// int64_t), instead of a negative natType value or SIGFPE.
TEST(NatTypeWidth, SubtractionBelowZeroAndDivisionByZeroFailAlike) {
  struct Case {
    const char* body;
    const char* words;
  };
  const Case cases[] = {
      {"(cast(x) : natType) - natType(3000000000)",
       "natType arithmetic: sub gives the negative value -3000000000"},
      {"natType(7000000000) / (cast(x) : natType)", "integer division by zero (i64)"},
      {"natType(7000000000) % (cast(x) : natType)", "integer modulo by zero (i64)"},
  };
  rise::SizeMap sizes;
  sizes["n"] = 2;
  // both elements fail alike (openmp may report either first)
  const std::vector<rise::Value> xs = {rise::Value::integer(rise::ScalarKind::I64, 0),
                                       rise::Value::integer(rise::ScalarKind::I64, 0)};
  for (const Case& c : cases)
    expect_fault_on_every_target("def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => " +
                                     std::string(c.body) + "))))\n",
                                 sizes, rise::ScalarKind::I64, xs, c.words);
}

// The same subtraction of an index's natType value (held-out K: indexAsNat(i) - 2 stayed
// symbolic index arithmetic, unchecked: compiled code returned -2 and -1, exit 0).
TEST(NatTypeWidth, SubtractionOfAnIndexBelowZeroFailsAlike) {
  rise::SizeMap sizes;
  sizes["n"] = 4;
  const std::string text =
      "def f = depFun(n: Nat => fun(a: n.i64 => generate(fun(i => cast(indexAsNat(i) - 2) : "
      "i64)) : n.i64))\n";
  const std::vector<rise::Value> xs(4, rise::Value::integer(rise::ScalarKind::I64, 0));
  expect_fault_on_every_target(text, sizes, rise::ScalarKind::I64, xs,
                               "natType arithmetic: sub gives the negative value -");
}

// Random natType arithmetic (+, *, / and % by positive constants) over a value cast from
// the seeded inputs (below 100), with constants chosen so that results lie around 2^31
// and 2^32 (and stay far below 2^63).
struct NatArith {
  std::string text;
  int64_t max;
};

class NatArithGen {
 public:
  explicit NatArithGen(uint64_t seed) : rng_(seed) {}
  NatArith gen(int depth) {
    if (depth <= 0 || pick(4) == 0) return leaf();
    NatArith a = gen(depth - 1);
    switch (pick(4)) {
      case 0: {
        NatArith b = gen(depth - 1);
        if (a.max + b.max < (int64_t{1} << 40))
          return {"(" + a.text + " + " + b.text + ")", a.max + b.max};
        return a;
      }
      case 1: {
        const int64_t c = constant();
        if (a.max <= (int64_t{1} << 40) / c)
          return {"(" + a.text + " * natType(" + std::to_string(c) + "))", a.max * c};
        return a;
      }
      case 2: {
        const int64_t d = 1 + pick(1000);
        return {"(" + a.text + " / natType(" + std::to_string(d) + "))", a.max / d};
      }
      default: {
        const int64_t m = constant();
        return {"(" + a.text + " % natType(" + std::to_string(m) + "))", std::min(a.max, m - 1)};
      }
    }
  }

 private:
  std::mt19937_64 rng_;
  int64_t pick(int64_t k) { return std::uniform_int_distribution<int64_t>(0, k - 1)(rng_); }
  // Around 2^31 / 100, 2^31 and 2^32 (a value below 100 times the first reaches 2^31).
  int64_t constant() {
    static const int64_t kBases[] = {kNatTwo31 / 100, kNatTwo31, int64_t{1} << 32,
                                     (int64_t{1} << 32) / 99, 3};
    return std::max<int64_t>(2, kBases[pick(5)] + pick(7) - 3);
  }
  NatArith leaf() {
    if (pick(3) == 0) {
      const int64_t c = constant();
      return {"natType(" + std::to_string(c) + ")", c};
    }
    return {"k", 99};
  }
};

TEST(NatTypeWidth, RandomArithmeticAround2To31And2To32) {
  rise::SizeMap sizes;
  sizes["n"] = 8;
  int wide = 0;
  // Under the sanitizers the first 4 (driver/sanitized_sample.h).
  const uint64_t seeds = driver::per_build(10, 4);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    NatArithGen gen(seed * 0x9E3779B97F4A7C15u);
    NatArith e = gen.gen(4);
    // and a result around 2^31 (odd seeds) or 2^32 (even ones), small or not
    const int64_t around = (seed % 2 ? kNatTwo31 : int64_t{1} << 32) - 50;
    e.text = "(" + e.text + " % natType(" + std::to_string(around) + ") + natType(" +
             std::to_string(around) + "))";
    const std::string text =
        "def f = depFun(n: Nat => fun(a: n.i64 => a |> map(fun(x => let k = cast(x) : natType "
        "in cast(" +
        e.text + ") : i64))))\n";
    if (expect_nat_as_interpreter(text, sizes) >= kNatTwo31) ++wide;
  }
  // Most of them compute values of 2^31 or more.
  EXPECT_GE(wide, static_cast<int>(seeds) * 4 / 5);
}

}  // namespace
}  // namespace risec
