// Rewrites never make a correct program stop (docs/guarantees.md, "Partial
// operations"): an integer division, a modulo or an index made from data that runs only
// under a guard (a select's branch, the right operand of `&&`) is not moved out of it by
// cse (so the default lowering's simplify), licm, hoist or storeInMemory. Random programs
// with such guarded operations, repeated so that sharing and hoisting apply, run on
// inputs that make the guard false (divisors 0, indices out of range) with the default
// lowering and with strategies of every motion rule, on c and openmp, against the
// interpreter; and an unused `let` whose value would stop the program is not evaluated,
// by the interpreter as by compiled code.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../driver/sanitized_sample.h"
#include "e2e_util.h"
#include "runtime/npy.h"

namespace risec::e2e {
namespace {

std::string gp_npy_i32(const std::string& name, const std::vector<int32_t>& values,
                       bool scalar = false) {
  std::vector<int64_t> shape;
  if (!scalar) shape.push_back(static_cast<int64_t>(values.size()));
  runtime::NdArray a = runtime::make_array(runtime::DType::I32, shape);
  for (size_t i = 0; i < values.size(); ++i) a.as<int32_t>()[i] = values[i];
  std::string path = scratch_path(name + ".npy");
  runtime::write_npy(path, a);
  return path;
}

// Compiles `text` with `strategy` on `target` and runs it on the given inputs against
// the interpreter: neither may stop the program, and the results must agree.
void gp_expect_agrees(const std::string& name, const std::string& text, const std::string& strategy,
                      const std::string& sizes, const std::string& target,
                      const std::map<std::string, std::string>& inputs) {
  SCOPED_TRACE(text + "\nstrategy: " + (strategy.empty() ? "(default lowering)" : strategy) +
               "\ntarget: " + target);
  CheckOptions o;
  o.target = target;
  o.rtol = o.atol = 0;
  o.inputs = inputs;
  try {
    CheckReport r = run_and_compare(write_scratch(name + ".rise", text), strategy, sizes, o);
    EXPECT_TRUE(r.comparison.ok) << r.comparison.first_mismatch << "\n" << r.compiled.unit.source;
  } catch (const Error& e) {
    ADD_FAILURE() << "stopped: " << e.what();
  }
}

enum class GpKind { Div, Mod, Index };

// The partial term over the value x and the data d, and the guard under which it is
// defined.
struct GpTerm {
  std::string term, guard;
};
GpTerm gp_term(GpKind k, const std::string& x, const std::string& d) {
  switch (k) {
    case GpKind::Div:
      return {"(" + x + " / " + d + ")", d + " != 0"};
    case GpKind::Mod:
      return {"(" + x + " % " + d + ")", d + " != 0"};
    case GpKind::Index:
      return {"t[natAsIndex(m)(cast(" + d + ") : natType)]", d + " >= 0 && " + d + " < 8"};
  }
  return {};
}

// A guarded use of the term: `reps` copies in the branch the guard protects, in one of
// four forms (plain, negated, nested, the term in `&&`'s right operand).
std::string gp_guarded(const GpTerm& t, int form, int reps, const std::string& other) {
  std::string a = t.term;
  for (int i = 1; i < reps; ++i) a += " + " + t.term;
  switch (form) {
    case 0:
      return "select(" + t.guard + ")(" + a + ")(" + other + ")";
    case 1:
      return "select(!(" + t.guard + "))(" + other + ")(" + a + ")";
    case 2:
      return "select(" + other + " > -1000000)(select(" + t.guard + ")(" + a + ")(" + other +
             "))(" + other + ")";
    default:
      return "select((" + t.guard + ") && " + t.term + " > 3)(" + a + ")(" + other + ")";
  }
}

const char* gp_kind_prim(GpKind k) {
  return k == GpKind::Div ? "div" : "mod";
}

// Strategies of every motion rule; the hoist and storeInMemory ones tried everywhere
// top-down (where they apply, they must leave the guarded terms under their guards).
std::vector<std::string> gp_strategies(GpKind k) {
  const std::string any = k == GpKind::Index ? std::string("isFullyApplied(isPrimitive(idx))")
                                             : std::string("isApplied(isApplied(isPrimitive(") +
                                                   gp_kind_prim(k) + ")))";
  return {"",
          "simplify ; lowerToC",
          "DFNF ; cse ; lowerToC",
          "DFNF ; AiNF ; cse ; licm ; lowerToC",
          "DFNF ; try(hoist(" + any + ", id) @ topDown) ; lowerToC",
          "DFNF ; try(storeInMemory(" + any + ", id) @ topDown) ; lowerToC",
          "DFNF ; try(hoist(isFullyApplied(isReduce), id) @ topDown) ; lowerToC"};
}

// Element-wise programs: map over zip(x)(d), the guarded term of x and d.
TEST(GuardedPartial, RandomElementwiseProgramsNeverFaultAfterRewriting) {
  std::mt19937 rng(20261129);
  // Under the sanitizers 3 of the 10 programs (driver/sanitized_sample.h).
  const size_t kCases = driver::per_build(10, 3);
  for (size_t c = 0; c < kCases; ++c) {
    const GpKind kind = static_cast<GpKind>(c % 3);
    const int form = static_cast<int>(rng() % 4), reps = 2 + static_cast<int>(rng() % 2);
    const bool reduce = rng() % 3 == 0;
    GpTerm t = gp_term(kind, "p._1", "p._2");
    std::string body = gp_guarded(t, form, reps, "p._1");
    std::string prog =
        "def g = depFun((n: Nat, m: Nat) => fun(x: n.i32 => fun(d: n.i32 => "
        "fun(t: m.i32 =>\n  zip(x)(d) |> ";
    if (reduce)
      prog += "reduceSeq(fun(acc, p => acc + " + body + "))(0)))))\n";
    else
      prog += "map(fun(p => " + body + "))))))\n";
    std::vector<int32_t> x(12), d(12), tv(8);
    for (auto& v : x) v = static_cast<int32_t>(rng() % 101) - 50;
    for (size_t i = 0; i < d.size(); ++i) {
      if (kind == GpKind::Index) {
        const int32_t bad[] = {-3, 8, 2000000000, -1000000000};
        d[i] = i % 2 ? bad[rng() % 4] : static_cast<int32_t>(rng() % 8);
      } else {
        d[i] = i % 2 ? 0 : static_cast<int32_t>(rng() % 11) - 5;
      }
    }
    for (auto& v : tv) v = static_cast<int32_t>(rng() % 100);
    const std::string id = "gp_elem" + std::to_string(c);
    std::map<std::string, std::string> in = {{"x", gp_npy_i32(id + "_x", x)},
                                             {"d", gp_npy_i32(id + "_d", d)},
                                             {"t", gp_npy_i32(id + "_t", tv)}};
    for (const std::string& s : gp_strategies(kind))
      for (const char* target : {"c", "openmp"}) {
        if (std::string(target) == "openmp" && !s.empty()) continue;  // c is enough
        gp_expect_agrees(id, prog, s, "n=12,m=8", target, in);
      }
  }
}

// Loop-invariant guarded terms (licm's and hoist's case): the divisor or index is a
// scalar input, the guard false (d = 0, an index out of range); the term alone or a
// whole reduction dividing by it.
TEST(GuardedPartial, RandomInvariantTermsStayUnderTheirGuards) {
  std::mt19937 rng(7);
  // Under the sanitizers 3 of the 9 programs (driver/sanitized_sample.h).
  for (size_t c = 0; c < driver::per_build(9, 3); ++c) {
    const GpKind kind = static_cast<GpKind>(c % 3);
    const int form = static_cast<int>(rng() % 4), reps = 2 + static_cast<int>(rng() % 2);
    GpTerm t = gp_term(kind, "77", "d");
    if (c % 2 == 1 && kind != GpKind::Index)  // a whole reduction containing the term
      t.term = "(ys |> map(fun(y => y " + std::string(kind == GpKind::Div ? "/" : "%") +
               " d)) |> reduce(add)(0))";
    std::string prog =
        "def h = depFun((n: Nat, m: Nat) => fun(x: n.i32 => fun(ys: m.i32 => "
        "fun(t: m.i32 => fun(d: i32 =>\n  x |> map(fun(v => " +
        gp_guarded(t, form, reps, "v") + ")))))))\n";
    std::vector<int32_t> x(10), ys(8), tv(8);
    for (auto& v : x) v = static_cast<int32_t>(rng() % 101) - 50;
    for (auto& v : ys) v = static_cast<int32_t>(rng() % 50);
    for (auto& v : tv) v = static_cast<int32_t>(rng() % 100);
    const int32_t dv = kind == GpKind::Index ? (c % 2 ? 2000000000 : -4) : 0;
    const std::string id = "gp_inv" + std::to_string(c);
    std::map<std::string, std::string> in = {{"x", gp_npy_i32(id + "_x", x)},
                                             {"ys", gp_npy_i32(id + "_ys", ys)},
                                             {"t", gp_npy_i32(id + "_t", tv)},
                                             {"d", gp_npy_i32(id + "_d", {dv}, true)}};
    for (const std::string& s : gp_strategies(kind))
      for (const char* target : {"c", "openmp"}) {
        if (std::string(target) == "openmp" && !s.empty()) continue;
        gp_expect_agrees(id, prog, s, "n=10,m=8", target, in);
      }
  }
}

// The held-out tester's programs (findings 01 and 02): scalar entries, a range-guarded
// index, a with-loop.
TEST(GuardedPartial, HeldOutProgramsRunOnInputsMakingTheGuardFalse) {
  const std::string cz3 =
      "def cz3 = fun(a: i32 => fun(b: i32 => select(b != 0)(a / b)(0) + "
      "select(b > 0)(a / b)(1)))\n";
  for (const std::string& s : gp_strategies(GpKind::Div))
    gp_expect_agrees("gp_cz3", cz3, s, "", "c",
                     {{"a", gp_npy_i32("gp_a", {7}, true)}, {"b", gp_npy_i32("gp_b0", {0}, true)}});
  const std::string wl =
      "def wl = depFun((n: Nat, m: Nat) => fun(a: n.m.i32 => fun(d: n.m.i32 =>\n"
      "  with {\n"
      "    ([1, 0] <= [i, j] < [n, m]) : select(d[i][j] != 0)(a[i - 1][j] / d[i][j] + "
      "a[i - 1][j] / d[i][j])(7);\n"
      "  } : genarray([n, m], -1))))\n";
  runtime::NdArray a = runtime::make_array(runtime::DType::I32, {4, 3});
  runtime::NdArray d = runtime::make_array(runtime::DType::I32, {4, 3});
  for (int i = 0; i < 12; ++i) {
    a.as<int32_t>()[i] = i * 5 - 20;
    d.as<int32_t>()[i] = i % 3 == 0 ? 0 : i - 6;
  }
  runtime::write_npy(scratch_path("gp_wl_a.npy"), a);
  runtime::write_npy(scratch_path("gp_wl_d.npy"), d);
  for (const char* target : {"c", "openmp"})
    gp_expect_agrees("gp_wl", wl, "", "n=4,m=3", target,
                     {{"a", scratch_path("gp_wl_a.npy")}, {"d", scratch_path("gp_wl_d.npy")}});
}

// The rule refuses, naming why, where the only terms it could move are guarded; total
// terms, and partial ones that also run unconditionally, are still moved and shared.
TEST(GuardedPartial, HoistRefusesAGuardedDivisionAndSaysWhy) {
  const std::string prog =
      "def hz = depFun(n: Nat => fun(x: n.i32 => fun(d: i32 =>\n"
      "  x |> map(fun(v => select(d != 0)(v + 100 / d)(v))))))\n";
  const std::string hoist_div = "DFNF ; hoist(isApplied(isApplied(isPrimitive(div))), id)";
  // `risec rewrite` of `text` (written to `file`) with `strategy`
  auto rewrite = [](const std::string& file, const std::string& text, const std::string& strategy) {
    return run_risec({"rewrite", write_scratch(file, text), "--strategy", strategy});
  };
  CliResult r = rewrite("gp_hz.rise", prog, hoist_div);
  EXPECT_EQ(r.exit_code, 1) << show(r);
  EXPECT_NE(r.err.find("run only under a condition"), std::string::npos) << show(r);
  // a float division is total: still hoisted (and shared by cse)
  const std::string fl =
      "def hf = depFun(n: Nat => fun(x: n.f32 => fun(d: f32 =>\n"
      "  x |> map(fun(v => select(d != 0.0f)(v + 100.0f / d + 100.0f / d)(v))))))\n";
  CliResult f = rewrite("gp_hf.rise", fl, hoist_div);
  EXPECT_EQ(f.exit_code, 0) << show(f);
  EXPECT_NE(f.out.find("let mem = toMem(100.0f / d)"), std::string::npos) << show(f);
  CliResult s = rewrite("gp_hf.rise", fl, "simplify");
  EXPECT_EQ(s.exit_code, 0) << show(s);
  EXPECT_EQ(occurrences(s.out, "100.0f / d"), 1) << show(s);
  // an integer division that also runs unconditionally is shared (computed once)
  const std::string un =
      "def hu = fun(a: i32 => fun(b: i32 => a / b + select(b != 0)(a / b)(0)))\n";
  CliResult u = rewrite("gp_hu.rise", un, "simplify");
  EXPECT_EQ(u.exit_code, 0) << show(u);
  EXPECT_EQ(occurrences(u.out, "a / b"), 1) << show(u);
  // only guarded ones are not
  const std::string gu =
      "def hg = fun(a: i32 => fun(b: i32 => select(b != 0)(a / b + a / b)(0)))\n";
  CliResult g = rewrite("gp_hg.rise", gu, "simplify");
  EXPECT_EQ(g.exit_code, 0) << show(g);
  EXPECT_EQ(occurrences(g.out, "a / b"), 2) << show(g);
}

// Finding 07: an unused let whose value divides by zero: the interpreter (eval, run
// --check) and the compiled code agree that the program runs.
TEST(GuardedPartial, UnusedLetIsNotEvaluated) {
  const std::string prog =
      "def dl = depFun(n: Nat => fun(x: n.i32 => fun(d: i32 => let q = 100 / d in x |> "
      "map(fun(v => v + 1)))))\n";
  const std::string file = write_scratch("gp_dl.rise", prog);
  const std::string x = gp_npy_i32("gp_dl_x", {1, 2, 3, 4, 5});
  const std::string d0 = gp_npy_i32("gp_dl_d", {0}, true);
  CliResult e = run_risec({"eval", file, "--input", "x=" + x, "--input", "d=" + d0});
  EXPECT_EQ(e.exit_code, 0) << show(e);
  EXPECT_NE(e.out.find("[2, 3, 4, 5, 6]"), std::string::npos) << show(e);
  for (const char* flag : {"--check", "--no-simplify"}) {
    CliResult r = run_risec({"run", file, "--input", "x=" + x, "--input", "d=" + d0, flag});
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << show(r);
  }
  // a used one is evaluated: the program stops in the interpreter as in compiled code
  const std::string used =
      "def du = depFun(n: Nat => fun(x: n.i32 => fun(d: i32 => let q = 100 / d in x |> "
      "map(fun(v => v + q)))))\n";
  const std::string ufile = write_scratch("gp_du.rise", used);
  CliResult ue = run_risec({"eval", ufile, "--input", "x=" + x, "--input", "d=" + d0});
  EXPECT_EQ(ue.exit_code, 4) << show(ue);
  CliResult ur = run_risec({"run", ufile, "--input", "x=" + x, "--input", "d=" + d0});
  EXPECT_EQ(ur.exit_code, 4) << show(ur);
}

}  // namespace
}  // namespace risec::e2e
