// Index terms that views build while the printers resolve them into subscripts (a
// join's `k / m` and `k % m`, a slide's `i*sp + j`, a reverse's `n - 1 - i`, a pad's
// shifted and clamped indices, a reorder's index function applied to a loop index)
// are not in the program: the printers choose C `int` from the program's own terms,
// and generate_c then checks every term it printed (index_width.cpp,
// printed_terms_narrow) and prints the unit again with int64_t where one may leave
// `int`. Random chains of view primitives are run against the interpreter on c,
// openmp and opencl at sizes on both sides of the size where an intermediate reaches
// 2^31 (a reorder by `i*i % n` or `i*c % n`), the c runs under UBSan's
// signed-overflow check, which reports an overflow even where wrap-around would give
// the right index; large chains (compiled only) check that every term printed in a
// unit that keeps `int` has its intermediates in range at sampled points; CUDA's
// 32-bit kernels (beside 64-bit ones, for symbolic sizes) must have their host check
// the views' terms too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "codegen/c/c_printer.h"
#include "compile_util.h"
#include "driver/compile.h"
#include "driver/run.h"
#include "support/diagnostics.h"

namespace risec::view_index_overflow_test {
namespace {

constexpr int64_t kLimit = int64_t{1} << 31;
// Room for the products and sums of 64-bit values the tests compute.
__extension__ typedef __int128 Wide;
constexpr int64_t kSat = int64_t{1} << 50;

int64_t mul_sat(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSat / b ? kSat : std::min(a * b, kSat);
}

// A chain of views applied to the input `a` of `len` f32s, ending in a sequential
// copy. `peak` is the largest element count of a value in the chain and the largest
// intermediate of a reorder's index function (its index times itself or times its
// multiplier): what C computes at least, before arith rewrites the terms.
struct Chain {
  std::string program;
  int64_t len = 0;
  int64_t peak = 0;
};

// x with a*x == 1 modulo n (a prime to n), by the extended Euclidean algorithm.
int64_t inverse_mod(int64_t a, int64_t n) {
  int64_t r0 = n, r1 = a, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    std::tie(r0, r1) = std::pair{r1, r0 - q * r1};
    std::tie(t0, t1) = std::pair{t1, t0 - q * t1};
  }
  return t0 < 0 ? t0 + n : t0;
}

class ChainMaker {
 public:
  explicit ChainMaker(uint64_t seed) : rng_(seed) {}

  // `mult`: the multiplier of an `i*c % n` reorder applied first (to the input) or
  // last (`at_end`, to the flattened chain); 0: none (the chain's reorders, if any,
  // are `i*i % n` or multiply by small numbers).
  Chain make(int64_t len, int steps, int64_t mult, bool at_end = false) {
    dims_ = {len};
    expr_ = "a";
    peak_ = len;
    mult_ = mult;
    if (mult_ && !at_end) apply(reorder(len));
    for (int s = 0; s < steps; ++s) step();
    while (dims_.size() > 1) join();
    if (mult_) apply(reorder(dims_[0]));
    Chain c;
    c.len = len;
    c.peak = peak_;
    c.program = "def f = fun(a: " + std::to_string(len) + ".f32 =>\n  " + expr_ +
                " |> mapSeq(fun(v => v)))\n";
    return c;
  }

 private:
  std::mt19937_64 rng_;
  std::vector<int64_t> dims_;
  std::string expr_;
  int64_t peak_ = 0;
  int64_t mult_ = 0;

  int pick(int k) { return std::uniform_int_distribution<int>(0, k - 1)(rng_); }
  static std::string num(int64_t v) { return std::to_string(v); }
  int64_t count() const {
    int64_t c = 1;
    for (int64_t d : dims_) c = mul_sat(c, d);
    return c;
  }
  void apply(const std::string& f) {
    expr_ += " |> " + f;
    peak_ = std::max(peak_, count());
  }
  void join() {
    dims_[1] = mul_sat(dims_[0], dims_[1]);
    dims_.erase(dims_.begin());
    apply("join");
  }

