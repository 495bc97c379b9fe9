// Tests of the normal forms (betaEtaNF, DFNF, RNF) and of the betaReduction and
// etaReduction rules: where they apply, the result is well typed and computes the
// same as the input on random inputs; the normal forms are idempotent, leave
// programs already in the form unchanged, and preserve the meaning of every
// example program.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "elevate/library.h"
#include "rewrite_test_util.h"
#include "rise/primitives.h"
#include "rise/type.h"

namespace risec::elevate::testing {
namespace {

using rise::ExprKind;

// The normal form is reached and idempotent: applying it again returns the same object.
rise::Expr check_nf(const Strategy& s, const rise::Expr& p) {
  rise::Expr r = apply_ok(s, p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  Result again = s(r);
  EXPECT_TRUE(again.ok());
  if (again.ok()) {
    EXPECT_EQ(again.expr(), r) << "not idempotent:\n" << rise::print_expr(r);
  }
  return r;
}

bool has_redex(const rise::Expr& e, bool eta) {
  if ((e->kind == ExprKind::App && e->fn->kind == ExprKind::Lambda) ||
      (e->kind == ExprKind::DepApp && e->fn->kind == ExprKind::DepLambda))
    return true;
  if (eta && e->kind == ExprKind::Lambda && !e->annot && e->fn->kind == ExprKind::App &&
      e->fn->arg->kind == ExprKind::Ident && e->fn->arg->name == e->name) {
    auto fv = rise::free_vars(e->fn->fn);
    if (std::find(fv.begin(), fv.end(), e->name) == fv.end()) return true;
  }
  for (const rise::Expr& c : children(e))
    if (has_redex(c, eta)) return true;
  return false;
}

int fun_arity(const rise::Type& t) {
  int k = 0;
  for (rise::Type x = t; x && x->kind == rise::TypeKind::Fun; x = x->b) ++k;
  return k;
}

int lambda_depth(const rise::Expr& f) {
  int k = 0;
  for (rise::Expr x = f; x->kind == ExprKind::Lambda; x = x->fn) ++k;
  return k;
}

// DFNF: every primitive fully applied, every function argument a lambda with one
// binder per parameter.
::testing::AssertionResult in_dfnf(const rise::Expr& e, bool in_fn_position = false) {
  if (e->kind == ExprKind::App || e->kind == ExprKind::DepApp || e->kind == ExprKind::Primitive) {
    rise::Spine sp = rise::spine(e);
    if (sp.head->kind == ExprKind::Primitive && !in_fn_position) {
      const rise::PrimitiveInfo* p = sp.head->prim;
      std::vector<rise::Type> params;
      for (rise::Type t = p->type; t;) {
        if (t->kind == rise::TypeKind::DepFun) {
          t = t->b;
        } else if (t->kind == rise::TypeKind::Fun) {
          params.push_back(t->a);
          t = t->b;
        } else {
          break;
        }
      }
      size_t arity = sp.head->name == "makeArray" ? static_cast<size_t>(sp.head->count)
                                                  : static_cast<size_t>(p->arity);
      size_t vi = 0;
      for (const auto& a : sp.args) {
        if (a.dep) continue;
        if (vi < params.size() && sp.head->name != "makeArray" &&
            lambda_depth(a.value) < fun_arity(params[vi]))
          return ::testing::AssertionFailure()
                 << "argument " << vi << " of " << sp.head->name << " is not a lambda";
        ++vi;
      }
      if (vi != arity)
        return ::testing::AssertionFailure() << sp.head->name << " is not fully applied";
    }
    for (const auto& a : sp.args)
      if (!a.dep) {
        auto r = in_dfnf(a.value);
        if (!r) return r;
      }
    if (sp.head->kind != ExprKind::Primitive) return in_dfnf(sp.head, true);
    return ::testing::AssertionSuccess();
  }
  for (const rise::Expr& c : children(e)) {
    auto r = in_dfnf(c);
    if (!r) return r;
  }
  return ::testing::AssertionSuccess();
}

const char* kChain = R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> (map(fun(a => a + 1.0f)) >> map(abs)) |> map(fun(b => b * 2.0f))))
)";

const char* kDot = R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))
)";

// ---------------------------------------------------------------- betaReduction

TEST(BetaReduction, ReducesAnApplicationOfALambda) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => (fun(b => b * b + a))(a + 1.0f)))))
)",
                      {{"n", 8}});
  rise::Expr r = check_rewrite(top_down(lib("betaReduction")), p);
  EXPECT_FALSE(has_redex(r, false));
}

TEST(BetaReduction, AvoidsCapture) {
  // Substituting `a` into fun(a2 => ...) where the body has an inner binder named a.
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a =>
  (fun(c => x |> map(fun(a => a + c)) |> reduce(add)(0.0f)))(a * 3.0f)))))
)",
                      {{"n", 6}});
  check_rewrite(top_down(lib("betaReduction")), p);
}

