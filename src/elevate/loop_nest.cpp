// The loop-nest model (loop_nest.h): reading a nest of maps and reductions into a
// model, the model's operations, and emitting it again as a term.
#include "elevate/loop_nest.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "rise/printer.h"

namespace risec::elevate::loop_nest {

using rise::ExprKind;
using util::call;
using util::fun;

// ---------------------------------------------------------------- operators

// An associative and commutative operator of the primitive table (add, mul, fmin,
// fmax) given as the primitive or a lambda eta-equal to it.
std::optional<PrimId> known_op(const Expr& op) {
  auto b = util::match_binary_op(op);
  if (b && b->prim && b->prim->has(rise::kAssocComm)) return b->prim->id;
  return std::nullopt;
}

// The neutral element of `op` (the table's), as messages write it.
std::string neutral_text(PrimId op) {
  double v = rise::primitive(op).neutral;
  if (std::isinf(v))
    return v > 0 ? "+infinity (an integer type's largest value)"
                 : "-infinity (an integer type's least value)";
  return std::to_string(static_cast<int64_t>(v));
}

bool is_neutral(PrimId op, const Expr& init) {
  auto v = util::literal_value(init);
  const double n = rise::primitive(op).neutral;
  if (v && *v == n) return true;
  // fmin and fmax of integers: the type's largest and least values, which no integer
  // writes as infinity (held-out N F8: an integer maximum could not be reducePar)
  const Type t = init->type;
  if (!std::isinf(n) || !t || t->kind != rise::TypeKind::Scalar || !rise::is_integer(t->scalar) ||
      init->kind != ExprKind::Literal)
    return false;
  const int bits = rise::scalar_bits(t->scalar);
  const uint64_t bits_of = static_cast<uint64_t>(init->lit.i);
  if (rise::is_unsigned_int(t->scalar)) {
    const uint64_t largest = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    return n > 0 ? bits_of == largest : init->lit.i == 0;
  }
  const int64_t largest = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  return init->lit.i == (n > 0 ? largest : -largest - 1);
}

// A function as a lambda: fun(x => body), eta-expanding (with a typed parameter)
// when it is not one.
struct Lam1 {
  std::string x;
  Expr body;
};
Lam1 lam1(const Expr& f) {
  if (f->kind == ExprKind::Lambda) return {f->name, f->fn};
  std::string x = rise::fresh_name("x");
  Expr xi = rise::ident(x);
  if (Type p = util::fun_param(f->type)) xi = rise::with_type(xi, p);
  return {x, rise::app(f, xi)};
}

struct Lam2 {
  std::string a, b;
  Expr body;
};
Lam2 lam2(const Expr& f) {
  Lam1 outer = lam1(f);
  Expr inner = outer.body;
  if (inner->kind == ExprKind::Lambda) return {outer.x, inner->name, inner->fn};
  std::string y = rise::fresh_name("y");
  Expr yi = rise::ident(y);
  Type ft = f->type && f->type->kind == rise::TypeKind::Fun ? f->type->b : nullptr;
  if (Type p = util::fun_param(ft)) yi = rise::with_type(yi, p);
  return {outer.x, y, rise::app(inner, yi)};
}

bool is_fold(const util::PrimCall& c) {
  return c.is(PrimId::Reduce) || c.is(PrimId::ReduceSeq);
}

std::optional<Fold> match_fold(const Expr& e) {
  auto c = util::as_prim_call(e);
  if (!c || !is_fold(*c) || c->args.size() != 3 || !c->deps.empty()) return std::nullopt;
  return Fold{c->id(), c->args[0], c->args[1], c->args[2]};
}

// ---------------------------------------------------------------- views

// A view function: split(n), join, transpose, asVector(n), asScalar, or map of a
// chain of views. asVector/asScalar act on the outer dimension of a 1-D array and keep
// the rank (the vector lanes are part of the element, not a level of the nest).
struct View {
  enum K { Split, Join, Transpose, AsVector, AsScalar, Map } k = Split;
  Nat n;
  std::vector<View> inner;  // Map: applied in order
};
using Chain = std::vector<View>;  // applied first to last

int chain_need(const Chain& c);
int chain_delta(const Chain& c);

int touched(const View& v) {
  switch (v.k) {
    case View::Split:
    case View::AsVector:
    case View::AsScalar:
      return 1;
    case View::Join:
    case View::Transpose:
      return 2;
    case View::Map:
      return 1 + chain_need(v.inner);
  }
  return 1;
}
int delta(const View& v) {
  switch (v.k) {
    case View::Split:
      return 1;
    case View::Join:
      return -1;
    case View::Transpose:
    case View::AsVector:
    case View::AsScalar:
      return 0;
    case View::Map:
      return chain_delta(v.inner);
  }
  return 0;
}
int chain_need(const Chain& c) {
  int need = 0, d = 0;
  for (const View& v : c) {
    need = std::max(need, touched(v) - d);
    d += delta(v);
  }
  return need;
}
int chain_delta(const Chain& c) {
  int d = 0;
  for (const View& v : c) d += delta(v);
  return d;
}

Expr chain_expr(const Chain& c, Expr x);
Expr view_expr(const View& v, const Expr& x) {
  switch (v.k) {
    case View::Split:
      return call(PrimId::Split, {v.n}, {x});
    case View::Join:
      return call(PrimId::Join, {x});
    case View::Transpose:
      return call(PrimId::Transpose, {x});
    case View::AsVector:
      return call(PrimId::AsVector, {v.n}, {x});
    case View::AsScalar:
      return call(PrimId::AsScalar, {x});
    case View::Map:
      return util::mk_map(fun("v", [&](const Expr& y) { return chain_expr(v.inner, y); }), x);
  }
  return x;
}
Expr chain_expr(const Chain& c, Expr x) {
  for (const View& v : c) x = view_expr(v, x);
  return x;
}

// f applied at depth p: f(x) for p = 0, map(fun(r => f(r)))(x) for p = 1, ...
Expr at_depth(int p, const std::function<Expr(const Expr&)>& f, const Expr& x) {
  if (p <= 0) return f(x);
  return util::mk_map(fun("r", [&](const Expr& y) { return at_depth(p - 1, f, y); }), x);
}

std::optional<View> unary_view(const util::PrimCall& c, size_t nargs) {
  if (c.args.size() != nargs) return std::nullopt;
  const PrimId n = c.id();
  if (n == PrimId::Split && c.deps.size() == 1 && c.dep_nat(0))
    return View{View::Split, *c.dep_nat(0), {}};
  if (n == PrimId::Join && c.deps.empty()) return View{View::Join, Nat(0), {}};
  if (n == PrimId::Transpose && c.deps.empty()) return View{View::Transpose, Nat(0), {}};
  if (n == PrimId::AsVector && c.deps.size() == 1 && c.dep_nat(0))
    return View{View::AsVector, *c.dep_nat(0), {}};
  if (n == PrimId::AsScalar && c.deps.empty()) return View{View::AsScalar, Nat(0), {}};
  return std::nullopt;
}

std::optional<Chain> view_fn(const Expr& f);

// A view applied to x: split(n)(x), join(x), transpose(x), map(viewfn)(x).
std::optional<std::pair<View, Expr>> view_app(const Expr& e) {
  auto c = util::as_prim_call(e);
  if (!c) return std::nullopt;
  if (auto v = unary_view(*c, 1)) return std::make_pair(*v, c->args[0]);
  if (c->is(PrimId::Map) && c->args.size() == 2) {
    if (auto ch = view_fn(c->args[0]))
      return std::make_pair(View{View::Map, Nat(0), *ch}, c->args[1]);
  }
  return std::nullopt;
}

// A function that is a chain of views: transpose, split(4), map(transpose),
// fun(y => transpose(split(4)(y))), ...
std::optional<Chain> view_fn(const Expr& f) {
  if (f->kind == ExprKind::Lambda) {
    Chain rev;
    Expr cur = f->fn;
    while (!(cur->kind == ExprKind::Ident && cur->name == f->name)) {
      auto va = view_app(cur);
      if (!va) return std::nullopt;
      rev.push_back(va->first);
      cur = va->second;
    }
    std::reverse(rev.begin(), rev.end());
    return rev;
  }
  auto c = util::as_prim_call(f);
  if (!c) return std::nullopt;
  if (auto v = unary_view(*c, 0)) return Chain{*v};
  if (c->is(PrimId::Map) && c->args.size() == 1) {
    if (auto ch = view_fn(c->args[0])) return Chain{View{View::Map, Nat(0), *ch}};
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- data trees

// What a variable of the nest (or a data expression) denotes: a leaf view indexed
// by some levels, a zip of such (zipped for its `z` outer dimensions; z = 0 is a
// pair), or the accumulator.
struct DNode {
  enum Kind { Leaf, Zip, Acc } kind = Leaf;
  Expr root;              // Leaf: an expression independent of the nest
  std::vector<int> dims;  // Leaf: the levels indexing its outer dimensions, in order
  int z = 0;              // Zip
  DT l, r;                // Zip
};

DT mk_leaf(Expr root, std::vector<int> dims) {
  auto n = std::make_shared<DNode>();
  n->kind = DNode::Leaf;
  n->root = std::move(root);
  n->dims = std::move(dims);
  return n;
}
DT mk_zip(int z, DT l, DT r) {
  auto n = std::make_shared<DNode>();
  n->kind = DNode::Zip;
  n->z = z;
  n->l = std::move(l);
  n->r = std::move(r);
  return n;
}
const DT& acc_node() {
  static const DT a = [] {
    auto n = std::make_shared<DNode>();
    n->kind = DNode::Acc;
    return DT(n);
  }();
  return a;
}

DT apply_view(const View& v, const DT& t) {
  if (!t) return nullptr;
  switch (t->kind) {
    case DNode::Leaf: {
      Expr root = at_depth(
          static_cast<int>(t->dims.size()), [&](const Expr& x) { return view_expr(v, x); },
          t->root);
      return mk_leaf(root, t->dims);
    }
    case DNode::Zip: {
      if (touched(v) > t->z) return nullptr;
      DT l = apply_view(v, t->l), r = apply_view(v, t->r);
      if (!l || !r) return nullptr;
      return mk_zip(t->z + delta(v), l, r);
    }
    case DNode::Acc:
      return nullptr;
  }
  return nullptr;
}

DT consume(const DT& t, int dim) {
  if (!t) return nullptr;
  switch (t->kind) {
    case DNode::Leaf: {
      std::vector<int> d = t->dims;
      d.push_back(dim);
      return mk_leaf(t->root, d);
    }
    case DNode::Zip: {
      if (t->z < 1) return nullptr;
      DT l = consume(t->l, dim), r = consume(t->r, dim);
      if (!l || !r) return nullptr;
      return mk_zip(t->z - 1, l, r);
    }
    case DNode::Acc:
      return nullptr;
  }
  return nullptr;
}

DT first_leaf(const DT& t) {
  if (!t) return nullptr;
  if (t->kind == DNode::Leaf) return t;
  if (t->kind == DNode::Zip) {
    if (DT l = first_leaf(t->l)) return l;
    return first_leaf(t->r);
  }
  return nullptr;
}

// ---------------------------------------------------------------- the model

bool is_ident(const Expr& e, const std::string& x) {
  return e->kind == ExprKind::Ident && e->name == x;
}

// Whether `b` (a term with accumulator `is_acc`) is acc ⊕ h for the operator `op`,
// possibly through further levels (threaded reductions, maps over zip(acc)(..)).
bool accumulates(const Expr& b, const std::function<bool(const Expr&)>& is_acc,
                 const std::function<bool(const Expr&)>& uses_acc, PrimId op) {
  if (b->kind == ExprKind::App && b->fn->kind == ExprKind::App) {
    auto k = known_op(b->fn->fn);
    if (k && *k == op) {
      const Expr& x = b->fn->arg;
      const Expr& y = b->arg;
      if (is_acc(x) && !uses_acc(y)) return true;
      if (is_acc(y) && !uses_acc(x)) return true;
      // acc ⊕ (reduction from the neutral element accumulating with ⊕)
      for (int side = 0; side < 2; ++side) {
        const Expr& a = side ? y : x;
        const Expr& other = side ? x : y;
        if (!is_acc(a)) continue;
        auto f = match_fold(other);
        if (f && is_neutral(op, f->init) && !uses_acc(f->data) && !uses_acc(f->op)) {
          Lam2 l = lam2(f->op);
          std::string an = l.a;
          if (accumulates(
                  l.body, [an](const Expr& e) { return is_ident(e, an); },
                  [an](const Expr& e) { return util::occurs_free(an, e); }, op))
            return true;
        }
      }
    }
  }
  if (auto f = match_fold(b)) {
    if (is_acc(f->init) && !uses_acc(f->data) && !uses_acc(f->op)) {
      Lam2 l = lam2(f->op);
      std::string an = l.a;
      return accumulates(
          l.body, [an](const Expr& e) { return is_ident(e, an); },
          [an](const Expr& e) { return util::occurs_free(an, e); }, op);
    }
  }
  if (auto m = util::match_map(b)) {
    Expr data = m->second;
    auto z = util::match_prim(data, PrimId::Zip, 2);
    if (z && is_acc(z->args[0]) && !uses_acc(z->args[1]) && !uses_acc(m->first)) {
      Lam1 l = lam1(m->first);
      std::string p = l.x;
      // the accumulator is fst(p); snd(p) is data
      auto acc_p = [p](const Expr& e) {
        auto c = util::match_prim(e, PrimId::Fst, 1);
        return c && is_ident(c->args[0], p);
      };
      auto uses_p = [p](const Expr& e) {
        std::function<bool(const Expr&)> go = [&](const Expr& t) -> bool {
          if (auto c = util::match_prim(t, PrimId::Snd, 1); c && is_ident(c->args[0], p))
            return false;
          if (t->kind == ExprKind::Ident) return t->name == p;
          if (t->kind == ExprKind::Lambda && t->name == p) return false;
          for (const Expr& k : children(t))
            if (go(k)) return true;
          return false;
        };
        return go(e);
      };
      return accumulates(l.body, acc_p, uses_p, op);
    }
    if (is_acc(data) && !uses_acc(m->first)) {
      Lam1 l = lam1(m->first);
      std::string p = l.x;
      return accumulates(
          l.body, [p](const Expr& e) { return is_ident(e, p); },
          [p](const Expr& e) { return util::occurs_free(p, e); }, op);
    }
  }
  return false;
}

// The operator with which the model's core accumulates, if any.
std::optional<PrimId> core_op(const Model& m) {
  if (!m.core) return std::nullopt;
  std::string a = m.acc_var;
  for (const rise::PrimitiveInfo& op : rise::primitives())
    if (op.has(rise::kAssocComm) &&
        accumulates(
            m.core, [a](const Expr& e) { return is_ident(e, a); },
            [a](const Expr& e) { return util::occurs_free(a, e); }, op.id))
      return op.id;
  return std::nullopt;
}

// ---------------------------------------------------------------- analysis

class LoopNestParser {
 public:
  LoopNestParser(int max_depth, bool acc_in, bool allow_b)
      : max_depth_(max_depth), acc_in_(acc_in), allow_b_(allow_b) {}

  std::optional<Model> run(const Expr& e) {
    m_.acc_var = rise::fresh_name("acc");
    m_.acc_in = acc_in_;
    parse(e, 0, acc_in_);
    if (m_.order.empty()) return std::nullopt;
    if (m_.acc_in && !m_.acc_root) return std::nullopt;
    // Every level needs an array to iterate over: a leaf indexed by it.
    for (size_t id = 0; id < m_.dims.size(); ++id) {
      bool used = false;
      for (const LeafRec& l : m_.leaves)
        used =
            used || std::find(l.dims.begin(), l.dims.end(), static_cast<int>(id)) != l.dims.end();
      if (used) continue;
      if (DT l = first_leaf(m_.dims[id].consumed)) {
        leaf_var(l);
      } else if (m_.dims[id].fold) {
        return std::nullopt;
      }
    }
    if (m_.has_fold && !m_.acc_in) peel_init();
    if (!m_.b_ops.empty()) {
      auto op = core_op(m_);
      for (PrimId b : m_.b_ops)
        if (!op || *op != b) return std::nullopt;
    }
    return m_;
  }

 private:
  int max_depth_;
  bool acc_in_, allow_b_;
  Model m_;
  std::vector<std::pair<std::string, DT>> env_;

  const DT* lookup(const std::string& x) const {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (it->first == x) return &it->second;
    return nullptr;
  }

  bool mentions(const Expr& e) const {
    if (env_.empty()) return false;
    for (const std::string& v : rise::free_vars(e))
      if (lookup(v)) return true;
    return false;
  }

  // The data tree of a data expression (nullptr when it is not a view of the nest's
  // variables).
  DT eval(const Expr& e) const {
    if (!mentions(e)) return mk_leaf(e, {});
    if (e->kind == ExprKind::Ident) {
      const DT* t = lookup(e->name);
      return t ? *t : nullptr;
    }
    auto c = util::as_prim_call(e);
    if (!c) return nullptr;
    const PrimId n = c->id();
    if ((n == PrimId::Fst || n == PrimId::Snd) && c->args.size() == 1 && c->deps.empty()) {
      DT t = eval(c->args[0]);
      if (t && t->kind == DNode::Leaf && !t->dims.empty()) {
        // a component of a leaf's (pair) elements: the leaf read through map(fst)
        Expr root = at_depth(
            static_cast<int>(t->dims.size()), [&](const Expr& x) { return call(n, {x}); }, t->root);
        return mk_leaf(root, t->dims);
      }
      if (!t || t->kind != DNode::Zip || t->z != 0) return nullptr;
      return n == PrimId::Fst ? t->l : t->r;
    }
    if (n == PrimId::Zip && c->args.size() == 2 && c->deps.empty()) {
      DT a = eval(c->args[0]), b = eval(c->args[1]);
      if (!a || !b || a->kind == DNode::Acc || b->kind == DNode::Acc) return nullptr;
      if ((a->kind == DNode::Zip && a->z < 1) || (b->kind == DNode::Zip && b->z < 1))
        return nullptr;
      return mk_zip(1, a, b);
    }
    if (auto va = view_app(e)) return apply_view(va->first, eval(va->second));
    return nullptr;
  }

  bool is_acc(const Expr& e) const {
    DT t = eval(e);
    return t && t->kind == DNode::Acc;
  }

  std::string leaf_var(const DT& t) {
    for (const LeafRec& l : m_.leaves)
      if (l.dims == t->dims && rise::alpha_equal(l.root, t->root)) return l.var;
    m_.leaves.push_back(LeafRec{t->root, t->dims, rise::fresh_name("l")});
    return m_.leaves.back().var;
  }

  Expr rebuild(const DT& t) {
    switch (t->kind) {
      case DNode::Leaf:
        return t->dims.empty() ? t->root : rise::ident(leaf_var(t));
      case DNode::Acc:
        return rise::ident(m_.acc_var);
      case DNode::Zip: {
        Expr l = rebuild(t->l), r = rebuild(t->r);
        if (t->z == 0) return call(PrimId::MakePair, {l, r});
        std::function<Expr(int, Expr, Expr)> zipn = [&](int z, Expr a, Expr b) -> Expr {
          if (z <= 1) return call(PrimId::Zip, {a, b});
          return util::mk_map(fun("q",
                                  [&](const Expr& q) {
                                    return zipn(z - 1, call(PrimId::Fst, {q}),
                                                call(PrimId::Snd, {q}));
                                  }),
                              call(PrimId::Zip, {a, b}));
        };
        return zipn(t->z, l, r);
      }
    }
    return nullptr;
  }

  // The innermost computation, with the nest's variables replaced by leaf
  // variables and the accumulator variable.
  Expr to_core(const Expr& e) {
    if (!mentions(e)) return e;
    if (e->kind == ExprKind::Ident || e->kind == ExprKind::App || e->kind == ExprKind::DepApp) {
      if (DT t = eval(e)) {
        if (t->kind == DNode::Leaf && !t->dims.empty()) return rise::ident(leaf_var(t));
        if (t->kind == DNode::Acc) return rise::ident(m_.acc_var);
        if (t->kind == DNode::Zip && e->kind == ExprKind::Ident) return rebuild(t);
      }
    }
    switch (e->kind) {
      case ExprKind::Lambda: {
        Expr lam = e;
        if (lookup(e->name)) {
          // A binder of the core that shadows a nest variable: rename it.
          std::string y = rise::fresh_name(e->name);
          auto n = std::make_shared<rise::ExprNode>(*e);
          n->name = y;
          n->fn = util::substitute(e->fn, e->name, rise::ident(y));
          lam = n;
        }
        Expr b = to_core(lam->fn);
        if (b == lam->fn) return lam;
        auto n = std::make_shared<rise::ExprNode>(*lam);
        n->fn = b;
        return n;
      }
      case ExprKind::App: {
        Expr f = to_core(e->fn), a = to_core(e->arg);
        if (f == e->fn && a == e->arg) return e;
        return rise::with_children(e, f, a);
      }
      case ExprKind::DepApp:
      case ExprKind::DepLambda:
      case ExprKind::Annotation: {
        Expr f = to_core(e->fn);
        if (f == e->fn) return e;
        auto n = std::make_shared<rise::ExprNode>(*e);
        n->fn = f;
        return n;
      }
      default:
        return e;
    }
  }

  // init = generate(fun(i => .. generate(fun(j => x)) ..)) over the maps inside the
  // first reduction, with x independent of the indices: keep x.
  void peel_init() {
    size_t f = 0;
    while (!m_.dims[static_cast<size_t>(m_.order[f])].fold) ++f;
    Expr x = m_.init;
    for (size_t i = f + 1; i < m_.order.size(); ++i) {
      if (m_.dims[static_cast<size_t>(m_.order[i])].fold) continue;
      auto g = util::match_prim(x, PrimId::Generate, 1);
      const Expr fn = g ? g->args[0] : nullptr;
      if (!fn || fn->kind != ExprKind::Lambda || util::occurs_free(fn->name, fn->fn)) {
        m_.init_scalar = false;
        for (size_t k = f + 1; k < m_.order.size(); ++k)
          if (!m_.dims[static_cast<size_t>(m_.order[k])].fold) m_.init_dims.push_back(m_.order[k]);
        return;
      }
      x = fn->fn;
    }
    m_.init = x;
  }

  int add_dim(bool fold, const Nat& size, const std::string& hint, DT consumed) {
    int id = static_cast<int>(m_.dims.size());
    m_.dims.push_back(Dim{fold, size, hint, std::move(consumed)});
    m_.order.push_back(id);
    if (!fold) {
      m_.out_groups.push_back({id});
      if (m_.acc_in) m_.acc_dims.push_back(id);
    }
    return id;
  }

  void parse(const Expr& e, int depth, bool acc_active) {
    if (depth < max_depth_) {
      if (try_map(e, depth, acc_active)) return;
      if (try_fold(e, depth, acc_active, false)) return;
      if (acc_active && allow_b_ && try_b(e, depth)) return;
    }
    m_.core = to_core(e);
  }

  bool try_map(const Expr& e, int depth, bool acc_active) {
    auto mc = util::match_map(e);
    if (!mc) return false;
    const Expr& data = mc->second;
    auto size = util::array_size(data->type);
    if (!size) return false;
    int id = static_cast<int>(m_.dims.size());
    DT elem;
    Expr new_acc_root;
    if (acc_active) {
      auto zc = util::match_prim(data, PrimId::Zip, 2);
      bool top = m_.acc_in && m_.order.empty();
      if (top) {
        // the incoming accumulator
        if (!zc || mentions(zc->args[0])) return false;
        new_acc_root = zc->args[0];
        DT c = consume(eval(zc->args[1]), id);
        if (!c) return false;
        elem = mk_zip(0, acc_node(), c);
      } else if (zc && is_acc(zc->args[0])) {
        DT c = consume(eval(zc->args[1]), id);
        if (!c) return false;
        elem = mk_zip(0, acc_node(), c);
      } else if (is_acc(data)) {
        elem = acc_node();
      } else {
        return false;
      }
    } else {
      elem = consume(eval(data), id);
      if (!elem) return false;
    }
    Lam1 l = lam1(mc->first);
    if (new_acc_root) m_.acc_root = new_acc_root;
    add_dim(false, *size, l.x, elem);
    env_.emplace_back(l.x, elem);
    parse(l.body, depth + 1, acc_active);
    env_.pop_back();
    return true;
  }

  bool try_fold(const Expr& e, int depth, bool acc_active, bool threaded) {
    auto f = match_fold(e);
    if (!f) return false;
    auto size = util::array_size(f->data->type);
    if (!size) return false;
    if (acc_active) {
      if (m_.acc_in && m_.order.empty()) return false;
      if (!threaded && !is_acc(f->init)) return false;
    } else if (mentions(f->init)) {
      return false;
    }
    int id = static_cast<int>(m_.dims.size());
    DT t = eval(f->data);
    if (!first_leaf(t)) return false;
    DT elem = consume(t, id);
    if (!elem) return false;
    Lam2 l = lam2(f->op);
    if (!acc_active) {
      m_.has_fold = true;
      m_.init = f->init;
    }
    add_dim(true, *size, l.b, elem);
    env_.emplace_back(l.a, acc_node());
    env_.emplace_back(l.b, elem);
    parse(l.body, depth + 1, true);
    env_.pop_back();
    env_.pop_back();
    return true;
  }

  // op(acc)(reduce(..)(neutral)(..)): the inner reduction continues from acc.
  bool try_b(const Expr& e, int depth) {
    if (e->kind != ExprKind::App || e->fn->kind != ExprKind::App) return false;
    auto op = known_op(e->fn->fn);
    if (!op || mentions(e->fn->fn)) return false;
    Expr inner;
    if (is_acc(e->fn->arg))
      inner = e->arg;
    else if (is_acc(e->arg))
      inner = e->fn->arg;
    else
      return false;
    auto f = match_fold(inner);
    if (!f || !is_neutral(*op, f->init)) return false;
    if (!try_fold(inner, depth, true, true)) return false;
    m_.b_ops.push_back(*op);
    return true;
  }
};

// The model of the nest at e with at most max_depth levels (the deepest found).
std::optional<Model> analyze(const Expr& e, int max_depth, bool allow_acc_in) {
  std::optional<Model> best;
  for (int acc_in = 0; acc_in < (allow_acc_in ? 2 : 1); ++acc_in) {
    for (int allow_b = 1; allow_b >= 0; --allow_b) {
      LoopNestParser p(max_depth, acc_in != 0, allow_b != 0);
      auto m = p.run(e);
      if (!m) continue;
      if (!best || m->depth() > best->depth()) best = m;
      if (best->depth() >= max_depth) return best;
      break;  // the b form did not matter
    }
  }
  return best;
}

// ---------------------------------------------------------------- model operations

// Split level `id` (of size N) into an outer level of N/n and an inner level of n.
void split_dim(Model& m, int id, int64_t n) {
  Dim d = m.dims[static_cast<size_t>(id)];
  int o = static_cast<int>(m.dims.size());
  m.dims.push_back(Dim{d.fold, arith::exact_div(d.size, Nat(n)), d.hint, nullptr});
  int i = static_cast<int>(m.dims.size());
  m.dims.push_back(Dim{d.fold, Nat(n), d.hint, nullptr});
  auto split_in = [&](Expr& root, std::vector<int>& dims) {
    auto it = std::find(dims.begin(), dims.end(), id);
    if (it == dims.end()) return;
    int p = static_cast<int>(it - dims.begin());
    // split(n)(join(y)) with y: m.n.t is y
    auto j = util::match_prim(root, PrimId::Join, 1);
    auto inner = j ? util::array_size(util::array_elem(j->args[0]->type)) : std::nullopt;
    if (p == 0 && inner && *inner == Nat(n))
      root = j->args[0];
    else
      root = at_depth(
          p, [&](const Expr& x) { return call(PrimId::Split, {Nat(n)}, {x}); }, root);
    *it = i;
    dims.insert(dims.begin() + p, o);
  };
  for (LeafRec& l : m.leaves) split_in(l.root, l.dims);
  if (m.acc_in) split_in(m.acc_root, m.acc_dims);
  if (!m.init_scalar) split_in(m.init, m.init_dims);
  auto replace = [&](std::vector<int>& v) {
    auto it = std::find(v.begin(), v.end(), id);
    if (it == v.end()) return;
    *it = i;
    v.insert(it, o);
  };
  replace(m.order);
  for (auto& g : m.out_groups) replace(g);
}

// Why levels j and j+1 (loop positions) cannot be interchanged, if they cannot.
std::optional<std::string> cannot_swap(const Model& m, size_t j) {
  const Dim& a = m.dims[static_cast<size_t>(m.order[j])];
  const Dim& b = m.dims[static_cast<size_t>(m.order[j + 1])];
  if (a.fold && b.fold && !core_op(m))
    return "two reductions can only be interchanged when the innermost computation is acc ⊕ h "
           "with ⊕ associative and commutative (add, mul, fmin or fmax)";
  return std::nullopt;
}

// ---------------------------------------------------------------- emission

// x with its leading dimensions, indexed by `cur` (in order), permuted into `target`
// by transposes at the right depths.
Expr permute(Expr x, std::vector<int> cur, const std::vector<int>& target) {
  for (size_t i = 0; i < target.size() && i < cur.size(); ++i) {
    size_t j = i;
    while (j < cur.size() && cur[j] != target[i]) ++j;
    if (j == cur.size()) continue;
    while (j > i) {
      x = at_depth(
          static_cast<int>(j - 1), [](const Expr& y) { return call(PrimId::Transpose, {y}); }, x);
      std::swap(cur[j - 1], cur[j]);
      --j;
    }
  }
  return x;
}

class Emitter {
 public:
  explicit Emitter(const Model& m) : m_(m) {}

  // The term, or nullptr with `why` set.
  Expr run(std::string* why) {
    pos_.assign(m_.dims.size(), -1);
    for (size_t i = 0; i < m_.order.size(); ++i)
      pos_[static_cast<size_t>(m_.order[i])] = static_cast<int>(i);
    auto in_order = [&](std::vector<int> dims) {
      std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
        return pos_[static_cast<size_t>(a)] < pos_[static_cast<size_t>(b)];
      });
      return dims;
    };
    for (const LeafRec& l : m_.leaves) {
      std::vector<int> t = in_order(l.dims);
      cur_.push_back(permute(l.root, l.dims, t));
      pd_.push_back(t);
      next_.push_back(0);
    }
    if (m_.has_fold && !m_.acc_in && !m_.init_scalar) {
      // the initial array, read like a leaf by the maps outside the first reduction
      init_idx_ = cur_.size();
      std::vector<int> t = in_order(m_.init_dims);
      cur_.push_back(permute(m_.init, m_.init_dims, t));
      pd_.push_back(t);
      next_.push_back(0);
    }
    Expr acc;
    if (m_.acc_in) acc = permute(m_.acc_root, m_.acc_dims, in_order(m_.acc_dims));
    Expr body = level(0, acc);
    if (!body) {
      *why = why_;
      return nullptr;
    }
    std::vector<int> out_cur, out_target;
    for (int id : m_.order)
      if (!m_.dims[static_cast<size_t>(id)].fold) out_cur.push_back(id);
    for (const auto& g : m_.out_groups) out_target.insert(out_target.end(), g.begin(), g.end());
    body = permute(body, out_cur, out_target);
    int p = 0;
    for (const auto& g : m_.out_groups) {
      for (size_t k = 1; k < g.size(); ++k)
        body = at_depth(
            p, [](const Expr& y) { return call(PrimId::Join, {y}); }, body);
      ++p;
    }
    return body;
  }

 private:
  const Model& m_;
  std::vector<int> pos_;
  std::vector<Expr> cur_;
  std::vector<std::vector<int>> pd_;
  std::vector<size_t> next_;
  size_t init_idx_ = static_cast<size_t>(-1);  // the initial array's entry, if any
  std::string why_;

  static Expr zip_tree(const std::vector<Expr>& v, size_t from = 0) {
    if (from + 1 == v.size()) return v[from];
    return call(PrimId::Zip, {v[from], zip_tree(v, from + 1)});
  }
  static Expr proj(const Expr& base, size_t j, size_t k) {
    if (k == 1) return base;
    if (j == 0) return call(PrimId::Fst, {base});
    return proj(call(PrimId::Snd, {base}), j - 1, k - 1);
  }

  // The first reduction's initial accumulator over the maps in loop positions from..:
  // the scalar init broadcast with generate, or the initial array (what is left of
  // it after the maps outside), broadcast over the maps it is not indexed by.
  Expr init_array(size_t from) const {
    std::vector<int> maps;
    for (size_t i = from; i < m_.order.size(); ++i)
      if (!m_.dims[static_cast<size_t>(m_.order[i])].fold) maps.push_back(m_.order[i]);
    std::vector<int> rest;
    Expr x = m_.init;
    if (init_idx_ != static_cast<size_t>(-1)) {
      x = cur_[init_idx_];
      rest.assign(pd_[init_idx_].begin() + static_cast<std::ptrdiff_t>(next_[init_idx_]),
                  pd_[init_idx_].end());
    }
    std::function<Expr(size_t, Expr, size_t)> gen = [&](size_t k, Expr v, size_t r) -> Expr {
      if (k == maps.size()) return v;
      if (r < rest.size() && std::equal(maps.begin() + static_cast<std::ptrdiff_t>(k), maps.end(),
                                        rest.begin() + static_cast<std::ptrdiff_t>(r), rest.end()))
        return v;
      if (r < rest.size() && rest[r] == maps[k])
        return util::mk_map(fun("v", [&](const Expr& y) { return gen(k + 1, y, r + 1); }), v);
      return call(PrimId::Generate, {fun("i", [&](const Expr&) { return gen(k + 1, v, r); })});
    };
    return gen(0, x, 0);
  }

  Expr level(size_t i, const Expr& acc) {
    if (i == m_.order.size()) {
      Expr c = m_.core;
      for (size_t k = 0; k < m_.leaves.size(); ++k)
        c = util::substitute(c, m_.leaves[k].var, cur_[k]);
      if (acc) c = util::substitute(c, m_.acc_var, acc);
      return c;
    }
    int id = m_.order[i];
    const Dim& d = m_.dims[static_cast<size_t>(id)];
    std::vector<size_t> consumers;
    std::vector<Expr> vals;
    for (size_t k = 0; k < cur_.size(); ++k)
      if (next_[k] < pd_[k].size() && pd_[k][next_[k]] == id && !(k == init_idx_ && acc)) {
        consumers.push_back(k);
        vals.push_back(cur_[k]);
      }
    Expr data = vals.empty() ? nullptr : zip_tree(vals);
    std::string p = rise::fresh_name(d.hint.empty() ? "x" : d.hint);
    if (d.fold) {
      if (!data) {
        why_ = "a reduction has no array to reduce";
        return nullptr;
      }
      if (!acc && !m_.init) {
        why_ = "internal: a reduction without an initial value";
        return nullptr;
      }
      std::string a = rise::fresh_name("acc");
      Expr init = acc ? acc : init_array(i + 1);
      for (size_t j = 0; j < consumers.size(); ++j) {
        cur_[consumers[j]] = proj(rise::ident(p), j, consumers.size());
        ++next_[consumers[j]];
      }
      Expr body = level(i + 1, rise::ident(a));
      if (!body) return nullptr;
      return call(PrimId::ReduceSeq, {rise::lambda(a, rise::lambda(p, body)), init, data});
    }
    Expr full, acc2, base = rise::ident(p);
    if (acc) {
      full = data ? call(PrimId::Zip, {acc, data}) : acc;
      acc2 = data ? call(PrimId::Fst, {rise::ident(p)}) : rise::ident(p);
      if (data) base = call(PrimId::Snd, {rise::ident(p)});
    } else {
      if (!data) {
        why_ = "a map that only iterated over the accumulator would be outside the reduction";
        return nullptr;
      }
      full = data;
    }
    for (size_t j = 0; j < consumers.size(); ++j) {
      cur_[consumers[j]] = proj(base, j, consumers.size());
      ++next_[consumers[j]];
    }
    Expr body = level(i + 1, acc2);
    if (!body) return nullptr;
    return call(PrimId::Map, {rise::lambda(p, body), full});
  }
};

Result emit(const std::string& rule_name, const Model& m, const Expr& where) {
  std::string why;
  Emitter em(m);
  Expr out = em.run(&why);
  if (!out) return fail_at(rule_name, where, why);
  return out;
}

std::string kinds(const Model& m, size_t from, size_t n) {
  std::string s;
  for (size_t i = from; i < from + n && i < m.order.size(); ++i)
    s += std::string(i > from ? ", " : "") +
         rise::prim_name(m.dims[static_cast<size_t>(m.order[i])].fold ? PrimId::Reduce
                                                                      : PrimId::Map);
  return s;
}

}  // namespace risec::elevate::loop_nest
