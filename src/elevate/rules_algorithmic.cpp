// Algorithmic rewrite rules (family "algorithmic"): fusion and fission of maps,
// splitting a map into a nest, identities and transpose pairs, zips, pair
// projections, overlapped tiling of slides and the separation of 2-D weighted dots.
// Names and meanings follow the RISE & Shine compiler. Each rule matches one
// location; the forms matched are written in the descriptions (the forms fusion
// rules see in DFNF: compositions applied to data). The reduce rules of this family
// (reduceMapFusion, reduceMapFission, blockedReduce) live with the tiling rules.
#include <algorithm>
#include <cmath>
#include <functional>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/infer.h"
#include "rise/interp.h"

namespace risec::elevate {

using rise::PrimId;

using rise::ExprKind;
using rise::Nat;
using util::call;
using util::fun;
using util::mk_map;
using util::mk_map_fn;

namespace {

// ---------------------------------------------------------------- fusion / fission

Strategy map_fusion() {
  return rule("mapFusion", [](const Expr& e, const Context&) -> Result {
    auto outer = util::match_map(e);
    if (!outer) return fail_at("mapFusion", e, "expected map(f)(map(g)(x))");
    auto inner = util::match_map(outer->second);
    if (!inner)
      return fail_at("mapFusion", e, "expected map(f)(map(g)(x)): the input is not a map");
    const Expr& f = outer->first;
    const Expr& g = inner->first;
    Expr fused = fun("y", [&](const Expr& y) { return util::apply_fn(f, util::apply_fn(g, y)); });
    return call(PrimId::Map, {fused, inner->second});
  });
}

// ---------------------------------------------------------------- expandReduce

// idx(lidx(k, n))(e) for an array term e of type n.t.
Expr index_at(const Expr& e, int64_t k, const Nat& n) {
  rise::Literal l;
  l.kind = rise::LitKind::Index;
  l.nat = Nat(k);
  l.size = n;
  return call(PrimId::Idx, {rise::literal(l), e});
}

// The element e[path[0]][path[1]]... of the typed array term e, looked through the
// views that name their elements (zip, join of rows of constant length, makeArray,
// map of a lambda), so that a window's weights become literals and its products
// plain scalar terms; any other array is indexed with idx.
Expr element_at(const Expr& e, const std::vector<int64_t>& path) {
  if (path.empty()) return e;
  std::vector<int64_t> rest(path.begin() + 1, path.end());
  if (auto a = util::as_prim_call(e);
      a && a->is(PrimId::MakeArray) && static_cast<size_t>(path[0]) < a->args.size())
    return element_at(a->args[static_cast<size_t>(path[0])], rest);
  if (auto z = util::match_prim(e, PrimId::Zip, 2); z && rest.empty())
    return call(PrimId::MakePair, {element_at(z->args[0], path), element_at(z->args[1], path)});
  if (auto j = util::match_prim(e, PrimId::Join, 1)) {
    auto m = util::array_size(util::array_elem(j->args[0]->type));
    if (m && m->is_const() && *m->as_const() > 0) {
      std::vector<int64_t> p = {path[0] / *m->as_const(), path[0] % *m->as_const()};
      p.insert(p.end(), rest.begin(), rest.end());
      return element_at(j->args[0], p);
    }
  }
  if (auto mp = util::match_map(e); mp && rest.empty() && mp->first->kind == ExprKind::Lambda)
    return util::substitute(mp->first->fn, mp->first->name, element_at(mp->second, path));
  Expr r = e;
  Type t = e->type;
  for (int64_t k : path) {
    r = index_at(r, k, *util::array_size(t));
    t = util::array_elem(t);
  }
  return r;
}

// reduce(op)(init)(xs) with xs of constant length k -> op(..op(op(init)(xs[0]))(xs[1])..)(xs[k-1])
// as one scalar term (elements through element_at). With the reduction a plain term,
// a map of it is a view that code generation inlines where it is read.
Strategy expand_reduce() {
  return rule("expandReduce", [](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || c->args.size() != 3 ||
        (!c->is(PrimId::Reduce) && !c->is(PrimId::ReduceSeq) && !c->is(PrimId::ReduceSeqUnroll)))
      return fail_at("expandReduce", e, "expected reduce(op)(init)(xs)");
    auto n = util::array_size(c->args[2]->type);
    if (!n || !n->is_const() || *n->as_const() > 64)
      return fail_at("expandReduce", e,
                     "the reduced array's length is not a constant of at most 64");
    const Expr& op = c->args[0];
    const Expr* body = nullptr;
    std::string acc, y;
    if (op->kind == ExprKind::Lambda && op->fn->kind == ExprKind::Lambda) {
      acc = op->name;
      y = op->fn->name;
      body = &op->fn->fn;
      if (util::count_free(acc, *body) > 1)
        return fail_at("expandReduce", e,
                       "the operator uses its accumulator more than once (the term would grow "
                       "exponentially)");
    }
    Expr cur = c->args[1];
    for (int64_t k = 0; k < *n->as_const(); ++k) {
      Expr x = element_at(c->args[2], {k});
      if (body)
        cur = util::substitute(util::substitute(*body, y, x), acc, cur);
      else
        cur = rise::app(rise::app(op, cur), x);
    }
    return cur;
  });
}

// let(v)(fun(x => b)) -> b with v for x: the value is recomputed at every use (with
// `map`s left high-level, code generation reads them as views, so a stage inlined
// into a stencil is recomputed per window instead of stored: recompute fusion).
Strategy inline_let() {
  return rule("inlineLet", [](const Expr& e, const Context&) -> Result {
    auto c = util::match_prim(e, PrimId::Let, 2);
    if (!c || c->args[1]->kind != ExprKind::Lambda)
      return fail_at("inlineLet", e, "expected let(v)(fun(x => b))");
    const Expr& f = c->args[1];
    return util::substitute(f->fn, f->name, c->args[0]);
  });
}

}  // namespace