  // A reorder of an array of n elements: `i*i % n`, or `i*c % n` with c prime to n
  // (a permutation, its inverse as finv).
  std::string reorder(int64_t n) {
    if (n < 2) return "reorder(" + num(n) + ")(fun(i => i))(fun(i => i))";
    if (mult_ == 0 && pick(2) == 0) {
      peak_ = std::max(peak_, mul_sat(n - 1, n - 1));
      return "reorder(" + num(n) + ")(fun(i => i * i % " + num(n) + "))(fun(i => i))";
    }
    int64_t c = mult_ ? mult_ : 2 + pick(40);
    mult_ = 0;
    while (std::gcd(c, n) != 1) ++c;
    const int64_t inv = inverse_mod(c % n, n);
    peak_ = std::max({peak_, mul_sat(n - 1, c), mul_sat(n - 1, inv)});
    return "reorder(" + num(n) + ")(fun(i => i * " + num(c) + " % " + num(n) + "))(fun(i => i * " +
           num(inv) + " % " + num(n) + "))";
  }

  void step() {
    const int64_t n = dims_[0];
    if (dims_.size() == 1) {
      switch (pick(9)) {
        case 0:
          return apply("reverse");
        case 1: {
          int64_t t = pick(4);
          if (n - t >= 1) {
            dims_[0] = n - t;
            apply("take(" + num(n - t) + ")");
          }
          return;
        }
        case 2: {
          int64_t d = std::min<int64_t>(pick(4), n - 1);
          dims_[0] = n - d;
          return apply("drop(" + num(d) + ")");
        }
        case 3: {
          int64_t l = pick(4), r = pick(4);
          dims_[0] = n + l + r;
          return apply("padCst(" + num(l) + ")(" + num(r) + ")(0.0f)");
        }
        case 4: {
          int64_t l = pick(4), r = pick(4);
          dims_[0] = n + l + r;
          return apply("padClamp(" + num(l) + ")(" + num(r) + ")");
        }
        case 5:
          for (int64_t k : {2, 3, 4, 5, 8})
            if (n % k == 0 && n > k && pick(2) == 0) {
              dims_ = {n / k, k};
              return apply("split(" + num(k) + ")");
            }
          return;
        case 6: {
          int64_t sz = 2 + pick(3), sp = 1 + pick(3);
          if (n >= sz && (n - sz) % sp == 0) {
            dims_ = {(n - sz) / sp + 1, sz};
            apply("slide(" + num(sz) + ")(" + num(sp) + ")");
          }
          return;
        }
        default:
          return apply(reorder(n));
      }
    }
    const int64_t m = dims_[1];
    switch (pick(dims_.size() == 2 ? 7 : 4)) {
      case 0:
        std::swap(dims_[0], dims_[1]);
        return apply("transpose");
      case 1:
        return join();
      case 2:
        return apply("reverse");
      case 3:
        return apply("map(reverse)");
      case 4:
        dims_[1] = m + 2;
        return apply("map(padClamp(1)(1))");
      case 5:
        if (m > 1) {
          dims_[1] = m - 1;
          apply("map(drop(1))");
        }
        return;
      default:
        return apply("map(" + reorder(m) + ")");
    }
  }
};

// The multiplier c at which (n-1)*c first reaches 2^31, moved by `side` (-1: the
// largest c whose product stays below).
int64_t crossing_multiplier(int64_t n, int side) {
  int64_t c = (kLimit + n - 2) / (n - 1);  // smallest c with (n-1)*c >= 2^31
  return side < 0 ? c - 1 : c;
}

bool keeps_int(const std::string& source) {
  return source.find("for (int ") != std::string::npos &&
         source.find("for (int64_t ") == std::string::npos;
}

// The unit of `text` for `target` as the driver compiles it without a strategy (the
// target's default lowering), sizes specialised where given.
driver::Compiled compile_view_chain(const std::string& text, const std::string& target,
                                    const rise::SizeMap& sizes = {}) {
  static std::vector<std::unique_ptr<rise::Program>> keep;  // the unit refers into it
  keep.push_back(std::make_unique<rise::Program>(test::parse_rise(text)));
  driver::CompileRequest req;
  req.program = keep.back().get();
  req.sizes = sizes.empty() ? nullptr : &sizes;
  req.target = target;
  return driver::compile(req);
}

// Compiles `text` for `target` and compares its result with the interpreter's; the c
// target runs as a standalone program under UBSan's signed-overflow check.
driver::Compiled run_against_interpreter(const std::string& text, const std::string& target) {
  SCOPED_TRACE(target + "\n" + text);
  driver::Compiled compiled;
  try {
    compiled = compile_view_chain(text, target);
    driver::ExecOptions opts;
    if (target == "c") {
      opts.mode = driver::ExecMode::Standalone;
      opts.extra_cflags = {"-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all"};
    }
    test::expect_exactly_as_interpreter(compiled, {}, 11, opts);
  } catch (const Error& e) {
    ADD_FAILURE() << format_error(e) << "\n" << compiled.unit.source.substr(0, 6000);
  }
  return compiled;
}

TEST(ViewIndexOverflow, HeldOutReorders) {
  // 46341^2 >= 2^31 > 46340^2: `i*i` in the reorder's `i*i % n` leaves int at the
  // larger size; C's int gave wrong elements (the index function was never checked).
  for (int64_t n : {46000, 50000}) {
    const std::string text = "def f = fun(a: " + std::to_string(n) + ".f32 =>\n  a |> reorder(" +
                             std::to_string(n) + ")(fun(i => i * i % " + std::to_string(n) +
                             "))(fun(i => i)) |> mapSeq(fun(v => v)))\n";
    for (const char* t : {"c", "openmp", "opencl"}) {
      driver::Compiled c = run_against_interpreter(text, t);
      EXPECT_EQ(keeps_int(c.unit.source), (n - 1) * (n - 1) < kLimit) << c.unit.source;
    }
  }
  // a permutation: i*c % n with c prime to n, through a reverse (its index is
  // n - 1 - i, and C computes (n - 1 - i)*c)
  const int64_t n = 30011, c = crossing_multiplier(n, +1);
  const std::string perm = "def f = fun(a: " + std::to_string(n) + ".f32 =>\n  a |> reverse |> " +
                           "reorder(" + std::to_string(n) + ")(fun(i => i * " + std::to_string(c) +
                           " % " + std::to_string(n) + "))(fun(i => i)) |> mapSeq(fun(v => v)))\n";
  run_against_interpreter(perm, "c");
}

TEST(ViewIndexOverflow, RandomViewChainsAroundThe2To31Boundary) {
  const std::vector<std::string> targets = {"c", "openmp", "opencl"};
  int crossing = 0, narrow = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ChainMaker maker(seed * 0x9E3779B97F4A7C15u + 3);
    std::mt19937_64 rng(seed);
    const int64_t len = std::uniform_int_distribution<int64_t>(2000, 60000)(rng);
    // most chains start or end with a multiplicative reorder at its boundary (either
    // side), the others are left to chance (i*i reorders cross above 46341 elements)
    const int side = seed % 2 ? 1 : -1;
    const int64_t mult = seed % 4 != 3 ? crossing_multiplier(len, side) : 0;
    Chain ch = maker.make(len, 2 + static_cast<int>(seed % 3), mult, (seed / 2) % 2 == 1);
    const std::string& target = targets[seed % targets.size()];
    driver::Compiled c = run_against_interpreter(ch.program, target);
    crossing += ch.peak >= kLimit;
    if (ch.peak < (kLimit >> 3)) {
      // the common case keeps its 32-bit indices
      EXPECT_TRUE(keeps_int(c.unit.source)) << ch.program << c.unit.source;
      ++narrow;
    }
  }
  EXPECT_GE(crossing, 6);
  EXPECT_GE(narrow, 3);
}

