// reciprocalDivision (family "algorithmic"): the floating-point divisions of a map's
// function whose divisor does not change from one element to the next (a variable
// bound outside the function, or a literal) become multiplications by the divisor's
// reciprocal. A division costs several multiplications (a vector division issues one
// every 4 to 16 cycles, a multiplication two a cycle); the reciprocal of a variable is
// computed once, in a let around the map, and a literal's is folded here. The rounding
// changes (x * (1/b) may differ from x / b in the last bit), as reassociating a sum
// does: the autoscheduler checks such candidates against the interpreter within its
// tolerance (docs/tuning.md).
#include <set>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::PrimId;
using util::call;

namespace {

// A divisor that every element of the map sees the same: a literal, a cast of one, or
// a variable not bound inside the map's function (`inner` holds those bound inside).
bool invariant_divisor(const Expr& b, const std::set<std::string>& inner) {
  if (util::literal_value(b)) return true;
  return b->kind == ExprKind::Ident && !inner.count(b->name);
}

bool is_one(const Expr& a) {
  std::optional<double> v = util::literal_value(a);
  return v && *v == 1.0;
}

// Rewrites the divisions of one map's function (see the file's comment); a variable
// divisor's reciprocal is named once (`hoisted`: divisor -> its binder), for a let
// around the map.
struct Reciprocals {
  int changed = 0;
  struct Hoisted {
    std::string divisor, binder;
    bool f32;
  };
  std::vector<Hoisted> hoisted;

  std::string binder_for(const std::string& divisor, bool f32) {
    for (const Hoisted& h : hoisted)
      if (h.divisor == divisor) return h.binder;
    hoisted.push_back({divisor, rise::fresh_name("inv"), f32});
    return hoisted.back().binder;
  }

  Expr walk(const Expr& e, std::set<std::string>& inner) {
    if (e->kind == ExprKind::Lambda) {
      const bool added = inner.insert(e->name).second;
      Expr body = walk(e->fn, inner);
      if (added) inner.erase(e->name);
      return rise::rebuild(e, body, nullptr);
    }
    if (auto d = util::match_prim(e, PrimId::Div, 2);
        d && e->type && e->type->kind == rise::TypeKind::Scalar &&
        rise::is_float(e->type->scalar) && !is_one(d->args[0]) &&
        invariant_divisor(d->args[1], inner)) {
      Expr a = walk(d->args[0], inner);
      const Expr& b = d->args[1];
      const bool f32 = e->type->scalar == rise::ScalarKind::F32;
      Expr r;
      if (std::optional<double> v = util::literal_value(b); v && *v != 0.0)
        r = f32 ? rise::f32_lit(static_cast<double>(1.0f / static_cast<float>(*v)))
                : rise::f64_lit(1.0 / *v);
      else
        r = rise::ident(binder_for(b->name, f32));
      ++changed;
      return call(PrimId::Mul, {a, r});
    }
    std::vector<Expr> kids = rise::children(e);
    for (Expr& k : kids) k = walk(k, inner);
    return rise::rebuild(e, kids);
  }
};

Strategy reciprocal_division() {
  return rule("reciprocalDivision", [](const Expr& e, const Context&) -> Result {
    auto m = util::match_map(e);
    if (!m || m->first->kind != ExprKind::Lambda)
      return fail_at("reciprocalDivision", e, "expected map(fun(x => ..))(xs)");
    Reciprocals r;
    std::set<std::string> inner;
    Expr f = r.walk(m->first, inner);
    if (r.changed == 0)
      return fail_at("reciprocalDivision", e,
                     "the map's function divides by no literal or variable bound outside it");
    // The reciprocals of variable divisors computed once, in lets around the map
    // (scalars: a variable each, not an array).
    Expr out = call(PrimId::Map, {f, m->second});
    for (auto it = r.hoisted.rbegin(); it != r.hoisted.rend(); ++it) {
      Expr one = it->f32 ? rise::f32_lit(1.0) : rise::f64_lit(1.0);
      out = call(PrimId::Let, {call(PrimId::Div, {one, rise::ident(it->divisor)}),
                               rise::lambda(it->binder, out)});
    }
    return out;
  });
}

}  // namespace

void register_reciprocal(Registry& r) {
  r.rule({"reciprocalDivision",
          RuleFamily::Algorithmic,
          "map(fun(x => ..a / b..))(xs) -> let(1 / b)(fun(r => map(fun(x => ..a * r..))(xs))) "
          "for floating-point divisions whose divisor b is a variable bound outside the "
          "function (a literal b: a * (1 / b) folded); rounding changes (the last bit)",
          {},
          fixed(reciprocal_division())});
}

}  // namespace risec::elevate
