// Imperative DPIA: constructors, printing and the consistency check.
#include "dpia/imperative.h"
#include "support/stack.h"

#include <sstream>

namespace risec::dpia {

using rise::TypeKind;

ExpressionP ex_make(Expression e) {
  return std::make_shared<const Expression>(std::move(e));
}
AcceptorP ac_make(Acceptor a) {
  return std::make_shared<const Acceptor>(std::move(a));
}

ExpressionP ex_var(const std::string& name, Type dt) {
  Expression e{Expression::Var, std::move(dt)};
  e.name = name;
  return ex_make(std::move(e));
}

ExpressionP ex_nat(arith::Nat v, Type dt) {
  Expression e{Expression::Nat, std::move(dt)};
  e.idx = std::move(v);
  return ex_make(std::move(e));
}

AcceptorP ac_var(const std::string& name, Type dt) {
  Acceptor a{Acceptor::Var, std::move(dt)};
  a.name = name;
  return ac_make(std::move(a));
}

CommandP cm_seq(std::vector<CommandP> items) {
  std::vector<CommandP> flat;
  for (CommandP& c : items) {
    if (!c || c->kind == Command::Skip) continue;
    if (c->kind == Command::Seq) {
      flat.insert(flat.end(), c->body.begin(), c->body.end());
    } else {
      flat.push_back(std::move(c));
    }
  }
  if (flat.size() == 1) return flat[0];
  Command c{Command::Seq};
  c.body = std::move(flat);
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_assign(AcceptorP a, ExpressionP e) {
  Command c{Command::Assign};
  c.acc = std::move(a);
  c.exp = std::move(e);
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_for(const std::string& var, arith::Nat n, LoopKind kind, CommandP body, int dim) {
  Command c{Command::For};
  c.dim = dim;
  c.var = var;
  c.n = std::move(n);
  c.loop = kind;
  c.body = {std::move(body)};
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_new(const std::string& var, Type dt, Space space, CommandP body) {
  Command c{Command::New};
  c.var = var;
  c.dt = std::move(dt);
  c.space = space;
  c.body = {std::move(body)};
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_new_table(const std::string& var, Type dt,
                      std::shared_ptr<const std::vector<rise::Literal>> table, CommandP body) {
  Command c{Command::New};
  c.var = var;
  c.dt = std::move(dt);
  c.table = std::move(table);
  c.body = {std::move(body)};
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_for_exiting(const std::string& var, arith::Nat n, CommandP body) {
  Command c{Command::For};
  c.var = var;
  c.n = std::move(n);
  c.loop = LoopKind::Seq;
  c.exits = true;
  c.body = {std::move(body)};
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_break() {
  return std::make_shared<const Command>(Command{Command::Break});
}

CommandP cm_comment(const std::string& text) {
  Command c{Command::Comment};
  c.text = text;
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_if(arith::Cond cond, CommandP then, CommandP orelse) {
  Command c{Command::If};
  c.cond = std::move(cond);
  c.body = {std::move(then), std::move(orelse)};
  return std::make_shared<const Command>(std::move(c));
}

CommandP cm_if(ExpressionP cond, CommandP then, CommandP orelse) {
  Command c{Command::If};
  c.exp = std::move(cond);
  c.body = {std::move(then), std::move(orelse)};
  return std::make_shared<const Command>(std::move(c));
}

std::string double_buffer_in(const std::string& var) {
  return var + "_in";
}
std::string double_buffer_out(const std::string& var) {
  return var + "_out";
}

ExpressionP ex_idx(const ExpressionP& x, arith::Nat i) {
  if (x->dt->kind != TypeKind::Array) internal_error("DPIA: index into a non-array " + print(x));
  Expression e{Expression::Idx, x->dt->a};
  e.idx = std::move(i);
  e.args = {x};
  return ex_make(std::move(e));
}

ExpressionP ex_fst(const ExpressionP& x) {
  if (x->dt->kind != TypeKind::Pair) internal_error("DPIA: fst of a non-pair " + print(x));
  if (x->kind == Expression::MkPair) return x->args[0];
  Expression e{Expression::Fst, x->dt->a};
  e.args = {x};
  return ex_make(std::move(e));
}

ExpressionP ex_snd(const ExpressionP& x) {
  if (x->dt->kind != TypeKind::Pair) internal_error("DPIA: snd of a non-pair " + print(x));
  if (x->kind == Expression::MkPair) return x->args[1];
  Expression e{Expression::Snd, x->dt->b};
  e.args = {x};
  return ex_make(std::move(e));
}

AcceptorP ac_instantiate(const AcceptorP& tmpl, const AcceptorP& element) {
  if (tmpl->kind == Acceptor::Hole) return element;
  if (!tmpl->inner) internal_error("DPIA: a map-view template without its element");
  Acceptor r = *tmpl;
  r.inner = ac_instantiate(tmpl->inner, element);
  return ac_make(std::move(r));
}

AcceptorP ac_idx(const AcceptorP& a, arith::Nat i) {
  if (a->dt->kind != TypeKind::Array) internal_error("DPIA: index into a non-array acceptor");
  if (a->kind == Acceptor::MapView) return ac_instantiate(a->tmpl, ac_idx(a->inner, std::move(i)));
  Acceptor r{Acceptor::Idx, a->dt->a};
  r.idx = std::move(i);
  r.inner = a;
  return ac_make(std::move(r));
}

ExpressionP ex_view(const rise::PrimitiveInfo& prim, Type dt, std::vector<arith::Nat> nats,
                    std::vector<rise::NatFun> funs, std::vector<ExpressionP> args) {
  if (!prim.read) internal_error("DPIA: " + prim.name + " has no read map");
  Expression e{Expression::View, std::move(dt)};
  e.prim = &prim;
  e.nats = std::move(nats);
  e.funs = std::move(funs);
  e.args = std::move(args);
  return ex_make(std::move(e));
}

AcceptorP ac_scatter(const AcceptorP& inner, ExpressionP indices, Type x_type) {
  Acceptor a{Acceptor::Scatter, std::move(x_type)};
  a.inner = inner;
  a.indices = std::move(indices);
  return ac_make(std::move(a));
}

AcceptorP ac_view(const rise::PrimitiveInfo& prim, int input, std::vector<Type> inputs,
                  std::vector<arith::Nat> nats, std::vector<rise::NatFun> funs,
                  const AcceptorP& inner) {
  if (!prim.write) internal_error("DPIA: " + prim.name + " has no write map");
  Acceptor a{Acceptor::View, inputs.at(static_cast<size_t>(input))};
  a.prim = &prim;
  a.input = input;
  a.inputs = std::move(inputs);
  a.nats = std::move(nats);
  a.funs = std::move(funs);
  a.inner = inner;
  return ac_make(std::move(a));
}

// ---------------------------------------------------------------- printing

// DPIA node kinds (some are named as the primitives they come from)
// prim-names: off
static const char* ex_kind_name(Expression::Kind k) {
  switch (k) {
    case Expression::Var:
      return "var";
    case Expression::Nat:
      return "nat";
    case Expression::Lit:
      return "lit";
    case Expression::Unary:
      return "unary";
    case Expression::Binary:
      return "binary";
    case Expression::Select:
      return "select";
    case Expression::Cast:
      return "cast";
    case Expression::Call:
      return "call";
    case Expression::View:
      return "view";
    case Expression::Idx:
      return "idx";
    case Expression::MkPair:
      return "pair";
    case Expression::Fst:
      return "fst";
    case Expression::Snd:
      return "snd";
    case Expression::Generate:
      return "generate";
    case Expression::MapView:
      return "mapRead";
    case Expression::AsVector:
      return "asVector";
    case Expression::Broadcast:
      return "broadcast";
    case Expression::Gather:
      return "gather";
    case Expression::MkArray:
      return "array";
  }
  return "?";
}
// prim-names: on

std::string print(const ExpressionP& e) {
  switch (e->kind) {
    case Expression::Var:
      return e->name;
    case Expression::Nat:
      return arith::print(e->idx);
    case Expression::Lit:
      if (rise::is_float(e->lit.scalar)) return std::to_string(e->lit.f);
      return std::to_string(e->lit.i);
    case Expression::Idx:
      return print(e->args[0]) + "[" + arith::print(e->idx) + "]";
    case Expression::Unary:
    case Expression::Binary:
    case Expression::Call: {
      std::string s = (e->prim ? e->prim->name : e->name) + "(";
      for (size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : "") + print(e->args[i]);
      return s + ")";
    }
    default: {
      std::string s = ex_kind_name(e->kind);
      if (e->kind == Expression::View) s = e->prim->name;
      if (e->kind == Expression::Generate || e->kind == Expression::MapView) {
        s += "(" + e->name + " =>";
      } else {
        s += "(";
        for (const arith::Nat& n : e->nats) s += arith::print(n) + ", ";
      }
      for (size_t i = 0; i < e->args.size(); ++i) s += (i ? ", " : " ") + print(e->args[i]);
      return s + ")";
    }
  }
}

std::string print(const AcceptorP& a) {
  switch (a->kind) {
    case Acceptor::Var:
      return a->name;
    case Acceptor::Idx:
      return print(a->inner) + "[" + arith::print(a->idx) + "]";
    case Acceptor::View: {
      std::string s = a->prim->name + "Acc" + std::to_string(a->input + 1) + "(";
      for (const arith::Nat& n : a->nats) s += arith::print(n) + ", ";
      return s + print(a->inner) + ")";
    }
    case Acceptor::Pair1:
      return "pairAcc1(" + print(a->inner) + ")";
    case Acceptor::Pair2:
      return "pairAcc2(" + print(a->inner) + ")";
    case Acceptor::AsVector:
      return "asVectorAcc(" + print(a->inner) + ")";
    case Acceptor::MapView:
      return "mapAcc(_ => " + print(a->tmpl) + ", " + print(a->inner) + ")";
    case Acceptor::Hole:
      return "_";
    case Acceptor::Scatter:
      return "scatterAcc(" + print(a->indices) + ", " + print(a->inner) + ")";
  }
  return "?";
}

// Appends to one string: returning and concatenating each block's text would copy
// the inner blocks once per level (quadratic in the nesting of long programs).
static void print_into(std::string& out, const CommandP& c, int indent, bool located) {
  check_stack_depth();
  auto pad = [&] { out.append(static_cast<size_t>(indent), ' '); };
  auto block = [&](const CommandP& body) {
    out += " {\n";
    print_into(out, body, indent + 2, located);
    pad();
    out += "}";
  };
  if (c->kind == Command::Seq) {
    for (const CommandP& x : c->body) print_into(out, x, indent, located);
    return;
  }
  pad();
  switch (c->kind) {
    case Command::Seq:
      break;
    case Command::Skip:
      out += "skip";
      break;
    case Command::Assign:
      out += print(c->acc) + " := " + print(c->exp);
      break;
    case Command::For:
      out += std::string(loop_kind_name(c->loop));
      if (is_gpu_loop(c->loop)) out += "(" + std::to_string(c->dim) + ")";
      if (!c->schedule.is_default()) out += " schedule(" + rise::schedule_text(c->schedule) + ")";
      if (c->prefetch) out += " prefetch(" + std::to_string(c->prefetch) + ")";
      out += " " + c->var + " < " + arith::print(c->n);
      if (c->exits) out += " (exits)";
      if (located && c->span.known()) {
        // `// at FILE:L:C` ends the loop's line, after the block's opening brace.
        std::string body;
        print_into(body, c->body[0], indent + 2, located);
        out += " {  // at " + location(c->span) + "\n" + body;
        pad();
        out += "}";
        break;
      }
      block(c->body[0]);
      break;
    case Command::New:
      out += "new " + c->var + ": " + rise::print(c->dt) + " (" + space_name(c->space) + ")";
      block(c->body[0]);
      break;
    case Command::NewDoubleBuffer:
      out += "newDoubleBuffer " + c->var + ": " + arith::print(c->n) + "." + rise::print(c->dt) +
             " (in " + print(c->exp) + ", out " + print(c->acc) + ")";
      block(c->body[0]);
      break;
    case Command::Swap:
      out += "swap(" + c->var + ")";
      break;
    case Command::Done:
      out += "done(" + c->var + ")";
      break;
    case Command::If:
      out += "if " + (c->exp ? print(c->exp) : arith::print(c->cond));
      block(c->body[0]);
      out += " else";
      block(c->body[1]);
      break;
    case Command::Comment:
      out += "// " + c->text;
      break;
    case Command::Break:
      out += "break";
      break;
    case Command::Call:
      out += print(c->exp);
      break;
    case Command::Block:
      out += "{\n";
      print_into(out, c->body[0], indent + 2, located);
      pad();
      out += "}";
      break;
  }
  out += "\n";
}

std::string print(const CommandP& c, int indent) {
  std::string out;
  print_into(out, c, indent, false);
  return out;
}

std::string print_located(const CommandP& c) {
  std::string out;
  print_into(out, c, 0, true);
  return out;
}

// ---------------------------------------------------------------- checking

static bool is_storable_leaf(const Type& t) {
  return t->kind == TypeKind::Scalar || t->kind == TypeKind::Vector || t->kind == TypeKind::Index ||
         t->kind == TypeKind::NatData;
}

void check(const CommandP& c) {
  switch (c->kind) {
    case Command::Assign:
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
      for (const CommandP& x : c->body) check(x);
  }
}

}  // namespace risec::dpia
