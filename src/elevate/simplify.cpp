// Simplification (family "simplify"), after "Compiling with Arrays" (a first cut):
//
//   partialEval  beta reduction without duplicating work (util::beta_normalize_sharing),
//                lets of a variable or literal inlined, `let x = v in x` made v, scalar
//                operations on literals folded with the interpreter's own scalar
//                semantics (rise::scalar_op: integer wrap-around, float rounding; an
//                operation the interpreter rejects, such as an integer division by
//                zero, stays unfolded), fst/snd of makePair resolved and idx of a
//                literal index into a makeArray resolved.
//   dce          lets whose variable is unused removed; a let of a pair (or of a map
//                producing pairs) of which only one component is ever read keeps only
//                that component.
//   cse          identical computing data subterms of a lambda body (alpha-equivalent,
//                with the same free variables in scope) shared by one let at that
//                body; candidates are found by hashing, largest first.
//   simplify     (partialEval ; dce ; cse) repeated until nothing changes
//
// Each is a whole-term pass (util::whole_term): it always succeeds, re-types its result
// once and returns the program unchanged when there is nothing to do.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/interp.h"
#include "rise/interp_prims.h"
#include "rise/primitives.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::PrimId;
using util::call;

namespace {

// ---------------------------------------------------------------- partialEval

bool is_let(const util::PrimCall& c) {
  return c.is(PrimId::Let) && c.args.size() == 2 && c.args[1]->kind == ExprKind::Lambda;
}

bool is_var(const Expr& e, const std::string& x) {
  return e->kind == ExprKind::Ident && e->name == x;
}

bool trivial_value(const Expr& v) {
  return v->kind == ExprKind::Ident || v->kind == ExprKind::Literal;
}

// The value of a typed literal node (nullopt when it is symbolic or untyped).
std::optional<rise::Value> literal_of(const Expr& e) {
  if (e->kind != ExprKind::Literal || !e->type) return std::nullopt;
  try {
    return rise::literal_value(*e, e->type);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The projection `f` is (fst or snd, possibly eta-expanded), or nullopt.
std::optional<PrimId> projection_fn(const Expr& f) {
  auto u = util::match_unary_fn(f);
  if (u && u->deps.empty() && (u->is(PrimId::Fst) || u->is(PrimId::Snd))) return u->id();
  return std::nullopt;
}

// Folds a typed term bottom-up: scalar operations on literals, projections of pairs,
// indexing of literal arrays, projections of zips, trivial lets. Types of untouched nodes are kept.
class Folder : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    if (auto r = fold(m)) return *r;
    return m;
  }

  std::optional<Expr> fold(const Expr& e) {
    auto c = util::as_prim_call(e);
    if (!c || !c->head->prim) return std::nullopt;
    if (rise::ScalarOp op = rise::scalar_op_of(c->head->prim)) {
      size_t arity = rise::is_unary(op) ? 1 : 2;
      if (c->args.size() != arity || !c->deps.empty()) return std::nullopt;
      auto a = literal_of(c->args[0]);
      auto b = arity == 2 ? literal_of(c->args[1]) : a;
      if (!a || !b) return std::nullopt;
      try {
        return util::value_literal(rise::scalar_op(op, *a, *b, e->span), e->type);
      } catch (const Error&) {
        return std::nullopt;  // the interpreter rejects it (division by zero): left as is
      }
    }
    const PrimId n = c->id();
    if ((n == PrimId::Fst || n == PrimId::Snd) && c->args.size() == 1) {
      if (auto p = util::match_prim(c->args[0], PrimId::MakePair, 2))
        return p->args[n == PrimId::Fst ? 0 : 1];
      return std::nullopt;
    }
    if (n == PrimId::Map && c->args.size() == 2) {  // map(fst)(zip(a)(b)) is a
      std::optional<PrimId> proj = projection_fn(c->args[0]);
      auto z = util::match_prim(c->args[1], PrimId::Zip, 2);
      if (proj && z) return z->args[proj == PrimId::Fst ? 0 : 1];
      return std::nullopt;
    }
    if (n == PrimId::Idx && c->args.size() == 2) {
      auto arr = util::as_prim_call(c->args[1]);
      auto i = literal_of(c->args[0]);
      if (!arr || !arr->is(PrimId::MakeArray) || !i || i->kind() != rise::ValueKind::Index)
        return std::nullopt;
      int64_t k = i->index_value();
      if (k < 0 || k >= static_cast<int64_t>(arr->args.size())) return std::nullopt;
      return arr->args[static_cast<size_t>(k)];
    }
    if (is_let(*c)) {
      const Expr& f = c->args[1];
      if (trivial_value(c->args[0])) return util::substitute(f->fn, f->name, c->args[0]);
      // let x = v in x; kept where x says its type (a vector's width nothing else fixes)
      if (is_var(f->fn, f->name) && !f->annot) return c->args[0];
    }
    return std::nullopt;
  }
};

// Rounds of beta reduction followed by `mutator`, each re-typed, until nothing
// changes (at most `rounds`).
template <class Mutator>
Result fold_rounds(const char* name, int rounds, const Expr& e, const Env& env) {
  Expr cur = e;
  for (int round = 0; round < rounds; ++round) {
    Expr next = Mutator().mutate(util::beta_normalize_sharing(cur));
    if (next == cur) break;
    Result t = retype(name, next, env.ctx, e->type, e);
    if (!t.ok()) return t;
    if (rise::alpha_equal(t.expr(), cur)) break;
    cur = t.expr();
  }
  return cur;
}

Result partial_eval(const Expr& e, const Env& env) {
  return fold_rounds<Folder>("partialEval", 8, e, env);
}

// ---------------------------------------------------------------- specialise

// Reductions over constant arrays of at most this many elements are unrolled (the
// limit of the code generator's own unrolling, dpia::kMaxUnroll).
constexpr int64_t kMaxSpecialiseUnroll = 64;

bool is_make_array_call(const util::PrimCall& c) {
  return c.head->prim && c.head->prim->is(rise::PrimId::MakeArray) &&
         static_cast<int>(c.args.size()) == c.head->count;
}

// An array literal whose elements are literals or such arrays (a bound input).
bool constant_array(const Expr& e) {
  auto c = util::as_prim_call(e);
  if (!c || !is_make_array_call(*c)) return false;
  for (const Expr& a : c->args)
    if (a->kind != ExprKind::Literal && !constant_array(a)) return false;
  return true;
}

// Whether `e` is built of variables, literals, constant arrays, pairs, projections
// and indexing only
// (what unrolling a reduction leaves as the element of a zip): free to duplicate.
bool element_view(const Expr& e) {
  if (e->kind == ExprKind::Ident || e->kind == ExprKind::Literal || constant_array(e)) return true;
  auto c = util::as_prim_call(e);
  if (!c || !c->deps.empty()) return false;
  const PrimId n = c->id();
  if (n != PrimId::MakePair && n != PrimId::Fst && n != PrimId::Snd && n != PrimId::Idx)
    return false;
  for (const Expr& a : c->args)
    if (!element_view(a)) return false;
  return true;
}

// The zero (or one) of a literal operand, for the identities below.
bool literal_is(const Expr& e, double v) {
  if (!e->type || e->type->kind != rise::TypeKind::Scalar) return false;
  auto l = literal_of(e);
  return l && l->kind() == rise::ValueKind::Scalar && l->to_double() == v;
}

// Whether the literal `lit` is written inside the source text of `e` (an operand of
// it as the program spells it), rather than brought there from a constant array.
bool written_in(const Expr& lit, const Expr& e) {
  return lit->span.known() && e->span.known() && lit->span.file == e->span.file &&
         lit->span.begin >= e->span.begin && lit->span.end <= e->span.end;
}

// partialEval, plus what specialising on known values needs (`--bind`): lets of
// constant arrays are tracked and indexing them with a literal index resolved;
// reductions (any of the reduce family) with a scalar or vector accumulator over an
// array of at most kMaxSpecialiseUnroll elements that zips or maps a constant array
// are unrolled into op(..op(op(init, xs[0]), xs[1]).., xs[N-1]), indexing pushed
// through zip and maps; lets of element views are inlined; maps of a closed
// function over a constant array become array literals; and x * 0 and 0 * x become
// 0 where the zero comes from a constant array (a zero weight; not a zero written in
// the multiplication itself), x + 0, 0 + x, x - 0, x * 1 and 1 * x become x. The last identities
// hold for finite x (x * 0 is NaN for an infinite or NaN x) up to the sign of a zero (-0 + 0 is
// +0): a documented assumption.
class Specialiser : public Folder {
 protected:
  Expr visit_lambda(const Expr& e) override {
    auto it = consts_.find(e->name);  // a binder shadows a constant of that name
    if (it == consts_.end()) return Folder::visit_lambda(e);
    Expr saved = it->second;
    consts_.erase(it);
    Expr r = Folder::visit_lambda(e);
    consts_[e->name] = saved;
    return r;
  }

