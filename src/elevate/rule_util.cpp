// Helpers shared by the rule families and the normal forms (see rule_util.h).
#include "elevate/rule_util.h"

#include <algorithm>
#include <set>

#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::elevate::util {

using rise::PrimId;

using rise::ExprKind;
using rise::ExprNode;
using rise::Kind;
using rise::TypeKind;

namespace {

bool is_ident_named(const Expr& e, const std::string& x) {
  return e->kind == ExprKind::Ident && e->name == x;
}

}  // namespace

// ---------------------------------------------------------------- matching

std::optional<Nat> PrimCall::dep_nat(size_t i) const {
  if (i >= deps.size()) return std::nullopt;
  if (auto n = std::get_if<Nat>(&deps[i])) return *n;
  return std::nullopt;
}

rise::PrimId PrimCall::id() const {
  if (!head->prim) internal_error("a primitive node without its table row", head->span);
  return head->prim->id;
}

std::optional<PrimCall> as_prim_call(const Expr& e) {
  if (!e) return std::nullopt;
  rise::Spine sp = rise::spine(e);
  if (sp.head->kind != ExprKind::Primitive) return std::nullopt;
  PrimCall c;
  c.head = sp.head;
  for (const auto& a : sp.args) {
    if (a.dep) {
      if (!c.args.empty()) return std::nullopt;  // dependent arguments come first
      c.deps.push_back(a.type_arg);
    } else {
      c.args.push_back(a.value);
    }
  }
  return c;
}

std::optional<PrimCall> match_prim(const Expr& e, rise::PrimId id, size_t nargs) {
  auto c = as_prim_call(e);
  if (!c || !c->is(id) || c->args.size() != nargs) return std::nullopt;
  if (c->head->prim && static_cast<int>(c->deps.size()) != c->head->prim->dep_arity)
    return std::nullopt;
  return c;
}

std::optional<std::pair<Expr, Expr>> match_map(const Expr& e) {
  auto c = match_prim(e, PrimId::Map, 2);
  if (!c) return std::nullopt;
  return std::make_pair(c->args[0], c->args[1]);
}

std::optional<Expr> match_map_fn(const Expr& f) {
  if (auto c = match_prim(eta_reduced(f), PrimId::Map, 1)) return c->args[0];
  return std::nullopt;
}

std::optional<PrimCall> match_unary_fn(const Expr& f) {
  auto c = as_prim_call(eta_reduced(f));
  if (!c || !c->head->prim || c->head->prim->is(rise::PrimId::MakeArray)) return std::nullopt;
  const rise::PrimitiveInfo& p = *c->head->prim;
  if (static_cast<int>(c->deps.size()) != p.dep_arity) return std::nullopt;
  if (static_cast<int>(c->args.size()) + 1 != p.arity) return std::nullopt;
  return c;
}

std::optional<double> literal_value(const Expr& e) {
  if (e->kind == ExprKind::Literal) {
    const rise::Literal& l = e->lit;
    if (l.kind == rise::LitKind::Int) return static_cast<double>(l.i);
    if (l.kind == rise::LitKind::Scalar)
      return rise::is_float(l.scalar) ? l.f : static_cast<double>(l.i);
    return std::nullopt;
  }
  if (auto c = match_prim(e, PrimId::Cast, 1)) return literal_value(c->args[0]);
  return std::nullopt;
}

std::optional<BinaryOp> match_binary_op(const Expr& op) {
  Expr g = eta_reduced(op);
  if (g->kind == ExprKind::Primitive) return BinaryOp{g->prim, false};
  if (op->kind != ExprKind::Lambda || op->fn->kind != ExprKind::Lambda) return std::nullopt;
  const std::string& a = op->name;
  const std::string& b = op->fn->name;
  if (a == b) return std::nullopt;
  const Expr& body = op->fn->fn;
  if (body->kind != ExprKind::App || body->fn->kind != ExprKind::App) return std::nullopt;
  const Expr& head = body->fn->fn;
  if (head->kind != ExprKind::Primitive) return std::nullopt;
  const Expr& x = body->fn->arg;
  const Expr& y = body->arg;
  if (is_ident_named(x, a) && is_ident_named(y, b)) return BinaryOp{head->prim, false};
  if (is_ident_named(x, b) && is_ident_named(y, a)) return BinaryOp{head->prim, true};
  return std::nullopt;
}