// ---- every term printed in a unit that keeps `int` fits it, at sampled points

struct Sampler {
  std::mt19937_64 rng{7};
  bool bad = false;
  std::string why;

  void value(Wide v, const arith::Nat& where) {
    if (!bad && (v >= kLimit || v < -kLimit)) {
      bad = true;
      why = arith::print(where, arith::Syntax::C);
    }
  }
  Wide eval(const arith::Nat& t, const arith::Assignment& env) { return arith::evaluate(t, env); }
  // The values C computes for `n` printed by arith::print(Syntax::C): each sub-term,
  // each partial product (coefficient first) and each partial sum (positive terms,
  // then negative ones, then the constant, before the division by the denominator).
  void walk(const arith::Nat& n, const arith::Assignment& env) {
    const arith::Node& node = n.node();
    auto product = [&](int64_t coef, const arith::Nat& mono) {
      std::vector<arith::Nat> fs = arith::factors(mono);
      if (fs.empty()) fs.push_back(mono);
      Wide acc = coef;
      for (const arith::Nat& f : fs) {
        walk(f, env);
        acc *= eval(f, env);
        value(acc, n);
      }
      return acc;
    };
    if (node.kind == arith::Kind::Sum) {
      int64_t l = node.value.den();
      for (const auto& [c, m] : node.terms) l = std::lcm(l, c.den());
      Wide acc = 0;
      for (int sign : {1, -1})
        for (const auto& [c, m] : node.terms) {
          int64_t s = (c * arith::Rational(l)).num();
          if ((s > 0) != (sign > 0)) continue;
          acc += sign * product(s < 0 ? -s : s, m);
          value(acc, n);
        }
      acc += (node.value * arith::Rational(l)).num();
      value(acc, n);
    } else if (node.kind == arith::Kind::Prod) {
      product(1, n);
    } else {
      if (node.kind == arith::Kind::Select) {
        const arith::CondNode& cn = *node.cond;
        for (const arith::Nat& x : {cn.a, cn.b}) walk(x, env);
      }
      for (const arith::Nat& a : node.args) walk(a, env);
    }
    value(eval(n, env), n);
  }

