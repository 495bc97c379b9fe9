// RISE expressions: the node constructors, spines, alpha equivalence, free
// variables and fresh names declared in expr.h.
#include "rise/expr.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "rise/primitives.h"

namespace risec::rise {

namespace {

Expr make_expr_node(ExprNode n) {
  return std::make_shared<const ExprNode>(std::move(n));
}

ExprNode base(ExprKind kind, Span span) {
  ExprNode n{kind};
  n.span = std::move(span);
  return n;
}

std::atomic<uint64_t> g_fresh_counter{0};

}  // namespace

// ---- constructors ----

Expr ident(const std::string& name, Span span) {
  ExprNode n = base(ExprKind::Ident, std::move(span));
  n.name = name;
  return make_expr_node(std::move(n));
}

Expr lambda(const std::string& param, Expr body, Type param_annot, Span span) {
  ExprNode n = base(ExprKind::Lambda, std::move(span));
  n.name = param;
  n.fn = std::move(body);
  n.annot = std::move(param_annot);
  return make_expr_node(std::move(n));
}

Expr app(Expr fn, Expr arg, Span span) {
  // Without a span, the application covers its function and argument (when both
  // come from the same file; otherwise the argument's span).
  if (!span.known() && fn && arg)
    span = (fn->span.known() && arg->span.known() && fn->span.file != arg->span.file)
               ? arg->span
               : Span::merge(fn->span, arg->span);
  ExprNode n = base(ExprKind::App, std::move(span));
  n.fn = std::move(fn);
  n.arg = std::move(arg);
  return make_expr_node(std::move(n));
}

Expr dep_lambda(Kind kind, const std::string& binder, Expr body, Span span) {
  ExprNode n = base(ExprKind::DepLambda, std::move(span));
  n.binder_kind = kind;
  n.name = binder;
  n.fn = std::move(body);
  return make_expr_node(std::move(n));
}

Expr dep_app(Expr fn, TypeArg arg, Span span) {
  if (!span.known() && fn) span = fn->span;
  ExprNode n = base(ExprKind::DepApp, std::move(span));
  n.fn = std::move(fn);
  n.type_arg = std::move(arg);
  return make_expr_node(std::move(n));
}

Expr literal(const Literal& lit, Span span) {
  ExprNode n = base(ExprKind::Literal, std::move(span));
  n.lit = lit;
  return make_expr_node(std::move(n));
}

Expr prim_expr(PrimId id, Span span) {
  const PrimitiveInfo& p = primitive(id);
  if (p.is(PrimId::MakeArray)) internal_error("makeArray needs its element count", span);
  ExprNode n = base(ExprKind::Primitive, std::move(span));
  n.name = p.name;
  n.prim = &p;
  return make_expr_node(std::move(n));
}

Expr make_array_prim(int count, Span span) {
  if (count < 0) internal_error("makeArray with a negative number of elements", span);
  ExprNode n = base(ExprKind::Primitive, std::move(span));
  n.prim = &primitive(PrimId::MakeArray);  // its type comes from `count`
  n.name = n.prim->name;
  n.count = count;
  return make_expr_node(std::move(n));
}

Expr foreign(std::shared_ptr<const ForeignFun> f, Span span) {
  if (!f) internal_error("foreign() without a function");
  ExprNode n = base(ExprKind::Foreign, std::move(span));
  n.name = f->name;
  n.foreign = std::move(f);
  return make_expr_node(std::move(n));
}

Expr annotation(Expr e, Type t, Span span) {
  if (!span.known() && e) span = e->span;
  ExprNode n = base(ExprKind::Annotation, std::move(span));
  n.fn = std::move(e);
  n.annot = std::move(t);
  return make_expr_node(std::move(n));
}

Expr int_lit(int64_t v, Span span) {
  Literal l;
  l.kind = LitKind::Int;
  l.scalar = ScalarKind::I32;
  l.i = v;
  return literal(l, std::move(span));
}

// f32 literals hold a value representable as a float (rounded to nearest; values
// beyond the float range become infinities without undefined behaviour).
Expr f32_lit(double v, Span span) {
  double r = v;
  if (v > static_cast<double>(std::numeric_limits<float>::max()) * (1 + 0x1p-24))
    r = std::numeric_limits<double>::infinity();
  else if (v < -static_cast<double>(std::numeric_limits<float>::max()) * (1 + 0x1p-24))
    r = -std::numeric_limits<double>::infinity();
  else if (std::isfinite(v))
    r = static_cast<double>(static_cast<float>(v));
  return scalar_lit(ScalarKind::F32, 0, r, std::move(span));
}

Expr f64_lit(double v, Span span) {
  return scalar_lit(ScalarKind::F64, 0, v, std::move(span));
}

Expr scalar_lit(ScalarKind k, int64_t i, double f, Span span) {
  Literal l;
  l.kind = LitKind::Scalar;
  l.scalar = k;
  if (is_float(k)) {
    l.f = f;
  } else {
    l.i = i;
  }
  return literal(l, std::move(span));
}

Expr bool_lit(bool b, Span span) {
  return scalar_lit(ScalarKind::Bool, b ? 1 : 0, 0.0, span);
}

Expr with_type(const Expr& e, Type t) {
  ExprNode n = *e;
  n.type = std::move(t);
  return make_expr_node(std::move(n));
}

Expr with_step(const Expr& e, Span step) {
  ExprNode n = *e;
  n.step = std::move(step);
  return make_expr_node(std::move(n));
}

Expr with_schedule(const Expr& e, ParSchedule schedule) {
  ExprNode n = *e;
  n.schedule = schedule;
  return make_expr_node(std::move(n));
}

Expr with_prefetch(const Expr& e, int64_t bytes) {
  ExprNode n = *e;
  n.prefetch = bytes;
  return make_expr_node(std::move(n));
}

Expr with_children(const Expr& e, Expr fn, Expr arg) {
  ExprNode n = *e;
  n.fn = std::move(fn);
  n.arg = std::move(arg);
  return make_expr_node(std::move(n));
}

Expr apps(Expr fn, const std::vector<Expr>& args) {
  for (const Expr& a : args) fn = app(fn, a);
  return fn;
}

Spine spine(const Expr& e) {
  Spine s;
  size_t n = 0;  // the arguments, counted first: one allocation of the vector
  for (const ExprNode* c = e.get(); c->kind == ExprKind::App || c->kind == ExprKind::DepApp;
       c = c->fn.get())
    ++n;
  s.args.reserve(n);
  Expr cur = e;
  while (cur->kind == ExprKind::App || cur->kind == ExprKind::DepApp) {
    Spine::Arg a;
    a.dep = cur->kind == ExprKind::DepApp;
    a.value = cur->arg;
    a.type_arg = cur->type_arg;
    a.node = cur.get();
    s.args.push_back(std::move(a));
    cur = cur->fn;
  }
  std::reverse(s.args.begin(), s.args.end());
  s.head = cur;
  return s;
}

bool is_prim(const Expr& e, PrimId id) {
  return e && e->kind == ExprKind::Primitive && e->prim && e->prim->is(id);
}

bool has_prim(const Expr& e, std::initializer_list<PrimId> ids) {
  return any_subexpr(e, [&](const Expr& s) {
    for (PrimId id : ids)
      if (is_prim(s, id)) return true;
    return false;
  });
}

// ---- traversal ----

namespace {

// The kinds whose `fn` is a child (the body or the function) and the one whose `arg` is.
bool has_fn_child(ExprKind k) {
  return k == ExprKind::Lambda || k == ExprKind::App || k == ExprKind::DepLambda ||
         k == ExprKind::DepApp || k == ExprKind::Annotation;
}

}  // namespace

std::vector<Expr> children(const Expr& e) {
  if (e->kind == ExprKind::App) return {e->fn, e->arg};
  if (has_fn_child(e->kind)) return {e->fn};
  return {};
}

Expr rebuild(const Expr& e, const std::vector<Expr>& kids) {
  size_t n = e->kind == ExprKind::App ? 2 : has_fn_child(e->kind) ? 1 : 0;
  if (kids.size() != n)
    internal_error("rebuild: " + std::to_string(kids.size()) + " children for a node with " +
                       std::to_string(n),
                   e->span);
  if (n == 0) return e;
  return rebuild(e, kids[0], n == 2 ? kids[1] : nullptr);
}

Expr rebuild(const Expr& e, Expr fn, Expr arg) {
  if (!has_fn_child(e->kind)) return e;
  if (e->kind != ExprKind::App) arg = e->arg;
  if (fn == e->fn && arg == e->arg) return e;
  return with_children(e, std::move(fn), std::move(arg));
}

Expr ExprMutator::mutate(const Expr& e) {
  if (!e) return e;
  switch (e->kind) {
    case ExprKind::Ident:
      return visit_ident(e);
    case ExprKind::Lambda:
      return visit_lambda(e);
    case ExprKind::App:
      return visit_app(e);
    case ExprKind::DepLambda:
      return visit_dep_lambda(e);
    case ExprKind::DepApp:
      return visit_dep_app(e);
    case ExprKind::Literal:
      return visit_literal(e);
    case ExprKind::Primitive:
      return visit_primitive(e);
    case ExprKind::Foreign:
      return visit_foreign(e);
    case ExprKind::Annotation:
      return visit_annotation(e);
  }
  return e;
}

Expr ExprMutator::mutate_children(const Expr& e) {
  if (!has_fn_child(e->kind)) return e;
  Expr fn = mutate(e->fn);
  Expr arg = e->kind == ExprKind::App ? mutate(e->arg) : nullptr;
  return rebuild(e, std::move(fn), std::move(arg));
}

void ExprVisitor::visit(const Expr& e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::Ident:
      return visit_ident(e);
    case ExprKind::Lambda:
      return visit_lambda(e);
    case ExprKind::App:
      return visit_app(e);
    case ExprKind::DepLambda:
      return visit_dep_lambda(e);
    case ExprKind::DepApp:
      return visit_dep_app(e);
    case ExprKind::Literal:
      return visit_literal(e);
    case ExprKind::Primitive:
      return visit_primitive(e);
    case ExprKind::Foreign:
      return visit_foreign(e);
    case ExprKind::Annotation:
      return visit_annotation(e);
  }
}