TEST(BetaReduction, ReducesADependentApplication) {
  // depFun(k => fun(x: k.f32 => ...))(4): inference specialises such redexes away,
  // so build the typed redex by hand.
  const char* text = "def f = depFun(k: Nat => fun(x: k.f32 => x |> map(fun(a => a * 2.0f))))";
  rise::Expr generic = prog(text, {});
  ASSERT_EQ(generic->kind, ExprKind::DepLambda);
  rise::Expr redex = rise::with_type(rise::dep_app(generic, rise::Nat(4)),
                                     rise::instantiate(generic->type, rise::Nat(4)));
  rise::Expr r = apply_ok(lib("betaReduction"), redex);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(prog(text, {{"k", 4}}), r));
}

TEST(BetaReduction, FailsWithoutARedex) {
  rise::Expr p = prog(kDot, {{"n", 8}});
  EXPECT_FALSE(top_down(lib("betaReduction"))(p).ok());
  Result r = lib("betaReduction")(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.failure().reason.find("beta-redex"), std::string::npos);
}

// ---------------------------------------------------------------- etaReduction

TEST(EtaReduction, ReducesAnEtaExpansion) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => abs(a))) |> reduce(add)(0.0f)))
)",
                      {{"n", 8}});
  rise::Expr r = check_rewrite(top_down(lib("etaReduction")), p);
  EXPECT_NE(rise::print_expr(r).find("map(abs)"), std::string::npos) << rise::print_expr(r);
}

TEST(EtaReduction, FailsWhenTheParameterIsUsedInTheFunction) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => mul(a)(a)))))
)",
                      {{"n", 8}});
  // fun(a => mul(a)(a)): `a` is free in mul(a); the entry's fun(x => map(..)(x)) is
  // an eta-redex, so look only inside the map.
  Result r = body(function(argument(top_down(lib("etaReduction")))))(p);
  EXPECT_FALSE(r.ok());
  Result direct = lib("etaReduction")(p->fn->fn->arg);
  ASSERT_FALSE(direct.ok());
  EXPECT_NE(direct.failure().reason.find("eta-redex"), std::string::npos);
}

// ---------------------------------------------------------------- betaEtaNF

TEST(BetaEtaNF, RemovesEveryRedex) {
  rise::Expr p = prog(kChain, {{"n", 8}});
  ASSERT_TRUE(has_redex(p, false));
  rise::Expr r = check_nf(lib("betaEtaNF"), p);
  EXPECT_FALSE(has_redex(r, true)) << rise::print_expr(r);
  EXPECT_EQ(find_entry("BENF"), find_entry("betaEtaNF"));
}

TEST(BetaEtaNF, LeavesANormalProgramUnchanged) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f) |> fun(s => s))))
)",
                      {{"n", 8}});
  rise::Expr once = apply_ok(lib("betaEtaNF"), p);
  Result twice = lib("betaEtaNF")(once);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice.expr(), once);
}

// ---------------------------------------------------------------- DFNF

TEST(DFNF, FullyAppliesPatternsAndMakesFunctionArgumentsLambdas) {
  rise::Expr p = prog(R"(
def f = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(map(abs)) |> map(reduce(add)(0.0f))))
)",
                      {{"n", 4}, {"m", 5}});
  EXPECT_FALSE(in_dfnf(p));
  rise::Expr r = check_nf(lib("DFNF"), p);
  EXPECT_TRUE(in_dfnf(r)) << rise::print_expr(r);
  EXPECT_FALSE(has_redex(r, false));
}

TEST(DFNF, ExpandsReduceOperatorsIntoTwoLambdas) {
  rise::Expr r = check_nf(lib("DFNF"), prog(kDot, {{"n", 8}}));
  EXPECT_TRUE(in_dfnf(r)) << rise::print_expr(r);
}

TEST(DFNF, LeavesADfnfProgramUnchanged) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => a + 1.0f)) |> reduce(fun(u => fun(v => u + v)))(0.0f)))
)",
                      {{"n", 8}});
  Result r = lib("DFNF")(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.expr(), p);
}

// ---------------------------------------------------------------- RNF

TEST(RNF, FissionsEveryMap) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 =>
  x |> map(fun(a => exp(abs(a * 2.0f))))))
)",
                      {{"n", 8}});
  rise::Expr r = check_nf(lib("RNF"), p);
  EXPECT_TRUE(in_dfnf(r));
  EXPECT_FALSE(top_down(lib("mapFission"))(r).ok()) << rise::print_expr(r);
  std::string s = rise::print_expr(r);
  size_t maps = 0;
  for (size_t i = s.find("map("); i != std::string::npos; i = s.find("map(", i + 1)) ++maps;
  EXPECT_EQ(maps, 3u) << s;
}

TEST(RNF, LeavesAnRnfProgramUnchanged) {
  rise::Expr p = prog(R"(
def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(a => a * 2.0f))))
)",
                      {{"n", 8}});
  rise::Expr once = apply_ok(lib("RNF"), p);
  Result twice = lib("RNF")(once);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice.expr(), once);
}