namespace util {

Strategy map_fission_rule(bool applied_only) {
  return rule("mapFission", [applied_only](const Expr& e, const Context&) -> Result {
    const char* form = "expected map(fun(x => f(g(x)))) (applied to data or not)";
    auto c = as_prim_call(e);
    if (!c || !c->is(PrimId::Map) || c->args.empty() || (applied_only && c->args.size() != 2))
      return fail_at("mapFission", e, form);
    const Expr& lam = c->args[0];
    if (lam->kind != ExprKind::Lambda) return fail_at("mapFission", e, form);
    const Expr& body = lam->fn;
    const std::string& x = lam->name;
    if (body->kind != ExprKind::App)
      return fail_at("mapFission", e, "the map's body is not an application f(g(x))");
    const Expr& f = body->fn;
    const Expr& gx = body->arg;
    if (occurs_free(x, f))
      return fail_at("mapFission", e,
                     "the last function applied in the map's body depends on the map's parameter");
    if (!occurs_free(x, gx) || (gx->kind == ExprKind::Ident && gx->name == x))
      return fail_at("mapFission", e,
                     "the argument of the last function is not a computation on the map's "
                     "parameter: nothing to split off");
    if (!gx->type || !rise::is_data(gx->type))
      return fail_at("mapFission", e, "the intermediate value g(x) is not data");
    Expr first = rise::lambda(x, gx, lam->annot);
    if (c->args.size() == 2) return mk_map(f, call(PrimId::Map, {first, c->args[1]}));
    return fun("z", [&](const Expr& z) { return mk_map(f, call(PrimId::Map, {first, z})); });
  });
}

}  // namespace util

namespace {

// A loop: a map or reduction (high- or low-level) applied to all its arguments.
bool is_loop(const Expr& t) {
  auto c = util::as_prim_call(t);
  if (!c) return false;
  const rise::PrimitiveInfo* p = c->head->prim;
  if (p && p->family == rise::Family::Map) return c->args.size() == 2;
  return util::is_reduce_like(p) && c->args.size() == 3;
}

// The first loop (pre-order) in `e`, other than `e` itself when `skip_root`, that uses
// `x` and no variable bound inside the body (`bound`): a value of the element alone.
Expr first_element_loop(const Expr& e, const std::string& x, std::vector<std::string>& bound,
                        bool skip_root) {
  if (!skip_root && is_loop(e) && e->type && rise::is_data(e->type) && util::occurs_free(x, e)) {
    bool closed = true;
    for (const std::string& b : bound) closed = closed && !util::occurs_free(b, e);
    if (closed) return e;
  }
  bool binds = e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda;
  if (binds) bound.push_back(e->name);
  Expr found;
  for (const Expr& k : children(e)) {
    found = first_element_loop(k, x, bound, false);
    if (found) break;
  }
  if (binds) bound.pop_back();
  return found;
}

// e with the node `target` (by identity) replaced by `by`.
Expr replace_subexpr(const Expr& e, const Expr& target, const Expr& by) {
  struct Replacer : rise::ExprMutator {
    const Expr& target;
    const Expr& by;
    Replacer(const Expr& t, const Expr& b) : target(t), by(b) {}
    Expr mutate(const Expr& x) override { return x == target ? by : ExprMutator::mutate(x); }
  };
  return Replacer(target, by).mutate(e);
}

// map(fun(x => F[g(x), x]))(xs) -> map(fun(p => F[p._1, p._2]))(zip(map(fun(x => g(x)))(xs))(xs))
// with g(x) the first loop in the body that depends on x alone: the loop becomes a
// map of its own over the input, beside which the rest of the body still sees x.
// When F uses x nowhere else the zip is left out (plain fission).
Strategy map_fission_zip() {
  return rule("mapFissionZip", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected map(fun(x => F[g(x), x])) with g(x) a loop (applied or not)";
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::Map) || c->args.empty() || c->args.size() > 2)
      return fail_at("mapFissionZip", e, form);
    const Expr& lam = c->args[0];
    if (lam->kind != ExprKind::Lambda) return fail_at("mapFissionZip", e, form);
    const std::string& x = lam->name;
    std::vector<std::string> bound;
    Expr g = first_element_loop(lam->fn, x, bound, true);
    if (!g)
      return fail_at("mapFissionZip", e,
                     "the map's body contains no map or reduction of the parameter (other than "
                     "the whole body) that could run as a map of its own");
    std::string h = rise::fresh_name("g");
    Expr rest = replace_subexpr(lam->fn, g, rise::ident(h));
    Expr first = rise::lambda(x, g, lam->annot);
    bool keeps_x = util::occurs_free(x, rest);
    auto build = [&](const Expr& xs) {
      Expr gs = call(PrimId::Map, {first, xs});
      if (!keeps_x) return mk_map(rise::lambda(h, rest), gs);
      Expr second = fun("p", [&](const Expr& p) {
        Expr b = util::substitute(rest, h, call(PrimId::Fst, {p}));
        return util::substitute(b, x, call(PrimId::Snd, {p}));
      });
      return mk_map(second, call(PrimId::Zip, {gs, xs}));
    };
    if (c->args.size() == 2) return build(c->args[1]);
    return fun("z", build);
  });
}

// map(f) -> fun(x => join(map(map(f))(split(n)(x)))); map(f)(x) likewise.
Strategy split_join(int64_t n) {
  std::string name = "splitJoin(" + std::to_string(n) + ")";
  return rule(name, [n, name](const Expr& e, const Context& ctx) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::Map) || c->args.empty() || c->args.size() > 2)
      return fail_at(name, e, "expected a map applied to its function, map(f)");
    if (n <= 0) return fail_at(name, e, "the split size must be positive");
    // Blocks of 1 only add a unit dimension, and would apply again to the map they
    // create, without end under tryAll.
    if (n == 1) return fail_at(name, e, "blocks of 1 element change nothing but the shape");
    std::optional<Nat> len = c->args.size() == 2 ? util::array_size(c->args[1]->type)
                                                 : util::array_size(util::fun_param(e->type));
    if (!len) return fail_at(name, e, "the length of the mapped array is unknown");
    if (auto why = util::divisibility_refusal(Nat(n), *len, ctx)) return fail_at(name, e, *why);
    const Expr& f = c->args[0];
    auto build = [&](const Expr& x) {
      return call(PrimId::Join, {mk_map(mk_map_fn(f), call(PrimId::Split, {Nat(n)}, {x}))});
    };
    if (c->args.size() == 2) return build(c->args[1]);
    return fun("x", build);
  });
}

