// Tiling and loop-order rules (family "tiling": tile, tileND, reorder, the three
// loop interchanges, blockTranspose) and the reduction rules of the algorithmic
// family (fuseReduceMap, reduceMapFission, blockedReduce), as in the ELEVATE paper
// (Hagedorn et al., ICFP 2020) and the RISE & Shine compiler.
//
// tile on a nest of two maps written with lambdas is a composition of small rules
// (tile_composed.cpp); the other nests it tiles, reorder and the interchanges work on
// the loop-nest model of the term at the location (loop_nest.h), because moving a
// reduction across maps or another reduction threads an accumulator through the
// nest, which no composition of the map rules expresses.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "elevate/library.h"
#include "elevate/loop_nest.h"
#include "elevate/rule_util.h"
#include "elevate/tile_composed.h"
#include "rise/printer.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::Nat;
using rise::PrimId;
using util::call;
using util::fun;
using namespace loop_nest;

namespace {

// ---------------------------------------------------------------- messages

std::string show(const Expr& e) {
  std::string s = rise::print_expr(e);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// ---------------------------------------------------------------- fusion, fission, blocking

// reduce/reduceSeq(op)(init)(map(f)(x)) -> reduceSeq(fun(acc, y => op(acc)(f(y))))(init)(x)
std::optional<Expr> fuse_reduce_map(const Expr& e) {
  auto r = match_fold(e);
  if (!r) return std::nullopt;
  auto m = util::match_map(r->data);
  if (!m) return std::nullopt;
  return call(PrimId::ReduceSeq, {util::fold_after_map(r->op, m->first), r->init, m->second});
}

Strategy fuse_reduce_map_rule() {
  return rule("fuseReduceMap", [](const Expr& e, const Context&) -> Result {
    if (auto r = fuse_reduce_map(e)) return *r;
    return fail_at("fuseReduceMap", e,
                   "expected a reduction of a map, reduce(op)(init)(map(f)(x)) (or reduceSeq)");
  });
}

// reduceSeq(fun(acc, y => op(acc)(g)))(init)(x) -> reduce(op)(init)(map(fun(y => g))(x)),
// and the partial application reduceSeq(..)(init) likewise as a function.
Strategy reduce_map_fission_rule() {
  const char* name = "reduceMapFission";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !is_fold(*c) || !c->deps.empty() || (c->args.size() != 2 && c->args.size() != 3))
      return fail_at(name, e,
                     "expected reduceSeq(fun(acc, y => op(acc)(g)))(init), applied to data or not");
    const Expr& f = c->args[0];
    const Expr& init = c->args[1];
    if (f->kind != ExprKind::Lambda || f->fn->kind != ExprKind::Lambda)
      return fail_at(name, e,
                     "the reduction's operator is not a lambda fun(acc, y => ...): "
                     "there is no map to split off");
    const std::string& acc = f->name;
    const std::string& y = f->fn->name;
    const Expr& body = f->fn->fn;
    if (acc == y) return fail_at(name, e, "the operator's parameters have the same name");
    if (body->kind != ExprKind::App || body->fn->kind != ExprKind::App)
      return fail_at(name, e, "the operator's body is not of the form op(acc)(g)");
    Expr op = body->fn->fn;
    Expr a = body->fn->arg;
    Expr g = body->arg;
    bool acc_first = a->kind == ExprKind::Ident && a->name == acc;
    if (!acc_first) {
      // op(g)(acc) for a commutative operator
      bool acc_second = g->kind == ExprKind::Ident && g->name == acc && known_op(op);
      if (!acc_second) return fail_at(name, e, "the operator's body is not of the form op(acc)(g)");
      std::swap(a, g);
    }
    if (util::occurs_free(acc, op) || util::occurs_free(y, op))
      return fail_at(name, e, "the combining function op depends on the operator's parameters");
    if (util::occurs_free(acc, g))
      return fail_at(name, e,
                     "g uses the accumulator: the reduction cannot be split into a map and a "
                     "reduction");
    if (g->kind == ExprKind::Ident && g->name == y)
      return fail_at(name, e, "g is the element itself: there is no map to split off");
    Expr mapf = rise::lambda(y, g, f->fn->annot);
    auto kop = known_op(op);
    bool par = kop && is_neutral(*kop, init);
    auto build = [&](const Expr& x) {
      return call(par ? PrimId::Reduce : PrimId::ReduceSeq,
                  {op, init, call(PrimId::Map, {mapf, x})});
    };
    if (c->args.size() == 3) return build(c->args[2]);
    return fun("x", build);
  });
}