  Expr visit_app(const Expr& e) override {
    if (auto c = util::as_prim_call(e); c && is_let(*c)) {
      Expr v = mutate(c->args[0]);
      if (constant_array(v)) {
        const Expr& f = c->args[1];
        std::optional<Expr> saved;
        if (auto it = consts_.find(f->name); it != consts_.end()) saved = it->second;
        consts_[f->name] = v;
        Expr body = mutate(f->fn);
        if (saved)
          consts_[f->name] = *saved;
        else
          consts_.erase(f->name);
        if (!util::occurs_free(f->name, body)) return body;  // every use folded
        if (v == c->args[0] && body == f->fn) return e;
        return call(PrimId::Let, {v, rise::lambda(f->name, body, f->annot, f->span)});
      }
    }
    Expr m = Folder::visit_app(e);
    if (auto r = specialise(m)) return *r;
    return m;
  }

 private:
  std::map<std::string, Expr> consts_;  // let-bound constant arrays in scope

  // The constant array `e` is (a literal, or a variable bound to one).
  std::optional<Expr> constant(const Expr& e) const {
    if (e->kind == ExprKind::Ident) {
      auto it = consts_.find(e->name);
      if (it != consts_.end()) return it->second;
      return std::nullopt;
    }
    if (constant_array(e)) return e;
    return std::nullopt;
  }

  // Whether `xs` zips or maps a constant array (so that unrolling folds something).
  bool mentions_constant(const Expr& xs) const {
    if (constant(xs)) return true;
    auto c = util::as_prim_call(xs);
    if (!c || !c->head->prim) return false;
    if (c->is(PrimId::Zip) && c->args.size() == 2)
      return mentions_constant(c->args[0]) || mentions_constant(c->args[1]);
    if ((c->is(PrimId::Map) || util::is_map_like(c->head->prim)) && c->args.size() == 2)
      return mentions_constant(c->args[1]);
    return false;
  }

  // Element k of the array `xs` of length n: pushed through zips and maps into
  // constant arrays, else `xs[k]` for a term that computes nothing.
  std::optional<Expr> element(const Expr& xs, int64_t k, int64_t n) const {
    if (auto a = constant(xs)) return util::as_prim_call(*a)->args[static_cast<size_t>(k)];
    auto c = util::as_prim_call(xs);
    if (c && c->head->prim && c->args.size() == 2) {
      if (c->is(PrimId::Zip)) {
        auto a = element(c->args[0], k, n), b = element(c->args[1], k, n);
        if (!a || !b) return std::nullopt;
        return call(PrimId::MakePair, {*a, *b});
      }
      if (c->is(PrimId::Map) || util::is_map_like(c->head->prim)) {
        auto y = element(c->args[1], k, n);
        if (!y) return std::nullopt;
        return rise::app(c->args[0], *y);
      }
    }
    if (rise::any_subexpr(xs, [](const Expr& s) { return util::computes(s); })) return std::nullopt;
    rise::Literal l;
    l.kind = rise::LitKind::Index;
    l.nat = arith::Nat(k);
    l.size = arith::Nat(n);
    return call(PrimId::Idx, {rise::literal(l, xs->span), xs});
  }

