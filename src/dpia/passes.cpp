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

bool ex_reads(const ExP& e, const std::string& var) {
  if (e->kind == Ex::Var && e->name == var) return true;
  if (nat_mentions(e->idx, var) || nat_mentions(e->n, var) || nat_mentions(e->m, var)) return true;
  for (const ExP& a : e->args)
    if (ex_reads(a, var)) return true;
  return false;
}

std::string acc_root(const AcP& a) {
  return a->kind == Ac::Var ? a->name : acc_root(a->inner);
}

bool ac_reads(const AcP& a, const std::string& var) {
  if (nat_mentions(a->idx, var) || nat_mentions(a->n, var)) return true;
  return a->inner && ac_reads(a->inner, var);
}

bool cm_reads(const CmP& c, const std::string& var) {
  if (c->exp && ex_reads(c->exp, var)) return true;
  if (c->acc && ac_reads(c->acc, var)) return true;
  if (nat_mentions(c->n, var)) return true;
  // Double buffers read through their own names; an acceptor used as a buffer output
  // counts as a read of its memory (the pointer escapes).
  if (c->kind == Cm::NewDoubleBuffer && c->acc && acc_root(c->acc) == var) return true;
  for (const CmP& b : c->body)
    if (cm_reads(b, var)) return true;
  return false;
}

// Drop assignments into `var`; empty loops and sequences disappear.
CmP drop_writes(const CmP& c, const std::string& var) {
  switch (c->kind) {
    case Cm::Assign:
      return acc_root(c->acc) == var ? nullptr : c;
    case Cm::Seq: {
      std::vector<CmP> items;
      for (const CmP& b : c->body)
        if (CmP x = drop_writes(b, var)) items.push_back(x);
      if (items.empty()) return nullptr;
      return cm_seq(std::move(items));
    }
    case Cm::For:
    case Cm::New: {
      CmP b = drop_writes(c->body[0], var);
      if (!b) return nullptr;
      Cm n = *c;
      n.body = {b};
      return std::make_shared<const Cm>(std::move(n));
    }
    default:
      return c;
  }
}

}  // namespace

CmP remove_dead_temporaries(const CmP& c) {
  Cm n = *c;
  for (CmP& b : n.body)
    if (b) b = remove_dead_temporaries(b);
  CmP r = std::make_shared<const Cm>(std::move(n));
  if (r->kind == Cm::New && !cm_reads(r->body[0], r->var)) {
    CmP body = drop_writes(r->body[0], r->var);
    return body ? body : cm_seq({});
  }
  return r;
}

}  // namespace risec::dpia