bool is_identity_fn(const Expr& f) {
  return f->kind == ExprKind::Lambda && is_ident_named(f->fn, f->name);
}

// ---------------------------------------------------------------- building

Expr prim(rise::PrimId id) {
  return rise::prim_expr(id);
}

Expr call(rise::PrimId id, const std::vector<Expr>& args) {
  return rise::apps(prim(id), args);
}

Expr call(rise::PrimId id, const std::vector<TypeArg>& deps, const std::vector<Expr>& args) {
  Expr e = prim(id);
  for (const TypeArg& d : deps) e = rise::dep_app(e, d);
  return rise::apps(e, args);
}

std::pair<Expr, Expr> split_at(const Nat& q, const Expr& x) {
  if (auto c = match_prim(x, rise::PrimId::Concat, 2))
    if (auto len = array_size(c->args[0]->type); len && arith::provably_eq(*len, q))
      return {c->args[0], c->args[1]};
  return {call(rise::PrimId::Take, {q}, {x}), call(rise::PrimId::Drop, {q}, {x})};
}

Expr rebuild_call(const PrimCall& c, const Expr& new_head) {
  Expr e = new_head;
  // A primitive replacing another (map -> mapPar, reduce -> reduceSeq) stands where the
  // old one was written: errors about it, the disjoint-writes check and `run
  // --profile` name that place rather than the place the strategy was applied at.
  // Also under its own size arguments (map -> mapGlobal(0)).
  const auto located = [&](const Expr& p) {
    if (p->kind != rise::ExprKind::Primitive || p->span.known() || !c.head->span.known()) return p;
    auto at = std::make_shared<rise::ExprNode>(*p);
    at->span = c.head->span;
    return Expr(at);
  };
  if (e->kind == rise::ExprKind::DepApp) {
    if (Expr p = located(e->fn); p != e->fn) {
      auto d = std::make_shared<rise::ExprNode>(*e);
      d->fn = p;
      e = d;
    }
  } else {
    e = located(e);
  }
  // A parallel loop replacing a scheduled one keeps its OpenMP schedule (only
  // ompSchedule sets or changes one; docs/architecture.md).
  if (!c.head->schedule.is_default() && e->schedule.is_default() && e->prim &&
      e->prim->loop == rise::LoopKind::Par)
    e = rise::with_schedule(e, c.head->schedule);
  for (const TypeArg& d : c.deps) e = rise::dep_app(e, d);
  return rise::apps(e, c.args);
}

Expr fun(const std::string& base, const std::function<Expr(const Expr&)>& body) {
  std::string x = rise::fresh_name(base);
  return rise::lambda(x, body(rise::ident(x)));
}

Expr fun2(const std::string& a, const std::string& b,
          const std::function<Expr(const Expr&, const Expr&)>& body) {
  std::string x = rise::fresh_name(a);
  std::string y = rise::fresh_name(b);
  return rise::lambda(x, rise::lambda(y, body(rise::ident(x), rise::ident(y))));
}

namespace {

// Free occurrences of x; each one under a lambda weighs `under_lambda` (2 to ask
// whether x is used linearly: at most once and not repeatedly evaluated).
class FreeUses : public rise::ExprVisitor {
 public:
  FreeUses(const std::string& x, int under_lambda) : x_(x), under_lambda_(under_lambda) {}
  int uses = 0;

 protected:
  void visit_ident(const Expr& t) override {
    if (t->name == x_) uses += under_ ? under_lambda_ : 1;
  }
  void visit_lambda(const Expr& t) override {
    if (t->name == x_) return;
    bool saved = under_;
    under_ = true;
    visit_children(t);
    under_ = saved;
  }

