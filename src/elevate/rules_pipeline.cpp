// Rules for pipelines of stages, applied after lowerToC (family "lowering"):
// parallelStages, which makes the outer loop of every stage an OpenMP loop, including
// the stages lowerToC stores itself (an array read through a transpose or by a
// window, wrapped in toMem), which parallelOutput, applied before lowering, cannot
// see.
#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::PrimId;

namespace {

// `e` (lowered) with the outermost mapSeq of every stage made mapPar: every mapSeq
// that is not inside the function of another loop (a map's, reduction's, scan's or
// iteration's function runs once per iteration; a let's runs once and is searched).
// Data arguments are evaluated before the loop that reads them, so they are stages
// of their own and are searched too.
struct StageParalleliser {
  int changed = 0;

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
    if (p->is(PrimId::MapSeq) && c->args.size() == 2 &&
        (util::computes(c->args[0]) || util::is_identity_fn(c->args[0]))) {
      ++changed;
      return util::rebuild_call(copy, util::prim(PrimId::MapPar));
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

Strategy parallel_stages() {
  return util::whole_term("parallelStages", [](const Expr& e, const Env&) -> Result {
    StageParalleliser s;
    Expr out = s.go(e);
    if (!s.changed)
      return fail_at("parallelStages", e,
                     "no sequential map outside every loop (lower with lowerToC first; a "
                     "program whose stages are reductions has none)");
    return out;
  });
}

}  // namespace

void register_pipeline(Registry& r) {
  LibraryEntry e;
  e.name = "parallelStages";
  e.description =
      "after lowerToC: the outermost mapSeq of every stage (the result, each let, each array "
      "lowerToC stores, anything not inside another loop's function) -> mapPar; fails when "
      "there is none";
  e.cls = EntryClass::Rule;
  e.family = "lowering";
  e.make = [](const std::vector<Arg>&) { return parallel_stages(); };
  r.add(std::move(e));
}

}  // namespace risec::elevate