  std::optional<Expr> specialise(const Expr& e) {
    auto c = util::as_prim_call(e);
    if (!c || !c->head->prim) return std::nullopt;
    const PrimId n = c->id();
    if (is_let(*c) && element_view(c->args[0]))
      return util::substitute(c->args[1]->fn, c->args[1]->name, c->args[0]);
    if (n == PrimId::Idx && c->args.size() == 2) {
      auto i = literal_of(c->args[0]);
      auto a = constant(c->args[1]);
      if (!i || i->kind() != rise::ValueKind::Index || !a) return std::nullopt;
      return util::as_prim_call(*a)->args[static_cast<size_t>(i->index_value())];
    }
    if ((n == PrimId::Add || n == PrimId::Sub || n == PrimId::Mul) && c->args.size() == 2) {
      const Expr &a = c->args[0], &b = c->args[1];
      // x * 0 only for a zero from a constant array (a weight, bound or written as an
      // array): a `* 0.0f` written in the multiplication itself keeps its NaN for an
      // infinite or NaN x.
      if (n == PrimId::Mul && literal_is(a, 0) && !written_in(a, e)) return a;
      if (n == PrimId::Mul && literal_is(b, 0) && !written_in(b, e)) return b;
      if (n == PrimId::Mul && literal_is(a, 1)) return b;
      if ((n == PrimId::Mul && literal_is(b, 1)) || (n != PrimId::Mul && literal_is(b, 0)))
        return a;
      if (n == PrimId::Add && literal_is(a, 0)) return b;
      return std::nullopt;
    }
    if ((n == PrimId::Map || util::is_map_like(c->head->prim)) && c->args.size() == 2) {
      const Expr& f = c->args[0];
      auto a = constant(c->args[1]);
      if (!a || f->kind != ExprKind::Lambda || !rise::free_vars(f).empty()) return std::nullopt;
      const std::vector<Expr> elems = util::as_prim_call(*a)->args;
      Expr out = rise::make_array_prim(static_cast<int>(elems.size()), e->span);
      for (const Expr& x : elems) out = rise::app(out, rise::app(f, x));
      return out;
    }
    if (!util::is_reduce_like(c->head->prim) || c->args.size() != 3) return std::nullopt;
    const Expr &op = c->args[0], &init = c->args[1], &xs = c->args[2];
    if (!e->type ||
        (e->type->kind != rise::TypeKind::Scalar && e->type->kind != rise::TypeKind::Vector))
      return std::nullopt;
    auto len = xs->type ? util::array_size(xs->type) : std::nullopt;
    auto count = len ? len->as_const() : std::nullopt;
    if (!count || *count < 1 || *count > kMaxSpecialiseUnroll || !mentions_constant(xs))
      return std::nullopt;
    Expr acc = init;
    for (int64_t k = 0; k < *count; ++k) {
      auto x = element(xs, k, *count);
      if (!x) return std::nullopt;
      acc = rise::app(rise::app(op, acc), *x);
    }
    return acc;
  }
};

Result specialise(const Expr& e, const Env& env) {
  // Nested reductions need a round to unroll, one to beta-reduce and one to fold per
  // level: 16 rounds cover four levels.
  return fold_rounds<Specialiser>("specialise", 16, e, env);
}

// ---------------------------------------------------------------- dce

// How a let-bound variable x is used: only as fst(x) / snd(x) (`scalar`), or only
// as map(fst)(x) / map(snd)(x) (`mapped`, with any spelling of the projection).
struct ProjUse {
  bool all_fst = true, all_snd = true;
};

// Whether every free occurrence of x in e is projected as `mapped` says; records
// which projections. Stops (false) at a binder of x.
bool projected_uses(const Expr& e, const std::string& x, bool mapped, ProjUse& use) {
  if (is_var(e, x)) return false;  // a bare use: both components needed
  if ((e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) && e->name == x) return true;
  auto c = util::as_prim_call(e);
  if (c) {
    std::optional<PrimId> proj;
    if (!mapped && (c->is(PrimId::Fst) || c->is(PrimId::Snd)) && c->args.size() == 1 &&
        is_var(c->args[0], x))
      proj = c->id();
    if (mapped && c->is(PrimId::Map) && c->args.size() == 2 && is_var(c->args[1], x)) {
      proj = projection_fn(c->args[0]);
      // map(fun(p => B))(x) with p only projected one way in B
      const Expr& g = c->args[0];
      if (!proj && g->kind == ExprKind::Lambda && g->name != x) {
        ProjUse inner;
        if (!projected_uses(g->fn, g->name, false, inner) || inner.all_fst == inner.all_snd)
          return false;
        proj = inner.all_fst ? PrimId::Fst : PrimId::Snd;
        if (!projected_uses(g->fn, x, mapped, use)) return false;
      }
    }
    if (proj) {
      (proj == PrimId::Fst ? use.all_snd : use.all_fst) = false;
      return true;
    }
  }
  for (const Expr& k : children(e))
    if (!projected_uses(k, x, mapped, use)) return false;
  return true;
}

// e with every projection of x (as checked by projected_uses) replaced by x.
Expr drop_projections(const Expr& e, const std::string& x, bool mapped) {
  if ((e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) && e->name == x) return e;
  auto c = util::as_prim_call(e);
  if (c && c->args.size() == (mapped ? 2u : 1u) && is_var(c->args.back(), x)) {
    if (!mapped && (c->is(PrimId::Fst) || c->is(PrimId::Snd))) return c->args[0];
    if (mapped && c->is(PrimId::Map) && projection_fn(c->args[0])) return c->args[1];
    if (mapped && c->is(PrimId::Map) && c->args[0]->kind == ExprKind::Lambda) {
      const Expr& g = c->args[0];  // its parameter is projected (projected_uses)
      Expr b = drop_projections(drop_projections(g->fn, g->name, false), x, mapped);
      return util::mk_map(rise::lambda(g->name, b), c->args[1]);
    }
  }
  std::vector<Expr> kids = children(e);
  for (Expr& k : kids) k = drop_projections(k, x, mapped);
  return rebuild(e, kids);
}

// The value of a let of which only component `keep` (0 fst, 1 snd) is used, or nullopt.
std::optional<Expr> keep_component(const Expr& v, int keep, bool mapped) {
  if (!mapped) {
    if (auto p = util::match_prim(v, PrimId::MakePair, 2)) return p->args[keep];
    return std::nullopt;
  }
  if (auto z = util::match_prim(v, PrimId::Zip, 2)) return z->args[keep];
  auto m = util::match_map(v);
  if (!m || m->first->kind != ExprKind::Lambda) return std::nullopt;
  auto p = util::match_prim(m->first->fn, PrimId::MakePair, 2);
  if (!p) return std::nullopt;
  return util::mk_map(rise::lambda(m->first->name, p->args[keep], m->first->annot), m->second);
}

class DeadCode : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    auto c = util::as_prim_call(m);
    if (!c || !is_let(*c)) return m;
    const Expr& f = c->args[1];
    if (!util::occurs_free(f->name, f->fn)) return f->fn;  // unused
    for (bool mapped : {false, true}) {
      ProjUse use;
      if (!projected_uses(f->fn, f->name, mapped, use) || use.all_fst == use.all_snd) continue;
      auto v = keep_component(c->args[0], use.all_fst ? 0 : 1, mapped);
      if (!v) continue;
      Expr body = drop_projections(f->fn, f->name, mapped);
      return call(PrimId::Let, {*v, rise::lambda(f->name, body)});
    }
    return m;
  }
};

