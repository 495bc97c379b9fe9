// Translation of a closed entry into the fast path's nodes (see interp_fast.h and
// interp_fast_internal.h): functions are inlined where they are applied (a lambda
// or a partially applied primitive passed to map, reduce or a beta redex), so no
// function exists at run time; data is given frame slots for its leaves.
#include <algorithm>

#include "rise/interp.h"
#include "rise/interp_fast_internal.h"

namespace risec::rise::fast {

namespace {

struct CEnv;

// A function known while translating: a lambda or a primitive with the arguments
// applied to it so far (each with the environment it is to be translated in).
struct CArg {
  bool dep = false;
  TypeArg targ;
  Expr e;
  const CEnv* env = nullptr;
  Type type;  // data arguments bound by the translator (e null): the binding's type
};
struct StaticFn {
  Expr head;
  const CEnv* env = nullptr;
  std::vector<CArg> args;
  // A primitive's errors are reported where the boxed evaluator reports them: at the
  // last application written directly on the primitive (`syntactic` while the
  // arguments come from such applications, not through a variable).
  Span span;
  bool syntactic = false;
};

struct CEnv {
  std::string name;
  const CEnv* parent = nullptr;
  bool is_fn = false;
  StaticFn fn;
  Type type;  // data: its type and slots
  std::vector<int> sslots, aslots;
};

class Translator {
 public:
  std::vector<std::unique_ptr<CEnv>> envs;
  int nslots_s = 0, nslots_a = 0;

  int new_s(int k) {
    int r = nslots_s;
    nslots_s += k;
    return r;
  }
  int new_a(int k) {
    int r = nslots_a;
    nslots_a += k;
    return r;
  }

  // A data binding of type t in fresh consecutive slots.
  const CEnv* bind_data(const std::string& name, const Type& t, const CEnv* parent,
                        int* s0 = nullptr, int* a0 = nullptr) {
    auto e = std::make_unique<CEnv>();
    e->name = name;
    e->parent = parent;
    e->type = t;
    std::vector<Leaf> ls = layout(t);
    int ns = 0, na = 0;
    for (const Leaf& l : ls) (l.arr ? na : ns)++;
    int bs = new_s(ns), ba = new_a(na);
    for (int i = 0; i < ns; ++i) e->sslots.push_back(bs + i);
    for (int i = 0; i < na; ++i) e->aslots.push_back(ba + i);
    if (s0) *s0 = bs;
    if (a0) *a0 = ba;
    envs.push_back(std::move(e));
    return envs.back().get();
  }
  const CEnv* bind_fn(const std::string& name, StaticFn f, const CEnv* parent) {
    auto e = std::make_unique<CEnv>();
    e->name = name;
    e->parent = parent;
    e->is_fn = true;
    e->fn = std::move(f);
    envs.push_back(std::move(e));
    return envs.back().get();
  }
  static const CEnv* lookup(const CEnv* env, const std::string& name) {
    for (; env; env = env->parent)
      if (env->name == name) return env;
    unsupported();
  }

  NodeP var_node(const CEnv* b) {
    auto v = std::make_unique<Var>();
    set_type(*v, b->type);
    v->sslots = b->sslots;
    v->aslots = b->aslots;
    if (!v->sslots.empty()) v->s0 = v->sslots[0];
    return v;
  }

  // A function-typed expression as a StaticFn.
  StaticFn fn_of(const Expr& e, const CEnv* env) {
    switch (e->kind) {
      case ExprKind::Lambda:
      case ExprKind::DepLambda:  // (iterate's step function)
        return StaticFn{e, env, {}, e->span, false};
      case ExprKind::Primitive:
        return StaticFn{e, env, {}, e->span, true};
      case ExprKind::Ident: {
        const CEnv* b = lookup(env, e->name);
        if (!b->is_fn) unsupported();
        StaticFn f = b->fn;
        f.syntactic = false;
        return f;
      }
      case ExprKind::App:
      case ExprKind::DepApp: {
        StaticFn f = fn_of(e->fn, env);
        if (e->kind == ExprKind::App)
          f.args.push_back(CArg{false, {}, e->arg, env, nullptr});
        else
          f.args.push_back(CArg{true, ty(e->type_arg), nullptr, env, nullptr});
        if (f.syntactic && e->span.known()) f.span = e->span;
        return f;
      }
      default:
        unsupported();
    }
  }