// ---------------------------------------------------------------- identities

bool data_typed(const Expr& e) {
  return e->type && rise::is_data(e->type);
}

Strategy id_after() {
  return rule("idAfter", [](const Expr& e, const Context&) -> Result {
    if (!data_typed(e)) return fail_at("idAfter", e, "idAfter applies to data, not to a function");
    return call(PrimId::Id, {e});
  });
}

Strategy lift_id() {
  return rule("liftId", [](const Expr& e, const Context&) -> Result {
    auto c = util::match_prim(e, PrimId::Id, 1);
    if (!c) return fail_at("liftId", e, "expected id(x)");
    if (!util::array_size(c->args[0]->type))
      return fail_at("liftId", e, "liftId needs id applied to an array");
    return mk_map(fun("y", [](const Expr& y) { return call(PrimId::Id, {y}); }), c->args[0]);
  });
}

Strategy id_to_copy() {
  return rule("idToCopy", [](const Expr& e, const Context&) -> Result {
    auto c = util::match_prim(e, PrimId::Id, 1);
    if (!c) return fail_at("idToCopy", e, "expected id(x)");
    if (!util::array_size(c->args[0]->type))
      return fail_at("idToCopy", e, "idToCopy needs id applied to an array");
    return mk_map(fun("y", [](const Expr& y) { return y; }), c->args[0]);
  });
}

Strategy create_transpose_pair() {
  return rule("createTransposePair", [](const Expr& e, const Context&) -> Result {
    auto c = util::match_prim(e, PrimId::Id, 1);
    if (!c) return fail_at("createTransposePair", e, "expected id(x)");
    if (util::array_rank(c->args[0]->type) < 2)
      return fail_at("createTransposePair", e, "needs id(x) with x a 2-D array");
    return call(PrimId::Transpose, {call(PrimId::Transpose, {c->args[0]})});
  });
}

Strategy transpose_pair_after() {
  return rule("transposePairAfter", [](const Expr& e, const Context&) -> Result {
    if (util::array_rank(e->type) < 2)
      return fail_at("transposePairAfter", e, "needs a 2-D array (at least two dimensions)");
    return call(PrimId::Transpose, {call(PrimId::Transpose, {e})});
  });
}

Strategy remove_transpose_pair() {
  return rule("removeTransposePair", [](const Expr& e, const Context&) -> Result {
    auto outer = util::match_prim(e, PrimId::Transpose, 1);
    auto inner = outer ? util::match_prim(outer->args[0], PrimId::Transpose, 1) : std::nullopt;
    if (!inner) return fail_at("removeTransposePair", e, "expected transpose(transpose(x))");
    return inner->args[0];
  });
}

// split(n)(join(x)) -> x when the rows of x have n elements; join(split(n)(x)) -> x.
// (blockedReduce(n) of a reduction over join(x) leaves the first form: the rows of x
// summed one by one.)
Strategy remove_split_join() {
  return rule("removeSplitJoin", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected split(n)(join(x)) or join(split(n)(x))";
    if (auto s = util::match_prim(e, PrimId::Split, 1)) {
      auto j = util::match_prim(s->args[0], PrimId::Join, 1);
      auto n = s->dep_nat(0);
      if (!j || !n) return fail_at("removeSplitJoin", e, form);
      auto row = util::array_size(util::array_elem(j->args[0]->type));
      if (!row) return fail_at("removeSplitJoin", e, "the joined rows' length is unknown");
      if (!(*row == *n))
        return fail_at("removeSplitJoin", e,
                       "split(" + n->to_string() + ") of rows of " + row->to_string() +
                           " elements: the split does not undo the join");
      return j->args[0];
    }
    auto j = util::match_prim(e, PrimId::Join, 1);
    auto s = j ? util::match_prim(j->args[0], PrimId::Split, 1) : std::nullopt;
    if (!s) return fail_at("removeSplitJoin", e, form);
    return s->args[0];
  });
}

// ---------------------------------------------------------------- zips and pairs

Strategy map_outside_zip() {
  return rule("mapOutsideZip", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected zip(map(f)(a))(map(g)(b))";
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("mapOutsideZip", e, form);
    auto ma = util::match_map(z->args[0]);
    auto mb = util::match_map(z->args[1]);
    if (!ma || !mb) return fail_at("mapOutsideZip", e, form);
    Expr f = fun("p", [&](const Expr& p) {
      return call(PrimId::MakePair, {util::apply_fn(ma->first, call(PrimId::Fst, {p})),
                                     util::apply_fn(mb->first, call(PrimId::Snd, {p}))});
    });
    return call(PrimId::Map, {f, call(PrimId::Zip, {ma->second, mb->second})});
  });
}

Strategy zip_same() {
  return rule("zipSame", [](const Expr& e, const Context&) -> Result {
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("zipSame", e, "expected zip(a)(a)");
    if (!rise::alpha_equal(z->args[0], z->args[1]))
      return fail_at("zipSame", e, "the two zipped arrays are not the same expression");
    return call(PrimId::Map, {fun("x",
                                  [](const Expr& x) {
                                    return call(PrimId::MakePair, {x, x});
                                  }),
                              z->args[0]});
  });
}

// zip(x)(zip(a)(b)) with x the same expression as a (or b) -> map(fun(p => (p._1, p)))(
// zip(a)(b)) (or p._2), and zip(zip(a)(b))(x) the same way: the array zipped twice is
// read once (e.g. Harris' ix next to the pairs (ix, iy), so that one ring holds both).
Strategy zip_shared() {
  return rule("zipShared", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected zip(a)(zip(a)(b)) or zip(zip(a)(b))(b) (a or b on either side)";
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("zipShared", e, form);
    for (int side = 1; side >= 0; --side) {
      auto inner = util::match_prim(z->args[side], PrimId::Zip, 2);
      if (!inner) continue;
      const Expr& other = z->args[1 - side];
      for (int k = 0; k < 2; ++k) {
        if (!rise::alpha_equal(other, inner->args[k])) continue;
        const PrimId proj = k == 0 ? PrimId::Fst : PrimId::Snd;
        Expr f = fun("p", [&](const Expr& p) {
          Expr single = call(proj, {p});
          return side == 1 ? call(PrimId::MakePair, {single, p})
                           : call(PrimId::MakePair, {p, single});
        });
        return call(PrimId::Map, {f, z->args[side]});
      }
    }
    return fail_at("zipShared", e, form);
  });
}

