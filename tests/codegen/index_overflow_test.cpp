// Index arithmetic whose intermediate values pass 2^31 although the index itself is
// small (`a[i*i % n]`, `natAsScalar(i*i % 7)`): code with known sizes keeps C `int`
// only when every intermediate of every index expression fits (index_width.cpp), so
// the generated code must compute what the interpreter computes at sizes on both sides
// of the size where some intermediate reaches 2^31. Random index expressions (sums,
// products, powers, floor divisions and modulos of the loop indices, constants and the
// size) are run on c, openmp and opencl against the interpreter, with the held-out
// tester's cases by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
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

constexpr int64_t kTwo31 = int64_t{1} << 31;

// Saturating at 2^40, far enough above 2^31 for the boundaries below.
constexpr int64_t kCap = int64_t{1} << 40;
int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kCap / b ? kCap : std::min(a * b, kCap);
}
int64_t sat_add(int64_t a, int64_t b) {
  return std::min(a + b, kCap);
}

// A Nat expression over the loop indices i (< n) and j (< kJ), constants and n, with
// the largest value any of its sub-expressions can take at a size n (all values are
// >= 0: no subtraction).
constexpr int64_t kJ = 3;

struct Expr {
  std::string text;
  // the largest value of the expression and of any of its sub-expressions
  std::function<int64_t(int64_t n)> max, peak;
};

class IndexExprs {
 public:
  explicit IndexExprs(uint64_t seed) : rng_(seed) {}

  Expr gen(int depth) {
    if (depth <= 0 || pick(5) == 0) return leaf();
    switch (pick(7)) {
      case 0:
      case 1:
        return bin(gen(depth - 1), gen(depth - 1), "*");
      case 2:
        return bin(gen(depth - 1), gen(depth - 1), "+");
      case 3: {  // floor division by a constant
        Expr a = gen(depth - 1);
        int64_t c = 1 + pick(9);
        return {"(" + a.text + ") / " + std::to_string(c),
                [a, c](int64_t n) { return a.max(n) / c; }, a.peak};
      }
      case 4: {  // modulo a constant
        Expr a = gen(depth - 1);
        int64_t c = 2 + pick(11);
        return {"(" + a.text + ") % " + std::to_string(c),
                [a, c](int64_t n) { return std::min(a.max(n), c - 1); }, a.peak};
      }
      case 5: {  // modulo the size
        Expr a = gen(depth - 1);
        return {"(" + a.text + ") % n", [a](int64_t n) { return std::min(a.max(n), n - 1); },
                a.peak};
      }
      default: {  // a small power, written as a product (`^` is for types)
        Expr a = gen(depth - 1);
        int e = 2 + pick(2);
        auto p = [a, e](int64_t n) {
          int64_t r = 1;
          for (int k = 0; k < e; ++k) r = sat_mul(r, a.max(n));
          return r;
        };
        std::string text = "(" + a.text + ")";
        for (int k = 1; k < e; ++k) text += " * (" + a.text + ")";
        return {text, p, [a, p](int64_t n) { return std::max(a.peak(n), p(n)); }};
      }
    }
  }

 private:
  std::mt19937_64 rng_;
  int pick(int k) { return std::uniform_int_distribution<int>(0, k - 1)(rng_); }

  Expr leaf() {
    switch (pick(5)) {
      case 0:
      case 1:
        return {"i", [](int64_t n) { return n - 1; }, [](int64_t n) { return n - 1; }};
      case 2:
        return {"j", [](int64_t) { return kJ - 1; }, [](int64_t) { return kJ - 1; }};
      case 3:
        return {"n", [](int64_t n) { return n; }, [](int64_t n) { return n; }};
      default: {
        static const int64_t kConsts[] = {1, 2, 7, 100, 3000, 100000};
        int64_t c = kConsts[pick(6)];
        return {std::to_string(c), [c](int64_t) { return c; }, [c](int64_t) { return c; }};
      }
    }
  }

  static Expr bin(const Expr& a, const Expr& b, const std::string& op) {
    auto m = [a, b, op](int64_t n) {
      const int64_t x = a.max(n), y = b.max(n);
      return op == "*" ? sat_mul(x, y) : sat_add(x, y);
    };
    return {"(" + a.text + ") " + op + " (" + b.text + ")", m, [a, b, m](int64_t n) {
              return std::max({a.peak(n), b.peak(n), m(n)});
            }};
  }
};