  // A data-typed expression.
  NodeP data(const Expr& e, const CEnv* env) {
    // Deeply nested programs are left to the boxed evaluator: translation and
    // evaluation here recurse along the nesting.
    if (++depth > kMaxDepth) unsupported();
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth};
    if (e->kind == ExprKind::Ident) {  // (loop parameters are untyped identifiers)
      const CEnv* b = lookup(env, e->name);
      if (b->is_fn) unsupported();
      return var_node(b);
    }
    const Type et = ty(e->type);
    if (!et || !is_data(et)) unsupported();
    switch (e->kind) {
      case ExprKind::Literal:
        return literal(e, et);
      case ExprKind::App:
      case ExprKind::DepApp: {
        NodeP n = call(fn_of(e, env), {}, et);
        if (et->kind != TypeKind::Array || !invariant(e, env)) return n;
        auto c = std::make_unique<Cached>();
        set_type(*c, n->t);
        c->x = std::move(n);
        c->flag = new_s(1);
        c->s0 = new_s(c->ns);
        c->a0 = new_a(c->na);
        flags.push_back(c->flag);
        return c;
      }
      default:
        unsupported();
    }
  }

  // Whether e's value is the same wherever it is evaluated during a run: its free
  // variables are the entry's inputs.
  bool invariant(const Expr& e, const CEnv* env) {
    for (const std::string& v : free_vars(e)) {
      const CEnv* b = lookup(env, v);
      if (std::find(inputs.begin(), inputs.end(), b) == inputs.end()) return false;
    }
    return true;
  }
  std::vector<const CEnv*> inputs;  // the entry's parameters
  int depth = 0;
  // Sizes bound while translating one step of iterate (its function's size parameter):
  // applied to every type read from the expression.
  TypeSubst sub;
  Type ty(const Type& t) const { return t && !sub.empty() ? substitute(t, sub) : t; }
  TypeArg ty(const TypeArg& a) const { return sub.empty() ? a : substitute(a, sub); }
  static constexpr int kMaxDepth = 400;
  std::vector<int> flags;  // Cached nodes' flags

  NodeP literal(const Expr& e, const Type& et) {
    if (et->kind != TypeKind::Scalar && et->kind != TypeKind::Index) unsupported();
    std::optional<Value> v = literal_value(*e, et);
    if (!v) unsupported();
    auto c = std::make_unique<Const>();
    set_type(*c, et);
    if (v->kind() == ValueKind::Index)
      c->v.i = v->index_value();
    else if (v->kind() == ValueKind::Scalar)
      c->v = from_value(*v);
    else
      unsupported();
    return c;
  }

  // A data argument of a call as a node.
  NodeP arg_node(const CArg& a) {
    if (a.dep) internal_error("fast interpreter: a type-level argument where data is expected");
    return data(a.e, a.env);
  }

