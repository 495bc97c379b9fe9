// Shifted tails (see shift_tail.h).
#include "dpia/shift_tail.h"

#include <algorithm>
#include <set>
#include <string>

#include "dpia/traverse.h"
#include "rise/primitives.h"

namespace risec::dpia {

namespace {

// The bytes of the widest scalar in a stored value's type; 0 for a vector (explicit
// vector code chose its own width) or anything else.
int64_t widest_scalar(const Type& t) {
  if (t->kind == rise::TypeKind::Scalar) return rise::scalar_bits(t->scalar) / 8;
  if (t->kind == rise::TypeKind::Pair) {
    int64_t a = widest_scalar(t->a), b = widest_scalar(t->b);
    return a == 0 || b == 0 ? 0 : std::max(a, b);
  }
  return 0;
}

// Whether an integer division or modulo may fault (a divisor that is not a literal
// other than 0 and -1): its report must not be repeated.
bool may_fault(const Expression& e) {
  if (e.kind != Expression::Binary || !e.prim ||
      !(e.prim->is(rise::PrimId::Div) || e.prim->is(rise::PrimId::Mod)))
    return false;
  const Type& t = e.dt->kind == rise::TypeKind::Vector ? e.dt->a : e.dt;
  if (t->kind != rise::TypeKind::Scalar || !rise::is_integer(t->scalar)) return false;
  const Expression* d = e.args[1].get();
  if (d->kind == Expression::Broadcast) d = d->args[0].get();
  return d->kind != Expression::Lit || d->lit.i == 0 || d->lit.i == -1;
}

// What the cheap checks need from a body: loops, exits, effects, stores, declarations.
struct Scan : Visitor {
  bool refuse = false;
  int64_t widest = 0;
  std::set<std::string> declared;
  void visit_command(const Command& c) override {
    switch (c.kind) {
      case Command::For:  // not innermost
      case Command::Break:
      case Command::Call:
      case Command::NewDoubleBuffer:
      case Command::Swap:
      case Command::Done:
        refuse = true;
        return;
      case Command::New:
        declared.insert(c.var);
        break;
      case Command::Assign: {
        int64_t w = widest_scalar(c.exp->dt);
        if (w == 0) refuse = true;
        widest = std::max(widest, w);
        break;
      }
      default:
        break;
    }
    Visitor::visit_command(c);
  }
  void visit_expression(const Expression& e) override {
    if ((e.kind == Expression::Call && e.foreign) || may_fault(e)) refuse = true;
    Visitor::visit_expression(e);
  }
};

}  // namespace

std::optional<int64_t> shifted_tail_width(const Command& loop, const BodyIndices& body_accesses) {
  if (loop.kind != Command::For || loop.loop != LoopKind::Seq || loop.exits || loop.reduction)
    return std::nullopt;
  std::optional<int64_t> n = loop.n.as_const();
  if (!n) return std::nullopt;
  Scan scan;
  scan.visit(loop.body[0]);
  if (scan.refuse || scan.widest == 0) return std::nullopt;
  int64_t v = kShiftTailBytes / scan.widest;
  if (*n <= v || *n % v == 0 || *n > kShiftTailMaxBlocks * v) return std::nullopt;
  // Idempotent: nothing written (outside the body's own variables) is read.
  BodyAccesses accesses = body_accesses(loop.body[0]);
  std::set<std::string> read;
  for (const BodyAccesses::Access& a : accesses.named)
    if (!a.write) read.insert(a.name);
  for (const BodyAccesses::Access& a : accesses.named)
    if (a.write && read.count(a.name) && !scan.declared.count(a.name)) return std::nullopt;
  return v;
}

}  // namespace risec::dpia