// zip(slide(n)(s)(a))(slide(n)(s)(b)) -> map(fun(w => (map(fst)(w), map(snd)(w))))(
//   slide(n)(s)(zip(a)(b))): the windows of a and b slid together, as windows of the
// pairs, so that one rolling buffer (circularBuffer) can hold both.
Strategy slide_outside_zip() {
  return rule("slideOutsideZip", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected zip(slide(n)(s)(a))(slide(n)(s)(b))";
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("slideOutsideZip", e, form);
    auto sa = util::match_prim(z->args[0], PrimId::Slide, 1);
    auto sb = util::match_prim(z->args[1], PrimId::Slide, 1);
    if (!sa || !sb) return fail_at("slideOutsideZip", e, form);
    Nat n = *sa->dep_nat(0), s = *sa->dep_nat(1);
    if (!arith::provably_eq(n, *sb->dep_nat(0)) || !arith::provably_eq(s, *sb->dep_nat(1)))
      return fail_at("slideOutsideZip", e,
                     "the two slides have different windows: slide(" + n.to_string() + ")(" +
                         s.to_string() + ") and slide(" + sb->dep_nat(0)->to_string() + ")(" +
                         sb->dep_nat(1)->to_string() + ")");
    auto proj = [](PrimId which) {
      return fun("q", [which](const Expr& q) { return call(which, {q}); });
    };
    Expr unzip = fun("w", [&](const Expr& w) {
      return call(PrimId::MakePair, {call(PrimId::Map, {proj(PrimId::Fst), w}),
                                     call(PrimId::Map, {proj(PrimId::Snd), w})});
    });
    return call(PrimId::Map, {unzip, call(PrimId::Slide, {n, s},
                                          {call(PrimId::Zip, {sa->args[0], sb->args[0]})})});
  });
}

// zip(a)(b) of two arrays of rows -> map(fun(q => (map(fst)(q), map(snd)(q))))(
//   map(fun(r => zip(r._1)(r._2)))(zip(a)(b))): pairs of rows become rows of pairs
// (which memory can hold: a circularBuffer of rows of pairs of scalars), read back
// through views.
Strategy zip_rows() {
  return rule("zipRows", [](const Expr& e, const Context&) -> Result {
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("zipRows", e, "expected zip(a)(b)");
    auto row = [](const Expr& x) {
      const Type& t = x->type;
      return t && t->kind == rise::TypeKind::Array && t->a && t->a->kind == rise::TypeKind::Array;
    };
    if (!row(z->args[0]) || !row(z->args[1]))
      return fail_at("zipRows", e, "the zipped arrays are not both arrays of rows");
    auto proj = [](PrimId which) {
      return fun("y", [which](const Expr& y) { return call(which, {y}); });
    };
    Expr unzip = fun("q", [&](const Expr& q) {
      return call(PrimId::MakePair, {call(PrimId::Map, {proj(PrimId::Fst), q}),
                                     call(PrimId::Map, {proj(PrimId::Snd), q})});
    });
    Expr zipRow = fun("r", [](const Expr& r) {
      return call(PrimId::Zip, {call(PrimId::Fst, {r}), call(PrimId::Snd, {r})});
    });
    return call(PrimId::Map, {unzip, call(PrimId::Map, {zipRow, e})});
  });
}

// Replace every projection proj(x) of the variable x (where x is not shadowed) by
// the variable y; nullopt when x also occurs otherwise.
std::optional<Expr> replace_projection(const Expr& e, const std::string& x, PrimId proj,
                                       const Expr& y) {
  struct Replacer : rise::ExprMutator {
    const std::string& x;
    PrimId proj;
    const Expr& y;
    Replacer(const std::string& x_, PrimId p, const Expr& y_) : x(x_), proj(p), y(y_) {}
    Expr mutate(const Expr& t) override {
      if (auto c = util::match_prim(t, proj, 1);
          c && c->args[0]->kind == ExprKind::Ident && c->args[0]->name == x)
        return y;
      return ExprMutator::mutate(t);
    }
    Expr visit_lambda(const Expr& t) override { return t->name == x ? t : mutate_children(t); }
  };
  Expr out = Replacer(x, proj, y).mutate(e);
  if (util::occurs_free(x, out)) return std::nullopt;
  return out;
}

