// The traversal of imperative DPIA (see traverse.h): the one place that lists each
// node's fields.
#include "dpia/traverse.h"

#include "rise/type.h"
#include "support/stack.h"

namespace risec::dpia {

namespace {

bool same(const arith::Nat& a, const arith::Nat& b) {
  return a.ptr() == b.ptr();
}
bool same(const arith::Cond& a, const arith::Cond& b) {
  return a.ptr() == b.ptr();
}
bool same(const rise::NatFun& a, const rise::NatFun& b) {
  return a.param == b.param && same(a.body, b.body);
}
// Types and nodes are shared pointers: unchanged means the same object.
template <class T>
bool same(const std::shared_ptr<T>& a, const std::shared_ptr<T>& b) {
  return a == b;
}

// Replaces each element of `xs` by `f` of it, noting in `changed` whether one changed.
template <class T, class Fn>
void mutate_each(std::vector<T>& xs, Fn&& f, bool& changed) {
  for (T& x : xs) {
    T y = f(x);
    changed = changed || !same(y, x);
    x = std::move(y);
  }
}

}  // namespace

// ---------------------------------------------------------------- Visitor

void Visitor::visit_expression(const Expression& e) {
  check_stack_depth();
  visit_type(e.dt);
  visit_nat(e.idx);
  visit_nat(e.n);
  for (const arith::Nat& v : e.nats) visit_nat(v);
  for (const rise::NatFun& f : e.funs) visit_fn(f);
  for (const ExpressionP& a : e.args) visit(a);
}

void Visitor::visit_acceptor(const Acceptor& a) {
  check_stack_depth();
  visit_type(a.dt);
  visit_nat(a.idx);
  visit_nat(a.n);
  for (const arith::Nat& v : a.nats) visit_nat(v);
  for (const rise::NatFun& f : a.funs) visit_fn(f);
  for (const Type& t : a.inputs) visit_type(t);
  visit(a.inner);
  visit(a.tmpl);
  visit(a.indices);
}

void Visitor::visit_command(const Command& c) {
  check_stack_depth();
  visit(c.acc);
  visit(c.exp);
  visit_nat(c.n);
  visit_type(c.dt);
  visit_cond(c.cond);
  for (const CommandP& b : c.body) visit(b);
}

void Visitor::visit_cond(const arith::Cond& c) {
  const arith::CondNode& n = c.node();
  if (n.kind == arith::CondKind::Lt || n.kind == arith::CondKind::Le ||
      n.kind == arith::CondKind::Eq) {
    visit_nat(n.a);
    visit_nat(n.b);
  }
  for (const arith::Cond& a : n.args) visit_cond(a);
}

// ---------------------------------------------------------------- Mutator

ExpressionP Mutator::mutate_expression(const ExpressionP& e) {
  Expression n = *e;
  n.dt = mutate_type(e->dt);
  n.idx = mutate_nat(e->idx);
  n.n = mutate_nat(e->n);
  bool changed = n.dt != e->dt || !same(n.idx, e->idx) || !same(n.n, e->n);
  mutate_each(
      n.nats, [&](const arith::Nat& v) { return mutate_nat(v); }, changed);
  mutate_each(
      n.funs, [&](const rise::NatFun& f) { return mutate_fn(f); }, changed);
  mutate_each(
      n.args, [&](const ExpressionP& x) { return mutate(x); }, changed);
  return changed ? ex_make(std::move(n)) : e;
}

AcceptorP Mutator::mutate_acceptor(const AcceptorP& a) {
  Acceptor n = *a;
  n.dt = mutate_type(a->dt);
  n.idx = mutate_nat(a->idx);
  n.n = mutate_nat(a->n);
  n.inner = mutate(a->inner);
  n.tmpl = mutate(a->tmpl);
  n.indices = mutate(a->indices);
  bool changed = n.dt != a->dt || !same(n.idx, a->idx) || !same(n.n, a->n) || n.inner != a->inner ||
                 n.tmpl != a->tmpl || n.indices != a->indices;
  mutate_each(
      n.nats, [&](const arith::Nat& v) { return mutate_nat(v); }, changed);
  mutate_each(
      n.funs, [&](const rise::NatFun& f) { return mutate_fn(f); }, changed);
  mutate_each(
      n.inputs, [&](const Type& t) { return mutate_type(t); }, changed);
  return changed ? ac_make(std::move(n)) : a;
}

CommandP Mutator::mutate_command(const CommandP& c) {
  check_stack_depth();
  Command n = *c;
  n.acc = mutate(c->acc);
  n.exp = mutate(c->exp);
  n.n = mutate_nat(c->n);
  n.dt = mutate_type(c->dt);
  n.cond = mutate_cond(c->cond);
  bool changed = n.acc != c->acc || n.exp != c->exp || !same(n.n, c->n) || n.dt != c->dt ||
                 !same(n.cond, c->cond);
  mutate_each(
      n.body, [&](const CommandP& x) { return mutate(x); }, changed);
  return changed ? std::make_shared<const Command>(std::move(n)) : c;
}

// ---------------------------------------------------------------- substitution

arith::Nat NatSubstituter::mutate_nat(const arith::Nat& n) {
  return arith::substitute(n, s_);
}

arith::Cond NatSubstituter::mutate_cond(const arith::Cond& c) {
  return arith::substitute(c, s_);
}

Type NatSubstituter::mutate_type(const Type& t) {
  if (!t) return t;
  return rise::substitute(t, rise::TypeSubst{s_, {}, {}, {}});
}

rise::NatFun NatSubstituter::mutate_fn(const rise::NatFun& f) {
  if (f.param.empty()) return f;
  arith::Substitution s = s_;
  s.erase(f.param);
  return rise::NatFun{f.param, arith::substitute(f.body, s)};
}

ExpressionP substitute_nat(const ExpressionP& e, const std::string& var, const arith::Nat& value) {
  return NatSubstituter({{var, value}}).mutate(e);
}
AcceptorP substitute_nat(const AcceptorP& a, const std::string& var, const arith::Nat& value) {
  return NatSubstituter({{var, value}}).mutate(a);
}
CommandP substitute_nat(const CommandP& c, const std::string& var, const arith::Nat& value) {
  return NatSubstituter({{var, value}}).mutate(c);
}

ExpressionP substitute_var(const ExpressionP& e, const std::string& var, const ExpressionP& value) {
  struct Replace : Mutator {
    const std::string& var;
    const ExpressionP& value;
    Replace(const std::string& v, const ExpressionP& x) : var(v), value(x) {}
    ExpressionP mutate_expression(const ExpressionP& x) override {
      if (x->kind == Expression::Var && x->name == var) return value;
      return Mutator::mutate_expression(x);
    }
  };
  return Replace(var, value).mutate(e);
}

std::string acceptor_root(const AcceptorP& a) {
  return a->kind == Acceptor::Var ? a->name : acceptor_root(a->inner);
}

}  // namespace risec::dpia