Result dce(const Expr& e, const Env&) {
  Expr cur = e;
  for (int round = 0; round < 8; ++round) {
    Expr next = DeadCode().mutate(cur);
    if (next == cur) break;
    cur = next;
  }
  return cur;
}

// ---------------------------------------------------------------- cse

// A structural hash up to renaming of bound variables (bound ones by de Bruijn level).
size_t hash_expr(const Expr& e, std::vector<std::string>& bound) {
  size_t h = static_cast<size_t>(e->kind) * 1000003u;
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  switch (e->kind) {
    case ExprKind::Ident: {
      for (size_t i = bound.size(); i-- > 0;)
        if (bound[i] == e->name) {
          mix(i);
          return h;
        }
      mix(std::hash<std::string>()(e->name));
      return h;
    }
    case ExprKind::Literal:
      mix(std::hash<int64_t>()(e->lit.i));
      mix(std::hash<double>()(e->lit.f));
      return h;
    case ExprKind::Primitive:
    case ExprKind::Foreign:
      mix(std::hash<std::string>()(e->name));
      mix(static_cast<size_t>(e->count));
      return h;
    case ExprKind::Lambda:
    case ExprKind::DepLambda: {
      bound.push_back(e->name);
      mix(hash_expr(e->fn, bound));
      bound.pop_back();
      return h;
    }
    default:
      for (const Expr& k : children(e)) mix(hash_expr(k, bound));
      return h;
  }
}

size_t expr_size(const Expr& e) {
  size_t n = 1;
  for (const Expr& k : children(e)) n += expr_size(k);
  return n;
}

bool candidate(const Expr& e) {
  if (e->kind != ExprKind::App || !e->type || !rise::is_data(e->type)) return false;
  return rise::any_subexpr(e, [](const Expr& s) { return util::computes(s); });
}

struct Occ {
  Expr e;
  std::set<std::string> bound_above;  // binders between the scope and the occurrence
  bool conditional = false;           // under a condition (util::conditional_args)
};

// Data subterms of a scope's body, grouped by hash; dependent lambdas are not
// entered (their sizes cannot move out).
void collect(const Expr& e, std::set<std::string>& bound, std::map<size_t, std::vector<Occ>>& out,
             bool conditional = false) {
  if (e->kind == ExprKind::DepLambda) return;
  if (candidate(e)) {
    std::vector<std::string> b;
    out[hash_expr(e, b)].push_back({e, bound, conditional});
  }
  if (e->kind == ExprKind::Lambda) {
    bool fresh = bound.insert(e->name).second;
    collect(e->fn, bound, out, conditional);
    if (fresh) bound.erase(e->name);
    return;
  }
  const std::vector<Expr> cond = util::conditional_args(e);
  auto is_cond = [&](const Expr& k) {
    return conditional || std::find(cond.begin(), cond.end(), k) != cond.end();
  };
  // a primitive's arguments directly (the partial applications between are functions,
  // never candidates), so that each knows whether it is conditional
  if (auto c = util::as_prim_call(e); c && c->head->prim) {
    for (const Expr& a : c->args) collect(a, bound, out, is_cond(a));
    return;
  }
  for (const Expr& k : children(e)) collect(k, bound, out, is_cond(k));
}

// Alpha-equal with the same type (literals take their type from context).
bool same_term(const Expr& a, const Expr& b) {
  if (a->type && b->type && !rise::equal(a->type, b->type)) return false;
  return rise::alpha_equal(a, b);
}

bool escapes(const Occ& o) {
  for (const std::string& v : rise::free_vars(o.e))
    if (o.bound_above.count(v)) return true;
  return false;
}

