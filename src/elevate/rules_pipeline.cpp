// Rules for pipelines of stages: zipMapFusion (family "algorithmic"), which computes
// a producer's element where a consumer reads it through a zip, zipJoin (the same
// family), which opens the zip of a joined array into the join of its rows' zips so
// that zipMapFusion reaches a producer of rows (an upsampling), and parallelStages
// (family "lowering", after lowerToC), which makes the outer loop of every stage an
// OpenMP loop, including the stages lowerToC stores itself (an array read through a
// transpose or by a window, wrapped in toMem), which parallelOutput, applied before
// lowering, cannot see; and inlineStage (family "algorithmic"), inlineLet refused
// where it would run a reduction again for every element that reads its value.
#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::PrimId;
using util::call;

namespace {

// `e` (lowered) with the outermost mapSeq of every stage that does enough work made
// mapPar: every mapSeq that is not inside the function of another loop (a map's,
// reduction's, scan's or iteration's function runs once per iteration; a let's runs
// once and is searched). Data arguments are evaluated before the loop that reads
// them, so they are stages of their own and are searched too.
struct StageParalleliser {
  double min_work = util::kParallelWork;  // parallelStages(w): stages doing less stay sequential
  int changed = 0;
  int small_stages = 0;  // maps left sequential: less work than min_work

  bool small(const Expr& e, const util::PrimCall& map) const {
    return util::loop_work(map, e->type) < min_work;
  }

  Expr go(const Expr& e) {
    check_stack_depth(e->span);
    if (e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda ||
        e->kind == ExprKind::Annotation) {
      Expr b = go(e->fn);
      return b == e->fn ? e : rise::with_children(e, b, nullptr);
    }
    std::optional<util::PrimCall> c = util::as_prim_call(e);
    if (!c) return children(e);
    const rise::PrimitiveInfo* p = c->head->prim;
    if (!p) return children(e);
    const bool let = p->is(PrimId::Let);
    util::PrimCall copy = *c;
    bool same = true;
    for (size_t i = 0; i < copy.args.size(); ++i) {
      const Expr& a = copy.args[i];
      // A function argument of a loop is its body: not a stage.
      if (!let && a->type && !rise::is_data(a->type)) continue;
      Expr b = go(a);
      same = same && b == a;
      copy.args[i] = b;
    }
    // The windows of circularBuffer and rotateValues are filled as the sequential loop
    // steps through them: their map stays sequential (as parallelOutput leaves it).
    std::optional<util::PrimCall> src =
        c->args.size() == 2 ? util::as_prim_call(c->args[1]) : std::nullopt;
    const bool sliding_buffer =
        src && (src->is(PrimId::CircularBuffer) || src->is(PrimId::RotateValues));
    if (p->is(PrimId::MapSeq) && c->args.size() == 2 && !sliding_buffer &&
        (util::computes(c->args[0]) || util::is_identity_fn(c->args[0]))) {
      if (small(e, *c)) {
        ++small_stages;
      } else {
        ++changed;
        return util::rebuild_call(copy, util::prim(PrimId::MapPar));
      }
    }
    return same ? e : util::rebuild_call(copy, c->head);
  }

