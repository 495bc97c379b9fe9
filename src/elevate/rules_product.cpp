// Matrix products inside larger programs (family "tiling"): isProductNest, the
// location of a product (a map over rows of a map over columns of a reduction of
// a row zipped with a column), isLayerNest (a product with or without an epilogue),
// productEpilogueFusion, which fuses an elementwise map over a product (an
// activation) into the product's epilogue, productEpilogueFission, which moves what a
// layer computes after the reduction (a bias, an activation) out of the product
// into an elementwise map over its result, so that the product alone can be tiled
// and reordered (the autoscheduler's register blocks, src/driver/schedule_blocked.cpp),
// and peelRemainder, which splits the last L % n elements of a map off into a map of
// their own, so that a block of n rows that does not divide L can still be tiled
// (the remainder rows are blocked separately).
#include "elevate/library.h"
#include "elevate/rule_util.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::Nat;
using rise::PrimId;
using util::call;

namespace {

// The two maps of a nest map(fun(r => map(fun(c => body))(cols)))(rows), cols
// independent of r.
struct Nest {
  std::string r, c;
  Expr rows, cols, body;
};

std::optional<Nest> match_nest(const Expr& e) {
  auto outer = util::match_map(e);
  if (!outer || outer->first->kind != ExprKind::Lambda) return std::nullopt;
  auto inner = util::match_map(outer->first->fn);
  if (!inner || inner->first->kind != ExprKind::Lambda) return std::nullopt;
  Nest n{outer->first->name, inner->first->name, outer->second, inner->second, inner->first->fn};
  if (n.r == n.c || util::occurs_free(n.r, n.cols)) return std::nullopt;
  return n;
}

// A fully applied reduction whose data is zip(a)(b) (or a map over it) with one of
// a, b reading r and not c and the other c and not r: one element of the product.
bool is_dot(const Expr& e, const std::string& r, const std::string& c) {
  auto red = util::as_prim_call(e);
  if (!red || !util::is_reduce_like(red->head->prim) || red->args.size() != 3) return false;
  Expr data = red->args[2];
  if (auto m = util::match_map(data)) data = m->second;
  auto z = util::match_prim(data, PrimId::Zip, 2);
  if (!z) return false;
  auto reads = [](const Expr& x, const std::string& v) { return util::occurs_free(v, x); };
  const Expr& a = z->args[0];
  const Expr& b = z->args[1];
  return (reads(a, r) && !reads(a, c) && reads(b, c) && !reads(b, r)) ||
         (reads(a, c) && !reads(a, r) && reads(b, r) && !reads(b, c));
}

// e with its first (pre-order) product element replaced by v, not under a lambda
// (whose binder could capture the element's variables); `found` the element.
Expr cut_dot(const Expr& e, const Nest& n, const Expr& v, Expr& found) {
  if (found) return e;
  if (is_dot(e, n.r, n.c)) {
    found = e;
    return v;
  }
  if (e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) return e;
  std::vector<Expr> kids = rise::children(e);
  bool changed = false;
  for (Expr& k : kids) {
    Expr nk = cut_dot(k, n, v, found);
    changed = changed || nk != k;
    k = nk;
  }
  return changed ? rise::rebuild(e, kids) : e;
}

Strategy is_product_nest_rule() {
  const char* name = "isProductNest";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto n = match_nest(e);
    if (!n || !is_dot(n->body, n->r, n->c))
      return fail_at(name, e,
                     "expected a product map(fun(r => map(fun(c => reduction of zip(row)(col)))"
                     "(cols)))(rows)");
    return e;
  });
}

// A product with or without an epilogue: map(fun(r => map(fun(c => E[d]))(cols)))(rows),
// d a product's element outside lambdas (E may be d itself).
bool is_layer_nest(const Expr& e) {
  auto n = match_nest(e);
  if (!n) return false;
  Expr found;
  cut_dot(n->body, *n, n->body, found);
  return found != nullptr;
}

Strategy is_layer_nest_rule() {
  const char* name = "isLayerNest";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    if (!is_layer_nest(e))
      return fail_at(name, e,
                     "expected a product map(fun(r => map(fun(c => E[d]))(cols)))(rows), d a "
                     "reduction of zip(row)(col) outside lambdas, with or without an epilogue E");
    return e;
  });
}

// map(g')(N), g' = map(g) or fun(p => map(g)(p)), N = map(fun(r => map(fun(c =>
// B))(cols)))(rows) a product with or without an epilogue ->
//   map(fun(r => map(fun(c => g(B)))(cols)))(rows)
// (an elementwise map over a product's result, an activation, becomes part of the
// product's epilogue: computed where the product's element is, never stored first).
Strategy product_epilogue_fusion_rule() {
  const char* name = "productEpilogueFusion";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto outer = util::match_map(e);
    std::optional<Expr> g = outer ? util::match_map_fn(outer->first) : std::nullopt;
    if (!g)
      return fail_at(name, e,
                     "expected an elementwise map over a product's result, map(map(g))(P)");
    if (!is_layer_nest(outer->second))
      return fail_at(name, e, "the mapped data is not a product (with or without an epilogue)");
    auto n = match_nest(outer->second);
    if (util::occurs_free(n->r, *g) || util::occurs_free(n->c, *g))
      return fail_at(name, e, "the function reads a variable named like the product's elements");
    const Expr body = util::apply_fn(*g, n->body);
    return call(
        PrimId::Map,
        {rise::lambda(n->r, call(PrimId::Map, {rise::lambda(n->c, body), n->cols})), n->rows});
  });
}