// body with every occurrence alpha-equal to c (and not below a binder of one of
// c's free variables) replaced by the variable x.
Expr replace_occ(const Expr& e, const Expr& c, const std::set<std::string>& fv, const Expr& x) {
  if (e->kind == ExprKind::DepLambda) return e;
  if ((e->kind == ExprKind::Lambda) && fv.count(e->name)) return e;
  if (e->kind == ExprKind::App && same_term(e, c)) return x;
  std::vector<Expr> kids = children(e);
  for (Expr& k : kids) k = replace_occ(k, c, fv, x);
  return rebuild(e, kids);
}

// One sharing step in the body of a lambda: the largest repeated candidate.
std::optional<Expr> share_once(const Expr& body) {
  std::map<size_t, std::vector<Occ>> groups;
  std::set<std::string> bound;
  collect(body, bound, groups);
  Expr best;
  size_t best_size = 0;
  for (auto& [h, occs] : groups) {
    for (size_t i = 0; i < occs.size(); ++i) {
      if (escapes(occs[i])) continue;
      size_t same = 0;
      bool unconditional = false;
      for (size_t j = 0; j < occs.size(); ++j)
        if (!escapes(occs[j]) && same_term(occs[i].e, occs[j].e)) {
          ++same;
          unconditional = unconditional || !occs[j].conditional;
        }
      size_t sz = expr_size(occs[i].e);
      // A term that can stop the program (division, an index made from data) is
      // shared only where one of its occurrences runs whenever the scope does: the
      // let computes it at the scope's start, also where every guard is false.
      if (same >= 2 && sz > best_size && (unconditional || !util::may_fail(occs[i].e))) {
        best = occs[i].e;
        best_size = sz;
      }
    }
  }
  if (!best) return std::nullopt;
  std::vector<std::string> fvs = rise::free_vars(best);
  std::set<std::string> fv(fvs.begin(), fvs.end());
  std::string x = rise::fresh_name("cse");
  Expr shared = replace_occ(body, best, fv, rise::ident(x));
  return call(PrimId::Let, {best, rise::lambda(x, shared, util::vector_annotation(best))});
}

class Sharing : public rise::ExprMutator {
 protected:
  Expr visit_lambda(const Expr& e) override {
    Expr m = mutate_children(e);
    Expr body = m->fn;
    // A let has a data type: the body of a curried operator's outer lambda (a
    // function) gets none; its inner body does.
    if (!e->fn->type || !rise::is_data(e->fn->type)) return m;
    bool changed = false;
    for (int step = 0; step < 64; ++step) {
      auto r = share_once(body);
      if (!r) break;
      body = *r;
      changed = true;
    }
    return changed ? rebuild(m, body, nullptr) : m;
  }
};

Result cse(const Expr& e, const Env&) {
  return Sharing().mutate(e);
}

// ---------------------------------------------------------------- AiNF

Expr mk_let(const Expr& v, const std::string& x, const Expr& body) {
  return call(PrimId::Let, {v, rise::lambda(x, body, util::vector_annotation(v))});
}

// let x = v in b, as (v, x, b).
struct Let {
  Expr value;
  std::string name;
  Expr body;
};

std::optional<Let> as_let(const Expr& e) {
  auto c = util::as_prim_call(e);
  if (!c || !is_let(*c) || !c->deps.empty()) return std::nullopt;
  return Let{c->args[0], c->args[1]->name, c->args[1]->fn};
}

bool is_data_typed(const Expr& e) {
  return e->type && rise::is_data(e->type);
}

// A known data type made of scalars and pairs only (no arrays, no type variables).
bool flat_data(const Type& t) {
  if (!t) return false;
  if (t->kind == rise::TypeKind::Scalar || t->kind == rise::TypeKind::Index) return true;
  if (t->kind == rise::TypeKind::Pair) return flat_data(t->a) && flat_data(t->b);
  return false;
}

// An array (of a known type) whose elements are flat: the maps that fission and
// re-fusion take apart and put together, so that no array of pairs of arrays is
// ever left for code generation.
bool flat_elements(const Expr& arr) {
  return arr->type && flat_data(util::array_elem(arr->type));
}

// The let-let and let-argument commuting conversions: a let in an argument position
// floats out of the application (its variable renamed fresh, so nothing in the rest
// of the application is captured). RISE is pure and the argument is evaluated once
// either way, so this is always safe.
class FloatLets : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    // only out of a fully applied primitive (a data result): a let around a partial
    // application would stand in function position
    if (!is_data_typed(e)) return m;
    return floated(m);
  }

 private:
  static Expr floated(const Expr& m) {
    auto c = util::as_prim_call(m);
    if (!c) return m;
    const std::vector<Expr> cond = util::conditional_args(m);
    for (size_t i = 0; i < c->args.size(); ++i) {
      auto l = as_let(c->args[i]);
      if (!l) continue;
      // out of a select's branch (a conditional argument) only what cannot stop the
      // program (may_fail): the branch may not run
      if (std::find(cond.begin(), cond.end(), c->args[i]) != cond.end() && util::may_fail(l->value))
        continue;
      std::string y = rise::fresh_name(l->name);
      std::vector<Expr> args = c->args;
      args[i] = util::substitute(l->body, l->name, rise::ident(y));
      Expr head = c->head;
      for (const rise::TypeArg& d : c->deps) head = rise::dep_app(head, d);
      return mk_let(l->value, y, floated(rise::apps(head, args)));
    }
    return m;
  }
};