  Expr children(const Expr& e) {
    std::vector<Expr> kids = rise::children(e);
    bool same = true;
    for (Expr& k : kids) {
      Expr b = go(k);
      same = same && b == k;
      k = b;
    }
    return same ? e : rise::rebuild(e, kids);
  }
};

Strategy parallel_stages(int64_t min_work) {
  return util::whole_term("parallelStages", [min_work](const Expr& e, const Env&) -> Result {
    StageParalleliser s;
    s.min_work = static_cast<double>(min_work);
    Expr out = s.go(e);
    if (!s.changed && s.small_stages > 0)
      return fail_at("parallelStages", e,
                     "every stage does fewer than " + std::to_string(min_work) + " operations (" +
                         std::to_string(s.small_stages) +
                         " stage(s)), which stay sequential: a parallel loop over so little "
                         "work costs more than it saves (parallelStages(0) makes them parallel "
                         "anyway)");
    // lowerToC leaves a map over views a map: lowered is a mapSeq there, or no map
    if (!s.changed && rise::has_prim(e, {PrimId::Map}) && !rise::has_prim(e, {PrimId::MapSeq}))
      return fail_at("parallelStages", e,
                     "no sequential map outside every loop: the program is not lowered (apply "
                     "lowerToC first)");
    if (!s.changed && rise::has_prim(e, {PrimId::MapPar}))
      return fail_at("parallelStages", e,
                     "no sequential map outside every loop: the outer loops are parallel "
                     "already (mapPar)");
    if (!s.changed)
      return fail_at("parallelStages", e,
                     rise::has_prim(e, {PrimId::Generate})
                         ? "no sequential map outside every loop: its stages are reductions "
                           "or generated arrays (generate, which a with-loop becomes), which "
                           "are not made parallel"
                         : "no sequential map outside every loop (a program whose stages are "
                           "reductions has none)");
    return out;
  });
}

// `e` with fst(makePair(a, b)) -> a and snd(makePair(a, b)) -> b everywhere.
Expr project_pairs(const Expr& e) {
  check_stack_depth(e->span);
  std::vector<Expr> kids = rise::children(e);
  bool same = true;
  for (Expr& k : kids) {
    Expr b = project_pairs(k);
    same = same && b == k;
    k = b;
  }
  Expr out = same ? e : rise::rebuild(e, kids);
  for (PrimId proj : {PrimId::Fst, PrimId::Snd})
    if (auto c = util::match_prim(out, proj, 1))
      if (auto p = util::match_prim(c->args[0], PrimId::MakePair, 2))
        return p->args[proj == PrimId::Fst ? 0 : 1];
  return out;
}

// map(f)(zip(a)(map(g)(b))) -> map(fun(p => f((fst(p), g(snd(p))))))(zip(a)(b)), and
// likewise for a map on the left or on both sides: the mapped function is computed
// as each pair is read, so the consumer computes its producer's element instead of
// reading it from a stored array (Halide's compute_inline through a zip). With f a
// lambda, its parameter is replaced by the pair and the projections of that pair
// are resolved, so a map in f's body over the pair's components is exposed in turn
// (zip2D's rows: map(fun(rows => zip(rows._1)(rows._2))) becomes a zip of a row and
// a mapped row, which this rule fuses again one level down).
Strategy zip_map_fusion() {
  return rule("zipMapFusion", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected map(f)(zip(a)(b)) with a or b a map";
    auto outer = util::match_map(e);
    if (!outer) return fail_at("zipMapFusion", e, form);
    auto z = util::match_prim(outer->second, PrimId::Zip, 2);
    if (!z) return fail_at("zipMapFusion", e, form);
    auto ma = util::match_map(z->args[0]);
    auto mb = util::match_map(z->args[1]);
    if (!ma && !mb) return fail_at("zipMapFusion", e, form);
    const Expr& f = outer->first;
    Expr fused = util::fun("p", [&](const Expr& p) {
      Expr a = util::call(PrimId::Fst, {p}), b = util::call(PrimId::Snd, {p});
      Expr pair = util::call(PrimId::MakePair, {ma ? util::apply_fn(ma->first, a) : a,
                                                mb ? util::apply_fn(mb->first, b) : b});
      if (f->kind == ExprKind::Lambda) return project_pairs(util::substitute(f->fn, f->name, pair));
      return rise::app(f, pair);
    });
    return util::call(PrimId::Map,
                      {fused, util::call(PrimId::Zip, {ma ? ma->second : z->args[0],
                                                       mb ? mb->second : z->args[1]})});
  });
}

// The length of the rows of `b`, an array of arrays (nullopt otherwise).
std::optional<rise::Nat> row_length(const Expr& b) {
  return util::array_size(util::array_elem(b->type));
}

// zip(a)(join(b)) -> join(map(fun(p => zip(p._1)(p._2)))(zip(split(k)(a))(b))), b's rows
// of k elements, and the mirror form; zip(join(a))(join(b)) with rows of the same
// length -> join(map(..)(zip(a)(b))). The zip of a joined array becomes a join of zips
// of rows, so a consumer mapping over the pairs can be moved inside the join
// (joinBeforeMapF) and fused with the map that computed b's rows (zipMapFusion): an
// upsampling written as the join of the pairs it computes is then computed where the
// consumer reads it, with no stored array.
Strategy zip_join() {
  return rule("zipJoin", [](const Expr& e, const Context&) -> Result {
    const char* form = "expected zip(a)(join(b)) or zip(join(b))(a), b an array of rows";
    auto z = util::match_prim(e, PrimId::Zip, 2);
    if (!z) return fail_at("zipJoin", e, form);
    auto ja = util::match_prim(z->args[0], PrimId::Join, 1);
    auto jb = util::match_prim(z->args[1], PrimId::Join, 1);
    std::optional<rise::Nat> ka = ja ? row_length(ja->args[0]) : std::nullopt;
    std::optional<rise::Nat> kb = jb ? row_length(jb->args[0]) : std::nullopt;
    if (!ka && !kb) return fail_at("zipJoin", e, form);
    Expr left, right;
    if (ka && kb && *ka == *kb) {
      left = ja->args[0];
      right = jb->args[0];
    } else if (kb) {
      left = call(PrimId::Split, {*kb}, {z->args[0]});
      right = jb->args[0];
    } else {
      left = ja->args[0];
      right = call(PrimId::Split, {*ka}, {z->args[1]});
    }
    Expr rows = util::fun("p", [](const Expr& p) {
      return call(PrimId::Zip, {call(PrimId::Fst, {p}), call(PrimId::Snd, {p})});
    });
    return call(PrimId::Join, {util::mk_map(rows, call(PrimId::Zip, {left, right}))});
  });
}