 private:
  const std::string& x_;
  int under_lambda_;
  bool under_ = false;
};

// x occurs at most once in e and not under a lambda (so substituting an expression
// for x neither duplicates nor repeats its evaluation).
bool occurs_linearly(const std::string& x, const Expr& e) {
  FreeUses u(x, 2);
  u.visit(e);
  return u.uses <= 1;
}

bool is_trivial(const Expr& e) {
  switch (e->kind) {
    case ExprKind::Ident:
    case ExprKind::Literal:
    case ExprKind::Primitive:
      return true;
    case ExprKind::App: {
      // projections of a variable: fst(p), snd(fst(p)), ...
      auto c = as_prim_call(e);
      if (!c || (!c->is(PrimId::Fst) && !c->is(PrimId::Snd)) || c->args.size() != 1) return false;
      return c->args[0]->kind == ExprKind::Ident || is_trivial(c->args[0]);
    }
    default:
      return false;
  }
}

}  // namespace

Expr apply_fn(const Expr& f, const Expr& arg) {
  if (f->kind == ExprKind::Lambda && (is_trivial(arg) || occurs_linearly(f->name, f->fn)))
    return substitute(f->fn, f->name, arg);
  return rise::app(f, arg);
}

Expr fold_after_map(const Expr& op, const Expr& f) {
  return fun2("acc", "y", [&](const Expr& acc, const Expr& y) {
    return apply_fn(apply_fn(op, acc), apply_fn(f, y));
  });
}

Expr as_lambda(const Expr& f) {
  if (f->kind == ExprKind::Lambda) return f;
  return fun("x", [&](const Expr& x) { return rise::app(f, x); });
}

Expr eta_reduced(const Expr& f) {
  Expr g = f;
  while (auto r = eta_step(g)) g = *r;
  return g;
}

Expr mk_map(const Expr& f, const Expr& x) {
  return call(PrimId::Map, {as_lambda(f), x});
}

Expr mk_map_fn(const Expr& f) {
  return fun("a", [&](const Expr& a) { return mk_map(f, a); });
}

// ---------------------------------------------------------------- variables

int count_free(const std::string& x, const Expr& e) {
  FreeUses c(x, 1);
  c.visit(e);
  return c.uses;
}

namespace {

// e[x := v]; `fv` are the free variables of v, which no binder of e may capture.
class Substitution : public rise::ExprMutator {
 public:
  Substitution(const std::string& x, const Expr& v, const std::set<std::string>& fv)
      : x_(x), v_(v), fv_(fv) {}

 protected:
  Expr visit_ident(const Expr& e) override { return e->name == x_ ? v_ : e; }
  Expr visit_lambda(const Expr& e) override {
    if (e->name == x_) return e;
    if (!fv_.count(e->name)) return mutate_children(e);
    if (!occurs_free(x_, e->fn)) return e;
    // Rename the binder so that it does not capture a free variable of v.
    std::string y = rise::fresh_name(e->name);
    Expr renamed = Substitution(e->name, rise::ident(y), {y}).mutate(e->fn);
    auto n = std::make_shared<ExprNode>(*e);
    n->name = y;
    n->fn = mutate(renamed);
    return n;
  }