// ---------------------------------------------------------------- examples

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct NfExample {
  const char* name;
  rise::SizeMap sizes;
};

const std::vector<NfExample>& nf_examples() {
  static const std::vector<NfExample> all = {
      {"asum", {{"n", 8}}},
      {"atax", {{"m", 4}, {"n", 3}}},
      {"blackscholes", {{"n", 8}}},
      {"bsnaive", {{"n", 8}}},
      {"dense", {{"n", 4}, {"m", 3}}},
      {"gaussconv", {{"n", 8}}},
      {"concatpad", {{"n", 4}, {"m", 5}}},
      {"conv1d", {{"n", 8}}},
      {"conv2d", {{"n", 4}, {"m", 3}}},
      {"dot", {{"n", 8}}},
      {"mandelbrot", {{"n", 5}, {"b", 2}}},
      {"mandelwhile", {{"n", 5}, {"k", 16}}},
      {"binomial", {{"n", 3}, {"k", 5}}},
      {"gaussian", {{"n", 6}, {"m", 5}}},
      {"blur3", {{"n", 6}, {"m", 5}}},
      {"blur5", {{"n", 7}, {"m", 5}}},
      {"harris", {{"n", 6}, {"m", 5}}},
      {"gemv", {{"n", 4}, {"m", 6}}},
      {"gesummv", {{"n", 4}}},
      {"jacobi3", {{"n", 4}, {"m", 6}}},
      {"jacobi5", {{"n", 5}, {"m", 6}}},
      {"seidelpad", {{"n", 5}, {"m", 4}}},
      {"life", {{"n", 5}, {"m", 6}}},
      {"multigrid", {{"n", 3}, {"m", 2}}},
      {"pde1", {{"n", 5}, {"m", 4}, {"k", 4}}},
      {"kmeans", {{"n", 5}, {"k", 3}, {"f", 2}}},
      {"md", {{"n", 5}, {"k", 3}}},
      {"mm", {{"n", 4}, {"m", 3}, {"k", 5}}},
      {"mriq", {{"n", 4}, {"k", 3}}},
      {"mv", {{"n", 4}, {"m", 6}}},
      {"nbody", {{"n", 4}}},
      {"nn", {{"n", 8}}},
      {"saxpy", {{"n", 8}}},
      {"scal", {{"n", 8}}},
      {"treesum", {{"m", 2}, {"k", 3}}},
  };
  return all;
}

rise::Expr load_example(const NfExample& ex) {
  std::filesystem::path path = std::filesystem::path(RISEC_SOURCE_DIR) / "examples" / ex.name /
                               (std::string(ex.name) + ".rise");
  return prog(read_file(path), ex.sizes);
}

TEST(NormalFormsOnExamples, EveryExampleIsCovered) {
  std::set<std::string> listed;
  for (const NfExample& ex : nf_examples()) listed.insert(ex.name);
  for (const auto& d :
       std::filesystem::directory_iterator(std::filesystem::path(RISEC_SOURCE_DIR) / "examples"))
    for (const auto& f : std::filesystem::directory_iterator(d.path()))
      if (f.path().extension() == ".rise") {
        EXPECT_TRUE(listed.count(f.path().stem().string()))
            << f.path() << " has no sizes in nf_test.cpp";
      }
}

TEST(NormalFormsOnExamples, PreserveSemanticsAndAreIdempotent) {
  for (const NfExample& ex : nf_examples()) {
    SCOPED_TRACE(ex.name);
    rise::Expr p = load_example(ex);
    rise::Expr benf = check_nf(lib("betaEtaNF"), p);
    EXPECT_FALSE(has_redex(benf, true));
    rise::Expr dfnf = check_nf(lib("DFNF"), p);
    EXPECT_TRUE(in_dfnf(dfnf)) << rise::print_expr(dfnf);
    rise::Expr rnf = check_nf(lib("RNF"), p);
    EXPECT_TRUE(in_dfnf(rnf)) << rise::print_expr(rnf);
  }
}

TEST(NormalFormsOnExamples, WorkWithSymbolicSizes) {
  for (const NfExample& ex : nf_examples()) {
    SCOPED_TRACE(ex.name);
    rise::Expr p = load_example({ex.name, {}});
    for (const char* nf : {"betaEtaNF", "DFNF", "RNF", "lowerToC"}) {
      SCOPED_TRACE(nf);
      rise::Expr r = apply_ok(lib(nf), p);
      EXPECT_TRUE(well_typed(r));
      Result again = lib(nf)(r);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(again.expr(), r);
    }
  }
}

TEST(NormalFormsOnExamples, LowerToCPreservesSemantics) {
  for (const NfExample& ex : nf_examples()) {
    SCOPED_TRACE(ex.name);
    rise::Expr p = load_example(ex);
    check_nf(lib("lowerToC"), p);
    check_nf(lib("lowerToC"), apply_ok(lib("DFNF"), p));
  }
}

}  // namespace
}  // namespace risec::elevate::testing