// Whether `e` runs a reduction (a reduce, a scan or an iterateWhile): a loop whose
// value is not read element by element as a view, so that each read of it runs the
// whole loop.
bool runs_reduction(const Expr& e) {
  return rise::any_subexpr(e, [](const Expr& s) {
    if (s->kind != ExprKind::Primitive || !s->prim) return false;
    const rise::PrimitiveInfo& p = *s->prim;
    return p.family == rise::Family::Reduce || p.family == rise::Family::Scan ||
           p.is(PrimId::IterateWhile);
  });
}

// Whether `x` occurs free in `e` inside a function that may run more than once: any
// lambda (a map's, a reduction's or a generate's function: run once per element),
// except the body of a let and of a lambda applied where it is written, which run once
// each time `e` does. `under`: e itself is inside such a function.
bool read_per_element(const Expr& e, const std::string& x, bool under) {
  check_stack_depth(e->span);
  switch (e->kind) {
    case ExprKind::Ident:
      return under && e->name == x;
    case ExprKind::Lambda:
      return e->name != x && read_per_element(e->fn, x, true);
    case ExprKind::DepLambda:
      return read_per_element(e->fn, x, true);
    case ExprKind::App: {
      // let(v)(fun(y => b)) and fun(y => b)(v): v and b run as often as e does.
      Expr value = e->arg, f = e->fn;
      if (auto let = util::match_prim(e, PrimId::Let, 2)) {
        value = let->args[0];
        f = let->args[1];
      }
      if (f->kind == ExprKind::Lambda)
        return read_per_element(value, x, under) ||
               (f->name != x && read_per_element(f->fn, x, under));
      break;
    }
    default:
      break;
  }
  for (const Expr& k : rise::children(e))
    if (read_per_element(k, x, under)) return true;
  return false;
}

// let(v)(fun(x => b)) -> b with v for x, as inlineLet, unless v runs a reduction and b
// reads x inside a function a loop calls: inlined there, the reduction would run again
// for every element (softmax's row maximum recomputed for each element of the row: a
// quadratic recomputation), where stored it runs once. A stage that is an array
// computed by maps is always inlined: each read computes the one element it reads.
Strategy inline_stage() {
  return rule("inlineStage", [](const Expr& e, const Context&) -> Result {
    auto c = util::match_prim(e, PrimId::Let, 2);
    if (!c || c->args[1]->kind != ExprKind::Lambda)
      return fail_at("inlineStage", e, "expected let(v)(fun(x => b))");
    const Expr& f = c->args[1];
    if (runs_reduction(c->args[0]) && read_per_element(f->fn, f->name, false))
      return fail_at("inlineStage", e,
                     "the value of `" + f->name +
                         "` runs a reduction and is read inside a function a loop calls: "
                         "inlined, the reduction would run again for every element it reads "
                         "(a quadratic recomputation); inlineLet inlines it anyway");
    return util::substitute(f->fn, f->name, c->args[0]);
  });
}

}  // namespace

void register_pipeline(Registry& r) {
  r.rule({"zipMapFusion",
          RuleFamily::Algorithmic,
          "map(f)(zip(a)(map(g)(b))) -> map(fun(p => f((fst(p), g(snd(p))))))(zip(a)(b)) (a map "
          "on either side or both): the consumer computes the mapped element as it reads the "
          "pair, instead of reading a stored array; f's projections of the pair are resolved",
          {},
          fixed(zip_map_fusion())});
  r.rule({"inlineStage",
          RuleFamily::Algorithmic,
          "let(v)(fun(x => b)) -> b with v for x, as inlineLet, except where v runs a reduction "
          "(reduce, scan, iterateWhile) and b reads x inside a function a loop calls (each "
          "element would run the reduction again: quadratic); such a let is left stored",
          {},
          fixed(inline_stage())});
  r.rule({"zipJoin",
          RuleFamily::Algorithmic,
          "zip(a)(join(b)) -> join(map(fun(p => zip(p._1)(p._2)))(zip(split(k)(a))(b))) for b's "
          "rows of k elements (likewise zip(join(b))(a); zip(join(a))(join(b)) with rows of "
          "the same length -> join of the rows' zips, no split): a map over the pairs can then "
          "move inside the join and fuse with the map computing b's rows",
          {},
          fixed(zip_join())});
  r.rule(
      {"parallelStages",
       RuleFamily::Lowering,
       "after lowerToC: the outermost mapSeq of every stage (the result, "
       "each let, each array lowerToC stores, anything not inside another loop's function) -> "
       "mapPar, except stages doing fewer than w operations (bare parallelStages: " +
           std::to_string(util::kParallelWork) +
           "; its "
           "length times its function's arithmetic, nested loops included), whose outer mapSeq "
           "stays sequential, and maps over the windows of circularBuffer or rotateValues (filled "
           "as a sequential loop steps); w = 0 makes every stage parallel; fails when there is "
           "none",
       {ParamKind::Nat},
       [](const std::vector<Arg>& a) {
         return parallel_stages(a.empty() ? util::kParallelWork : arg_nat(a, 0));
       },
       {},
       1});
}

}  // namespace risec::elevate
