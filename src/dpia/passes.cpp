// Imperative DPIA passes (see passes.h).
#include "dpia/passes.h"

#include <algorithm>

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

bool is_empty(const CommandP& c) {
  return c->kind == Command::Skip || (c->kind == Command::Seq && c->body.empty());
}

// Drops the assignments into `var`, wherever they are (in loops, scopes, branches);
// a loop, scope, allocation or conditional left with nothing to do disappears.
struct DropWrites : Mutator {
  const std::string& var;
  explicit DropWrites(const std::string& v) : var(v) {}
  CommandP mutate_command(const CommandP& c) override {
    if (c->kind == Command::Assign && acceptor_root(c->acc) == var) return cm_seq({});
    CommandP r = Mutator::mutate_command(c);
    if (r->kind == Command::Seq) return cm_seq(r->body);
    bool container = r->kind == Command::For || r->kind == Command::New ||
                     r->kind == Command::Block || r->kind == Command::If;
    if (container && !r->body.empty() &&
        std::all_of(r->body.begin(), r->body.end(),
                    [](const CommandP& b) { return !b || is_empty(b); }))
      return cm_seq({});
    return r;
  }
};

// Bottom-up: inner temporaries first, so an outer one read only by a dead inner one
// is dead too.
struct RemoveDeadTemporaries : Mutator {
  CommandP mutate_command(const CommandP& c) override {
    CommandP r = Mutator::mutate_command(c);
    if (r->kind != Command::New || cm_reads(r->body[0], r->var)) return r;
    return DropWrites(r->var).mutate(r->body[0]);
  }
};

}  // namespace

CommandP remove_dead_temporaries(const CommandP& c) {
  return RemoveDeadTemporaries().mutate(c);
}

}  // namespace risec::dpia