// The smallest n in [2, limit] at which some sub-expression of `e` reaches 2^31 (the
// peaks grow with n), or 0 when none does.
int64_t boundary(const Expr& e, int64_t limit) {
  if (e.peak(limit) < kTwo31) return 0;
  int64_t lo = 2, hi = limit;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (e.peak(mid) >= kTwo31)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// A gather through the index (modulo n, so it is in bounds) and the index's value.
std::string gather_program(const std::string& index) {
  return "def f = depFun(n: Nat => fun(a: n.f32 =>\n  with { ([0, 0] <= [i, j] < [n, " +
         std::to_string(kJ) + "]) : a[(" + index + ") % n]; } : genarray([n, " +
         std::to_string(kJ) + "], 0.0f)))\n";
}
std::string value_program(const std::string& index) {
  return "def f = depFun(n: Nat => fun(a: n.i64 =>\n  with { ([0, 0] <= [i, j] < [n, " +
         std::to_string(kJ) + "]) : natAsScalar(" + index + ") : i64; } : genarray([n, " +
         std::to_string(kJ) + "], 0i64)))\n";
}

// Compiles `text` at n for `target` and compares its result with the interpreter's.
void expect_as_interpreter(const std::string& text, int64_t n, const std::string& target) {
  SCOPED_TRACE(target + " n=" + std::to_string(n) + "\n" + text);
  try {
    rise::SizeMap sizes;
    sizes["n"] = n;
    // no strategy: the default lowering of the target (openmp: a parallel loop)
    rise::Program prog = test::parse_rise(text);
    driver::CompileRequest req;
    req.program = &prog;
    req.sizes = &sizes;
    req.target = target;
    test::expect_exactly_as_interpreter(driver::compile(req), sizes, 7);
  } catch (const Error& e) {
    ADD_FAILURE() << format_error(e);
  }
}

TEST(IndexOverflow, HeldOutCases) {
  const std::string sq =
      "def f = depFun(n: Nat => fun(a: n.f32 =>\n"
      "  with { ([0] <= [i] < [n]) : a[i * i % n]; } : genarray([n], 0.0f)))\n";
  for (const char* t : {"c", "openmp"}) expect_as_interpreter(sq, 50000, t);
  expect_as_interpreter(sq, 70001, "opencl");
  const std::string value =
      "def f = depFun(n: Nat => fun(a: n.i64 =>\n"
      "  with { ([0] <= [i] < [n]) : natAsScalar(i * i) : i64; } : genarray([n], 0i64)))\n";
  expect_as_interpreter(value, 50000, "c");
  const std::string mod7 =
      "def f = depFun(n: Nat => fun(a: n.i32 =>\n"
      "  with { ([0] <= [i] < [n]) : a[i] + natAsScalar(i * i % 7); } : genarray([n], 0)))\n";
  expect_as_interpreter(mod7, 70001, "c");
  // a constant factor was already widened; it must stay right
  const std::string scaled =
      "def f = depFun(n: Nat => fun(a: n.i64 =>\n"
      "  with { ([0] <= [i] < [n]) : natAsScalar(i * 100000) : i64; } : genarray([n], 0i64)))\n";
  expect_as_interpreter(scaled, 30000, "c");
}

TEST(IndexOverflow, RandomIndexExpressionsAroundTheir2To31Boundary) {
  const std::vector<std::string> targets = {"c", "openmp", "opencl"};
  int crossing = 0;
  // Under the sanitizers the first 6 expressions (driver/sanitized_sample.h).
  const uint64_t seeds = driver::per_build(24, 6);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    IndexExprs gen(seed * 0x9E3779B97F4A7C15u);
    Expr e = gen.gen(3);
    while (e.text.find('i') == std::string::npos) e = gen.gen(3);  // an index, not a literal
    const int64_t b = boundary(e, 150000);
    // both sides of the boundary where there is one, else a size that is merely large
    std::vector<int64_t> ns =
        b ? std::vector<int64_t>{std::max<int64_t>(2, b - 1), b + 1 + int64_t(seed % 5)}
          : std::vector<int64_t>{70001};
    crossing += b != 0;
    const std::string& target = targets[seed % targets.size()];
    for (int64_t n : ns) {
      expect_as_interpreter(gather_program(e.text), n, target);
      expect_as_interpreter(value_program(e.text), n, target);
    }
  }
  // the generator must reach the boundary for most expressions, or it tests little
  EXPECT_GE(crossing, static_cast<int>(seeds / 3));
}

}  // namespace
}  // namespace risec