// reduce(op)(init)(x) -> reduce(op)(init)(map(fun(c => reduce(op)(init)(c)))(split(n)(x)))
// reduceSeq(f)(init)(x) -> reduceSeq(fun(acc, c => reduceSeq(f)(acc)(c)))(init)(split(n)(x))
Strategy blocked_reduce_rule(int64_t n) {
  std::string name = "blockedReduce(" + std::to_string(n) + ")";
  return rule(name, [n, name](const Expr& e, const Context& ctx) -> Result {
    auto r = match_fold(e);
    if (!r) return fail_at(name, e, "expected a fully applied reduction reduce(op)(init)(x)");
    if (n <= 0) return fail_at(name, e, "the block size must be positive");
    if (n == 1) return fail_at(name, e, "blocks of 1 element change nothing but the shape");
    auto len = util::array_size(r->data->type);
    if (!len) return fail_at(name, e, "the length of the reduced array is unknown");
    if (auto why = util::divisibility_refusal(Nat(n), *len, ctx))
      return fail_at(name, e, *why + " (the reduced array)");
    Expr split = call(PrimId::Split, {Nat(n)}, {r->data});
    if (r->prim == PrimId::Reduce) {
      auto op = known_op(r->op);
      if (!op)
        return fail_at(name, e,
                       "the operator " + show(r->op) +
                           " is not known to be associative (add, mul, fmin, fmax, or a lambda "
                           "eta-equal to one): blocking a reduce needs an associative operator");
      if (!is_neutral(*op, r->init))
        return fail_at(name, e,
                       "the initial value " + show(r->init) + " is not the neutral element " +
                           neutral_text(*op) + " of " + rise::prim_name(*op) +
                           ": blocking would count it once per block");
      Expr inner = fun("c", [&](const Expr& c) {
        return call(PrimId::Reduce, {r->op, r->init, c});
      });
      return call(PrimId::Reduce, {r->op, r->init, call(PrimId::Map, {inner, split})});
    }
    Expr f = r->op;
    Expr outer = util::fun2("acc", "c", [&](const Expr& acc, const Expr& c) {
      return call(PrimId::ReduceSeq, {f, acc, c});
    });
    return call(PrimId::ReduceSeq, {outer, r->init, split});
  });
}

// ---------------------------------------------------------------- tiling

// A nest of d maps (applied to data, or the function map(f)) as a 2d-deep nest of
// tiles: outer levels over the blocks, inner levels within a block, the result joined
// back into the original shape.
Strategy tile_rule(const std::string& name, std::vector<int64_t> sizes) {
  return rule(name, [name, sizes](const Expr& e, const Context& ctx) -> Result {
    const int d = static_cast<int>(sizes.size());
    if (d == 0) return fail_at(name, e, "no tile sizes given");
    for (int64_t s : sizes)
      if (s <= 0) return fail_at(name, e, "tile sizes must be positive");
    Expr t = e;
    std::string x;
    if (!util::match_map(e)) {
      auto c = util::match_prim(e, PrimId::Map, 1);
      if (!c)
        return fail_at(name, e,
                       "expected a nest of " + std::to_string(d) + " maps (mapNest(" +
                           std::to_string(d) + "))");
      x = rise::fresh_name("x");
      Expr xi = rise::ident(x);
      if (Type p = util::fun_param(e->type)) xi = rise::with_type(xi, p);
      t = rise::app(e, xi);
    }
    auto m = analyze(t, d, false);
    if (!m || m->depth() < d || m->acc_in)
      return fail_at(name, e,
                     "expected a nest of " + std::to_string(d) +
                         " maps in which each map's input "
                         "is a view of the outer maps' elements (found " +
                         std::to_string(m ? m->depth() : 0) + " level(s))");
    for (int k = 0; k < d; ++k)
      if (m->dims[static_cast<size_t>(m->order[static_cast<size_t>(k)])].fold)
        return fail_at(name, e,
                       "level " + std::to_string(k + 1) + " of the nest is a reduction, not a map");
    std::vector<int> ids(m->order.begin(), m->order.begin() + d);
    for (int k = 0; k < d; ++k) {
      const Nat& n = m->dims[static_cast<size_t>(ids[static_cast<size_t>(k)])].size;
      if (util::divisibility_refusal(Nat(sizes[static_cast<size_t>(k)]), n, ctx))
        return fail_at(name, e,
                       "the size " + n.to_string() + " of dimension " + std::to_string(k + 1) +
                           " is not divisible by the tile size " +
                           std::to_string(sizes[static_cast<size_t>(k)]));
    }
    std::vector<int> outer, inner;
    for (int k = 0; k < d; ++k) {
      size_t before = m->dims.size();
      split_dim(*m, ids[static_cast<size_t>(k)], sizes[static_cast<size_t>(k)]);
      outer.push_back(static_cast<int>(before));
      inner.push_back(static_cast<int>(before + 1));
    }
    // loop order: the outer levels, then the inner ones (deeper levels unchanged)
    std::vector<int> rest(m->order.begin() + 2 * d, m->order.end());
    m->order = outer;
    m->order.insert(m->order.end(), inner.begin(), inner.end());
    m->order.insert(m->order.end(), rest.begin(), rest.end());
    Result r = emit(name, *m, e);
    if (!r.ok() || x.empty()) return r;
    return rise::lambda(x, r.expr());
  });
}

