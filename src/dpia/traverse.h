// One traversal of imperative DPIA. The three node structs (Expression, Acceptor,
// Command) carry phrase children (args; inner, tmpl; exp, acc, body) and "scalar"
// fields that mention size variables (Nat, Cond, Type, NatFun). Every walk over
// imperative DPIA goes through the Visitor or the Mutator below, so which fields a
// node has is written down once: the walks used to list them by hand and disagreed
// (a substitution skipped an If's condition, a breakpoint search a map view's
// template). In the style of Halide's IRVisitor / IRMutator: one virtual per node
// type whose default walks the fields and children, and hooks for the scalar fields,
// so that a Nat substitution is a small override (see NatSubstituter).
#pragma once

#include "dpia/imperative.h"

namespace risec::dpia {

// Read-only walk. Defaults: each node's scalar fields go to the hooks, then its
// children are visited in field order. Overrides call the base method to go on.
class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void visit_expression(const Expression& e);
  virtual void visit_acceptor(const Acceptor& a);
  virtual void visit_command(const Command& c);
  // Hooks for the scalar fields. The default for a Cond visits its Nat operands; the
  // others do nothing. A NatFun binds its parameter (fn.param) in fn.body.
  virtual void visit_nat(const arith::Nat&) {}
  virtual void visit_cond(const arith::Cond& c);
  virtual void visit_type(const Type&) {}
  virtual void visit_fn(const rise::NatFun&) {}

  void visit(const ExpressionP& e) {
    if (e) visit_expression(*e);
  }
  void visit(const AcceptorP& a) {
    if (a) visit_acceptor(*a);
  }
  void visit(const CommandP& c) {
    if (c) visit_command(*c);
  }
};

// Rebuilding walk. Defaults: rebuild the node from its mutated fields and children,
// returning the original node when nothing changed (unchanged subtrees stay shared).
class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual ExpressionP mutate_expression(const ExpressionP& e);
  virtual AcceptorP mutate_acceptor(const AcceptorP& a);
  virtual CommandP mutate_command(const CommandP& c);
  // Hooks for the scalar fields; the defaults return them unchanged.
  virtual arith::Nat mutate_nat(const arith::Nat& n) { return n; }
  virtual arith::Cond mutate_cond(const arith::Cond& c) { return c; }
  virtual Type mutate_type(const Type& t) { return t; }
  virtual rise::NatFun mutate_fn(const rise::NatFun& f) { return f; }

  ExpressionP mutate(const ExpressionP& e) { return e ? mutate_expression(e) : e; }
  AcceptorP mutate(const AcceptorP& a) { return a ? mutate_acceptor(a) : a; }
  CommandP mutate(const CommandP& c) { return c ? mutate_command(c) : c; }
};

// Substitutes size variables in every Nat, Cond, Type and NatFun field (a NatFun's
// own parameter is left alone).
class NatSubstituter : public Mutator {
 public:
  explicit NatSubstituter(arith::Substitution s) : s_(std::move(s)) {}
  arith::Nat mutate_nat(const arith::Nat& n) override;
  arith::Cond mutate_cond(const arith::Cond& c) override;
  Type mutate_type(const Type& t) override;
  rise::NatFun mutate_fn(const rise::NatFun& f) override;

 private:
  arith::Substitution s_;
};

// `var := value` in the size fields of a phrase.
ExpressionP substitute_nat(const ExpressionP& e, const std::string& var, const arith::Nat& value);
AcceptorP substitute_nat(const AcceptorP& a, const std::string& var, const arith::Nat& value);
CommandP substitute_nat(const CommandP& c, const std::string& var, const arith::Nat& value);

// The expression `value` for every occurrence of the variable `var` in `e`.
ExpressionP substitute_var(const ExpressionP& e, const std::string& var, const ExpressionP& value);

// The memory variable an acceptor writes through its chain of views.
std::string acceptor_root(const AcceptorP& a);

}  // namespace risec::dpia
