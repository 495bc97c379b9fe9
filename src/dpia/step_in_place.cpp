// Whether a reduction's or scan's step may write its array accumulator in place
// (dpia/step_in_place.h).
#include "dpia/step_in_place.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "support/stack.h"

namespace risec::dpia {

using rise::Family;
using rise::PrimId;
using rise::TypeKind;

bool type_holds_array(const rise::Type& t) {
  if (!t) return true;
  if (t->kind == TypeKind::Array) return true;
  if (t->kind == TypeKind::Pair) return type_holds_array(t->a) || type_holds_array(t->b);
  return false;
}

namespace {

bool step_mentions(const Phrase& e, const std::set<std::string>& vars) {
  if (e->kind == PhraseNode::Var) return vars.count(e->name) > 0;
  for (const Phrase& a : e->args)
    if (step_mentions(a, vars)) return true;
  return false;
}

// `e` is the accumulator (or an element of it a map reads in step), a projection of
// one, or a zip of such with data that does not mention them.
bool step_aligned(const Phrase& e, const std::set<std::string>& vars) {
  if (e->kind == PhraseNode::Var) return vars.count(e->name) > 0;
  if (e->kind != PhraseNode::Prim || !e->prim) return false;
  if ((e->prim->is(PrimId::Fst) || e->prim->is(PrimId::Snd)) && e->args.size() == 1)
    return step_aligned(e->args[0], vars);
  if (e->prim->is(PrimId::Zip) && e->args.size() == 2) {
    bool any = false;
    for (const Phrase& a : e->args) {
      if (step_aligned(a, vars))
        any = true;
      else if (step_mentions(a, vars))
        return false;
    }
    return any;
  }
  return false;
}

// Every read of `vars` in `e` is of a value holding no array (an element read in step).
bool step_reads_in_step(const Phrase& e, const std::set<std::string>& vars) {
  check_stack_depth(e->span);
  if (step_aligned(e, vars)) return !type_holds_array(e->type);
  if (e->kind == PhraseNode::Var) return true;
  for (const Phrase& a : e->args)
    if (!step_reads_in_step(a, vars)) return false;
  return true;
}

// The value `e` a step writes into the accumulator writes each element from the same
// element of `vars`.
bool step_writes_in_step(const Phrase& e, std::set<std::string> vars) {
  check_stack_depth(e->span);
  if (!step_mentions(e, vars)) return true;
  // A reduction continuing the accumulator (its initial value, the data not reading
  // it: a split reduction's k.o step) writes in step where its own step does.
  if (e->kind == PhraseNode::Prim && e->prim && e->prim->family == Family::Reduce &&
      e->args.size() == 3 && step_aligned(e->args[1], vars) && !step_mentions(e->args[2], vars) &&
      !step_mentions(e->args[0], vars))
    return step_in_place(e->args[0], true);
  if (e->kind != PhraseNode::Prim || !e->prim || e->prim->family != Family::Map ||
      e->args.size() != 2 || !step_aligned(e->args[1], vars))
    return false;
  const Phrase& f = e->args[0];
  if (f->kind != PhraseNode::Lambda) return false;
  vars.insert(f->name);
  const Phrase& body = f->body();
  return type_holds_array(body->type) ? step_writes_in_step(body, vars)
                                      : step_reads_in_step(body, vars);
}

// A view that reads the elements of its argument in their order (so that, mapped
// over, element j still comes from element j), up to reshaping: the flat order of the
// scalars is kept. Not transpose: a step reading `transpose(acc)` and writing its
// result into acc reads acc[j][i] where it writes acc[i][j] (a 4 x 4 accumulator
// transposed at each step was wrong on every target).
bool step_in_order_view(const rise::PrimitiveInfo& p) {
  return p.is(PrimId::Fst) || p.is(PrimId::Snd) || p.is(PrimId::Zip) || p.is(PrimId::Unzip) ||
         p.is(PrimId::Split) || p.is(PrimId::Join) || p.is(PrimId::AsVector) ||
         p.is(PrimId::AsVectorAligned) || p.is(PrimId::AsScalar);
}

// `e` is the accumulator (or an element of it a map reads), through in-order views.
bool step_loosely_aligned(const Phrase& e, const std::set<std::string>& vars) {
  if (e->kind == PhraseNode::Var) return vars.count(e->name) > 0;
  if (e->kind != PhraseNode::Prim || !e->prim || !step_in_order_view(*e->prim)) return false;
  for (const Phrase& a : e->args)
    if (step_loosely_aligned(a, vars)) return true;
  return false;
}

// Whether `e` may read or write the accumulator out of order: an index into it, a
// reordering or shifting view (transpose, reverse, slide, a pad, take, drop, gather...)
// of it or of anything computed from it (a step writing `transpose(zip(acc)(x) |>
// map(f))` writes element [i][j] from acc[j][i]), or a reduction over it.
bool step_out_of_order(const Phrase& e, std::set<std::string>& vars) {
  check_stack_depth(e->span);
  if (e->kind == PhraseNode::Prim && e->prim) {
    const rise::PrimitiveInfo& p = *e->prim;
    const bool view = p.family == Family::View && !step_in_order_view(p);
    const bool reduces = p.family == Family::Reduce || p.family == Family::Scan;
    // (a reduction's initial value, its second argument, continues the accumulator)
    for (size_t i = 0; i < e->args.size(); ++i)
      if ((view && step_mentions(e->args[i], vars)) ||
          (reduces && !(p.family == Family::Reduce && i == 1) &&
           step_loosely_aligned(e->args[i], vars)))
        return true;
    if (p.family == Family::Map && e->args.size() == 2 && step_loosely_aligned(e->args[1], vars) &&
        e->args[0]->kind == PhraseNode::Lambda)
      vars.insert(e->args[0]->name);
  }
  for (const Phrase& a : e->args)
    if (step_out_of_order(a, vars)) return true;
  return false;
}

// A memory location with projections through zips and pairs taken out:
// fst(zip(a, b)[i]) is a[i].
ExpressionP step_location(const ExpressionP& e) {
  if (e->kind == Expression::Fst || e->kind == Expression::Snd) {
    ExpressionP x = step_location(e->args[0]);
    bool first = e->kind == Expression::Fst;
    if (x->kind == Expression::MkPair) return step_location(x->args[first ? 0 : 1]);
    if (x->kind == Expression::Idx && x->args[0]->kind == Expression::View &&
        x->args[0]->prim->is(rise::PrimId::Zip))
      return step_location(ex_idx(x->args[0]->args[first ? 0 : 1], x->idx));
    return first ? ex_fst(x) : ex_snd(x);
  }
  if (e->kind == Expression::Idx) {
    ExpressionP x = step_location(e->args[0]);
    return x == e->args[0] ? e : ex_idx(x, e->idx);
  }
  return e;
}

// The accumulator's name and the step's body, from a step function of two parameters;
// nullptr when `op` is not one.
const Phrase* step_parts(const Phrase& op, bool acc_first, std::string* acc) {
  if (op->kind != PhraseNode::Lambda || op->body()->kind != PhraseNode::Lambda) return nullptr;
  const Phrase& inner = op->body();
  *acc = acc_first ? op->name : inner->name;
  return &inner->body();
}

}  // namespace

bool step_in_place(const Phrase& op, bool acc_first) {
  std::string acc;
  const Phrase* body = step_parts(op, acc_first, &acc);
  return body && step_writes_in_step(*body, {acc});
}

bool step_reads_out_of_order(const Phrase& op, bool acc_first) {
  std::string acc;
  const Phrase* body = step_parts(op, acc_first, &acc);
  if (!body) return true;
  std::set<std::string> vars{acc};
  return step_out_of_order(*body, vars);
}

bool placed_step_needs_next(const Phrase& e, const std::string& space) {
  const Phrase& op = e->args[0];
  if (step_in_place(op, true) || !step_reads_out_of_order(op, true)) return false;
  std::function<bool(const Phrase&)> distributed = [&](const Phrase& p) {
    if (p->kind == PhraseNode::Prim && p->prim && rise::is_gpu_loop(p->prim->loop)) return true;
    return std::any_of(p->args.begin(), p->args.end(), distributed);
  };
  if (distributed(op))
    user_error("the accumulator of this " + e->prim->name + ", placed in " + space +
                   " memory and distributed over the group's work items, is updated in place, "
                   "and its step may read other elements of it than the one it writes (through "
                   "an index, a transposed, reversed or shifted view, or a reduction): it "
                   "would read elements it has already written; leave the accumulator's "
                   "memory to the default, or read it only element by element (zip(acc)(x) "
                   "|> map(f))",
               e->span);
  return true;
}

bool same_memory(const ExpressionP& a, const ExpressionP& b) {
  ExpressionP x = step_location(a), y = step_location(b);
  if (x->kind != y->kind) return false;
  if (x->kind == Expression::Var) return x->name == y->name;
  if (x->kind == Expression::Idx) return x->idx == y->idx && same_memory(x->args[0], y->args[0]);
  return false;
}

}  // namespace risec::dpia