 private:
  const std::string& x_;
  const Expr& v_;
  const std::set<std::string>& fv_;
};

// Names of the type-level variables occurring in the values of a substitution.
std::set<std::string> subst_value_names(const rise::TypeSubst& s) {
  std::set<std::string> out;
  auto type_names = [&](const Type& t) {
    for (const auto& [name, v] : rise::free_nat_vars(t)) out.insert(name);
    std::function<void(const Type&)> data = [&](const Type& x) {
      if (!x) return;
      if (x->kind == TypeKind::Var) out.insert(x->name);
      data(x->a);
      data(x->b);
    };
    data(t);
  };
  for (const auto& [k, n] : s.nats)
    for (const auto& [name, v] : arith::free_vars(n)) out.insert(name);
  for (const auto& [k, t] : s.datas) type_names(t);
  for (const auto& [k, a] : s.addrs)
    if (!a.space) out.insert(a.var);
  return out;
}

void bind_dep(rise::TypeSubst& s, Kind k, const std::string& name, const TypeArg& value) {
  switch (k) {
    case Kind::Nat:
      s.nats[name] = std::get<Nat>(value);
      break;
    case Kind::Data:
      s.datas.emplace_back(name, std::get<Type>(value));
      break;
    case Kind::Addr:
      s.addrs.emplace_back(name, std::get<rise::Addr>(value));
      break;
    case Kind::Nat2Nat:
      s.nat2nats.emplace_back(name, std::get<rise::NatFun>(value));
      break;
  }
}

void unbind_dep(rise::TypeSubst& s, const std::string& name) {
  s.nats.erase(name);
  std::erase_if(s.datas, [&](const auto& p) { return p.first == name; });
  std::erase_if(s.addrs, [&](const auto& p) { return p.first == name; });
  std::erase_if(s.nat2nats, [&](const auto& p) { return p.first == name; });
}

TypeArg fresh_dep_var(Kind k, const std::string& name) {
  switch (k) {
    case Kind::Nat:
      return Nat::size_var(name);
    case Kind::Data:
      return rise::data_var(name);
    case Kind::Addr:
      return rise::Addr{std::nullopt, name};
    case Kind::Nat2Nat:
      return rise::NatFun{"x", Nat::var(name)};
  }
  return Nat::size_var(name);
}

// Replaces type-level variables by `s` everywhere in an expression; `names` are the
// type-level names occurring in the values of s, which no DepLambda may capture.
// Every node is copied (its type changes even where its children do not).
class TypeSubstitution : public rise::ExprMutator {
 public:
  TypeSubstitution(const rise::TypeSubst& s, const std::set<std::string>& names)
      : s_(s), names_(names) {}

  Expr mutate(const Expr& e) override {
    if (s_.empty()) return e;
    return ExprMutator::mutate(e);
  }

 protected:
  Expr visit_ident(const Expr& e) override { return copy(e); }
  Expr visit_lambda(const Expr& e) override { return copy(mutate_children(e)); }
  Expr visit_app(const Expr& e) override { return copy(mutate_children(e)); }
  Expr visit_annotation(const Expr& e) override { return copy(mutate_children(e)); }
  Expr visit_primitive(const Expr& e) override { return copy(e); }
  Expr visit_foreign(const Expr& e) override { return copy(e); }
  Expr visit_dep_app(const Expr& e) override {
    auto n = copy(mutate_children(e));
    n->type_arg = rise::substitute(e->type_arg, s_);
    return n;
  }
  Expr visit_literal(const Expr& e) override {
    auto n = copy(e);
    if (e->lit.kind == rise::LitKind::Index || e->lit.kind == rise::LitKind::NatVal) {
      n->lit.nat = arith::substitute(e->lit.nat, s_.nats);
      n->lit.size = arith::substitute(e->lit.size, s_.nats);
    }
    return n;
  }
  Expr visit_dep_lambda(const Expr& e) override {
    auto n = copy(e);
    rise::TypeSubst inner = s_;
    unbind_dep(inner, e->name);  // the binder shadows
    Expr body = e->fn;
    if (names_.count(e->name)) {
      // Rename the binder so that it does not capture a substituted variable.
      std::string b = rise::fresh_name(e->name);
      rise::TypeSubst ren;
      bind_dep(ren, e->binder_kind, e->name, fresh_dep_var(e->binder_kind, b));
      body = TypeSubstitution(ren, {}).mutate(body);
      n->name = b;
    }
    n->fn = TypeSubstitution(inner, names_).mutate(body);
    return n;
  }

 private:
  const rise::TypeSubst& s_;
  const std::set<std::string>& names_;

  std::shared_ptr<ExprNode> copy(const Expr& e) const {
    auto n = std::make_shared<ExprNode>(*e);
    if (e->type) n->type = rise::substitute(e->type, s_);
    if (e->annot) n->annot = rise::substitute(e->annot, s_);
    return n;
  }
};

}  // namespace

Expr substitute(const Expr& e, const std::string& x, const Expr& v) {
  std::set<std::string> fv;
  for (const std::string& n : rise::free_vars(v)) fv.insert(n);
  return Substitution(x, v, fv).mutate(e);
}

Expr substitute_types(const Expr& e, const rise::TypeSubst& s) {
  std::set<std::string> names = subst_value_names(s);
  return TypeSubstitution(s, names).mutate(e);
}