  // Samples `n` at the corners of its variables' ranges and at random points.
  void check(const arith::Nat& n) {
    std::map<std::string, arith::Nat> vars = arith::free_vars(n);
    for (int round = 0; round < 24 && !bad; ++round) {
      arith::Assignment env;
      // assign in an order that evaluates each range's bounds (they may name others)
      for (size_t pass = 0; pass <= vars.size() && env.size() < vars.size(); ++pass)
        for (const auto& [name, v] : vars) {
          if (env.count(name)) continue;
          const arith::Node& vn = v.node();
          if (!vn.lo || !vn.hi) return;  // not a loop index: nothing to sample
          int64_t lo, hi;
          try {
            lo = arith::evaluate(*vn.lo, env);
            hi = arith::evaluate(*vn.hi, env) - 1;
          } catch (const arith::ArithError&) {
            continue;  // a bound names a variable not assigned yet
          }
          if (hi < lo) return;
          int64_t x = round == 0   ? lo
                      : round == 1 ? hi
                      : round < 8  ? (pick(2) ? lo : hi)
                                   : std::uniform_int_distribution<int64_t>(lo, hi)(rng);
          env[name] = x;
        }
      if (env.size() < vars.size()) return;
      try {
        walk(n, env);
      } catch (const arith::ArithError&) {
        // a division by zero outside the term's guard: not a value C computes
      }
    }
  }
  int pick(int k) { return std::uniform_int_distribution<int>(0, k - 1)(rng); }
};