// Maximal fission of a map (the let-for conversion): each let of a map body that
// depends on the element becomes a loop of its own, which carries the element along
// with the value so that the next loop reads both:
//   map(fun(p => let y = e1 in e2))(xs)
//     ~>  let ys = map(fun(p => makePair(p)(e1)))(xs) in map(fun(q => e2[p := q._1, y :=
//     q._2]))(ys)
// A let that does not depend on the element moves out of the loop; a map producing a
// pair of two computations becomes two maps, one per component (zipped).
class Fission : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    auto mp = util::match_map(m);
    if (!mp || mp->first->kind != ExprKind::Lambda) return m;
    const Expr& f = mp->first;
    const Expr& xs = mp->second;
    if (!flat_elements(xs)) return m;
    if (auto l = as_let(f->fn); l && flat_data(l->value->type)) {
      if (!util::occurs_free(f->name, l->value)) {  // invariant: out of the loop
        std::string y = rise::fresh_name(l->name);
        Expr body = util::substitute(l->body, l->name, rise::ident(y));
        return mk_let(l->value, y,
                      visit_app(util::mk_map(rise::lambda(f->name, body, f->annot), xs)));
      }
      std::string ys = rise::fresh_name("ys");
      std::string q = rise::fresh_name("q");
      Expr first = util::mk_map(
          rise::lambda(f->name, call(PrimId::MakePair, {rise::ident(f->name), l->value}), f->annot),
          xs);
      Expr rest = util::substitute(l->body, l->name, call(PrimId::Snd, {rise::ident(q)}));
      rest = util::substitute(rest, f->name, call(PrimId::Fst, {rise::ident(q)}));
      return mk_let(first, ys, visit_app(util::mk_map(rise::lambda(q, rest), rise::ident(ys))));
    }
    auto pr = util::match_prim(f->fn, PrimId::MakePair, 2);
    if (pr && flat_data(f->fn->type) && util::computes(pr->args[0]) &&
        util::computes(pr->args[1]) && (xs->kind == ExprKind::Ident || !util::computes(xs))) {
      std::string a = rise::fresh_name("ys"), b = rise::fresh_name("ys");
      Expr ma = visit_app(util::mk_map(rise::lambda(f->name, pr->args[0], f->annot), xs));
      Expr mb = visit_app(util::mk_map(rise::lambda(f->name, pr->args[1], f->annot), xs));
      return mk_let(ma, a, mk_let(mb, b, call(PrimId::Zip, {rise::ident(a), rise::ident(b)})));
    }
    return m;
  }
};

// Fission needs the types of the values it splits (only flat ones): it is repeated,
// re-typed, until every loop it created has been split in turn.
Result ainf(const Expr& e, const Env& env) {
  Expr cur = e;
  for (int round = 0; round < 16; ++round) {
    Expr next = FloatLets().mutate(Fission().mutate(FloatLets().mutate(cur)));
    if (next == cur) break;
    Result t = retype("AiNF", next, env.ctx, e->type, e);
    if (!t.ok()) return t;
    cur = t.expr();
  }
  return cur;
}

// ---------------------------------------------------------------- licm

// The binders of loop functions: the lambdas given to a map-like or reduce-like
// primitive (a reduction operator's two curried lambdas both count).
bool loop_primitive(const util::PrimCall& c) {
  const rise::PrimitiveInfo* p = c.head->prim;
  return p && (p->family == rise::Family::Map || util::is_reduce_like(p));
}

// The largest computing data subterms of `e` that mention none of `inner` (the
// variables bound inside the loop function); dependent lambdas are not entered. Under
// a condition (util::conditional_args: a select's branches, so also `&&` and `||`; an
// iterateWhile's step, which may run no time) a term that can stop the program
// (util::may_fail) is not taken: before the loop it would run where the program never
// runs it.
void invariant_terms(const Expr& e, std::set<std::string>& inner, std::vector<Expr>& out,
                     bool conditional = false) {
  if (e->kind == ExprKind::DepLambda) return;
  if (candidate(e)) {
    bool inv = true;
    for (const std::string& v : rise::free_vars(e))
      if (inner.count(v)) inv = false;
    if (inv && !(conditional && util::may_fail(e))) {
      out.push_back(e);
      return;
    }
  }
  if (e->kind == ExprKind::Lambda) {
    bool fresh = inner.insert(e->name).second;
    invariant_terms(e->fn, inner, out, conditional);
    if (fresh) inner.erase(e->name);
    return;
  }
  const std::vector<Expr> cond = util::conditional_args(e);
  if (!cond.empty()) {
    if (auto c = util::as_prim_call(e); c && c->head->prim) {
      for (const Expr& a : c->args)
        invariant_terms(a, inner, out,
                        conditional || std::find(cond.begin(), cond.end(), a) != cond.end());
      return;
    }
  }
  for (const Expr& k : children(e))
    invariant_terms(k, inner, out,
                    conditional || std::find(cond.begin(), cond.end(), k) != cond.end());
}

class Hoisting : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    auto c = util::as_prim_call(m);
    // only a fully applied loop (a data result) has a place for the let
    if (!c || !loop_primitive(*c) || !is_data_typed(e)) return m;
    std::vector<Expr> terms;
    for (const Expr& a : c->args) {
      if (a->kind != ExprKind::Lambda) continue;
      std::set<std::string> inner;
      invariant_terms(a, inner, terms);
    }
    // Out of a GPU map (a kernel, a work group), a term using the GPU's own memory or
    // loops (oclToMem(Private), mapLocal, oclReduceSeq(Local), ...) would leave the
    // place they exist in (held-out J: valid programs then refused as "private memory
    // allocated outside a kernel", "mapLocal outside a work group").
    if (rise::is_gpu_loop(c->head->prim->loop))
      std::erase_if(terms, [](const Expr& t) {
        return rise::any_subexpr(t, [](const Expr& x) {
          return x->kind == ExprKind::Primitive && x->prim &&
                 (x->prim->has(rise::kOpenCL) || rise::is_gpu_loop(x->prim->loop));
        });
      });
    if (terms.empty()) return m;
    // Each distinct term once, replaced in the whole call (it is invariant there).
    Expr out = m;
    std::vector<std::pair<std::string, Expr>> lets;
    for (const Expr& t : terms) {
      bool seen = false;
      for (auto& [n, v] : lets) seen = seen || same_term(v, t);
      if (seen) continue;
      std::vector<std::string> fvs = rise::free_vars(t);
      std::string x = rise::fresh_name("inv");
      out = replace_occ(out, t, std::set<std::string>(fvs.begin(), fvs.end()), rise::ident(x));
      lets.emplace_back(x, t);
    }
    for (size_t i = lets.size(); i-- > 0;) out = mk_let(lets[i].second, lets[i].first, out);
    return out;
  }
};

