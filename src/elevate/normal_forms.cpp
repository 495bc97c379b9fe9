// The normal forms of the ELEVATE paper (Hagedorn et al., ICFP 2020) over RISE:
//
//   betaEtaNF (BENF)  no beta-redex (fun(x => b)(a), depFun(n => b)(N)) and no
//                     eta-redex (fun(x => f(x)) with x not free in f) anywhere,
//                     except that lambdas with a parameter annotation (a program's
//                     declared parameters, fun(x: n.f32 => ...)) are not eta-reduced:
//                     the program keeps its declared parameter types.
//   DFNF              BENF, then every primitive applied to all its arguments
//                     (partial applications eta-expanded: map(f) used as a function
//                     becomes fun(x => map(f)(x))) and every function argument of a
//                     primitive a lambda with one binder per parameter (map(g) ->
//                     map(fun(y => g(y))), reduce(add) -> reduce(fun(a => fun(b =>
//                     add(a)(b))))): the form fusion and movement rules match.
//   RNF               DFNF, then every map fissioned as far as it goes
//                     (map(fun(x => f(g(x)))) -> map(g') >> map(f), the mapFission
//                     rule, until no map body is a composition), then DFNF again:
//                     Shine's "rewrite normal form" that movement rules expect.
//
// Each always succeeds on a well-typed program and is idempotent; a program already
// in the form is returned unchanged (the same object). The normal forms are computed
// structurally and the result is re-typed once, in context.
#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::elevate {

using rise::ExprKind;
using util::fun;

namespace util {

namespace {

int fun_arity(const Type& t) {
  int k = 0;
  for (Type x = t; x && x->kind == rise::TypeKind::Fun; x = x->b) ++k;
  return k;
}

// The value parameter types of a primitive, in order.
std::vector<Type> prim_params(const rise::ExprNode& p) {
  std::vector<Type> out;
  if (!p.prim || p.prim->is(rise::PrimId::MakeArray)) return out;
  Type t = p.prim->type;
  while (t) {
    if (t->kind == rise::TypeKind::DepFun) {
      t = t->b;
    } else if (t->kind == rise::TypeKind::Fun) {
      out.push_back(t->a);
      t = t->b;
    } else {
      break;
    }
  }
  return out;
}

// f as a function of k parameters written with k lambdas.
Expr expand_fn(const Expr& f, int k) {
  if (k <= 0) return f;
  if (f->kind == ExprKind::Lambda) {
    Expr b = expand_fn(f->fn, k - 1);
    if (b == f->fn) return f;
    auto n = std::make_shared<rise::ExprNode>(*f);
    n->fn = b;
    return n;
  }
  return fun("x", [&](const Expr& x) { return expand_fn(rise::app(f, x), k - 1); });
}

// The DFNF expansion: applications (and bare primitives) are rebuilt along their
// spine; binders and annotations take the default traversal.
class Expander : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override { return expand_spine(e); }
  Expr visit_dep_app(const Expr& e) override { return expand_spine(e); }
  Expr visit_primitive(const Expr& e) override { return expand_spine(e); }

 private:
  Expr expand_spine(const Expr& e) {
    rise::Spine sp = rise::spine(e);
    if (sp.head->kind != ExprKind::Primitive) {
      Expr out = mutate(sp.head);
      for (const auto& a : sp.args)
        out = a.dep ? rise::dep_app(out, a.type_arg) : rise::app(out, mutate(a.value));
      return out;
    }
    std::vector<Type> params = prim_params(*sp.head);
    Expr out = sp.head;
    size_t vi = 0, deps = 0;
    for (const auto& a : sp.args) {
      if (a.dep) {
        out = rise::dep_app(out, a.type_arg);
        ++deps;
        continue;
      }
      Expr v = mutate(a.value);
      if (vi < params.size()) v = expand_fn(v, fun_arity(params[vi]));
      out = rise::app(out, v);
      ++vi;
    }
    // Eta-expand a partial application (all dependent arguments given).
    const rise::PrimitiveInfo* p = sp.head->prim;
    const bool make_array = p && p->is(rise::PrimId::MakeArray);  // arity from the node
    size_t arity = make_array ? static_cast<size_t>(sp.head->count)
                   : p        ? static_cast<size_t>(p->arity)
                              : 0;
    bool deps_done = !p || make_array || deps == static_cast<size_t>(p->dep_arity);
    if (deps_done && vi < arity) {
      std::vector<std::string> names;
      for (size_t i = vi; i < arity; ++i) names.push_back(rise::fresh_name("x"));
      Expr body = out;
      for (size_t i = vi; i < arity; ++i) {
        Expr arg = rise::ident(names[i - vi]);
        body = rise::app(body, arg);
      }
      for (size_t i = arity; i-- > vi;) body = rise::lambda(names[i - vi], body);
      return body;
    }
    return out;
  }
};

}  // namespace

Expr dfnf_expand(const Expr& e) {
  return Expander().mutate(e);
}

}  // namespace util

namespace {

Strategy beta_reduction() {
  return rule("betaReduction", [](const Expr& e, const Context&) -> Result {
    if (auto r = util::beta_step(e)) return *r;
    return fail_at("betaReduction", e,
                   "not a beta-redex: expected fun(x => b)(a) or depFun(n => b)(N)");
  });
}

Strategy eta_reduction() {
  return rule("etaReduction", [](const Expr& e, const Context&) -> Result {
    // A parameter's annotation is what makes a program's sizes inferable from its
    // own text (an entry's inputs): such lambdas are kept, as in betaEtaNF.
    if (e->kind == ExprKind::Lambda && e->annot)
      return fail_at("etaReduction", e,
                     "the lambda's parameter has a type annotation, which is kept");
    if (auto r = util::eta_step(e)) return *r;
    return fail_at("etaReduction", e,
                   "not an eta-redex: expected fun(x => f(x)) with x not free in f");
  });
}

Strategy benf() {
  return util::whole_term("betaEtaNF", [](const Expr& e, const Env&) -> Result {
    return util::beta_eta_normalize(e, true);
  });
}

Strategy dfnf() {
  return util::whole_term("DFNF", [](const Expr& e, const Env&) -> Result {
    return util::dfnf_expand(util::beta_eta_normalize(e, true));
  });
}

Strategy rnf() {
  Strategy s = seq(seq(dfnf(), normalize(util::map_fission_rule(true))), dfnf());
  return Strategy("RNF", [s](const Expr& e, const Env& env) { return s(e, env); });
}

}  // namespace

void register_normal_forms(Registry& r) {
  const RuleFamily F = RuleFamily::NormalForm;
  r.rule({"betaReduction",
          F,
          "fun(x => b)(a) -> b[x := a] (capture-avoiding); depFun(n => b)(N) -> b[n := N]",
          {},
          fixed(beta_reduction())});
  r.rule({"etaReduction",
          F,
          "fun(x => f(x)) -> f when x is not free in f",
          {},
          fixed(eta_reduction())});
  r.normal_form({"betaEtaNF",
                 F,
                 "beta-eta normal form (BENF): no beta- or eta-redex anywhere (lambdas with a "
                 "declared parameter type are kept)",
                 {},
                 fixed(benf()),
                 {"BENF"}});
  r.normal_form({"DFNF",
                 F,
                 "data-flow normal form: BENF, every primitive fully applied (eta-expanded), "
                 "every function argument of a primitive a lambda",
                 {},
                 fixed(dfnf())});
  r.normal_form({"RNF",
                 F,
                 "rewrite normal form: DFNF with every map fissioned (mapFission until none "
                 "applies), then DFNF",
                 {},
                 fixed(rnf())});
}

}  // namespace risec::elevate