// tile and tileND: a nest of two maps written with lambdas, the inner one over an
// independent array or a view of the outer element, is tiled by the composition of
// small rules in tile_composed.cpp (for independent maps, the program the model
// builds); every other nest (the function map(f), map(map(f)), computed inner inputs,
// deeper nests) by the model above, which the composition does not cover yet.
Strategy tile_strategy(const std::string& name, std::vector<int64_t> sizes) {
  Strategy model = tile_rule(name, sizes);
  if (sizes.size() != 2) return model;
  Strategy composed = composed_tile2(name, sizes[0], sizes[1]);
  return Strategy(name, [composed, model](const Expr& e, const Env& env) -> Result {
    Result r = composed(e, env);
    if (r.ok()) return r;
    return model(e, env);
  });
}

// ---------------------------------------------------------------- loop interchange

bool loop_head(const Expr& e) {
  return util::match_map(e) || match_fold(e);
}

// Interchange the two outermost levels of the nest at the location, when their kinds
// are `a` and `b` (true: reduction) in either order.
Strategy interchange_rule(const std::string& name, bool a, bool b) {
  return rule(name, [name, a, b](const Expr& e, const Context&) -> Result {
    auto kind = [](bool fold) { return rise::prim_name(fold ? PrimId::Reduce : PrimId::Map); };
    std::string want = kind(a) + " and " + kind(b);
    if (!loop_head(e)) return fail_at(name, e, "expected a nest of two loops (" + want + ")");
    auto m = analyze(e, 2);
    if (!m || m->depth() < 2)
      return fail_at(name, e,
                     "expected two directly nested loops (" + want +
                         ") whose inputs are views of the outer loop's element (fuse reductions "
                         "of maps first: fuseReduceMap)");
    bool f0 = m->dims[static_cast<size_t>(m->order[0])].fold;
    bool f1 = m->dims[static_cast<size_t>(m->order[1])].fold;
    if (!((f0 == a && f1 == b) || (f0 == b && f1 == a)))
      return fail_at(name, e, "the two outer loops here are " + kinds(*m, 0, 2) + ", not " + want);
    if (auto why = cannot_swap(*m, 0)) return fail_at(name, e, *why);
    std::swap(m->order[0], m->order[1]);
    return emit(name, *m, e);
  });
}

// ---------------------------------------------------------------- reorder

// The rewrites that bring a nest into the form the model reads (ELEVATE's
// normForReorder): linear beta-reduction, split before map, reduction-map fusion.
Expr norm_for_reorder(const Expr& e) {
  Expr x = e;
  switch (e->kind) {
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::Annotation:
    case ExprKind::DepApp: {
      Expr f = norm_for_reorder(e->fn);
      if (f != e->fn) {
        auto n = std::make_shared<rise::ExprNode>(*e);
        n->fn = f;
        x = n;
      }
      break;
    }
    case ExprKind::App: {
      Expr f = norm_for_reorder(e->fn), a = norm_for_reorder(e->arg);
      if (f != e->fn || a != e->arg) x = rise::with_children(e, f, a);
      break;
    }
    default:
      return e;
  }
  if (x->kind == ExprKind::App && x->fn->kind == ExprKind::Lambda) {
    Expr r = util::apply_fn(x->fn, x->arg);
    if (!(r->kind == ExprKind::App && r->fn == x->fn && r->arg == x->arg))
      return norm_for_reorder(r);
  }
  if (auto s = util::match_prim(x, PrimId::Split, 1)) {
    if (auto m = util::match_map(s->args[0]))
      return norm_for_reorder(
          util::mk_map(util::mk_map_fn(m->first), call(PrimId::Split, s->deps, {m->second})));
  }
  if (auto f = fuse_reduce_map(x)) return norm_for_reorder(*f);
  return x;
}