  // f applied to its collected arguments plus `more`, with result type `rt`.
  NodeP call(const StaticFn& f0, std::vector<CArg> more, const Type& rt) {
    std::vector<CArg> args = f0.args;
    for (auto& m : more) args.push_back(std::move(m));
    Expr head = f0.head;
    const CEnv* env = f0.env;
    size_t k = 0;
    // beta: bind lambda parameters one by one
    while (head->kind == ExprKind::Lambda) {
      if (k == args.size()) unsupported();  // a function-typed result
      const CArg& a = args[k++];
      if (a.dep) unsupported();
      const Type pt = head->type ? ty(head->type->a) : nullptr;
      if (!pt) unsupported();
      if (!is_data(pt)) {
        env = bind_fn(head->name, a.e ? fn_of(a.e, a.env) : unsupported_fn(), env);
        head = head->fn;
        continue;
      }
      if (a.e->kind == ExprKind::Ident) {  // a variable: the parameter shares its slots
        const CEnv* src = lookup(a.env, a.e->name);
        if (!src->is_fn) {
          auto alias = std::make_unique<CEnv>(*src);
          alias->name = head->name;
          alias->parent = env;
          envs.push_back(std::move(alias));
          env = envs.back().get();
          head = head->fn;
          continue;
        }
      }
      NodeP value = arg_node(a);
      int s0 = 0, a0 = 0;
      const CEnv* b = bind_data(head->name, value->t, env, &s0, &a0);
      NodeP body;
      if (k == args.size()) {
        body = data(head->fn, b);
      } else {
        StaticFn rest = fn_of(head->fn, b);
        std::vector<CArg> remaining(args.begin() + static_cast<long>(k), args.end());
        body = call(rest, std::move(remaining), rt);
      }
      auto let = std::make_unique<Let>();
      set_type(*let, body->t);
      let->value = std::move(value);
      let->body = std::move(body);
      let->s0 = s0;
      let->a0 = a0;
      return let;
    }
    std::vector<CArg> rest(args.begin() + static_cast<long>(k), args.end());
    if (head != f0.head) {  // after beta: the body, where the parameters are bound
      if (rest.empty()) return data(head, env);
      return call(fn_of(head, env), std::move(rest), rt);
    }
    if (head->kind != ExprKind::Primitive) unsupported();
    return prim(head, std::move(rest), rt, f0.span);
  }
  static StaticFn unsupported_fn() { unsupported(); }

  // Apply a function to data values held in bound variables (loop parameters).
  NodeP apply_bound(const StaticFn& f, const std::vector<const CEnv*>& bound, const Type& rt) {
    std::vector<CArg> more;
    for (const CEnv* b : bound) more.push_back(CArg{false, {}, ident(b->name), b, b->type});
    return call(f, std::move(more), rt);
  }

  std::string fresh() { return "$" + std::to_string(counter++); }
  int counter = 0;

  // The function type of a function-valued argument, peeled `k` arrows: its result.
  static Type fn_result(const Type& fn_t, int k) {
    Type t = fn_t;
    for (int i = 0; i < k; ++i) {
      if (!t || t->kind != TypeKind::Fun) unsupported();
      t = t->b;
    }
    return t;
  }

