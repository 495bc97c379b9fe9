// Imperative DPIA passes (see passes.h).
#include "dpia/passes.h"

#include <functional>

namespace risec::dpia {

namespace {

// A variable is also read when it appears in an index (a data-dependent index is
// held in a variable named in Nat terms).
bool nat_mentions(const arith::Nat& n, const std::string& var) {
  return arith::occurs(var, n);
}

bool ex_reads(const ExpressionP& e, const std::string& var) {
  if (e->kind == Expression::Var && e->name == var) return true;
  if (nat_mentions(e->idx, var) || nat_mentions(e->n, var)) return true;
  for (const arith::Nat& n : e->nats)
    if (nat_mentions(n, var)) return true;
  for (const ExpressionP& a : e->args)
    if (ex_reads(a, var)) return true;
  return false;
}

std::string acc_root(const AcceptorP& a) {
  return a->kind == Acceptor::Var ? a->name : acc_root(a->inner);
}

bool ac_reads(const AcceptorP& a, const std::string& var) {
  if (nat_mentions(a->idx, var) || nat_mentions(a->n, var)) return true;
  for (const arith::Nat& n : a->nats)
    if (nat_mentions(n, var)) return true;
  return a->inner && ac_reads(a->inner, var);
}

bool cm_reads(const CommandP& c, const std::string& var) {
  if (c->exp && ex_reads(c->exp, var)) return true;
  if (c->acc && ac_reads(c->acc, var)) return true;
  if (nat_mentions(c->n, var)) return true;
  // Double buffers read through their own names; an acceptor used as a buffer output
  // counts as a read of its memory (the pointer escapes).
  if (c->kind == Command::NewDoubleBuffer && c->acc && acc_root(c->acc) == var) return true;
  for (const CommandP& b : c->body)
    if (cm_reads(b, var)) return true;
  return false;
}

// Drop assignments into `var`; empty loops and sequences disappear.
CommandP drop_writes(const CommandP& c, const std::string& var) {
  switch (c->kind) {
    case Command::Assign:
      return acc_root(c->acc) == var ? nullptr : c;
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