Result licm(const Expr& e, const Env&) {
  return Hoisting().mutate(e);
}

// ---------------------------------------------------------------- re-fusion

// Whether x occurs in e exactly once, as the array of a plain map (map(g)(x)) that
// is not inside a loop function (a lambda other than a let's body): the position
// where fusing x's producing map costs no recomputation.
bool fusible_use(const Expr& e, const std::string& x) {
  if (util::count_free(x, e) != 1) return false;
  // find the path to the occurrence
  std::function<bool(const Expr&, bool)> ok = [&](const Expr& t, bool in_loop) -> bool {
    if (!util::occurs_free(x, t)) return true;
    if (auto mp = util::match_map(t); mp && is_var(mp->second, x)) return !in_loop;
    if (auto l = as_let(t)) return ok(l->value, in_loop) && ok(l->body, in_loop);
    if (t->kind == ExprKind::Lambda) return ok(t->fn, true);
    if (is_var(t, x)) return false;
    for (const Expr& k : children(t))
      if (!ok(k, in_loop)) return false;
    return true;
  };
  return ok(e, false);
}

// f(p) as a term: f's body with its parameter renamed to p.
Expr body_at(const Expr& f, const std::string& p) {
  Expr g = util::as_lambda(f);
  return util::substitute(g->fn, g->name, rise::ident(p));
}

// map(g)(x) (the fusible use) replaced by map(fun(p => let q = f(p) in g(q)))(X).
Expr fuse_into(const Expr& e, const std::string& x, const Expr& f, const Expr& X) {
  if (!util::occurs_free(x, e)) return e;
  if (auto mp = util::match_map(e); mp && is_var(mp->second, x)) {
    std::string p = rise::fresh_name("p"), q = rise::fresh_name("q");
    Expr body = mk_let(body_at(f, p), q, body_at(mp->first, q));
    return util::mk_map(rise::lambda(p, body), X);
  }
  if ((e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) && e->name == x) return e;
  std::vector<Expr> kids = children(e);
  for (Expr& k : kids) k = fuse_into(k, x, f, X);
  return rebuild(e, kids);
}

// Re-fusion: the loops that fission separated, or that were written separately over
// the same array, become one loop again where that saves memory traffic:
//   vertical    let ys = map(f)(X) in .. map(g)(ys) ..   (ys read once, not in a loop)
//                 ~>  .. map(fun(p => let q = f(p) in g(q)))(X) ..
//   horizontal  let a = map(f)(X) in .. let b = map(g)(X) in C
//                 ~>  let ab = map(fun(p => makePair(f(p))(g(p))))(X) in
//                     .. C[a := map(fst)(ab), b := map(snd)(ab)]
//               (also zip(map(f)(X))(map(g)(X)), and zip(map(fst)(x))(map(snd)(x)) is x)
//   pairs       let q = makePair(a)(b) in E  ~>  let q1 = a in let q2 = b in E[q :=
//   makePair(q1)(q2)]
//               (projections of the pair then resolved)
class Refusion : public rise::ExprMutator {
 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    if (auto r = step(m)) return mutate(*r);
    return m;
  }

 private:
  static std::optional<Expr> step(const Expr& m) {
    if (auto z = util::match_prim(m, PrimId::Zip, 2)) {
      auto a = util::match_map(z->args[0]);
      auto b = util::match_map(z->args[1]);
      if (a && b && projection_fn(a->first) == PrimId::Fst &&
          projection_fn(b->first) == PrimId::Snd && a->second->kind == ExprKind::Ident &&
          is_var(b->second, a->second->name))
        return a->second;
      if (a && b && flat_elements(z->args[0]) && flat_elements(z->args[1]) &&
          util::computes(a->first) && util::computes(b->first) &&
          rise::alpha_equal(a->second, b->second) && !util::computes(a->second))
        return paired(a->first, b->first, a->second);
      return std::nullopt;
    }
    auto l = as_let(m);
    if (!l) return std::nullopt;
    if (auto pr = util::match_prim(l->value, PrimId::MakePair, 2)) {
      std::string q1 = rise::fresh_name(l->name), q2 = rise::fresh_name(l->name);
      Expr pair = call(PrimId::MakePair, {rise::ident(q1), rise::ident(q2)});
      Expr b = Folder().mutate(util::substitute(l->body, l->name, pair));
      return mk_let(pr->args[0], q1, mk_let(pr->args[1], q2, b));
    }
    auto mp = util::match_map(l->value);
    if (!mp || !util::computes(mp->first)) return std::nullopt;
    if (fusible_use(l->body, l->name)) return fuse_into(l->body, l->name, mp->first, mp->second);
    // horizontal: a later let of the chain mapping over the same array
    std::set<std::string> between = {l->name};
    std::vector<std::string> xfv = rise::free_vars(mp->second);
    std::vector<Let> chain;
    Expr cur = l->body;
    while (auto k = as_let(cur)) {
      auto mk = util::match_map(k->value);
      bool independent = true;
      for (const std::string& v : rise::free_vars(k->value))
        independent = independent && !between.count(v);
      for (const std::string& v : xfv) independent = independent && !between.count(v);
      if (mk && independent && util::computes(mk->first) && flat_elements(l->value) &&
          flat_elements(k->value) && rise::alpha_equal(mk->second, mp->second)) {
        std::string ab = rise::fresh_name("fused");
        Expr fst = util::mk_map(util::prim(PrimId::Fst), rise::ident(ab));
        Expr snd = util::mk_map(util::prim(PrimId::Snd), rise::ident(ab));
        Expr rest = util::substitute(k->body, k->name, snd);
        for (size_t i = chain.size(); i-- > 0;) rest = mk_let(chain[i].value, chain[i].name, rest);
        rest = util::substitute(rest, l->name, fst);
        return mk_let(paired(mp->first, mk->first, mp->second), ab, rest);
      }
      between.insert(k->name);
      chain.push_back(*k);
      cur = k->body;
    }
    return std::nullopt;
  }

  static Expr paired(const Expr& f, const Expr& g, const Expr& X) {
    std::string p = rise::fresh_name("p");
    return util::mk_map(rise::lambda(p, call(PrimId::MakePair, {body_at(f, p), body_at(g, p)})), X);
  }
};

