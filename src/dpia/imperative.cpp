// Imperative DPIA: constructors, printing and the consistency check.
#include "dpia/imperative.h"

#include <sstream>

namespace risec::dpia {

using rise::TypeKind;

ExP ex_make(Ex e) {
  return std::make_shared<const Ex>(std::move(e));
}
AcP ac_make(Ac a) {
  return std::make_shared<const Ac>(std::move(a));
}

ExP ex_var(const std::string& name, Type dt) {
  Ex e{Ex::Var, std::move(dt)};
  e.name = name;
  return ex_make(std::move(e));
}

ExP ex_nat(arith::Nat v, Type dt) {
  Ex e{Ex::Nat, std::move(dt)};
  e.idx = std::move(v);
  return ex_make(std::move(e));
}

AcP ac_var(const std::string& name, Type dt) {
  Ac a{Ac::Var, std::move(dt)};
  a.name = name;
  return ac_make(std::move(a));
}

CmP cm_seq(std::vector<CmP> items) {
  std::vector<CmP> flat;
  for (CmP& c : items) {
    if (!c || c->kind == Cm::Skip) continue;
    if (c->kind == Cm::Seq) {
      flat.insert(flat.end(), c->body.begin(), c->body.end());
    } else {
      flat.push_back(std::move(c));
    }
  }
  if (flat.size() == 1) return flat[0];
  Cm c{Cm::Seq};
  c.body = std::move(flat);
  return std::make_shared<const Cm>(std::move(c));
}

CmP cm_assign(AcP a, ExP e) {
  Cm c{Cm::Assign};
  c.acc = std::move(a);
  c.exp = std::move(e);
  return std::make_shared<const Cm>(std::move(c));
}

CmP cm_for(const std::string& var, arith::Nat n, LoopKind kind, CmP body) {
  Cm c{Cm::For};
  c.var = var;
  c.n = std::move(n);
  c.loop = kind;
  c.body = {std::move(body)};
  return std::make_shared<const Cm>(std::move(c));
}

CmP cm_new(const std::string& var, Type dt, Space space, CmP body) {
  Cm c{Cm::New};
  c.var = var;
  c.dt = std::move(dt);
  c.space = space;
  c.body = {std::move(body)};
  return std::make_shared<const Cm>(std::move(c));
}

CmP cm_comment(const std::string& text) {
  Cm c{Cm::Comment};
  c.text = text;
  return std::make_shared<const Cm>(std::move(c));
}

CmP cm_if(arith::Cond cond, CmP then, CmP orelse) {
  Cm c{Cm::If};
  c.cond = std::move(cond);
  c.body = {std::move(then), std::move(orelse)};
  return std::make_shared<const Cm>(std::move(c));
}

std::string double_buffer_in(const std::string& var) {
  return var + "_in";
}
std::string double_buffer_out(const std::string& var) {
  return var + "_out";
}

ExP ex_idx(const ExP& x, arith::Nat i) {
  if (x->dt->kind != TypeKind::Array) internal_error("DPIA: index into a non-array " + print(x));
  Ex e{Ex::Idx, x->dt->a};
  e.idx = std::move(i);
  e.args = {x};
  return ex_make(std::move(e));
}

ExP ex_fst(const ExP& x) {
  if (x->dt->kind != TypeKind::Pair) internal_error("DPIA: fst of a non-pair " + print(x));
  if (x->kind == Ex::MkPair) return x->args[0];
  Ex e{Ex::Fst, x->dt->a};
  e.args = {x};
  return ex_make(std::move(e));
}

ExP ex_snd(const ExP& x) {
  if (x->dt->kind != TypeKind::Pair) internal_error("DPIA: snd of a non-pair " + print(x));
  if (x->kind == Ex::MkPair) return x->args[1];
  Ex e{Ex::Snd, x->dt->b};
  e.args = {x};
  return ex_make(std::move(e));
}

AcP ac_instantiate(const AcP& tmpl, const AcP& element) {
  if (tmpl->kind == Ac::Hole) return element;
  if (!tmpl->inner) internal_error("DPIA: a map-view template without its element");
  Ac r = *tmpl;
  r.inner = ac_instantiate(tmpl->inner, element);
  return ac_make(std::move(r));
}

AcP ac_idx(const AcP& a, arith::Nat i) {
  if (a->dt->kind != TypeKind::Array) internal_error("DPIA: index into a non-array acceptor");
  if (a->kind == Ac::MapView) return ac_instantiate(a->tmpl, ac_idx(a->inner, std::move(i)));
  Ac r{Ac::Idx, a->dt->a};
  r.idx = std::move(i);
  r.inner = a;
  return ac_make(std::move(r));
}

// ---------------------------------------------------------------- printing

static const char* ex_kind_name(Ex::Kind k) {
  switch (k) {
    case Ex::Var:
      return "var";
    case Ex::Nat:
      return "nat";
    case Ex::Lit:
      return "lit";
    case Ex::Unary:
      return "unary";
    case Ex::Binary:
      return "binary";
    case Ex::Select:
      return "select";
    case Ex::Cast:
      return "cast";
    case Ex::Call:
      return "call";
    case Ex::Idx:
      return "idx";
    case Ex::Split:
      return "split";
    case Ex::Join:
      return "join";
    case Ex::Transpose:
      return "transpose";
    case Ex::Slide:
      return "slide";
    case Ex::Take:
      return "take";
    case Ex::Drop:
      return "drop";
    case Ex::PadCst:
      return "padCst";
    case Ex::PadClamp:
      return "padClamp";
    case Ex::Concat:
      return "concat";
    case Ex::Zip:
      return "zip";
    case Ex::MkPair:
      return "pair";
    case Ex::Fst:
      return "fst";
    case Ex::Snd:
      return "snd";
    case Ex::Generate:
      return "generate";
    case Ex::MapView:
      return "mapRead";
    case Ex::AsVector:
      return "asVector";
    case Ex::AsScalar:
      return "asScalar";
    case Ex::Broadcast:
      return "broadcast";
    case Ex::Gather:
      return "gather";
    case Ex::Reorder:
      return "reorder";
    case Ex::MkArray:
      return "array";
  }
  return "?";
}

std::string print(const ExP& e) {
  switch (e->kind) {
    case Ex::Var:
      return e->name;
    case Ex::Nat:
      return arith::print(e->idx);
    case Ex::Lit:
      if (rise::is_float(e->lit.scalar)) return std::to_string(e->lit.f);
      return std::to_string(e->lit.i);
    case Ex::Idx:
      return print(e->args[0]) + "[" + arith::print(e->idx) + "]";
    case Ex::Unary:
    case Ex::Binary:
    case Ex::Call: {
      std::string s = e->name + "(";
      for (size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : "") + print(e->args[i]);
      return s + ")";
    }
    default: {
      std::string s = ex_kind_name(e->kind);
      if (e->kind == Ex::Generate || e->kind == Ex::MapView)
        s += "(" + e->name + " =>";
      else
        s += "(";
      for (size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : " ") + print(e->args[i]);
      return s + ")";
    }
  }
}

std::string print(const AcP& a) {
  switch (a->kind) {
    case Ac::Var:
      return a->name;
    case Ac::Idx:
      return print(a->inner) + "[" + arith::print(a->idx) + "]";
    case Ac::Split:
      return "splitAcc(" + arith::print(a->n) + ", " + print(a->inner) + ")";
    case Ac::Join:
      return "joinAcc(" + arith::print(a->n) + ", " + print(a->inner) + ")";
    case Ac::Transpose:
      return "transposeAcc(" + print(a->inner) + ")";
    case Ac::Drop:
      return "dropAcc(" + arith::print(a->n) + ", " + print(a->inner) + ")";
    case Ac::Take:
      return "takeAcc(" + arith::print(a->n) + ", " + print(a->inner) + ")";
    case Ac::Zip1:
      return "zipAcc1(" + print(a->inner) + ")";
    case Ac::Zip2:
      return "zipAcc2(" + print(a->inner) + ")";
    case Ac::Pair1:
      return "pairAcc1(" + print(a->inner) + ")";
    case Ac::Pair2:
      return "pairAcc2(" + print(a->inner) + ")";
    case Ac::AsScalar:
      return "asScalarAcc(" + print(a->inner) + ")";
    case Ac::AsVector:
      return "asVectorAcc(" + print(a->inner) + ")";
    case Ac::Reorder:
      return "reorderAcc(" + print(a->inner) + ")";
    case Ac::MapView:
      return "mapAcc(_ => " + print(a->tmpl) + ", " + print(a->inner) + ")";
    case Ac::Hole:
      return "_";
  }
  return "?";
}

std::string print(const CmP& c, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  switch (c->kind) {
    case Cm::Skip:
      return pad + "skip\n";
    case Cm::Seq: {
      std::string s;
      for (const CmP& x : c->body) s += print(x, indent);
      return s;
    }
    case Cm::Assign:
      return pad + print(c->acc) + " := " + print(c->exp) + "\n";
    case Cm::For:
      return pad + loop_kind_name(c->loop) + " " + c->var + " < " + arith::print(c->n) + " {\n" +
             print(c->body[0], indent + 2) + pad + "}\n";
    case Cm::New:
      return pad + "new " + c->var + ": " + rise::print(c->dt) + " (" + space_name(c->space) +
             ") {\n" + print(c->body[0], indent + 2) + pad + "}\n";
    case Cm::NewDoubleBuffer:
      return pad + "newDoubleBuffer " + c->var + ": " + arith::print(c->n) + "." +
             rise::print(c->dt) + " (in " + print(c->exp) + ", out " + print(c->acc) + ") {\n" +
             print(c->body[0], indent + 2) + pad + "}\n";
    case Cm::Swap:
      return pad + "swap(" + c->var + ")\n";
    case Cm::Done:
      return pad + "done(" + c->var + ")\n";
    case Cm::If:
      return pad + "if " + arith::print(c->cond) + " {\n" + print(c->body[0], indent + 2) + pad +
             "} else {\n" + print(c->body[1], indent + 2) + pad + "}\n";
    case Cm::Comment:
      return pad + "// " + c->text + "\n";
    case Cm::Call:
      return pad + print(c->exp) + "\n";
  }
  return pad + "?\n";
}

// ---------------------------------------------------------------- checking

static bool is_storable_leaf(const Type& t) {
  return t->kind == TypeKind::Scalar || t->kind == TypeKind::Vector || t->kind == TypeKind::Index ||
         t->kind == TypeKind::NatData;
}

void check(const CmP& c) {
  switch (c->kind) {
    case Cm::Assign:
      if (!is_storable_leaf(c->acc->dt))
        internal_error("DPIA: assignment of non-scalar data " + rise::print(c->acc->dt) + " to " +
                       print(c->acc));
      if (!rise::equal(c->acc->dt, c->exp->dt) &&
          !(c->acc->dt->kind != TypeKind::Vector && c->exp->dt->kind != TypeKind::Vector &&
            c->acc->dt->kind != TypeKind::Scalar))
        internal_error("DPIA: assignment of " + rise::print(c->exp->dt) + " to an acceptor of " +
                       rise::print(c->acc->dt) + ": " + print(c->acc) + " := " + print(c->exp));
      return;
    default:
      for (const CmP& x : c->body) check(x);
  }
}

}  // namespace risec::dpia