void ExprVisitor::visit_children(const Expr& e) {
  if (!has_fn_child(e->kind)) return;
  visit(e->fn);
  if (e->kind == ExprKind::App) visit(e->arg);
}

void for_each_subexpr(const Expr& e, const std::function<bool(const Expr&)>& f) {
  if (!e || !f(e) || !has_fn_child(e->kind)) return;
  for_each_subexpr(e->fn, f);
  if (e->kind == ExprKind::App) for_each_subexpr(e->arg, f);
}

bool any_subexpr(const Expr& e, const std::function<bool(const Expr&)>& p) {
  if (!e) return false;
  if (p(e)) return true;
  if (!has_fn_child(e->kind)) return false;
  return any_subexpr(e->fn, p) || (e->kind == ExprKind::App && any_subexpr(e->arg, p));
}

// ---- alpha equivalence ----

namespace {

// Not on ExprVisitor: it walks two trees in step.
// Both sides rename their bound names: value binders to binder levels (de Bruijn
// levels), dependent binders to one fresh type-level name per binder pair, so that
// the types inside (annotations, dependent arguments) are compared up to renaming.
struct AlphaEq {
  std::vector<std::pair<std::string, int>> va, vb;  // value binders in scope
  TypeSubst ta, tb;                                 // dependent binders -> fresh names
  int level = 0;
  int dep_counter = 0;

