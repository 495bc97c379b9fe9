// Imperative DPIA passes (see passes.h).
#include "dpia/passes.h"

#include <algorithm>
#include <unordered_map>

#include "dpia/traverse.h"

namespace risec::dpia {

namespace {

// Counts the reads of every variable in what it visits, adding `sign` for each: as a
// memory variable, in an index (a data-dependent index is held in a variable named
// in Nat terms), or as a double buffer's output (an acceptor used as a buffer output
// counts as a read of its memory: the pointer escapes).
struct CountReads : Visitor {
  std::unordered_map<std::string, int64_t>& reads;
  int sign;
  CountReads(std::unordered_map<std::string, int64_t>& r, int s) : reads(r), sign(s) {}
  void visit_nat(const arith::Nat& n) override {
    for (const auto& [name, v] : arith::free_vars(n)) reads[name] += sign;
  }
  void visit_expression(const Expression& e) override {
    if (e.kind == Expression::Var) reads[e.name] += sign;
    Visitor::visit_expression(e);
  }
  void visit_command(const Command& c) override {
    if (c.kind == Command::NewDoubleBuffer && c.acc) reads[acceptor_root(c.acc)] += sign;
    Visitor::visit_command(c);
  }
};

bool is_empty(const CommandP& c) {
  return c->kind == Command::Skip || (c->kind == Command::Seq && c->body.empty());
}

// Drops the assignments into `var`, wherever they are (in loops, scopes, branches);
// a loop, scope, allocation or conditional left with nothing to do disappears. The
// reads of what is dropped are taken off the counts.
struct DropWrites : Mutator {
  const std::string& var;
  CountReads uncount;
  DropWrites(const std::string& v, std::unordered_map<std::string, int64_t>& reads)
      : var(v), uncount(reads, -1) {}
  CommandP dropped(const CommandP& c) {
    uncount.visit(c);
    return cm_seq({});
  }
  CommandP mutate_command(const CommandP& c) override {
    if (c->kind == Command::Assign && acceptor_root(c->acc) == var) return dropped(c);
    CommandP r = Mutator::mutate_command(c);
    if (r->kind == Command::Seq) return cm_seq(r->body);
    bool container = r->kind == Command::For || r->kind == Command::New ||
                     r->kind == Command::Block || r->kind == Command::If;
    if (container && !r->body.empty() &&
        std::all_of(r->body.begin(), r->body.end(),
                    [](const CommandP& b) { return !b || is_empty(b); }))
      return dropped(r);
    return r;
  }
};

// Bottom-up: inner temporaries first, so an outer one read only by a dead inner one
// is dead too. The reads of every variable are counted once, over the whole program,
// and kept up to date as writes are dropped: asking each temporary's body whether it
// reads the temporary made the pass quadratic in the nesting of temporaries (a chain
// of 2,000 maps). Temporaries have unique names; a name read anywhere else keeps its
// temporary, which is safe.
struct RemoveDeadTemporaries : Mutator {
  std::unordered_map<std::string, int64_t> reads;
  CommandP mutate_command(const CommandP& c) override {
    CommandP r = Mutator::mutate_command(c);
    if (r->kind != Command::New) return r;
    auto it = reads.find(r->var);
    if (it != reads.end() && it->second > 0) return r;
    return DropWrites(r->var, reads).mutate(r->body[0]);
  }
};

}  // namespace

CommandP remove_dead_temporaries(const CommandP& c) {
  RemoveDeadTemporaries pass;
  CountReads(pass.reads, 1).visit(c);
  return pass.mutate(c);
}

}  // namespace risec::dpia