std::optional<Expr> beta_step(const Expr& e) {
  if (e->kind == ExprKind::App && e->fn->kind == ExprKind::Lambda)
    return substitute(e->fn->fn, e->fn->name, e->arg);
  if (e->kind == ExprKind::DepApp && e->fn->kind == ExprKind::DepLambda) {
    const Expr& f = e->fn;
    rise::TypeSubst s;
    bool fits = false;
    switch (f->binder_kind) {
      case Kind::Nat:
        fits = std::holds_alternative<Nat>(e->type_arg);
        break;
      case Kind::Data:
        fits = std::holds_alternative<Type>(e->type_arg);
        break;
      case Kind::Addr:
        fits = std::holds_alternative<rise::Addr>(e->type_arg);
        break;
      case Kind::Nat2Nat:
        fits = std::holds_alternative<rise::NatFun>(e->type_arg);
        break;
    }
    if (!fits) return std::nullopt;
    bind_dep(s, f->binder_kind, f->name, e->type_arg);
    return substitute_types(f->fn, s);
  }
  return std::nullopt;
}

std::optional<Expr> eta_step(const Expr& e) {
  if (e->kind != ExprKind::Lambda) return std::nullopt;
  const Expr& b = e->fn;
  if (b->kind != ExprKind::App || !is_ident_named(b->arg, e->name)) return std::nullopt;
  if (occurs_free(e->name, b->fn)) return std::nullopt;
  return b->fn;
}

namespace {

enum class BetaMode { BetaEta, Beta, Sharing };

// A redex fun(x => b)(a) that is kept as let(a)(fun(x => b)): substituting would
// duplicate the work of a, and both a and b are data (let binds data to data).
// The types come from the lambda's where a node lost its own: an argument that was a
// redex itself and became a let (built untyped) is as much data as the parameter it
// replaces, and substituting it would compute it again at every use (a let-bound
// function applied to its own result, `sm(sm(xs))`, recomputing the inner result per
// element of the outer one).
bool shareable(const Expr& lam, const Expr& arg) {
  if (is_trivial(arg) || occurs_linearly(lam->name, lam->fn)) return false;
  const bool fun = lam->type && lam->type->kind == TypeKind::Fun;
  Type param = arg->type ? arg->type : fun ? lam->type->a : nullptr;
  Type body = lam->fn->type ? lam->fn->type : fun ? lam->type->b : nullptr;
  return param && rise::is_data(param) && body && rise::is_data(body);
}

// A redex fun(x: T => b)(a) whose parameter says its type is kept as let(a)(fun(x: T =>
// b)) in every mode: substituting would lose what the annotation determines (the
// vectorizer's widths of lanes nothing else fixes, docs/architecture.md).
bool keeps_annotation(const Expr& lam, const Expr& arg) {
  return lam->annot && !is_trivial(arg) && arg->type && rise::is_data(arg->type) && lam->fn->type &&
         rise::is_data(lam->fn->type);
}

class Normalizer : public rise::ExprMutator {
 public:
  explicit Normalizer(BetaMode mode) : mode_(mode) {}

 protected:
  Expr visit_lambda(const Expr& e) override {
    Expr lam = mutate_children(e);
    // Annotated lambdas (the program's declared parameters) keep their types.
    if (mode_ == BetaMode::BetaEta && !e->annot)
      if (auto r = eta_step(lam)) return *r;
    return lam;
  }
  Expr visit_app(const Expr& e) override {
    Expr f = mutate(e->fn);
    Expr a = mutate(e->arg);
    const bool let = a->kind == ExprKind::Lambda && f->kind == ExprKind::App && f->fn &&
                     f->fn->kind == ExprKind::Primitive && f->fn->prim &&
                     f->fn->prim->is(PrimId::Let);
    // let(v)(fun(g => b)) of a function v is the redex (fun(g => b))(v): a function is
    // not data, nothing is stored for it, and inlining it at each use lets what
    // follows see the primitives its applications compute (lowerToC stores one that
    // another primitive reads). A let is monomorphic, so v's types fit every use.
    if (let && f->arg->type && !rise::is_data(f->arg->type))
      return mutate(substitute(a->fn, a->name, f->arg));
    // A let of a literal or a variable stores nothing worth storing: its uses read the
    // value itself (a scalar let outside a GPU kernel would otherwise have to live
    // across kernel launches).
    if (let && !a->annot && (f->arg->kind == ExprKind::Literal || f->arg->kind == ExprKind::Ident))
      return substitute(a->fn, a->name, f->arg);
    if (f->kind == ExprKind::Lambda) {
      if ((mode_ == BetaMode::Sharing && shareable(f, a)) || keeps_annotation(f, a))
        return call(PrimId::Let, {a, f});
      Expr r = substitute(f->fn, f->name, a);
      // f's body and a are normal; substituting makes a new redex only where a
      // (a lambda) lands in a function position. Normalising again otherwise would
      // walk the whole body once more for each definition inlined into it.
      if (a->kind != ExprKind::Lambda && a->kind != ExprKind::DepLambda) return r;
      return mutate(r);
    }
    return rise::rebuild(e, f, a);
  }
  Expr visit_dep_app(const Expr& e) override {
    Expr x = mutate_children(e);
    if (auto r = beta_step(x)) return mutate(*r);
    return x;
  }