  static int lookup(const std::vector<std::pair<std::string, int>>& env, const std::string& n) {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (it->first == n) return it->second;
    return -1;
  }

  static void bind_dep(TypeSubst& s, Kind k, const std::string& name, const std::string& fresh) {
    switch (k) {
      case Kind::Nat:
        s.nats[name] = Nat::var(fresh);
        break;
      case Kind::Data:
        std::erase_if(s.datas, [&](const auto& p) { return p.first == name; });
        s.datas.emplace_back(name, data_var(fresh));
        break;
      case Kind::Addr:
        std::erase_if(s.addrs, [&](const auto& p) { return p.first == name; });
        s.addrs.emplace_back(name, Addr{std::nullopt, fresh});
        break;
      case Kind::Nat2Nat:
        // Nat2Nat variables are not substitutable by name in types; compare by name.
        break;
    }
  }

  bool types(const Type& a, const Type& b) const {
    if (!a || !b) return !a && !b;
    return equal(substitute(a, ta), substitute(b, tb));
  }

  bool type_args(const TypeArg& a, const TypeArg& b) const {
    if (a.index() != b.index()) return false;
    TypeArg sa = substitute(a, ta), sb = substitute(b, tb);
    if (auto n = std::get_if<Nat>(&sa)) return *n == std::get<Nat>(sb);
    if (auto t = std::get_if<Type>(&sa)) return types(*t, std::get<Type>(sb));
    if (auto ad = std::get_if<Addr>(&sa)) return *ad == std::get<Addr>(sb);
    return std::get<NatFun>(sa) == std::get<NatFun>(sb);
  }

  bool nats(const Nat& a, const Nat& b) const {
    if (ta.empty() && tb.empty()) return a == b;
    return arith::substitute(a, ta.nats) == arith::substitute(b, tb.nats);
  }

  bool lits(const Literal& a, const Literal& b) const {
    return a.kind == b.kind && a.scalar == b.scalar && a.i == b.i &&
           std::bit_cast<uint64_t>(a.f) == std::bit_cast<uint64_t>(b.f) && nats(a.nat, b.nat) &&
           nats(a.size, b.size);
  }