// proj(makePair(a)(b)) -> a (or b); proj(reduce(fun(acc, y => (E1, E2)))(init)(xs))
// -> reduce(fun(a, b => E1'))(proj(init))(map(proj)(xs)) when E1 (or E2) uses only
// proj(acc) and proj(y): the component of a reduction over pairs is the reduction
// of the components. With reduceSeq, y may also be used whole (xs is kept).
Strategy projection_reduction(const std::string& name, PrimId proj, size_t which) {
  return rule(name, [=](const Expr& e, const Context&) -> Result {
    const std::string& pn = rise::prim_name(proj);
    std::string form = "expected " + pn + "(makePair(a)(b)) or " + pn +
                       "(reduce(fun(acc, y => (e1, e2)))(init)(xs))";
    auto p = util::match_prim(e, proj, 1);
    if (!p) return fail_at(name, e, form);
    if (auto pair = util::match_prim(p->args[0], PrimId::MakePair, 2)) return pair->args[which];
    auto r = util::as_prim_call(p->args[0]);
    if (!r || (!r->is(PrimId::Reduce) && !r->is(PrimId::ReduceSeq)) || r->args.size() != 3)
      return fail_at(name, e, form);
    const Expr& op = r->args[0];
    if (op->kind != ExprKind::Lambda || op->fn->kind != ExprKind::Lambda)
      return fail_at(name, e, form + ": the operator is not written fun(acc, y => ...)");
    const std::string& acc = op->name;
    const std::string& y = op->fn->name;
    auto pair = util::match_prim(op->fn->fn, PrimId::MakePair, 2);
    if (!pair) return fail_at(name, e, "the reduction's operator does not build a pair");
    std::string a1 = rise::fresh_name("a"), y1 = rise::fresh_name("y");
    auto comp = replace_projection(pair->args[which], acc, proj, rise::ident(a1));
    if (!comp)
      return fail_at(name, e,
                     "the " + pn +
                         " component of the operator depends on the other component "
                         "of the accumulator");
    auto only = replace_projection(*comp, y, proj, rise::ident(y1));
    if (only) {
      Expr f = rise::lambda(a1, rise::lambda(y1, *only));
      Expr elems =
          util::mk_map(fun("p", [&](const Expr& q) { return call(proj, {q}); }), r->args[2]);
      return call(r->id(), {f, call(proj, {r->args[1]}), elems});
    }
    if (!r->is(PrimId::ReduceSeq))
      return fail_at(name, e,
                     "the " + pn +
                         " component of the operator uses the whole element (only "
                         "possible with reduceSeq)");
    Expr f = rise::lambda(a1, rise::lambda(y, *comp));
    return call(PrimId::ReduceSeq, {f, call(proj, {r->args[1]}), r->args[2]});
  });
}

// makePair(R1(f)(a)(xs))(R2(g)(b)(ys)), R1 and R2 reductions (reduce, reduceSeq or
// reduceSeqUnroll) over arrays of the same length -> one sequential reduction over
// zip(xs)(ys) (or over xs alone when ys is the same expression) that carries the pair
// of accumulators: reduceSeq(fun(acc, p => (f(acc._1)(p._1), g(acc._2)(p._2))))(
// (a, b))(zip(xs)(ys)). The reverse of fstReduction/sndReduction: both reductions
// advance in the same loop step, so the code computes them side by side (Harris'
// three box sums per tap instead of three sums one after the other). reduceSeqUnroll
// when both were unrolled, else reduceSeq (the combined operator is not associative).
Strategy fuse_reductions() {
  return rule("fuseReductions", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected makePair(reduce(f)(a)(xs))(reduce(g)(b)(ys))";
    auto pair = util::match_prim(e, PrimId::MakePair, 2);
    if (!pair) return fail_at("fuseReductions", e, form);
    std::optional<util::PrimCall> r[2];
    for (int k = 0; k < 2; ++k) {
      r[k] = util::as_prim_call(pair->args[k]);
      if (!r[k] || r[k]->args.size() != 3 ||
          (!r[k]->is(PrimId::Reduce) && !r[k]->is(PrimId::ReduceSeq) &&
           !r[k]->is(PrimId::ReduceSeqUnroll)))
        return fail_at("fuseReductions", e,
                       std::string(form) + ": the " + (k == 0 ? "first" : "second") +
                           " component is not a fully applied reduction");
    }
    const Expr& xs = r[0]->args[2];
    const Expr& ys = r[1]->args[2];
    const Type& tx = xs->type;
    const Type& ty = ys->type;
    if (!tx || !ty || tx->kind != rise::TypeKind::Array || ty->kind != rise::TypeKind::Array)
      return fail_at("fuseReductions", e, "the reduced arrays are not typed arrays");
    if (!arith::provably_eq(tx->size, ty->size))
      return fail_at("fuseReductions", e,
                     "the reductions run over arrays of different lengths (" +
                         tx->size.to_string() + " and " + ty->size.to_string() + ")");
    bool same = rise::alpha_equal(xs, ys);
    Expr op = util::fun2("acc", "p", [&](const Expr& acc, const Expr& p) {
      Expr x = same ? p : call(PrimId::Fst, {p});
      Expr y = same ? p : call(PrimId::Snd, {p});
      return call(PrimId::MakePair,
                  {util::apply_fn(util::apply_fn(r[0]->args[0], call(PrimId::Fst, {acc})), x),
                   util::apply_fn(util::apply_fn(r[1]->args[0], call(PrimId::Snd, {acc})), y)});
    });
    bool unrolled = r[0]->is(PrimId::ReduceSeqUnroll) && r[1]->is(PrimId::ReduceSeqUnroll);
    return call(unrolled ? PrimId::ReduceSeqUnroll : PrimId::ReduceSeq,
                {op, call(PrimId::MakePair, {r[0]->args[1], r[1]->args[1]}),
                 same ? xs : call(PrimId::Zip, {xs, ys})});
  });
}

// ---------------------------------------------------------------- overlapped tiling

// slide(n)(m) -> slide(u)(u+m-n) >> map(slide(n)(m)) >> join
Strategy slide_overlap(int64_t u64) {
  std::string name = "slideOverlap(" + std::to_string(u64) + ")";
  return rule(name, [u64, name](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::Slide) || c->deps.size() != 2 || c->args.size() > 1)
      return fail_at(name, e, "expected slide(n)(m) (applied to data or not)");
    Nat n = *c->dep_nat(0), m = *c->dep_nat(1), u(u64);
    if (!arith::provably_le(n, u))
      return fail_at(name, e,
                     "the outer window " + u.to_string() + " must be at least the window size " +
                         n.to_string());
    if (!arith::provably_divides(m, u - n))
      return fail_at(name, e,
                     "the outer window minus the window size (" + (u - n).to_string() +
                         ") is not divisible by the step " + m.to_string());
    Nat v = u + m - n;
    std::optional<Nat> len = c->args.size() == 1 ? util::array_size(c->args[0]->type)
                                                 : util::array_size(util::fun_param(e->type));
    if (!len) return fail_at(name, e, "the length of the input array is unknown");
    if (!arith::provably_le(u, *len) || !arith::provably_divides(v, *len - u))
      return fail_at(name, e,
                     "the input length " + len->to_string() + " is not covered by outer windows " +
                         u.to_string() + " with step " + v.to_string() + " (needs " +
                         v.to_string() + " | length - " + u.to_string() + ")");
    auto build = [&](const Expr& x) {
      Expr inner = fun("w", [&](const Expr& w) { return call(PrimId::Slide, {n, m}, {w}); });
      return call(PrimId::Join, {call(PrimId::Map, {inner, call(PrimId::Slide, {u, v}, {x})})});
    };
    if (c->args.size() == 1) return build(c->args[0]);
    return fun("x", build);
  });
}