 private:
  BetaMode mode_;
};

}  // namespace

Expr beta_normalize_sharing(const Expr& e) {
  return Normalizer(BetaMode::Sharing).mutate(e);
}

Expr beta_eta_normalize(const Expr& e, bool eta) {
  return Normalizer(eta ? BetaMode::BetaEta : BetaMode::Beta).mutate(e);
}

// ---------------------------------------------------------------- types

std::optional<Nat> array_size(const Type& t) {
  if (t && t->kind == TypeKind::Array) return t->size;
  return std::nullopt;
}

Type array_elem(const Type& t) {
  if (t && t->kind == TypeKind::Array) return t->a;
  return nullptr;
}

int array_rank(const Type& t) {
  int r = 0;
  for (Type x = t; x && x->kind == TypeKind::Array; x = x->a) ++r;
  return r;
}

Type fun_param(const Type& t) {
  if (t && t->kind == TypeKind::Fun) return t->a;
  return nullptr;
}

namespace {

// Whether t is fully known (ground) and mentions a vector.
bool ground_with_vectors(const Type& t, bool& vectors) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::Scalar:
    case TypeKind::NatData:
      return true;
    case TypeKind::Index:
      return t->size.as_const().has_value();
    case TypeKind::Vector:
      vectors = true;
      return t->size.as_const().has_value() && (!t->a || ground_with_vectors(t->a, vectors));
    case TypeKind::Array:
      return t->size.as_const().has_value() && ground_with_vectors(t->a, vectors);
    case TypeKind::Pair:
      return ground_with_vectors(t->a, vectors) && ground_with_vectors(t->b, vectors);
    default:
      return false;
  }
}

}  // namespace

Type vector_annotation(const Expr& v) {
  bool vectors = false;
  if (!v->type || !ground_with_vectors(v->type, vectors) || !vectors) return nullptr;
  return v->type;
}

// ---------------------------------------------------------------- classification

bool is_map_like(const rise::PrimitiveInfo* p) {
  return p && p->family == rise::Family::Map && !p->has(rise::kHighLevel);
}

bool is_reduce_like(const rise::PrimitiveInfo* p) {
  return p && p->family == rise::Family::Reduce;
}

