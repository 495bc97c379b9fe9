// Values provably never NaN (see not_nan.h).
#include "dpia/not_nan.h"

#include <cmath>
#include <utility>
#include <vector>

#include "dpia/traverse.h"

namespace risec::dpia {

using rise::TypeKind;

namespace {

// The key of a scalar or vector local read as a variable or a pair component of one
// ("acc", "acc.2"); empty for other expressions.
std::string read_key(const Expression& e) {
  if (e.kind == Expression::Var) return e.name;
  if ((e.kind == Expression::Fst || e.kind == Expression::Snd) && e.args.size() == 1) {
    std::string inner = read_key(*e.args[0]);
    if (!inner.empty()) return inner + (e.kind == Expression::Fst ? ".1" : ".2");
  }
  return "";
}

// The same for a destination: a variable or a pair component of one.
std::string write_key(const Acceptor& a) {
  if (a.kind == Acceptor::Var) return a.name;
  if ((a.kind == Acceptor::Pair1 || a.kind == Acceptor::Pair2) && a.inner) {
    std::string inner = write_key(*a.inner);
    if (!inner.empty()) return inner + (a.kind == Acceptor::Pair1 ? ".1" : ".2");
  }
  return "";
}

// The variable a destination writes, through any views; empty for a MapView hole.
std::string root_of(const Acceptor& a) {
  if (a.kind == Acceptor::Var) return a.name;
  return a.inner ? root_of(*a.inner) : "";
}

bool scalar_or_vector(const Type& t) {
  return t && (t->kind == TypeKind::Scalar || t->kind == TypeKind::Vector);
}

bool is_float_data(const Type& t) {
  if (!t) return true;
  if (t->kind == TypeKind::Scalar) return rise::is_float(t->scalar);
  if (t->kind == TypeKind::Vector && t->a && t->a->kind == TypeKind::Scalar)
    return rise::is_float(t->a->scalar);
  return true;
}

// The locals, their plain assignments, and the variables written any other way.
struct Writes : Visitor {
  std::set<std::string> locals;
  std::set<std::string> spoiled;
  std::vector<std::pair<std::string, ExpressionP>> assigns;  // key := value

  void visit_command(const Command& c) override {
    if (c.kind == Command::New && !c.table) locals.insert(c.var);
    if (c.kind == Command::For && c.reduction) spoiled.insert(c.reduction_var);
    if (c.kind == Command::Assign && c.acc) {
      std::string key = write_key(*c.acc);
      if (!key.empty() && scalar_or_vector(c.acc->dt)) {
        assigns.emplace_back(key, c.exp);
        visit(c.exp);
        return;
      }
    }
    Visitor::visit_command(c);
  }
  void visit_acceptor(const Acceptor& a) override {
    std::string root = root_of(a);
    if (!root.empty()) spoiled.insert(root);
    Visitor::visit_acceptor(a);
  }
};

// The local a key belongs to ("acc" of "acc.2.1").
std::string key_root(const std::string& key) {
  return key.substr(0, key.find('.'));
}

}  // namespace

NotNan::NotNan(const CommandP& program) {
  Writes w;
  w.visit(program);
  for (const auto& [key, value] : w.assigns) {
    const std::string root = key_root(key);
    if (w.locals.count(root) && !w.spoiled.count(root)) vars_.insert(key);
  }
  // The greatest fixed point: drop a key while one of its assignments may be NaN.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [key, value] : w.assigns)
      if (vars_.count(key) && !(value && provable(*value))) {
        vars_.erase(key);
        changed = true;
      }
  }
}

bool NotNan::provable(const Expression& e) const {
  if (!is_float_data(e.dt)) return true;
  switch (e.kind) {
    case Expression::Nat:
      return true;
    case Expression::Lit:
      return !std::isnan(e.lit.f);
    case Expression::Var:
    case Expression::Fst:
    case Expression::Snd: {
      std::string key = read_key(e);
      return !key.empty() && vars_.count(key);
    }
    case Expression::Call:
      return operand(e) >= 0;
    case Expression::Unary:  // -x (not: a bool)
      return e.prim && e.prim->is(rise::PrimId::Neg) && e.args.size() == 1 && provable(*e.args[0]);
    case Expression::Broadcast:
    case Expression::Cast:
      return e.args.size() == 1 && provable(*e.args[0]);
    case Expression::Select:
      return e.args.size() == 3 && provable(*e.args[1]) && provable(*e.args[2]);
    case Expression::View:  // one lane of a vector never NaN (a vectorised max's lanes)
      return e.prim && e.prim->is(rise::PrimId::Lane) && e.args.size() == 1 && provable(*e.args[0]);
    default:
      return false;
  }
}

int NotNan::operand(const Expression& call) const {
  if (call.kind != Expression::Call || call.foreign || !call.prim || call.args.size() != 2 ||
      !(call.prim->is(rise::PrimId::Fmax) || call.prim->is(rise::PrimId::Fmin)))
    return -1;
  for (int i = 0; i < 2; ++i)
    if (provable(*call.args[static_cast<size_t>(i)])) return i;
  return -1;
}

}  // namespace risec::dpia
