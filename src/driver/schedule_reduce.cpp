// Vectorised reductions in the autoscheduler's space (see schedule_reduce.h).
#include "driver/schedule_reduce.h"

#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::driver {

namespace {

using rise::Expr;
using rise::PrimId;

// A reduce(op)(init)(xs) with op add, mul, fmax or fmin and a scalar result: what
// vectorizeReduction rewrites (its other conditions are checked when it applies).
bool vectorisable_reduction(const Expr& e) {
  const std::optional<elevate::util::PrimCall> c = elevate::util::as_prim_call(e);
  if (!c || (!c->is(PrimId::Reduce) && !c->is(PrimId::ReduceSeq)) || c->args.size() != 3)
    return false;
  const std::optional<elevate::util::BinaryOp> op = elevate::util::match_binary_op(c->args[0]);
  const rise::PrimitiveInfo* p = op ? op->prim : nullptr;
  if (!p ||
      !(p->is(PrimId::Add) || p->is(PrimId::Mul) || p->is(PrimId::Fmax) || p->is(PrimId::Fmin)))
    return false;
  return e->type && e->type->kind == rise::TypeKind::Scalar &&
         e->type->scalar != rise::ScalarKind::Bool;
}

bool has_vectorisable_reduction(const Expr& e) {
  std::vector<Expr> todo = {e};
  while (!todo.empty()) {
    Expr t = todo.back();
    todo.pop_back();
    if (vectorisable_reduction(t)) return true;
    for (const Expr& k : rise::children(t)) todo.push_back(k);
  }
  return false;
}

}  // namespace

std::vector<ReductionOption> reduction_options(const rise::Checked& high) {
  if (!has_vectorisable_reduction(high.expr)) return {};
  return {
      {"normalize(vectorizeReductionRemainder(lanes))",
       "every reduction of add, mul, fmax or fmin over scalars into a vector accumulator of "
       "`lanes` lanes, then its lanes reduced, a remainder by a scalar loop (add and mul "
       "reassociated: checked within the tolerance)",
       "lanes"},
      {"normalize(vectorizeReduction2Remainder(lanes))",
       "every reduction of add, mul, fmax or fmin over scalars into two vector accumulators "
       "of `lanes` lanes (two dependency chains overlapped), then their lanes reduced",
       "2 x lanes"},
      {"normalize(vectorizeReduction4Remainder(lanes))",
       "every reduction of add, mul, fmax or fmin over scalars into four vector accumulators "
       "of `lanes` lanes (four dependency chains: an addition's latency, 3 or 4 cycles, hidden "
       "on two vector adders), then their lanes reduced",
       "4 x lanes"},
  };
}

std::optional<ReductionOption> division_option(const rise::Checked& high) {
  const bool any = rise::any_subexpr(high.expr, [](const Expr& e) {
    auto d = elevate::util::match_prim(e, PrimId::Div, 2);
    if (!d || !e->type || e->type->kind != rise::TypeKind::Scalar ||
        !rise::is_float(e->type->scalar))
      return false;
    const Expr& b = d->args[1];
    return b->kind == rise::ExprKind::Ident || elevate::util::literal_value(b).has_value();
  });
  if (!any) return std::nullopt;
  return ReductionOption{"normalize(reciprocalDivision)",
                         "every division of floats by a literal or a variable bound outside its "
                         "map a multiplication by the reciprocal (computed once; the last bit of "
                         "rounding changes: checked within the tolerance)",
                         "reciprocal"};
}

int scalar_maps(const rise::Checked& high) {
  int n = 0;
  std::vector<Expr> todo = {high.expr};
  while (!todo.empty()) {
    Expr t = todo.back();
    todo.pop_back();
    if (auto m = elevate::util::match_map(t)) {
      const rise::Type elem = elevate::util::array_elem(m->second->type);
      n += elem && elem->kind != rise::TypeKind::Array;
    }
    for (const Expr& k : rise::children(t)) todo.push_back(k);
  }
  return n;
}

bool reads_windows(const rise::Checked& high) {
  return rise::any_subexpr(high.expr, [](const Expr& e) {
    return e->kind == rise::ExprKind::Primitive && e->prim && e->prim->is(PrimId::Slide);
  });
}

}  // namespace risec::driver