TEST(ViewIndexOverflow, TermsPrintedWithIntFitItInLargeChains) {
  // lengths near 2^31 / k, so that element counts and their terms approach 2^31
  const int64_t lens[] = {46341LL * 46340, kLimit - 7, kLimit / 3 + 1, 46340LL * 1000,
                          65536LL * 32767};
  int kept = 0, units = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    ChainMaker maker(seed * 0xD1B54A32D192ED03u);
    const int64_t len = lens[seed % 5] - static_cast<int64_t>(seed % 3);
    Chain ch = maker.make(len, 2 + static_cast<int>(seed % 4), 0);
    for (const char* target : {"c", "opencl"}) {
      SCOPED_TRACE(std::string(target) + "\n" + ch.program);
      codegen::PrintedNats printed;
      driver::Compiled c;
      try {
        c = compile_view_chain(ch.program, target);
      } catch (const Error& e) {
        ADD_FAILURE() << format_error(e);
        continue;
      }
      ++units;
      const std::string& src = c.unit.source;
      if (!keeps_int(src)) continue;
      ++kept;
      Sampler s;
      for (const arith::Nat& n : printed.nats()) {
        s.check(n);
        if (s.bad) break;
      }
      EXPECT_FALSE(s.bad) << "an intermediate of " << s.why << " leaves int\n" << src;
    }
  }
  EXPECT_EQ(units, 60);
  // most chains stay below 2^31 and keep int; the test checks little otherwise
  EXPECT_GE(kept, 10);
}

// ---- CUDA: 32-bit kernels beside 64-bit ones

