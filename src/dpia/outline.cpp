// Outlining analysis (see outline.h).
#include "dpia/outline.h"

#include "dpia/traverse.h"

namespace risec::dpia {

namespace {

struct CapturesVisitor : Visitor {
  Captures& u;
  std::set<std::string>& bound;
  CapturesVisitor(Captures& u, std::set<std::string>& b) : u(u), bound(b) {}
  void visit_nat(const arith::Nat& n) override {
    for (const auto& [name, v] : arith::free_vars(n)) u.nats.insert(name);
  }
  // Sizes in a data type: views index through them (a transposed m-column array
  // has row stride m).
  void visit_type(const Type& t) override {
    if (!t) return;
    for (const auto& [name, v] : rise::free_nat_vars(t)) u.nats.insert(name);
  }
  void visit_fn(const rise::NatFun& f) override {
    if (f.param.empty()) return;
    for (const auto& [name, v] : arith::free_vars(f.body))
      if (name != f.param) u.nats.insert(name);
  }
  void visit_expression(const Expression& e) override {
    if (e.kind == Expression::Generate || e.kind == Expression::MapView) {
      // The element variable is bound inside the view.
      Captures inner;
      std::set<std::string> inner_bound;
      CapturesVisitor in(inner, inner_bound);
      in.visit(e.args[0]);
      inner.read.erase(e.name);
      inner.nats.erase(e.name);
      u.read.insert(inner.read.begin(), inner.read.end());
      u.nats.insert(inner.nats.begin(), inner.nats.end());
      for (size_t i = 1; i < e.args.size(); ++i) visit(e.args[i]);
      return;
    }
    if (e.kind == Expression::Var) u.read.insert(e.name);
    Visitor::visit_expression(e);
  }
  void visit_acceptor(const Acceptor& a) override {
    if (a.kind == Acceptor::Var) u.written.insert(a.name);
    Visitor::visit_acceptor(a);
  }
  void visit_command(const Command& c) override {
    if (c.kind == Command::For || c.kind == Command::New) bound.insert(c.var);
    if (c.kind == Command::NewDoubleBuffer) {
      bound.insert(c.var);
      bound.insert(double_buffer_in(c.var));
      bound.insert(double_buffer_out(c.var));
    }
    Visitor::visit_command(c);
  }
};

}  // namespace

Captures captures(const Command& loop) {
  Captures u;
  u.bound.insert(loop.var);
  CapturesVisitor v(u, u.bound);
  v.visit(loop.body[0]);
  return u;
}

}  // namespace risec::dpia
