// tile(n, m) on a nest of two maps, built as RISE & Shine builds tiling: from
// splitJoin, mapFission, an interchange of the two maps and mapMapFBeforeJoin, each a
// checked, re-typed rewrite at one location. The loop-nest model of rules_tiling.cpp
// stays for the nests this does not cover (see there).
//
// The interchange takes one of two forms: when the inner map does not read the outer
// element (the matrix product's rows of A against the columns of B) the maps swap
// as they are, which gives exactly the nest of tiles the model emits; when its input is
// a view of the element (X |> map(fun(r => r |> map(f)))) the views of a block are
// transposed, column blocks first.
//
// The steps, with X = split(n)(xs), Y = split(m)(ys):
//   map(fun(a => map(fun(b => e))(ys)))(xs)
//   splitJoin(n) at the outer map, splitJoin(m) at the inner one:
//     join(map(fun(a' => map(fun(a => join(map(fun(b' => map(fun(b => e))(b')))(Y))))(a')))(X))
//   (a split of a join that merged rows of n or m elements is the unjoined input: removeSplitJoin)
//   mapFission takes the inner join out of the element map:
//     .. map(join)(map(fun(a => map(fun(b' => ..))(Y)))(a')) ..
//   the element map and the block map over Y (here Y does not read a) interchange:
//     .. map(join)(transpose(map(fun(b' => map(fun(a => map(fun(b => e))(b')))(a')))(Y))) ..
//   mapFission twice takes map(join) and transpose out of the outer block map, and
//   mapMapFBeforeJoin moves map(join) past the outer join:
//     map(join)(join(map(transpose)(map(fun(a' => map(fun(b' => map(fun(a =>
//       map(fun(b => e))(b')))(a')))(Y)))(X))))
// which is the nest of tiles the loop-nest model emits for the same program.
#include "elevate/tile_composed.h"

#include "elevate/library.h"
#include "elevate/rule_util.h"

namespace risec::elevate {

using rise::PrimId;

namespace {

using rise::ExprKind;

// s applied at a path below the location: 'f' the function of an application,
// 'a' its argument, 'b' the body of a lambda (outermost step first).
Strategy at_path(const std::string& path, Strategy s) {
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (*it == 'f') s = function(s);
    if (*it == 'a') s = argument(s);
    if (*it == 'b') s = body(s);
  }
  return s;
}

// map(fun(x => map(g)(ys)))(xs), x not free in ys ->
// transpose(map(fun(y => map(fun(x => g(y)))(xs)))(ys)): the two maps are independent,
// so either may be the outer one.
Strategy independent_map_interchange() {
  const char* name = "independentMapInterchange";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto outer = util::match_map(e);
    if (!outer || outer->first->kind != ExprKind::Lambda)
      return fail_at(name, e, "expected map(fun(x => map(g)(ys)))(xs)");
    const std::string& x = outer->first->name;
    auto inner = util::match_map(outer->first->fn);
    if (!inner) return fail_at(name, e, "the outer map's body is not a map applied to data");
    if (util::occurs_free(x, inner->second))
      return fail_at(name, e, "the inner map's input reads the outer map's element");
    const Expr& g = inner->first;
    const Expr& xs = outer->second;
    Expr swapped = util::fun("y", [&](const Expr& y) {
      return util::mk_map(rise::lambda(x, util::apply_fn(g, y)), xs);
    });
    return util::call(PrimId::Transpose, {util::mk_map(swapped, inner->second)});
  });
}

// map(fun(x => map(g)(w)))(xs), w a view of x (no computation) and g not reading x ->
// transpose(map(fun(c => map(g)(c)))(transpose(map(fun(x => w))(xs)))): the views w of
// all elements, transposed, give the inner map's inputs column by column.
Strategy view_map_interchange() {
  const char* name = "viewMapInterchange";
  return rule(name, [name](const Expr& e, const Context&) -> Result {
    auto outer = util::match_map(e);
    if (!outer || outer->first->kind != ExprKind::Lambda)
      return fail_at(name, e, "expected map(fun(x => map(g)(w)))(xs)");
    const std::string& x = outer->first->name;
    auto inner = util::match_map(outer->first->fn);
    if (!inner) return fail_at(name, e, "the outer map's body is not a map applied to data");
    if (util::occurs_free(x, inner->first))
      return fail_at(name, e, "the inner map's function reads the outer map's element");
    if (util::computes(inner->second))
      return fail_at(name, e, "the inner map's input is computed, not a view of the outer element");
    Expr views = util::mk_map(rise::lambda(x, inner->second), outer->second);
    Expr columns = util::fun("c", [&](const Expr& c) { return util::mk_map(inner->first, c); });
    return util::call(PrimId::Transpose,
                      {util::mk_map(columns, util::call(PrimId::Transpose, {views}))});
  });
}

}  // namespace

Strategy composed_tile2(const std::string& name, int64_t n, int64_t m) {
  // Paths (see the steps above): "afabfab" is the inner map inside the outer blocks'
  // element map, "afab" that element map, "a" the outer block map.
  std::vector<Strategy> steps = {
      make_strategy("splitJoin", {n}),
      try_(at_path("aa", make_strategy("removeSplitJoin"))),
      at_path("afabfab", make_strategy("splitJoin", {m})),
      try_(at_path("afabfabaa", make_strategy("removeSplitJoin"))),
      at_path("afab", util::map_fission_rule(true)),
      at_path("afaba", lchoice(independent_map_interchange(), view_map_interchange())),
      at_path("a", util::map_fission_rule(true)),
      at_path("aa", util::map_fission_rule(true)),
      make_strategy("mapMapFBeforeJoin"),
  };
  Strategy all = steps.front();
  for (size_t i = 1; i < steps.size(); ++i) all = seq(all, steps[i]);
  return Strategy(name, [name, all](const Expr& e, const Env& env) -> Result {
    auto outer = util::match_map(e);
    if (!outer || outer->first->kind != ExprKind::Lambda || !util::match_map(outer->first->fn))
      return fail_at(name, e, "expected map(fun(a => map(fun(b => e))(ys)))(xs)");
    // one step in a trace, as for any other rule
    Env quiet = env;
    quiet.tracer = nullptr;
    Result r = all(e, quiet);
    if (r.ok() && env.tracer && env.tracer->on_rule) env.tracer->on_rule(name, e, r.expr());
    return r;
  });
}

}  // namespace risec::elevate