// ---------------------------------------------------------------- separable dots

// reduce(add)(0)(map(fun(p => p._1 * p._2))(zip(join(A))(join(B)))) where one of
// A, B is a closed constant 2-D array W: W and the other one (the neighbourhood).
struct WeightedDot {
  Expr init;
  Expr nbh;
  Expr weights;
};

bool is_pair_product(const Expr& f) {
  if (f->kind != ExprKind::Lambda) return false;
  const std::string& p = f->name;
  auto m = util::match_prim(f->fn, PrimId::Mul, 2);
  if (!m) return false;
  auto proj = [&](const Expr& x, PrimId which) {
    auto c = util::match_prim(x, which, 1);
    return c && c->args[0]->kind == ExprKind::Ident && c->args[0]->name == p;
  };
  return (proj(m->args[0], PrimId::Fst) && proj(m->args[1], PrimId::Snd)) ||
         (proj(m->args[0], PrimId::Snd) && proj(m->args[1], PrimId::Fst));
}

std::optional<WeightedDot> match_weighted_dot(const Expr& e, std::string& why) {
  why = "expected reduce(add)(0)(map(fun(p => p._1 * p._2))(zip(join(nbh))(join(W))))";
  auto r = util::match_prim(e, PrimId::Reduce, 3);
  if (!r) return std::nullopt;
  auto op = util::match_binary_op(r->args[0]);
  auto init = util::literal_value(r->args[1]);
  if (!op || !op->is(PrimId::Add) || !init || *init != 0.0) return std::nullopt;
  auto m = util::match_map(r->args[2]);
  if (!m || !is_pair_product(m->first)) return std::nullopt;
  auto z = util::match_prim(m->second, PrimId::Zip, 2);
  if (!z) return std::nullopt;
  auto ja = util::match_prim(z->args[0], PrimId::Join, 1);
  auto jb = util::match_prim(z->args[1], PrimId::Join, 1);
  if (!ja || !jb) return std::nullopt;
  const Expr& a = ja->args[0];
  const Expr& b = jb->args[0];
  if (rise::free_vars(b).empty()) return WeightedDot{r->args[1], a, b};
  if (rise::free_vars(a).empty()) return WeightedDot{r->args[1], b, a};
  why = "neither side of the zip is a constant weight array (a closed expression)";
  return std::nullopt;
}

Expr dot(const Expr& a, const Expr& b, const Expr& init) {
  Expr add = util::fun2("acc", "y", [](const Expr& acc, const Expr& y) {
    return call(PrimId::Add, {acc, y});
  });
  Expr mul = fun("p", [](const Expr& p) {
    return call(PrimId::Mul, {call(PrimId::Fst, {p}), call(PrimId::Snd, {p})});
  });
  return call(PrimId::Reduce, {add, init, mk_map(mul, call(PrimId::Zip, {a, b}))});
}

Expr literal_array(const std::vector<double>& v, rise::ScalarKind k) {
  std::vector<Expr> elems;
  for (double x : v)
    elems.push_back(k == rise::ScalarKind::F32 ? rise::f32_lit(x) : rise::f64_lit(x));
  return rise::apps(rise::make_array_prim(static_cast<int>(v.size())), elems);
}

Strategy separate_dot(bool hv) {
  std::string name = hv ? "separateDotHV" : "separateDotVH";
  return rule(name, [hv, name](const Expr& e, const Context&) -> Result {
    std::string why;
    auto d = match_weighted_dot(e, why);
    if (!d) return fail_at(name, e, why);
    const Type& wt = d->weights->type;
    auto rows = util::array_size(wt);
    auto cols = util::array_size(util::array_elem(wt));
    Type elem = util::array_elem(util::array_elem(wt));
    if (!rows || !cols || !rows->as_const() || !cols->as_const() || !elem ||
        elem->kind != rise::TypeKind::Scalar || !rise::is_float(elem->scalar))
      return fail_at(name, e, "the weights are not a 2-D array of floats with known sizes");
    const Type& nt = d->nbh->type;
    auto nr = util::array_size(nt);
    auto nc = util::array_size(util::array_elem(nt));
    if (!nr || !nc || *nr != *rows || *nc != *cols)
      return fail_at(name, e, "the neighbourhood and the weights have different shapes");
    int64_t R = *rows->as_const(), C = *cols->as_const();
    std::vector<std::vector<double>> w(static_cast<size_t>(R),
                                       std::vector<double>(static_cast<size_t>(C)));
    try {
      rise::Interpreter interp;
      rise::Value v = interp.eval(d->weights);
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j)
          w[static_cast<size_t>(i)][static_cast<size_t>(j)] = v.at(i).at(j).to_double();
    } catch (const Error& err) {
      return fail_at(name, e, "the weights cannot be evaluated: " + err.message());
    }
    // Rank-1 factorisation w[i][j] = vert[i] * horiz[j] around the largest weight.
    size_t pr = 0, pc = 0;
    double big = 0;
    for (size_t i = 0; i < w.size(); ++i)
      for (size_t j = 0; j < w[i].size(); ++j)
        if (std::fabs(w[i][j]) > big) {
          big = std::fabs(w[i][j]);
          pr = i;
          pc = j;
        }
    if (big == 0 || !std::isfinite(big))
      return fail_at(name, e, "the weights are not separable (all zero or not finite)");
    std::vector<double> horiz = w[pr], vert;
    for (size_t i = 0; i < w.size(); ++i) vert.push_back(w[i][pc] / w[pr][pc]);
    for (size_t i = 0; i < w.size(); ++i)
      for (size_t j = 0; j < w[i].size(); ++j)
        if (std::fabs(w[i][j] - vert[i] * horiz[j]) > 1e-6 * big)
          return fail_at(name, e,
                         "the weights are not separable: they are not an outer product v x h");
    Expr h = literal_array(horiz, elem->scalar);
    Expr vv = literal_array(vert, elem->scalar);
    const Expr& init = d->init;
    if (hv) {
      Expr rowsDot = fun("row", [&](const Expr& row) { return dot(row, h, init); });
      return dot(mk_map(rowsDot, d->nbh), vv, init);
    }
    Expr colsDot = fun("col", [&](const Expr& col) { return dot(col, vv, init); });
    return dot(mk_map(colsDot, call(PrimId::Transpose, {d->nbh})), h, init);
  });
}