Strategy reorder_strategy(std::vector<int64_t> perm) {
  std::string name = "reorder(" + ints(perm) + ")";
  Strategy r = rule(name, [name, perm](const Expr& e, const Context& ctx) -> Result {
    const int k = static_cast<int>(perm.size());
    if (k == 0)
      return fail_at(name, e,
                     "the permutation is empty: it names no loop to move (reorder([1, 2]) swaps "
                     "the two outer loops of a nest)");
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < k; ++i)
      if (sorted[static_cast<size_t>(i)] != i + 1)
        return fail_at(
            name, e, "the list " + ints(perm) + " is not a permutation of 1.." + std::to_string(k));
    if (!loop_head(e)) return fail_at(name, e, "not a loop nest (map or reduce) here");
    Expr typed = e;
    Expr n = norm_for_reorder(e);
    if (n != e) {
      Result t = retype(name, n, ctx, e->type, e);
      if (!t.ok()) return t;
      typed = t.expr();
    }
    auto m = analyze(typed, k);
    if (!m || m->depth() < k) {
      const int have = m ? m->depth() : 0;
      return fail_at(name, e,
                     "the nest here has " + std::to_string(have) + " directly nested loop" +
                         (have == 1 ? "" : "s") + ", the permutation needs " + std::to_string(k));
    }
    // bubble the levels into place: position i receives original level perm[i]
    std::vector<int64_t> cur(static_cast<size_t>(k));
    std::iota(cur.begin(), cur.end(), 1);
    for (size_t i = 0; i < static_cast<size_t>(k); ++i) {
      size_t j = i;
      while (cur[j] != perm[i]) ++j;
      while (j > i) {
        if (auto why = cannot_swap(*m, j - 1))
          return fail_at(name, e,
                         "cannot interchange loops " + std::to_string(cur[j - 1]) + " and " +
                             std::to_string(cur[j]) + " (" + kinds(*m, j - 1, 2) + "): " + *why);
        std::swap(m->order[j - 1], m->order[j]);
        std::swap(cur[j - 1], cur[j]);
        --j;
      }
    }
    return emit(name, *m, e);
  });
  // The first nest (pre-order) where the reorder applies; when there is none, the
  // reason it failed at the outermost loop nest.
  return Strategy(name, [name, r](const Expr& e, const Env& env) -> Result {
    std::optional<Failure> first;
    std::function<Result(const Expr&, const Env&)> go = [&](const Expr& x,
                                                            const Env& xenv) -> Result {
      if (loop_head(x)) {
        Result res = r(x, xenv);
        if (res.ok()) return res;
        if (!first) first = res.failure();
      }
      std::vector<Expr> kids = children(x);
      for (size_t i = 0; i < kids.size(); ++i) {
        Env cenv = xenv;
        cenv.ctx = child_context(x, i, xenv.ctx);
        Result c = go(kids[i], cenv);
        if (c.ok()) {
          kids[i] = c.expr();
          return rebuild(x, kids);
        }
      }
      return fail_at(name, x, "no loop nest here");
    };
    Result res = go(e, env);
    if (res.ok()) return res;
    if (first) return *first;
    return fail_at(name, e, "there is no loop nest (map or reduce) to reorder");
  });
}

// ---------------------------------------------------------------- packing

// transpose(x), x: k.m -> join(map(transpose)(transpose(map(split(n))(x)))): the same
// array read through the blocked layout (m/n).k.n, which can then be stored in memory
// (TVM's packing of B for matrix multiplication).
Strategy block_transpose_rule(int64_t n) {
  std::string name = "blockTranspose(" + std::to_string(n) + ")";
  return rule(name, [n, name](const Expr& e, const Context& ctx) -> Result {
    auto c = util::match_prim(e, PrimId::Transpose, 1);
    if (!c) return fail_at(name, e, "expected transpose(x)");
    if (n <= 0) return fail_at(name, e, "the block size must be positive");
    const Expr& x = c->args[0];
    auto inner = util::array_size(util::array_elem(x->type));
    if (!inner) return fail_at(name, e, "transpose(x) of an array whose shape is unknown");
    if (util::divisibility_refusal(Nat(n), *inner, ctx))
      return fail_at(name, e,
                     "the size " + inner->to_string() +
                         " of the transposed dimension is not "
                         "divisible by " +
                         std::to_string(n));
    Expr blocked =
        call(PrimId::Transpose, {call(PrimId::Map, {call(PrimId::Split, {Nat(n)}, {}), x})});
    return call(PrimId::Join, {call(PrimId::Map, {util::prim(PrimId::Transpose), blocked})});
  });
}

}  // namespace

