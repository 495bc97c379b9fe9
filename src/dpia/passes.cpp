// Imperative DPIA passes (see passes.h).
#include "dpia/passes.h"

#include "dpia/traverse.h"

namespace risec::dpia {

namespace {

// Whether a command reads `var`: as a memory variable, in an index (a data-dependent
// index is held in a variable named in Nat terms), or as a double buffer's output
// (an acceptor used as a buffer output counts as a read of its memory: the pointer
// escapes).
struct Reads : Visitor {
  const std::string& var;
  bool found = false;
  explicit Reads(const std::string& v) : var(v) {}
  void visit_nat(const arith::Nat& n) override { found = found || arith::occurs(var, n); }
  void visit_expression(const Expression& e) override {
    if (e.kind == Expression::Var && e.name == var) found = true;
    Visitor::visit_expression(e);
  }
  void visit_command(const Command& c) override {
    if (c.kind == Command::NewDoubleBuffer && c.acc && acceptor_root(c.acc) == var) found = true;
    Visitor::visit_command(c);
  }
};

bool cm_reads(const CommandP& c, const std::string& var) {
  Reads r(var);
  r.visit(c);
  return r.found;
}

// Drop assignments into `var`; empty loops and sequences disappear.
CommandP drop_writes(const CommandP& c, const std::string& var) {
  switch (c->kind) {
    case Command::Assign:
      return acceptor_root(c->acc) == var ? nullptr : c;
    case Command::Seq: {
      std::vector<CommandP> items;
      for (const CommandP& b : c->body)
        if (CommandP x = drop_writes(b, var)) items.push_back(x);
      if (items.empty()) return nullptr;
      return cm_seq(std::move(items));
    }
    case Command::For:
    case Command::New: {
      CommandP b = drop_writes(c->body[0], var);
      if (!b) return nullptr;
      Command n = *c;
      n.body = {b};
      return std::make_shared<const Command>(std::move(n));
    }
    default:
      return c;
  }
}

}  // namespace

CommandP remove_dead_temporaries(const CommandP& c) {
  Command n = *c;
  for (CommandP& b : n.body)
    if (b) b = remove_dead_temporaries(b);
  CommandP r = std::make_shared<const Command>(std::move(n));
  if (r->kind == Command::New && !cm_reads(r->body[0], r->var)) {
    CommandP body = drop_writes(r->body[0], r->var);
    return body ? body : cm_seq({});
  }
  return r;
}

}  // namespace risec::dpia