Result refuse(const Expr& e, const Env&) {
  return Refusion().mutate(e);
}

// ---------------------------------------------------------------- stores left empty

// AiNF floats a stored computation out into lets (a map making pairs becomes two
// lets and a zip of them), and the program's toMem is then left around a view of
// stored values, which the lowering refuses as storing nothing. The toMems whose value
// is computed before simplifying are known by their place in the source; after it,
// those whose value no longer computes are dropped (the lets store it). A toMem of an
// input or of a stored value, so written, stays for the lowering to refuse.
using StoreKey = std::tuple<const void*, unsigned, unsigned>;

std::optional<StoreKey> store_key(const Expr& e, bool computed) {
  auto c = util::match_prim(e, PrimId::ToMem, 1);
  if (!c || util::computes(c->args[0]) != computed) return std::nullopt;
  const Span& at = c->head->span.known() ? c->head->span : e->span;
  if (!at.known()) return std::nullopt;
  return StoreKey{at.file.get(), at.begin, at.end};
}

std::set<StoreKey> computed_stores(const Expr& e) {
  std::set<StoreKey> out;
  rise::for_each_subexpr(e, [&](const Expr& s) {
    if (auto k = store_key(s, true)) out.insert(*k);
    return true;
  });
  return out;
}

class DropEmptyStores : public rise::ExprMutator {
 public:
  explicit DropEmptyStores(const std::set<StoreKey>& stores) : stores_(stores) {}

 protected:
  Expr visit_app(const Expr& e) override {
    Expr m = mutate_children(e);
    if (auto k = store_key(m, false); k && stores_.count(*k))
      return util::match_prim(m, PrimId::ToMem, 1)->args[0];
    return m;
  }

 private:
  const std::set<StoreKey>& stores_;
};

}  // namespace

void register_simplify(Registry& r) {
  Strategy pe = util::whole_term("partialEval", partial_eval);
  Strategy dc = util::whole_term("dce", dce);
  Strategy cs = util::whole_term("cse", cse);
  Strategy an = util::whole_term("AiNF", ainf);
  Strategy li = util::whole_term("licm", licm);
  Strategy rf = util::whole_term("refuse", refuse);
  r.rule({"partialEval",
          RuleFamily::Simplify,
          "beta reduction, lets of variables/literals inlined, scalar operations on literals "
          "folded (interpreter semantics), fst/snd of makePair and idx of makeArray resolved",
          {},
          fixed(pe)});
  r.rule({"AiNF",
          RuleFamily::Simplify,
          "lets floated out of arguments (let-let normal), maps maximally fissioned: one loop "
          "per let of a map body and per component of a pair",
          {},
          fixed(an)});
  r.rule({"specialise",
          RuleFamily::Simplify,
          "partialEval, plus reductions over constant arrays (array literals, inputs "
          "bound with --bind) of at most 64 elements unrolled and x * 0 -> 0, x + 0 -> x, "
          "x * 1 -> x (assuming finite values)",
          {},
          fixed(util::whole_term("specialise", specialise))});
  r.rule({"dce",
          RuleFamily::Simplify,
          "unused lets removed; a let of a pair (or map producing pairs) of which one "
          "component is read keeps only that component",
          {},
          fixed(dc)});
  r.rule({"cse",
          RuleFamily::Simplify,
          "identical computing subterms of a lambda body shared by one let (hashing, "
          "largest first), across loops after AiNF; one that can stop the program (integer "
          "division, an index made from data) only where an occurrence runs unconditionally",
          {},
          fixed(cs)});
  r.rule({"licm",
          RuleFamily::Simplify,
          "loop-invariant computations of a map or reduce function computed once, outside; "
          "one that can stop the program not out of a select's branch",
          {},
          fixed(li)});
  r.rule({"refuse",
          RuleFamily::Simplify,
          "loops fused again: an array read once by a map fused into it, maps over the same "
          "array fused into one producing a pair",
          {},
          fixed(rf)});
  // One round can enable another (an inlined let leaves a let unused, whose removal
  // leaves literals to fold): rounds until nothing changes, at most 8.
  Strategy round = seq_all({pe, an, cs, dc, li, rf, pe, cs, dc});
  r.rule({"simplify",
          RuleFamily::Simplify,
          "(partialEval ; AiNF ; cse ; dce ; licm ; refuse ; partialEval ; cse ; dce) until "
          "nothing changes",
          {},
          fixed(Strategy("simplify", [round](const Expr& e, const Env& env) -> Result {
            const std::set<StoreKey> stores = computed_stores(e);
            Expr cur = e;
            for (int i = 0; i < 8; ++i) {
              Result next = round(cur, env);
              if (!next.ok()) return next;
              if (next.expr() == cur || rise::alpha_equal(next.expr(), cur)) break;
              cur = next.expr();
            }
            if (stores.empty()) return cur;
            Expr dropped = DropEmptyStores(stores).mutate(cur);
            if (dropped == cur) return cur;
            return retype("simplify", dropped, env.ctx, e->type, e);
          }))});
}

}  // namespace risec::elevate