void register_tiling(Registry& r) {
  using P = ParamKind;
  r.rule({"fuseReduceMap",
          RuleFamily::Algorithmic,
          "reduce(op)(init)(map(f)(x)) -> reduceSeq(fun(acc, y => op(acc)(f(y))))(init)(x) "
          "(also for reduceSeq); the fused operator is not associative, so the result is "
          "sequential",
          {},
          [](const Args&) { return fuse_reduce_map_rule(); },
          {"reduceMapFusion"}});
  r.rule({"reduceMapFission",
          RuleFamily::Algorithmic,
          "reduceSeq(fun(acc, y => op(acc)(g)))(init)(x) -> reduce(op)(init)(map(fun(y => "
          "g))(x)) when op is add/mul/fmin/fmax and init its neutral element, else "
          "reduceSeq(op)(init)(map(..)(x)); also the function reduceSeq(..)(init) alone",
          {},
          [](const Args&) { return reduce_map_fission_rule(); }});
  r.rule(
      {"blockedReduce",
       RuleFamily::Algorithmic,
       "reduce(op)(init)(x) -> reduce(op)(init)(map(fun(c => reduce(op)(init)(c)))(split(n)(x))), "
       "checked: op add/mul/fmin/fmax, init its neutral literal, n divides the length; "
       "reduceSeq(f)(init)(x) -> reduceSeq(fun(acc, c => reduceSeq(f)(acc)(c)))(init)(split(n)(x)) "
       "(always valid; an extension over ELEVATE)",
       {P::Nat},
       [](const Args& a) { return blocked_reduce_rule(arg_nat(a, 0)); },
       {"splitStrategy"}});
  r.rule(
      {"tile",
       RuleFamily::Tiling,
       "2-D tiling of a nest of two maps (mapNest(2)): the 4-deep nest over n-blocks x "
       "m-blocks x n x m, joined back to the original shape; sizes checked",
       {P::Nat, P::Nat},
       [](const Args& a) {
         int64_t n = arg_nat(a, 0), m = arg_nat(a, 1);
         return tile_strategy("tile(" + std::to_string(n) + ", " + std::to_string(m) + ")", {n, m});
       }});
  r.rule({"tileND",
          RuleFamily::Tiling,
          "tileND([s1, .., sd]): tiling of a nest of d maps with one tile size per level "
          "(outer block levels, then inner levels), joined back; sizes checked",
          {P::IntList},
          [](const Args& a) {
            const auto& s = arg_list(a, 0);
            return tile_strategy("tileND(" + ints(s) + ")", s);
          }});
  r.rule({"reorder",
          RuleFamily::Tiling,
          "reorder([perm]): permute the loops (maps and reductions) of the first nest found "
          "top-down; position i gets original loop perm[i] (1-based, as in the ELEVATE "
          "paper); a composition of checked map-map, map-reduce and reduce-reduce "
          "interchanges (reductions interchange only for add/mul/fmin/fmax accumulation, "
          "whose float rounding changes)",
          {P::IntList},
          [](const Args& a) { return reorder_strategy(arg_list(a, 0)); }});
  r.rule({"mapMapInterchange",
          RuleFamily::Tiling,
          "map(fun(a => map(fun(b => e))(ys)))(xs) -> transpose(map(fun(b => map(fun(a => "
          "e))(xs)))(ys)) (inner input a view of a, or independent of it)",
          {},
          [](const Args&) { return interchange_rule("mapMapInterchange", false, false); }});
  r.rule({"mapReduceInterchange",
          RuleFamily::Tiling,
          "map(fun(i => reduce(op)(init)(xs_i)))(..) <-> reduceSeq(fun(acc, row => "
          "map(..)(zip(acc)(row))))(generate(init))(transpose(xs)): a reduction moved outside "
          "maps carries an array accumulator (either direction; always valid)",
          {},
          [](const Args&) { return interchange_rule("mapReduceInterchange", false, true); }});
  r.rule({"reduceReduceInterchange",
          RuleFamily::Tiling,
          "interchange two nested reductions accumulating acc ⊕ h, ⊕ in add/mul/fmin/fmax "
          "(associative and commutative; float rounding changes)",
          {},
          [](const Args&) { return interchange_rule("reduceReduceInterchange", true, true); }});
  r.rule({"blockTranspose",
          RuleFamily::Tiling,
          "transpose(x) -> join(map(transpose)(transpose(map(split(n))(x)))): the transposed "
          "array read through the blocked layout (m/n).k.n (to be stored by storeInMemory: "
          "TVM's packing)",
          {P::Nat},
          [](const Args& a) { return block_transpose_rule(arg_nat(a, 0)); }});
}

}  // namespace risec::elevate
