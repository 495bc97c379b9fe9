// One supply of names per generated function (see name_supply.h).
#include "dpia/name_supply.h"

#include "dpia/traverse.h"
#include "rise/type.h"
#include "support/stack.h"

namespace risec::dpia {

std::string NameSupply::fresh(const std::string& base, const std::vector<std::string>& suffixes) {
  for (;;) {
    std::string name = base + std::to_string(++counter_);
    bool free = !taken(name);
    for (const std::string& s : suffixes) free = free && !taken(name + s);
    if (!free) continue;
    reserve(name);
    for (const std::string& s : suffixes) reserve(name + s);
    return name;
  }
}

std::string NameSupply::claim(const std::string& name) {
  if (taken(name)) return fresh(name + "_");
  reserve(name);
  return name;
}

namespace {

void reserve_nat(NameSupply& s, const arith::Nat& n) {
  for (const auto& [name, v] : arith::free_vars(n)) s.reserve(name);
}

void reserve_type(NameSupply& s, const Type& t) {
  if (!t) return;
  for (const auto& [name, v] : rise::free_nat_vars(t)) s.reserve(name);
}

void reserve_targ(NameSupply& s, const rise::TypeArg& a) {
  if (const auto* n = std::get_if<arith::Nat>(&a)) reserve_nat(s, *n);
  if (const auto* t = std::get_if<Type>(&a)) reserve_type(s, *t);
  if (const auto* f = std::get_if<rise::NatFun>(&a)) {
    s.reserve(f->param);
    reserve_nat(s, f->body);
  }
}

struct ReserveNames : Visitor {
  NameSupply& s;
  explicit ReserveNames(NameSupply& supply) : s(supply) {}
  void visit_expression(const Expression& e) override {
    if (!e.name.empty()) s.reserve(e.name);
    Visitor::visit_expression(e);
  }
  void visit_acceptor(const Acceptor& a) override {
    if (!a.name.empty()) s.reserve(a.name);
    Visitor::visit_acceptor(a);
  }
  void visit_command(const Command& c) override {
    if (!c.var.empty()) {
      s.reserve(c.var);
      s.reserve(double_buffer_in(c.var));
      s.reserve(double_buffer_out(c.var));
    }
    if (!c.reduction_var.empty()) s.reserve(c.reduction_var);
    Visitor::visit_command(c);
  }
  void visit_nat(const arith::Nat& n) override { reserve_nat(s, n); }
  void visit_type(const Type& t) override { reserve_type(s, t); }
  void visit_fn(const rise::NatFun& f) override {
    s.reserve(f.param);
    reserve_nat(s, f.body);
  }
};

}  // namespace

void reserve_names(NameSupply& s, const rise::Expr& e) {
  if (!e) return;
  check_stack_depth(e->span);
  if (!e->name.empty()) s.reserve(e->name);
  reserve_type(s, e->type);
  reserve_type(s, e->annot);
  if (e->kind == rise::ExprKind::DepApp) reserve_targ(s, e->type_arg);
  if (e->kind == rise::ExprKind::Literal) {
    reserve_nat(s, e->lit.nat);
    reserve_nat(s, e->lit.size);
  }
  reserve_names(s, e->fn);
  reserve_names(s, e->arg);
}

void reserve_names(NameSupply& s, const Phrase& p) {
  if (!p) return;
  check_stack_depth(p->span);
  if (!p->name.empty()) s.reserve(p->name);
  if (!p->display.empty()) s.reserve(p->display);
  reserve_type(s, p->type);
  for (const rise::TypeArg& a : p->targs) reserve_targ(s, a);
  if (p->kind == PhraseNode::Literal) {
    reserve_nat(s, p->lit.nat);
    reserve_nat(s, p->lit.size);
  }
  for (const Phrase& a : p->args) reserve_names(s, a);
}

void reserve_names(NameSupply& s, const CommandP& c) {
  ReserveNames(s).visit(c);
}

}  // namespace risec::dpia