// ---------------------------------------------------------------- padding through a map

// The scalar leaves of v (arrays, pairs and vectors walked), in order.
void scalar_leaves(const rise::Value& v, std::vector<rise::Value>& out) {
  switch (v.kind()) {
    case rise::ValueKind::Array:
      for (int64_t i = 0; i < v.size(); ++i) scalar_leaves(v.at(i), out);
      return;
    case rise::ValueKind::Pair:
      scalar_leaves(v.first(), out);
      scalar_leaves(v.second(), out);
      return;
    case rise::ValueKind::Vector:
      for (int64_t i = 0; i < v.lane_count(); ++i) scalar_leaves(v.lane(i), out);
      return;
    default:
      out.push_back(v);
  }
}

// A value of type t whose every scalar is the literal `s` (t's scalars of s's kind):
// the literal, or generate(fun(i => ...)) for arrays; nullopt for other types.
std::optional<Expr> filled(const Type& t, const rise::Value& s) {
  if (t->kind == rise::TypeKind::Scalar) {
    if (t->scalar != s.scalar_kind()) return std::nullopt;
    return util::value_literal(s, t);
  }
  if (t->kind == rise::TypeKind::Array) {
    auto inner = filled(t->a, s);
    if (!inner) return std::nullopt;
    return call(PrimId::Generate, {fun("i", [&](const Expr&) { return *inner; })});
  }
  return std::nullopt;
}

// padCst(l)(r)(c)(map(f)(x)) -> map(f)(padCst(l)(r)(c')(x)) when c is uniform (one
// scalar s everywhere), c' is x's element filled with s, and f(c') evaluates to
// exactly c: the padding of f's results is f's result on padding, so it can be
// computed by f (a zero row of a blur is the blur of a zero row).
Strategy pad_cst_before_map() {
  const std::string name = "padCstBeforeMap";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto p = util::match_prim(e, PrimId::PadCst, 2);
    auto m = p ? util::match_map(p->args[1]) : std::nullopt;
    if (!m) return fail_at(name, e, "expected padCst(l)(r)(c)(map(f)(x))");
    const Expr& c = p->args[0];
    const Expr& f = m->first;
    if (!rise::free_vars(c).empty() || !rise::free_vars(f).empty())
      return fail_at(name, e,
                     "the padding value and the mapped function must not use variables bound "
                     "outside them (they are evaluated to compare them)");
    Type elem = util::array_elem(m->second->type);
    if (!elem || !c->type) return fail_at(name, e, "the types of the padding are unknown");
    try {
      rise::Interpreter interp;
      rise::Value vc = interp.eval(c);
      std::vector<rise::Value> leaves;
      scalar_leaves(vc, leaves);
      if (leaves.empty() || !std::all_of(leaves.begin(), leaves.end(), [&](const rise::Value& v) {
            return rise::values_identical(v, leaves[0]);
          }))
        return fail_at(name, e, "the padding " + vc.to_string() + " is not one scalar repeated");
      auto fill = filled(elem, leaves[0]);
      if (!fill)
        return fail_at(name, e,
                       "the mapped function's input (" + rise::print(elem) +
                           ") is not an array or scalar of the padding's scalar type");
      rise::Checked typed = rise::infer_in_context(util::apply_fn(f, *fill), {}, c->type);
      rise::Value vf = interp.eval(typed.expr);
      if (!rise::values_identical(vf, vc))
        return fail_at(name, e,
                       "the mapped function does not map the padding of its input to the padding "
                       "(f of " +
                           leaves[0].to_string() + "s is " + vf.to_string() + ")");
      return mk_map(f, call(PrimId::PadCst, p->deps, {*fill, m->second}));
    } catch (const Error& err) {
      return fail_at(
          name, e,
          "the padding cannot be evaluated (sizes must be known, --size): " + err.message());
    }
  });
}

}  // namespace