// The value of a C expression of integers, names in `env`, + - * / % and parentheses.
struct CIntExpr {
  const std::string& s;
  const std::map<std::string, int64_t>& env;
  size_t at = 0;
  void skip() {
    while (at < s.size() && s[at] == ' ') ++at;
  }
  Wide primary() {
    skip();
    if (s[at] == '(') {
      ++at;
      Wide v = sum();
      skip();
      ++at;  // ')'
      return v;
    }
    if (s[at] == '-') {
      ++at;
      return -primary();
    }
    size_t b = at;
    while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_')) ++at;
    std::string w = s.substr(b, at - b);
    if (std::isdigit(static_cast<unsigned char>(w[0]))) return std::stoll(w);
    return env.at(w);
  }
  Wide product() {
    Wide v = primary();
    for (skip(); at < s.size() && (s[at] == '*' || s[at] == '/' || s[at] == '%'); skip()) {
      char op = s[at++];
      Wide r = primary();
      v = op == '*' ? v * r : op == '/' ? v / r : v % r;
    }
    return v;
  }
  Wide sum() {
    Wide v = product();
    for (skip(); at < s.size() && (s[at] == '+' || s[at] == '-'); skip()) {
      char op = s[at++];
      Wide r = product();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }
};

// Whether the CUDA host picks its 32-bit kernels at the sizes `env`: every
// `risec_fits_int(EXPR)` it checks holds.
bool host_picks_narrow(const std::string& source, const std::map<std::string, int64_t>& env) {
  const std::string key = "risec_narrow && risec_fits_int(";
  bool all = true;
  for (size_t p = source.find(key); p != std::string::npos; p = source.find(key, p + 1)) {
    size_t b = p + key.size(), e = source.find(");\n", b);
    std::string expr = source.substr(b, e - b);
    CIntExpr x{expr, env};
    Wide v = x.sum();
    all = all && v < kLimit && v > -kLimit;
  }
  return all;
}

TEST(ViewIndexOverflow, CudaNarrowKernelsCheckTheTermsOfViews) {
  // reverse of the rows: row n-1-i starts at (n-1-i)*m, which C computes as
  // n*m + j - m - i*m: `n*m + j` reaches n*m + m - 1, past the element count n*m.
  const std::string text =
      "def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
      "  x |> reverse |> mapGlobal(0)(fun(r => r |> mapSeq(fun(v => v + 1.0f))))))\n";
  driver::Compiled c = compile_view_chain(text, "cuda");
  const std::string& src = c.unit.source;
  ASSERT_NE(src.find("risec_narrow"), std::string::npos) << src;  // 32-bit kernels there
  // 46340 * 46341 < 2^31 <= 46340 * 46341 + 46340
  EXPECT_TRUE(host_picks_narrow(src, {{"n", 1000}, {"m", 1000}})) << src;
  EXPECT_TRUE(host_picks_narrow(src, {{"n", 46340}, {"m", 46339}})) << src;
  EXPECT_FALSE(host_picks_narrow(src, {{"n", 46340}, {"m", 46341}})) << src;
  // a reorder's `i*i % n`: i*i reaches (n-1)^2, which the host must check
  const std::string sq =
      "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
      "  x |> reorder(n)(fun(i => i * i % n))(fun(i => i)) |> mapGlobal(0)(fun(v => v))))\n";
  driver::Compiled r = compile_view_chain(sq, "cuda");
  const std::string& rs = r.unit.source;
  ASSERT_NE(rs.find("risec_narrow"), std::string::npos) << rs;
  EXPECT_TRUE(host_picks_narrow(rs, {{"n", 46341}})) << rs;
  EXPECT_FALSE(host_picks_narrow(rs, {{"n", 46342}})) << rs;
  // a clamp's min and max (padClamp, as in the stencils) are bounded over the sizes:
  // the 32-bit kernels stay
  const std::string clamp =
      "def f = depFun(n: Nat => fun(x: n.f32 =>\n"
      "  x |> padClamp(1)(1) |> slide(3)(1) |> mapGlobal(0)(fun(w => w |> "
      "reduceSeq(add)(0.0f)))))\n";
  driver::Compiled k = compile_view_chain(clamp, "cuda");
  ASSERT_NE(k.unit.source.find("risec_narrow"), std::string::npos) << k.unit.source;
  EXPECT_TRUE(host_picks_narrow(k.unit.source, {{"n", 100000}})) << k.unit.source;
  EXPECT_FALSE(host_picks_narrow(k.unit.source, {{"n", kLimit}})) << k.unit.source;
}

// A GPU parallel loop strides: `for (int i = id; i < n; i += step)` computes i + step
// once more after the last iteration, with step the launch's work items (mapGlobal),
// groups (mapWorkGroup) or group size. The host keeps every step at most 2^30, and the
// 32-bit kernels are printed for trip counts of at most 2^30: a mapGlobal over 1.5e9
// elements, launched with 1.5e9 work items, took i + step past 2^31.
TEST(ViewIndexOverflow, GpuStridedLoopsLeaveRoomForTheirStep) {
  const int64_t two30 = int64_t{1} << 30;
  for (int64_t n : {two30, two30 + 1, int64_t{1500000000}}) {
    const std::string text =
        "def f = fun(x: " + std::to_string(n) + ".f32 => x |> mapGlobal(0)(fun(v => v + 1.0f)))\n";
    for (const char* target : {"opencl", "cuda"}) {
      driver::Compiled c = compile_view_chain(text, target);
      EXPECT_EQ(keeps_int(c.unit.source), n <= two30) << target << " n=" << n << "\n"
                                                      << c.unit.source;
      EXPECT_NE(c.unit.source.find("if (global[d] > RISEC_MAX_STRIDE)"), std::string::npos);
    }
  }
  const std::string generic =
      "def f = depFun(n: Nat => fun(x: n.f32 => x |> mapGlobal(0)(fun(v => v + 1.0f))))\n";
  driver::Compiled g = compile_view_chain(generic, "cuda");
  EXPECT_TRUE(host_picks_narrow(g.unit.source, {{"n", two30}})) << g.unit.source;
  EXPECT_FALSE(host_picks_narrow(g.unit.source, {{"n", two30 + 1}})) << g.unit.source;
}

}  // namespace
}  // namespace risec::view_index_overflow_test