// map(fun(r => map(fun(c => E[d]))(cols)))(rows), d the product's element ->
// map(fun(p => map(fun(q => E[q._1][c := q._2][r := p._2]))(zip(p._1)(cols))))
//   (zip(map(fun(r => map(fun(c => d))(cols)))(rows))(rows))
// (without the zips and projections of r or c when E does not read them).
Strategy product_epilogue_fission_rule() {
  const char* name = "productEpilogueFission";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto n = match_nest(e);
    if (!n) return fail_at(name, e, "expected a nest of two maps map(fun(r => map(fun(c => ..)))");
    if (is_dot(n->body, n->r, n->c))
      return fail_at(name, e, "the product has no epilogue: its body is the reduction");
    const std::string v = rise::fresh_name("d");
    Expr found;
    Expr epi = cut_dot(n->body, *n, rise::ident(v), found);
    if (!found)
      return fail_at(name, e,
                     "no reduction of zip(row)(col) in the body outside a lambda: not a product");
    const Expr product = call(
        PrimId::Map,
        {rise::lambda(n->r, call(PrimId::Map, {rise::lambda(n->c, found), n->cols})), n->rows});
    const bool uses_r = util::occurs_free(n->r, epi), uses_c = util::occurs_free(n->c, epi);
    const std::string p = rise::fresh_name("p"), q = rise::fresh_name("q");
    const Expr pe = rise::ident(p), qe = rise::ident(q);
    const Expr row = uses_r ? call(PrimId::Fst, {pe}) : pe;
    if (uses_r) epi = util::substitute(epi, n->r, call(PrimId::Snd, {pe}));
    if (uses_c) epi = util::substitute(epi, n->c, call(PrimId::Snd, {qe}));
    epi = util::substitute(epi, v, uses_c ? call(PrimId::Fst, {qe}) : qe);
    const Expr inner =
        call(PrimId::Map, {rise::lambda(q, epi), uses_c ? call(PrimId::Zip, {row, n->cols}) : row});
    return call(PrimId::Map,
                {rise::lambda(p, inner), uses_r ? call(PrimId::Zip, {product, n->rows}) : product});
  });
}

// map(f)(x) of length L, n not dividing L ->
//   concat(map(f)(take(q)(x)))(map(f)(drop(q)(x))),  q = L - L % n
// (the first q elements a map that n divides, the last L % n a map of their own;
// symbolic L as well). Refused: n < 1, an array shorter than n (nothing would be
// left for the first map), and a length n provably divides (nothing to peel).
Strategy peel_remainder_rule(int64_t n) {
  const std::string name = "peelRemainder(" + std::to_string(n) + ")";
  return rule(name, [n, name](const Expr& e, const Context&) -> Result {
    auto m = util::match_map(e);
    if (!m) return fail_at(name, e, "expected a map applied to data, map(f)(x)");
    if (n < 1) return fail_at(name, e, "the block must have at least one element");
    auto len = util::array_size(m->second->type);
    if (!len) return fail_at(name, e, "the length of the mapped array is unknown");
    if (arith::provably_divides(Nat(n), *len))
      return fail_at(name, e,
                     std::to_string(n) + " divides the length (" + len->to_string() +
                         "): there is no remainder to peel");
    const Nat q = *len - arith::mod(*len, Nat(n));
    if (q.is_const(0))
      return fail_at(name, e,
                     "the array (" + len->to_string() + " elements) is shorter than " +
                         std::to_string(n) + ": there is no block to keep");
    auto [first, last] = util::split_at(q, m->second);
    return call(PrimId::Concat,
                {call(PrimId::Map, {m->first, first}), call(PrimId::Map, {m->first, last})});
  });
}

}  // namespace

void register_product(Registry& r) {
  r.rule({"isProductNest",
          RuleFamily::Tiling,
          "succeeds, unchanged, on a product map(fun(r => map(fun(c => reduction of "
          "zip(row)(col)))(cols)))(rows), row reading r and col c (a location predicate)",
          {},
          [](const Args&) { return is_product_nest_rule(); }});
  r.rule({"isLayerNest",
          RuleFamily::Tiling,
          "succeeds, unchanged, on a product with or without an epilogue: map(fun(r => "
          "map(fun(c => E[d]))(cols)))(rows), d a reduction of zip(row)(col) outside lambdas "
          "(a dense layer with its bias and activation; a location predicate)",
          {},
          [](const Args&) { return is_layer_nest_rule(); }});
  r.rule({"productEpilogueFusion",
          RuleFamily::Tiling,
          "map(map(g))(map(fun(r => map(fun(c => B))(cols)))(rows)) -> map(fun(r => map(fun(c "
          "=> g(B)))(cols)))(rows), B containing a product's element: an elementwise map over a "
          "product (an activation) fused into its epilogue",
          {},
          [](const Args&) { return product_epilogue_fusion_rule(); }});
  r.rule({"productEpilogueFission",
          RuleFamily::Tiling,
          "map(fun(r => map(fun(c => E[d]))(cols)))(rows) -> map(fun(p => map(fun(q => "
          "E[q._1][c := q._2][r := p._2]))(zip(p._1)(cols))))(zip(P)(rows)), d a product's "
          "element (a reduction of zip(row)(col)) outside lambdas and P = map(fun(r => "
          "map(fun(c => d))(cols)))(rows): the epilogue (bias, activation) an elementwise map "
          "over the product",
          {},
          [](const Args&) { return product_epilogue_fission_rule(); }});
  r.rule({"peelRemainder",
          RuleFamily::Tiling,
          "map(f)(x) of length L, n not dividing L -> concat(map(f)(take(q)(x)))(map(f)(drop(q)"
          "(x))), q = L - L%n: the remainder split off, so that the first map can be tiled by n "
          "and the remainder on its own (function(argument(..)) and argument(..) reach them)",
          {ParamKind::Nat},
          [](const Args& a) { return peel_remainder_rule(arg_nat(a, 0)); }});
}

}  // namespace risec::elevate