  NodeP prim(const Expr& head, std::vector<CArg> args, const Type& rt, const Span& span) {
    const PrimitiveInfo* p = head->prim;
    if (!p || !rt || !is_data(rt)) unsupported();
    std::vector<TypeArg> deps;
    std::vector<CArg> vals;
    for (auto& a : args) (a.dep ? deps.push_back(a.targ) : vals.push_back(a));
    const int arity = p->is(PrimId::MakeArray) ? head->count : p->arity;
    if (static_cast<int>(vals.size()) != arity) unsupported();
    auto nat_dep = [&](size_t i) -> int64_t {
      if (i >= deps.size() || !std::holds_alternative<Nat>(deps[i])) unsupported();
      return const_nat(std::get<Nat>(deps[i]));
    };
    if (const ScalarOp sop = scalar_op_of(p)) return scalar_prim(sop, vals, rt, span);
    switch (p->id) {
      case PrimId::Id:
      case PrimId::ToMem:
        return arg_node(vals[0]);
      case PrimId::Select: {
        auto n = std::make_unique<Select>();
        n->cond = arg_node(vals[0]);
        n->a = arg_node(vals[1]);
        n->b = arg_node(vals[2]);
        set_type(*n, n->a->t);
        return n;
      }
      case PrimId::Cast: {
        NodeP x = arg_node(vals[0]);
        if (x->t->kind != TypeKind::Scalar || rt->kind != TypeKind::Scalar) unsupported();
        if (equal(x->t, rt)) return x;
        auto n = std::make_unique<Cast>();
        n->from = x->t->scalar;
        n->x = std::move(x);
        n->to = rt;
        n->span = span;
        set_type(*n, rt);
        return n;
      }
      case PrimId::Let: {
        // let(value)(fun(x => body)); a value whose variable the body never reads is
        // not needed: not evaluated (as interp.cpp's let, and compiled code)
        if (const Expr& l = vals[1].e;
            l->kind == ExprKind::Lambda && is_data(rt) && !any_subexpr(l->fn, [&](const Expr& x) {
              return x->kind == ExprKind::Ident && x->name == l->name;
            }))
          return data(l->fn, vals[1].env);
        StaticFn f = fn_of(vals[1].e, vals[1].env);
        std::vector<CArg> one{vals[0]};
        return call(f, std::move(one), rt);
      }
      case PrimId::MakePair: {
        auto n = std::make_unique<MakePair>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, pair(n->x->t, n->y->t));
        return n;
      }
      case PrimId::Fst:
      case PrimId::Snd: {
        NodeP x = arg_node(vals[0]);
        if (x->t->kind != TypeKind::Pair) unsupported();
        auto n = std::make_unique<Project>();
        const Type part = p->is(PrimId::Fst) ? x->t->a : x->t->b;
        set_type(*n, part);
        if (p->is(PrimId::Snd)) {
          std::vector<Leaf> first = layout(x->t->a);
          for (const Leaf& l : first) (l.arr ? n->skip_a : n->skip_s)++;
        }
        // a variable: pick its slots directly
        if (auto* v = dynamic_cast<Var*>(x.get())) {
          auto w = std::make_unique<Var>();
          set_type(*w, part);
          w->sslots.assign(v->sslots.begin() + n->skip_s, v->sslots.begin() + n->skip_s + w->ns);
          w->aslots.assign(v->aslots.begin() + n->skip_a, v->aslots.begin() + n->skip_a + w->na);
          if (!w->sslots.empty()) w->s0 = w->sslots[0];
          return w;
        }
        n->s0 = new_s(x->ns);
        n->a0 = new_a(x->na);
        n->x = std::move(x);
        return n;
      }
      case PrimId::Idx: {
        auto n = std::make_unique<Idx>();
        n->i = arg_node(vals[0]);
        n->x = arg_node(vals[1]);
        if (n->x->t->kind != TypeKind::Array || n->i->t->kind != TypeKind::Index) unsupported();
        n->n = const_nat(n->x->t->size);
        n->elem = layout(n->x->t->a);
        n->a0 = new_a(n->x->na);
        n->span = span;
        set_type(*n, n->x->t->a);
        if (n->x->na == 1 && n->x->ns == 0 && (n->ns + n->na) == 1) {
          if (auto* v = dynamic_cast<Var*>(n->x.get())) {
            auto w = std::make_unique<VarIdx>();
            w->slot = v->aslots[0];
            w->cidx.push_back(const_index(n->i.get()));
            w->idx.push_back(std::move(n->i));
            set_type(*w, n->t);
            return w;
          }
          if (auto* v = dynamic_cast<VarIdx*>(n->x.get())) {
            auto w = std::make_unique<VarIdx>();
            w->slot = v->slot;
            w->idx = std::move(v->idx);
            w->cidx = std::move(v->cidx);
            w->cidx.push_back(const_index(n->i.get()));
            w->idx.push_back(std::move(n->i));
            set_type(*w, n->t);
            return w;
          }
        }
        return n;
      }
      case PrimId::Zip: {
        auto n = std::make_unique<MakePair>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, rt);
        return n;
      }
      case PrimId::Unzip: {
        auto n = std::make_unique<Same>();  // n.(s, t) and (n.s, n.t) have the same leaves
        n->x = arg_node(vals[0]);
        set_type(*n, rt);
        return n;
      }
      case PrimId::Split:
      case PrimId::Join:
      case PrimId::Transpose:
      case PrimId::Slide:
      case PrimId::Take:
      case PrimId::Drop:
      case PrimId::Reverse: {
        auto n = view_node(p, deps, 0);
        n->x = arg_node(vals[0]);
        set_type(*n, rt);
        if (n->ns) unsupported();
        return n;
      }
      case PrimId::PadCst:
      case PrimId::PadClamp: {
        auto n = std::make_unique<Pad>();
        n->l = nat_dep(0);
        n->r = nat_dep(1);
        const bool cst = p->is(PrimId::PadCst);
        if (cst) n->cst = arg_node(vals[0]);
        n->x = arg_node(vals[cst ? 1 : 0]);
        set_type(*n, rt);
        if (!cst && const_nat(n->x->t->size) == 0) unsupported();
        n->elem = layout(rt->a);
        n->x_a0 = new_a(n->x->na);
        if (cst) {
          n->c_s0 = new_s(n->cst->ns);
          n->c_a0 = new_a(n->cst->na);
        }
        return n;
      }
      case PrimId::Concat: {
        auto n = std::make_unique<Concat>();
        n->x = arg_node(vals[0]);
        n->y = arg_node(vals[1]);
        set_type(*n, rt);
        n->elem = layout(rt->a);
        n->x_a0 = new_a(n->x->na);
        n->y_a0 = new_a(n->y->na);
        return n;
      }
      case PrimId::MakeArray: {
        auto n = std::make_unique<MakeArray>();
        set_type(*n, rt);
        for (auto& v : vals) n->xs.push_back(arg_node(v));
        n->elem = layout(rt->a);
        int es = 0, ea = 0;
        for (const Leaf& l : n->elem) (l.arr ? ea : es)++;
        n->e_s0 = new_s(es);
        n->e_a0 = new_a(ea);
        return n;
      }
      case PrimId::Map:
      case PrimId::MapSeq:
      case PrimId::MapSeqUnroll:
      case PrimId::MapPar:
      case PrimId::Generate:
        return map(p->is(PrimId::Generate), vals, rt);
      case PrimId::Reduce:
      case PrimId::ReduceSeq:
      case PrimId::ReduceSeqUnroll:
      case PrimId::ReducePar:
        return reduce(vals, rt);
      case PrimId::Iterate:
        return iterate(deps, vals, rt);
      case PrimId::IterateWhile:
        return iterate_while(deps, vals, rt);
      default:
        unsupported();
    }
  }

  // iterateWhile(k)(cond)(step)(init): both functions read the state's slots.
  NodeP iterate_while(const std::vector<TypeArg>& deps, std::vector<CArg>& vals, const Type& rt) {
    int64_t k = -1;
    for (size_t i = 0; i < deps.size() && k < 0; ++i)
      if (std::holds_alternative<Nat>(deps[i])) k = const_nat(std::get<Nat>(deps[i]));
    if (k < 0 || !vals[0].e || !vals[1].e) unsupported();
    auto n = std::make_unique<IterateWhile>();
    set_type(*n, rt);
    n->k = k;
    n->init = arg_node(vals[2]);
    if (!equal(n->init->t, rt)) unsupported();
    const CEnv* st = bind_data(fresh(), rt, nullptr, &n->st_s0, &n->st_a0);
    n->cond = apply_bound(fn_of(vals[0].e, vals[0].env), {st}, rise::scalar(ScalarKind::Bool));
    if (n->cond->ns != 1 || n->cond->na != 0) unsupported();
    n->step = apply_bound(fn_of(vals[1].e, vals[1].env), {st}, rt);
    if (!equal(n->step->t, rt)) unsupported();
    n->r_s0 = new_s(n->ns);
    n->r_a0 = new_a(n->na);
    return n;
  }

  // iterate(k)(f)(x): k steps, each f's body translated with its size parameter bound
  // to the step's length divided by f's factor (as the boxed evaluator instantiates f).
  NodeP iterate(const std::vector<TypeArg>& deps, std::vector<CArg>& vals, const Type& rt) {
    if (!sub.empty()) unsupported();  // (one iterate inside another: left to the boxed one)
    int64_t k = -1;
    for (size_t i = deps.size(); i-- > 0 && k < 0;)
      if (std::holds_alternative<Nat>(deps[i])) k = const_nat(std::get<Nat>(deps[i]));
    if (k < 0 || k > kMaxIterate || !vals[0].e) unsupported();
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    const Type ft = vals[0].e->type;
    if (f.head->kind != ExprKind::DepLambda || f.head->binder_kind != Kind::Nat ||
        !f.args.empty() || !ft || ft->kind != TypeKind::DepFun)
      unsupported();
    const Type step = instantiate(ft, Nat(1));
    if (step->kind != TypeKind::Fun || step->a->kind != TypeKind::Array) unsupported();
    const int64_t factor = const_nat(step->a->size);
    auto it = std::make_unique<Iterate>();
    it->x = arg_node(vals[1]);
    if (it->x->t->kind != TypeKind::Array || factor <= 0) unsupported();
    set_type(*it, rt);
    const Type elem = it->x->t->a;
    int64_t len = const_nat(it->x->t->size);
    for (int64_t j = 0; j < k; ++j) {
      if (len % factor != 0) unsupported();  // (the boxed evaluator reports it)
      Iterate::Step st;
      const CEnv* in = bind_data(fresh(), array(Nat(len), elem), nullptr, &st.s0, &st.a0);
      len /= factor;
      const Type out = array(Nat(len), elem);
      sub.nats[f.head->name] = Nat(len);
      struct Reset {
        TypeSubst& s;
        ~Reset() { s = TypeSubst{}; }
      } reset{sub};
      st.body = apply_bound(fn_of(f.head->fn, f.env), {in}, out);
      if (!equal(st.body->t, out)) unsupported();
      it->steps.push_back(std::move(st));
    }
    if (!equal(rt, array(Nat(len), elem))) unsupported();
    return it;
  }
  static constexpr int64_t kMaxIterate = 64;

  // An index literal's value (-1 for a computed index).
  static int64_t const_index(const Node* i) {
    auto* k = dynamic_cast<const Const*>(i);
    return k ? k->v.i : -1;
  }

  // A view primitive with its type-level arguments, applied at `depth`.
  static std::unique_ptr<View> view_node(const PrimitiveInfo* p, const std::vector<TypeArg>& deps,
                                         int depth) {
    auto nat_dep = [&](size_t i) -> int64_t {
      if (i >= deps.size() || !std::holds_alternative<Nat>(deps[i])) unsupported();
      return const_nat(std::get<Nat>(deps[i]));
    };
    auto n = std::make_unique<View>();
    n->depth = depth;
    switch (p->id) {
      case PrimId::Split:
        n->op = ViewOp::Split;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Join:
        n->op = ViewOp::Join;
        break;
      case PrimId::Transpose:
        n->op = ViewOp::Transpose;
        break;
      case PrimId::Slide:
        n->op = ViewOp::Slide;
        n->p1 = nat_dep(0);
        n->p2 = nat_dep(1);
        if (n->p2 <= 0) unsupported();
        break;
      case PrimId::Take:
        n->op = ViewOp::Take;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Drop:
        n->op = ViewOp::Drop;
        n->p1 = nat_dep(0);
        break;
      case PrimId::Reverse:
        n->op = ViewOp::Reverse;
        break;
      default:
        return nullptr;
    }
    return n;
  }

  // map(f) where f is a view primitive waiting for its array (or map of such, at any
  // depth): the view applied below the outer dimensions, with no loop and no copy.
  std::unique_ptr<View> mapped_view(const StaticFn& f, int depth) {
    if (f.head->kind != ExprKind::Primitive || !f.head->prim) return nullptr;
    const PrimitiveInfo* p = f.head->prim;
    std::vector<TypeArg> deps;
    std::vector<const CArg*> vals;
    for (const CArg& a : f.args) (a.dep ? deps.push_back(a.targ) : vals.push_back(&a));
    if (vals.empty() && static_cast<int>(deps.size()) == p->dep_arity) {
      switch (p->id) {
        case PrimId::Split:
        case PrimId::Join:
        case PrimId::Transpose:
        case PrimId::Slide:
        case PrimId::Take:
        case PrimId::Drop:
        case PrimId::Reverse:
          return view_node(p, deps, depth);
        default:
          return nullptr;
      }
    }
    if (vals.size() == 1 && (p->is(PrimId::Map) || p->is(PrimId::MapSeq)) && vals[0]->e)
      return mapped_view(fn_of(vals[0]->e, vals[0]->env), depth + 1);
    return nullptr;
  }

  NodeP scalar_prim(ScalarOp op, std::vector<CArg>& vals, const Type& rt, const Span& span) {
    NodeP x = arg_node(vals[0]);
    NodeP y = is_unary(op) ? nullptr : arg_node(vals[1]);
    if (x->t->kind != TypeKind::Scalar || (y && !equal(x->t, y->t))) unsupported();
    const ScalarKind k = x->t->scalar;
    auto fb = [&]<class T>(T*) -> NodeP {
      NodeP out;
      with_op(FloatBinOps{}, op->id, [&]<PrimId Op>() {
        auto n = std::make_unique<FloatBin<T, Op>>();
        n->x = std::move(x);
        n->y = std::move(y);
        set_type(*n, rt);
        out = std::move(n);
      });
      return out;
    };
    if (!y && is_float(k) && (op->is(PrimId::Neg) || op->math1)) {
      auto un = [&]<class T>(T*) -> NodeP {
        auto n = std::make_unique<FloatUnary<T>>();
        n->x = std::move(x);
        n->math1 = op->is(PrimId::Neg) ? nullptr : op->math1;
        n->abs = op->is(PrimId::Abs);
        set_type(*n, rt);
        return n;
      };
      return k == ScalarKind::F32 ? un(static_cast<float*>(nullptr))
                                  : un(static_cast<double*>(nullptr));
    }
    if (y && k == ScalarKind::F32)
      if (NodeP n = fb(static_cast<float*>(nullptr))) return n;
    if (y && k == ScalarKind::F64)
      if (NodeP n = fb(static_cast<double*>(nullptr))) return n;
    auto n = std::make_unique<BoxedOp>();
    n->op = op;
    n->k = k;
    n->x = std::move(x);
    n->y = std::move(y);
    n->span = span;
    set_type(*n, rt);
    if (n->ns != 1 || n->na != 0) unsupported();
    return n;
  }

  NodeP map(bool generate, std::vector<CArg>& vals, const Type& rt) {
    if (!generate) {
      if (auto v = mapped_view(fn_of(vals[0].e, vals[0].env), 1)) {
        v->x = arg_node(vals[1]);
        set_type(*v, rt);
        if (v->ns) unsupported();
        return v;
      }
    }
    auto n = std::make_unique<Map>();
    set_type(*n, rt);
    n->n = const_nat(rt->size);
    Type elem_in;
    const CEnv* pb;
    if (generate) {
      elem_in = index_type(Nat(n->n));
      pb = bind_data(fresh(), elem_in, nullptr, &n->p_s0, &n->p_a0);
    } else {
      n->xs = arg_node(vals[1]);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      elem_in = n->xs->t->a;
      n->x_elem = layout(elem_in);
      n->x_a0 = new_a(n->xs->na);
      pb = bind_data(fresh(), elem_in, nullptr, &n->p_s0, &n->p_a0);
    }
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    n->body = apply_bound(f, {pb}, rt->a);
    n->out_elem = layout(rt->a);
    n->b_s0 = new_s(n->body->ns);
    n->b_a0 = new_a(n->body->na);
    n->batch = batch_of(*n);
    maps.push_back(n.get());
    return n;
  }
  std::vector<Map*> maps;

  NodeP reduce(std::vector<CArg>& vals, const Type& rt) {
    auto n = std::make_unique<Reduce>();
    set_type(*n, rt);
    n->init = arg_node(vals[1]);
    // the array: map(g)(xs) is fused
    const Expr& arr = vals[2].e;
    Spine sp = spine(arr);
    const CEnv* eb;
    const CEnv* yb;
    bool fused = sp.head->kind == ExprKind::Primitive && sp.head->prim &&
                 (sp.head->prim->is(PrimId::Map) || sp.head->prim->is(PrimId::MapSeq)) &&
                 sp.args.size() == 2 && !sp.args[0].dep && !sp.args[1].dep;
    if (fused) {
      n->xs = data(sp.args[1].value, vals[2].env);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      n->x_elem = layout(n->xs->t->a);
      eb = bind_data(fresh(), n->xs->t->a, nullptr, &n->e_s0, &n->e_a0);
      StaticFn g = fn_of(sp.args[0].value, vals[2].env);
      n->g = apply_bound(g, {eb}, ty(arr->type)->a);
      yb = bind_data(fresh(), n->g->t, nullptr, &n->y_s0, &n->y_a0);
      if (n->g->ns != static_cast<int>(yb->sslots.size())) unsupported();
    } else {
      n->xs = arg_node(vals[2]);
      if (n->xs->t->kind != TypeKind::Array) unsupported();
      n->x_elem = layout(n->xs->t->a);
      yb = eb = bind_data(fresh(), n->xs->t->a, nullptr, &n->e_s0, &n->e_a0);
    }
    n->n = const_nat(n->xs->t->size);
    n->x_a0 = new_a(n->xs->na);
    const CEnv* accb = bind_data(fresh(), n->init->t, nullptr, &n->acc_s0, &n->acc_a0);
    StaticFn f = fn_of(vals[0].e, vals[0].env);
    n->f = apply_bound(f, {accb, yb}, rt);
    if (!equal(n->f->t, n->init->t)) unsupported();
    n->scalar_acc = n->ns == 1 && n->na == 0;
    n->r_s0 = new_s(n->ns);
    n->r_a0 = new_a(n->na);
    find_kernel(*n);
    return n;
  }
};

}  // namespace

std::unique_ptr<Translation> translate(const Expr& e) {
  if (!e || !e->type) return nullptr;
  Translator tr;
  auto out = std::make_unique<Translation>();
  try {
    Expr cur = e;
    const CEnv* env = nullptr;
    while (cur->kind == ExprKind::Lambda) {
      if (!cur->type || cur->type->kind != TypeKind::Fun || !is_data(cur->type->a)) return nullptr;
      env = tr.bind_data(cur->name, cur->type->a, env);
      tr.inputs.push_back(env);
      out->params.push_back(cur->type->a);
      out->in_s.push_back(env->sslots);
      out->in_a.push_back(env->aslots);
      cur = cur->fn;
    }
    out->root = tr.data(cur, env);
    for (const Leaf& l : out->root->leaves)
      if (l.index) unsupported();
    for (const Type& t : out->params)
      for (const Leaf& l : layout(t))
        if (l.index) unsupported();
  } catch (const Unsupported&) {
    return nullptr;
  }
  out->frame_sizes = {tr.nslots_s, tr.nslots_a};
  out->maps = std::move(tr.maps);
  return out;
}

}  // namespace risec::rise::fast
