// reciprocalDivision (family "algorithmic"): the floating-point divisions of a map's
// function whose divisor does not change from one element to the next (a variable
// bound outside the function, or a literal) become multiplications by the divisor's
// reciprocal. A division costs several multiplications (a vector division issues one
// every 4 to 16 cycles, a multiplication two a cycle); the reciprocal of a variable is
// computed once, in a let around the map, and a literal's is folded here. The rounding
// changes (x * (1/b) may differ from x / b in the last bit), as reassociating a sum
// does: the autoscheduler checks such candidates against the interpreter within its
// tolerance (docs/tuning.md).
//
// Never more than that: where 1/b would not be a normal number (|b| below the
// smallest normal, whose reciprocal overflows to infinity, or above its reciprocal,
// whose reciprocal loses bits as a subnormal) x * (1/b) can be infinite or far off
// where x / b is not. A literal divisor outside that range is left alone; a variable
// one is tested once, beside its reciprocal, and each element multiplies only when the
// test held, otherwise divides as written (a loop-invariant condition, which the C
// compiler hoists out of the loop).
#include <cmath>
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

// The smallest normal number of the type and its reciprocal: 1/b is normal (and
// finite) exactly when |b| lies between them.
double smallest_normal(bool f32) {
  return f32 ? 0x1p-126 : 0x1p-1022;
}
double largest_with_normal_reciprocal(bool f32) {
  return f32 ? 0x1p126 : 0x1p1022;
}

bool normal_reciprocal(double v, bool f32) {
  const double m = std::fabs(v);
  return m >= smallest_normal(f32) && m <= largest_with_normal_reciprocal(f32);
}

bool is_one(const Expr& a) {
  std::optional<double> v = util::literal_value(a);
  return v && *v == 1.0;
}

// select(ok, a * r, a / b) with ok, r and b variables: what this rule made of a
// division by a variable, left as it is (so that normalize(reciprocalDivision) ends).
bool already_guarded(const Expr& e) {
  auto s = util::match_prim(e, PrimId::Select, 3);
  if (!s || s->args[0]->kind != ExprKind::Ident) return false;
  auto mul = util::match_prim(s->args[1], PrimId::Mul, 2);
  auto div = util::match_prim(s->args[2], PrimId::Div, 2);
  return mul && div && mul->args[1]->kind == ExprKind::Ident &&
         div->args[1]->kind == ExprKind::Ident;
}

// Rewrites the divisions of one map's function (see the file's comment); a variable
// divisor's reciprocal is named once (`hoisted`: divisor -> its binder), for a let
// around the map.
struct Reciprocals {
  int changed = 0;
  struct Hoisted {
    std::string divisor, binder, in_range;
    bool f32;
  };
  std::vector<Hoisted> hoisted;

  const Hoisted& hoisted_for(const std::string& divisor, bool f32) {
    for (const Hoisted& h : hoisted)
      if (h.divisor == divisor) return h;
    hoisted.push_back({divisor, rise::fresh_name("inv"), rise::fresh_name("invOk"), f32});
    return hoisted.back();
  }

  Expr walk(const Expr& e, std::set<std::string>& inner) {
    if (e->kind == ExprKind::Lambda) {
      const bool added = inner.insert(e->name).second;
      Expr body = walk(e->fn, inner);
      if (added) inner.erase(e->name);
      return rise::rebuild(e, body, nullptr);
    }
    if (already_guarded(e)) return e;
    if (auto d = util::match_prim(e, PrimId::Div, 2);
        d && e->type && e->type->kind == rise::TypeKind::Scalar &&
        rise::is_float(e->type->scalar) && !is_one(d->args[0]) &&
        invariant_divisor(d->args[1], inner)) {
      Expr a = walk(d->args[0], inner);
      const Expr& b = d->args[1];
      const bool f32 = e->type->scalar == rise::ScalarKind::F32;
      if (std::optional<double> v = util::literal_value(b)) {
        if (!normal_reciprocal(*v, f32)) return call(PrimId::Div, {a, b});
        ++changed;
        return call(PrimId::Mul,
                    {a, f32 ? rise::f32_lit(static_cast<double>(1.0f / static_cast<float>(*v)))
                            : rise::f64_lit(1.0 / *v)});
      }
      const Hoisted& h = hoisted_for(b->name, f32);
      ++changed;
      return call(PrimId::Select,
                  {rise::ident(h.in_range), call(PrimId::Mul, {a, rise::ident(h.binder)}),
                   call(PrimId::Div, {a, b})});
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
      auto lit = [&](double v) { return it->f32 ? rise::f32_lit(v) : rise::f64_lit(v); };
      const Expr b = rise::ident(it->divisor);
      const Expr magnitude = call(PrimId::Abs, {b});
      // |b| >= smallest normal and |b| <= its reciprocal (NaN passes: a * NaN is NaN as
      // a / NaN is).
      const Expr in_range = call(
          PrimId::Select,
          {call(PrimId::Lt, {magnitude, lit(smallest_normal(it->f32))}), rise::bool_lit(false),
           call(PrimId::Not,
                {call(PrimId::Gt, {magnitude, lit(largest_with_normal_reciprocal(it->f32))})})});
      out = call(PrimId::Let, {in_range, rise::lambda(it->in_range, out)});
      out = call(PrimId::Let, {call(PrimId::Div, {lit(1.0), b}), rise::lambda(it->binder, out)});
    }
    return out;
  });
}

}  // namespace

void register_reciprocal(Registry& r) {
  r.rule({"reciprocalDivision",
          RuleFamily::Algorithmic,
          "map(fun(x => ..a / b..))(xs) -> let(1 / b)(fun(r => map(fun(x => ..select(ok, a * r, "
          "a / b)..))(xs))) for floating-point divisions whose divisor b is a variable bound "
          "outside the function, ok when 1 / b is a normal number (a literal b: a * (1 / b) "
          "folded when normal); rounding changes (the last bit)",
          {},
          fixed(reciprocal_division())});
}

}  // namespace risec::elevate