  bool eq(const Expr& a, const Expr& b) {
    if (!a || !b) return !a && !b;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
      case ExprKind::Ident: {
        int la = lookup(va, a->name), lb = lookup(vb, b->name);
        if (la < 0 && lb < 0) return a->name == b->name;
        return la == lb;
      }
      case ExprKind::Lambda: {
        if (!types(a->annot, b->annot)) return false;
        va.emplace_back(a->name, level);
        vb.emplace_back(b->name, level);
        ++level;
        bool r = eq(a->fn, b->fn);
        --level;
        va.pop_back();
        vb.pop_back();
        return r;
      }
      case ExprKind::App:
        return eq(a->fn, b->fn) && eq(a->arg, b->arg);
      case ExprKind::DepLambda: {
        if (a->binder_kind != b->binder_kind) return false;
        TypeSubst save_a = ta, save_b = tb;
        std::string fresh = "$alpha" + std::to_string(dep_counter++);
        bind_dep(ta, a->binder_kind, a->name, fresh);
        bind_dep(tb, b->binder_kind, b->name, fresh);
        bool r = eq(a->fn, b->fn);
        ta = std::move(save_a);
        tb = std::move(save_b);
        return r;
      }
      case ExprKind::DepApp:
        return type_args(a->type_arg, b->type_arg) && eq(a->fn, b->fn);
      case ExprKind::Literal:
        return lits(a->lit, b->lit);
      case ExprKind::Primitive:
        return a->name == b->name && a->count == b->count && a->schedule == b->schedule &&
               a->prefetch == b->prefetch;
      case ExprKind::Foreign:
        return a->name == b->name;
      case ExprKind::Annotation:
        return types(a->annot, b->annot) && eq(a->fn, b->fn);
    }
    return false;
  }
};

// The free variables in order of first occurrence: the identifiers not bound by an
// enclosing lambda of e.
class FreeVars : public ExprVisitor {
 public:
  std::vector<std::string> out;

 protected:
  void visit_ident(const Expr& e) override {
    if (!bound_.count(e->name) && seen_.insert(e->name).second) out.push_back(e->name);
  }
  void visit_lambda(const Expr& e) override {
    ++bound_[e->name];
    visit_children(e);
    if (--bound_[e->name] == 0) bound_.erase(e->name);
  }

 private:
  // How many enclosing lambdas bind each name (a search of a list of binders made
  // free_vars quadratic in the nesting depth).
  std::unordered_map<std::string, int> bound_;
  std::unordered_set<std::string> seen_;
};

}  // namespace

bool alpha_equal(const Expr& a, const Expr& b) {
  AlphaEq q;
  return q.eq(a, b);
}

std::vector<std::string> free_vars(const Expr& e) {
  FreeVars v;
  v.visit(e);
  return v.out;
}

bool occurs_free(const std::string& name, const Expr& e) {
  // A loop over a worklist, not a recursion: called on whole chains of compositions.
  std::vector<const ExprNode*> todo{e.get()};
  while (!todo.empty()) {
    const ExprNode* n = todo.back();
    todo.pop_back();
    if (!n) continue;
    if (n->kind == ExprKind::Ident) {
      if (n->name == name) return true;
      continue;
    }
    if (n->kind == ExprKind::Lambda && n->name == name) continue;  // shadowed inside
    if (!has_fn_child(n->kind)) continue;
    todo.push_back(n->fn.get());
    if (n->kind == ExprKind::App) todo.push_back(n->arg.get());
  }
  return false;
}

// Names of the form `base__N` are reserved: the lexer rejects user identifiers
// ending in `__` and digits, so a fresh name never captures a user's name.
std::string fresh_name(const std::string& base) {
  std::string b = base;
  // Re-freshening a fresh name keeps the readable base.
  size_t pos = b.rfind("__");
  if (pos != std::string::npos && pos + 2 < b.size() &&
      std::all_of(b.begin() + static_cast<std::ptrdiff_t>(pos) + 2, b.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    b.resize(pos);
  if (b.empty()) b = "x";
  return b + "__" + std::to_string(++g_fresh_counter);
}

std::string written_name(const Expr& e) {
  const Span& s = e->span;
  if (s.known() && s.file && s.end > s.begin && s.end <= s.file->text.size()) {
    std::string t = s.file->text.substr(s.begin, s.end - s.begin);
    if (std::all_of(t.begin(), t.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      return t;
  }
  std::string n = e->name;
  size_t pos = n.rfind("__");
  if (pos != std::string::npos && pos > 0 && pos + 2 < n.size() &&
      std::all_of(n.begin() + static_cast<std::ptrdiff_t>(pos) + 2, n.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    n.resize(pos);
  return n;
}

// ---- programs ----

const Definition* Program::find(const std::string& name) const {
  for (auto it = defs.rbegin(); it != defs.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

}  // namespace risec::rise