void register_algorithmic(Registry& r) {
  r.rule({"mapFusion",
          RuleFamily::Algorithmic,
          "map(f)(map(g)(x)) -> map(fun(y => f(g(y))))(x)",
          {},
          fixed(map_fusion())});
  r.rule({"expandReduce",
          RuleFamily::Algorithmic,
          "reduce(op)(init)(xs) with xs of constant length k <= 64 -> "
          "op(..op(op(init)(xs[0]))(xs[1])..)(xs[k-1]), the elements read through zip, join, "
          "makeArray and map (a plain term: a map of it is inlined where it is read)",
          {},
          fixed(expand_reduce())});
  r.rule({"inlineLet",
          RuleFamily::Algorithmic,
          "let(v)(fun(x => b)) -> b with v for x (v recomputed at every use: recompute "
          "fusion of a stage into its consumers)",
          {},
          fixed(inline_let())});
  r.rule({"mapFission",
          RuleFamily::Algorithmic,
          "map(fun(x => f(g(x)))) -> map(f) after map(fun(x => g(x))) when f does not use x "
          "(applied to data or not)",
          {},
          fixed(util::map_fission_rule(false))});
  r.rule({"mapFissionZip",
          RuleFamily::Algorithmic,
          "map(fun(x => F[g(x), x]))(xs) -> map(fun(p => F[p._1, p._2]))(zip(map(fun(x => "
          "g(x)))(xs))(xs)) with g(x) the first loop (map or reduction) in the body that "
          "depends on x alone; without the zip when F does not use x",
          {},
          fixed(map_fission_zip())});
  r.rule({"splitJoin",
          RuleFamily::Algorithmic,
          "map(f) -> split(n) >> map(map(f)) >> join; fails when n cannot divide the array "
          "length (a symbolic length gets the precondition n | length)",
          {ParamKind::Nat},
          [](const std::vector<Arg>& a) { return split_join(arg_nat(a, 0)); }});
  r.rule({"idAfter", RuleFamily::Algorithmic, "x -> id(x) for data x", {}, fixed(id_after())});
  r.rule({"liftId",
          RuleFamily::Algorithmic,
          "id(x) -> map(fun(y => id(y)))(x) for an array x",
          {},
          fixed(lift_id())});
  r.rule({"idToCopy",
          RuleFamily::Algorithmic,
          "id(x) -> map(fun(y => y))(x) for an array x (an explicit copy)",
          {},
          fixed(id_to_copy())});
  r.rule({"createTransposePair",
          RuleFamily::Algorithmic,
          "id(x) -> transpose(transpose(x)) for a 2-D array x",
          {},
          fixed(create_transpose_pair())});
  r.rule({"transposePairAfter",
          RuleFamily::Algorithmic,
          "x -> transpose(transpose(x)) for a 2-D array x",
          {},
          fixed(transpose_pair_after())});
  r.rule({"removeTransposePair",
          RuleFamily::Algorithmic,
          "transpose(transpose(x)) -> x",
          {},
          fixed(remove_transpose_pair())});
  r.rule({"removeSplitJoin",
          RuleFamily::Algorithmic,
          "split(n)(join(x)) -> x when the rows of x have n elements; join(split(n)(x)) -> x",
          {},
          fixed(remove_split_join())});
  r.rule({"mapOutsideZip",
          RuleFamily::Algorithmic,
          "zip(map(f)(a))(map(g)(b)) -> map(fun(p => (f(p._1), g(p._2))))(zip(a)(b))",
          {},
          fixed(map_outside_zip())});
  r.rule({"zipSame",
          RuleFamily::Algorithmic,
          "zip(a)(a) -> map(fun(x => (x, x)))(a)",
          {},
          fixed(zip_same())});
  r.rule({"zipShared",
          RuleFamily::Algorithmic,
          "zip(a)(zip(a)(b)) -> map(fun(p => (p._1, p)))(zip(a)(b)), zip(zip(a)(b))(b) -> "
          "map(fun(p => (p, p._2)))(zip(a)(b)) (likewise with b beside zip(a)(b) or a "
          "after it): the array zipped twice read once",
          {},
          fixed(zip_shared())});
  r.rule({"slideOutsideZip",
          RuleFamily::Algorithmic,
          "zip(slide(n)(s)(a))(slide(n)(s)(b)) -> map(fun(w => (map(fst)(w), "
          "map(snd)(w))))(slide(n)(s)(zip(a)(b))) (one slide over the pairs)",
          {},
          fixed(slide_outside_zip())});
  r.rule({"zipRows",
          RuleFamily::Algorithmic,
          "zip(a)(b) of arrays of rows -> map(fun(q => (map(fst)(q), map(snd)(q))))("
          "map(fun(r => zip(r._1)(r._2)))(zip(a)(b))) (rows of pairs, read as pairs of rows)",
          {},
          fixed(zip_rows())});
  r.rule({"fstReduction",
          RuleFamily::Algorithmic,
          "fst(makePair(a)(b)) -> a; fst(reduce(fun(acc, y => (e1, e2)))(i)(xs)) -> "
          "reduce(e1 on first components)(fst(i))(map(fst)(xs)) when e1 uses only acc._1, y._1",
          {},
          fixed(projection_reduction("fstReduction", PrimId::Fst, 0))});
  r.rule({"sndReduction",
          RuleFamily::Algorithmic,
          "snd(makePair(a)(b)) -> b; snd(reduce(fun(acc, y => (e1, e2)))(i)(xs)) -> "
          "reduce(e2 on second components)(snd(i))(map(snd)(xs)) when e2 uses only acc._2, y._2",
          {},
          fixed(projection_reduction("sndReduction", PrimId::Snd, 1))});
  r.rule({"fuseReductions",
          RuleFamily::Algorithmic,
          "(reduce(f)(a)(xs), reduce(g)(b)(ys)) -> reduceSeq(fun(acc, p => (f(acc._1)(p._1), "
          "g(acc._2)(p._2))))((a, b))(zip(xs)(ys)) for xs, ys of the same length (over xs "
          "alone when ys is xs): both reductions in one loop; the reverse of "
          "fstReduction/sndReduction",
          {},
          fixed(fuse_reductions())});
  r.rule({"slideOverlap",
          RuleFamily::Algorithmic,
          "slide(n)(m) -> slide(u)(u+m-n) >> map(slide(n)(m)) >> join (overlapped tiling "
          "with outer windows u; needs n <= u, m | u-n and u+m-n | length-u)",
          {ParamKind::Nat},
          [](const std::vector<Arg>& a) { return slide_overlap(arg_nat(a, 0)); }});
  r.rule({"padCstBeforeMap",
          RuleFamily::Algorithmic,
          "padCst(l)(r)(c)(map(f)(x)) -> map(f)(padCst(l)(r)(c')(x)) with c one scalar s "
          "repeated and c' the input element filled with s, when f(c') evaluates to exactly "
          "c (checked with the interpreter; sizes must be known)",
          {},
          fixed(pad_cst_before_map())});
  r.rule({"separateDotHV",
          RuleFamily::Algorithmic,
          "reduce(add)(0)(map(fun(p => p._1*p._2))(zip(join(nbh))(join(W)))) with W a "
          "constant rank-1 2-D array v x h -> dot of each row with h, then dot with v",
          {},
          fixed(separate_dot(true))});
  r.rule({"separateDotVH",
          RuleFamily::Algorithmic,
          "reduce(add)(0)(map(fun(p => p._1*p._2))(zip(join(nbh))(join(W)))) with W a "
          "constant rank-1 2-D array v x h -> dot of each column with v, then dot with h",
          {},
          fixed(separate_dot(false))});
}

}  // namespace risec::elevate