std::string assoc_comm_names() {
  std::vector<std::string> names;
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.has(rise::kAssocComm)) names.push_back(p.name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

bool computes(const Expr& e) {
  switch (e->kind) {
    case ExprKind::Primitive:
      return e->prim && e->prim->computes();
    case ExprKind::Foreign:
      return true;
    case ExprKind::App: {
      // map(fun(x => x)): an explicit copy
      if (auto c = as_prim_call(e); c && c->args.size() == 1 && c->head->prim &&
                                    c->head->prim->family == rise::Family::Map &&
                                    is_identity_fn(c->args[0]))
        return true;
      return computes(e->fn) || computes(e->arg);
    }
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      return computes(e->fn);
    default:
      return false;
  }
}

namespace {

// loop_work's measure of any term (rule_util.h).
constexpr double kLargeWork = 1e18;
// A gathered element (a read at a data-dependent place), in operations: as a math
// function's call.
constexpr double kGatherWork = 8;
double stage_work(const Expr& e);

// Whether the loop's data `d` is read through a gather (through other views): each
// element it reads is then at a data-dependent place.
bool reads_gathered(const Expr& d) {
  std::optional<PrimCall> c = as_prim_call(d);
  if (!c || !c->head->prim || c->args.empty()) return false;
  if (c->is(PrimId::Gather)) return true;
  return c->head->prim->has(rise::kView) && reads_gathered(c->args.back());
}

}  // namespace

double loop_work(const PrimCall& c, const rise::Type& call_type) {
  rise::Type data = c.args.back()->type;
  if (call_type && call_type->kind == rise::TypeKind::Fun) data = call_type->a;
  std::optional<int64_t> n;
  if (data && data->kind == rise::TypeKind::Array) n = data->size.as_const();
  if (!n) return kLargeWork;
  // An element read through a gather is likely a cache miss of tens of cycles
  // (held-out F: 16000 gathered elements of a 128 MiB array, counted by their two
  // operations, stayed sequential and took 2.4 times the parallel time).
  const double read = c.args.size() > 1 && reads_gathered(c.args.back()) ? kGatherWork : 0;
  return std::min(static_cast<double>(*n) * (std::max(1.0, stage_work(c.args[0])) + read),
                  kLargeWork);
}

namespace {

double stage_work(const Expr& e) {
  check_stack_depth(e->span);
  // A foreign function's cost is unknown: as large as a loop of unknown length.
  if (e->kind == ExprKind::Foreign) return kLargeWork;
  if (e->kind == ExprKind::Primitive && e->prim) {
    // On vectors, an operation per lane.
    double lanes = 1;
    rise::Type r = e->type;
    while (r && r->kind == rise::TypeKind::Fun) r = r->b;
    if (r && r->kind == rise::TypeKind::Vector)
      if (std::optional<int64_t> n = r->size.as_const()) lanes = static_cast<double>(*n);
    if (e->prim->family == rise::Family::Arith) return lanes;
    if (e->prim->family == rise::Family::Math) return 8 * lanes;
    if (e->prim->family == rise::Family::Iterate || e->prim->family == rise::Family::Loop)
      return kLargeWork;
    return 0;
  }
  std::optional<PrimCall> c = as_prim_call(e);
  const rise::PrimitiveInfo* p = c ? c->head->prim : nullptr;
  double w = 0;
  // iterateWhile(k)(cond)(f)(x): at most k steps of cond and f (held-out F: a bound of
  // 1 counted as large made a map of two elements parallel).
  if (p && p->is(PrimId::IterateWhile) && c->args.size() == 3) {
    const std::optional<Nat> k = c->dep_nat(0);
    const std::optional<int64_t> steps = k ? k->as_const() : std::nullopt;
    if (!steps || *steps < 0) return kLargeWork;
    w = static_cast<double>(*steps) *
            std::max(1.0, stage_work(c->args[0]) + stage_work(c->args[1])) +
        stage_work(c->args[2]);
    return std::min(w, kLargeWork);
  }
  if (p && !c->args.empty() &&
      (p->family == rise::Family::Map || p->family == rise::Family::Reduce ||
       p->family == rise::Family::Scan)) {
    w = loop_work(*c, e->type);
    for (size_t i = 1; i < c->args.size(); ++i) w += stage_work(c->args[i]);
  } else {
    for (const Expr& k : rise::children(e)) w += stage_work(k);
  }
  return std::min(w, kLargeWork);
}

}  // namespace

bool may_fail(const Expr& e) {
  return rise::any_subexpr(e, [](const Expr& s) {
    if (s->kind == ExprKind::Foreign) return true;
    auto c = as_prim_call(s);
    if (!c || !c->head->prim) return false;
    const rise::PrimitiveInfo& p = *c->head->prim;
    if (p.is(PrimId::NatAsIndex)) return true;
    if (!p.is(PrimId::Div) && !p.is(PrimId::Mod) && !p.is(PrimId::Cast)) return false;
    // the type of the operation's result once applied to all its arguments (a
    // partial application `div(a)` is judged by its result too: it is a float
    // division or an integer one)
    rise::Type t = s->type;
    while (t && t->kind == rise::TypeKind::Fun) t = t->b;
    if (!t || t->kind == rise::TypeKind::DepFun || t->kind == rise::TypeKind::Var)
      return true;  // not known here: assume it can
    rise::Type elem = t->kind == rise::TypeKind::Vector ? t->a : t;
    if (!elem || elem->kind != rise::TypeKind::Scalar)
      return true;                         // a cast to idx[n] or natType, or an unknown type
    if (p.is(PrimId::Cast)) return false;  // scalar targets saturate
    return rise::is_integer(elem->scalar);
  });
}

std::vector<Expr> conditional_args(const Expr& e) {
  std::vector<Expr> out;
  if (e->kind != ExprKind::App && e->kind != ExprKind::DepApp) return out;
  auto c = as_prim_call(e);
  if (c && c->head->prim) {
    const rise::PrimitiveInfo& p = *c->head->prim;
    for (size_t i = 0; i < c->args.size(); ++i) {
      const Expr& a = c->args[i];
      const bool fn = a->kind == ExprKind::Lambda || (a->type && !rise::is_data(a->type));
      if ((p.is(PrimId::Select) && c->args.size() == 3 && i > 0) ||
          (p.is(PrimId::IterateWhile) && i == 1) || (p.is(PrimId::Let) && i == 0 && fn))
        out.push_back(a);
    }
    return out;
  }
  for (Expr s = e; s->kind == ExprKind::App || s->kind == ExprKind::DepApp; s = s->fn) {
    if (s->kind != ExprKind::App) continue;
    const Expr& a = s->arg;
    if (a->kind == ExprKind::Lambda || (a->type && !rise::is_data(a->type))) out.push_back(a);
  }
  return out;
}

// ---------------------------------------------------------------- strategies

std::optional<std::string> divisibility_refusal(const Nat& n, const Nat& len, const Context& ctx) {
  if (arith::provably_divides(n, len)) return std::nullopt;
  Nat rem = arith::mod(len, n);
  if (len.as_const() || (rem.as_const() && *rem.as_const() != 0))
    return "the length " + len.to_string() + " is not divisible by " + n.to_string();
  for (const auto& [name, range] : arith::free_vars(len))
    for (const std::string& local : ctx.local_sizes)
      if (name == local)
        return "the length " + len.to_string() + " is not provably divisible by " + n.to_string() +
               ", and it depends on " + name +
               ", a size bound inside the program, so the condition cannot be checked when "
               "the function is called";
  return std::nullopt;
}

Strategy whole_term(const std::string& name,
                    std::function<Result(const Expr&, const Env&)> transform) {
  return Strategy(name, [name, transform](const Expr& e, const Env& env) -> Result {
    Result r = transform(e, env);
    if (!r.ok()) {
      Failure& f = r.change_failure();
      if (f.rule.empty()) f.rule = name;
      if (!f.subterm) f.subterm = e;
      return r;
    }
    const Expr& out = r.expr();
    if (out == e || rise::alpha_equal(out, e)) return e;
    Result typed = retype(name, out, env.ctx, e->type, e);
    if (typed.ok() && env.tracer && env.tracer->on_rule) env.tracer->on_rule(name, e, typed.expr());
    return typed;
  });
}

// A typed scalar literal holding the scalar value v (of type t).
std::optional<Expr> value_literal(const rise::Value& v, const Type& t) {
  if (v.kind() != rise::ValueKind::Scalar || !t || t->kind != rise::TypeKind::Scalar)
    return std::nullopt;
  rise::ScalarKind k = v.scalar_kind();
  Expr lit;
  if (k == rise::ScalarKind::F32)
    lit = rise::scalar_lit(k, 0, static_cast<double>(v.as_f32()));
  else if (k == rise::ScalarKind::F64)
    lit = rise::scalar_lit(k, 0, v.as_f64());
  else if (k == rise::ScalarKind::Bool)
    lit = rise::bool_lit(v.as_bool());
  else
    lit = rise::scalar_lit(k, v.as_i64(), 0.0);
  return rise::with_type(lit, t);
}

}  // namespace risec::elevate::util
