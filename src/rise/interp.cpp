// The reference interpreter (see interp.h): translation of typed expressions into
// instructions with frame slots, their evaluation and application of function values.
// The conversions between values and the runtime's arrays are in interp_values.cpp.
#include "rise/interp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "rise/interp_fast.h"
#include "rise/interp_hoist.h"
#include "rise/interp_prims.h"
#include "support/diagnostics.h"
#include "support/words.h"

namespace risec::rise {

using TEnv = std::shared_ptr<const TypeSubst>;

struct CNode {
  enum class Op : uint8_t {
    Var,
    Lambda,
    DepLambda,
    App,
    DepApp,
    Lit,
    SymLit,
    Prim,
    Foreign,
    Beta,   // a lambda literal applied to arguments: no closure is made
    Force,  // an invariant subterm hoisted out of a lambda: its memo cell's value
    Thunk,  // the code of an invariant subterm (Lambda::hoisted)
  };
  // Saturated primitives evaluated inline.
  enum class Fast : uint8_t { None, Scalar, Select, Fst, Snd, Idx, Id, Let, ReduceMap };

  Op op = Op::Lit;
  const ExprNode* src = nullptr;
  Span span;
  int slot = 0;  // Var, Force
  // Lambda/DepLambda/Thunk: slots of the enclosing frame to copy; in a Lambda, -1 - i
  // stands for a fresh memo cell of hoisted[i]
  std::vector<int> captures;
  int frame_size = 0;                 // Lambda: 1 + captures; DepLambda/Thunk: captures
  const CNode* body = nullptr;        // Lambda/DepLambda/Thunk
  std::vector<const CNode*> hoisted;  // Lambda: Thunks of its body's invariant subterms
  const CNode* fn = nullptr;          // App/DepApp
  const CNode* arg = nullptr;         // App
  TypeArg targ;                       // DepApp
  bool sym = false;                   // types/arguments mention type-level variables in scope
  Value lit;                          // Lit
  // Prim: the head and the arguments applied to it in the source.
  const PrimitiveInfo* prim = nullptr;
  int count = 0, arity = 0, dep_arity = 0;
  Type fn_type;
  std::vector<TypeArg> deps;
  std::vector<const CNode*> vargs;  // Prim: value arguments; Beta: the arguments
  bool saturated = false;
  bool unused_param = false;  // Lambda applied once (let's body): its parameter is never read
  Fast fast = Fast::None;
  ScalarOp sop = nullptr;
};

// The instructions of one evaluated expression, shared by the closures made from it.
struct InterpCode {
  Expr root;  // keeps the source nodes alive
  std::deque<CNode> nodes;
};

namespace {

using CodeRef = std::shared_ptr<const InterpCode>;
using Op = CNode::Op;
using Fast = CNode::Fast;

// ---------------------------------------------------------------------------------
// Function objects
// ---------------------------------------------------------------------------------

struct ClosureObj final : Obj {
  ClosureObj() : Obj(Tag::Closure) {}
  CodeRef code;
  const CNode* lam = nullptr;
  std::vector<Value> caps;
  TEnv tenv;
};

struct DepClosureObj final : Obj {
  DepClosureObj() : Obj(Tag::DepClosure) {}
  CodeRef code;
  const CNode* lam = nullptr;
  std::vector<Value> caps;
  TEnv tenv;
};

struct PartialObj final : Obj {
  PartialObj() : Obj(Tag::PrimPartial) {}
  const PrimitiveInfo* prim = nullptr;
  int count = 0, arity = 0, dep_arity = 0;
  Fast fast = Fast::None;
  ScalarOp sop = nullptr;
  Type fn_type;
  std::vector<TypeArg> deps;
  std::vector<Value> args;
  Span span;
};

struct ForeignObj final : Obj {
  ForeignObj() : Obj(Tag::Foreign) {}
  std::shared_ptr<const ForeignFun> f;
  size_t given = 0;
  Span span;
};

// The memo cell of an invariant subterm (CNode::Thunk) for one closure: the values it
// uses, copied when the closure is made, until it is first evaluated; then its value.
// A failed evaluation leaves it unevaluated (the next use fails the same way).
struct ThunkObj final : Obj {
  ThunkObj() : Obj(Tag::Thunk) {}
  CodeRef code;
  const CNode* node = nullptr;
  TEnv tenv;
  mutable std::vector<Value> caps;
  mutable Value value;
  mutable bool done = false;
};

// A frame of slots, on the stack when small.
class Frame {
 public:
  explicit Frame(int n) {
    if (n <= kSmall) {
      p_ = small_;
    } else {
      big_.resize(static_cast<size_t>(n));
      p_ = big_.data();
    }
  }
  Value* data() { return p_; }

 private:
  static constexpr int kSmall = 6;
  Value small_[kSmall];
  std::vector<Value> big_;
  Value* p_;
};

// ---------------------------------------------------------------------------------
// Types with type-level variables
// ---------------------------------------------------------------------------------

bool closed_nat(const Nat& n) {
  return arith::free_vars(n).empty();
}

bool data_vars_bound(const Type& t, std::vector<std::string>& bound) {
  switch (t->kind) {
    case TypeKind::Var:
      return std::find(bound.begin(), bound.end(), t->name) != bound.end();
    case TypeKind::Array:
      return data_vars_bound(t->a, bound);
    case TypeKind::Pair:
    case TypeKind::Fun:
      return data_vars_bound(t->a, bound) && data_vars_bound(t->b, bound);
    case TypeKind::DepFun: {
      bool data = t->binder_kind == Kind::Data;
      if (data) bound.push_back(t->name);
      bool ok = data_vars_bound(t->b, bound);
      if (data) bound.pop_back();
      return ok;
    }
    default:
      return true;
  }
}

bool closed_type(const Type& t) {
  if (!t) return true;
  std::vector<std::string> bound;
  return free_nat_vars(t).empty() && data_vars_bound(t, bound);
}

bool closed_arg(const TypeArg& a) {
  if (auto n = std::get_if<Nat>(&a)) return closed_nat(*n);
  if (auto t = std::get_if<Type>(&a)) return closed_type(*t);
  if (auto ad = std::get_if<Addr>(&a)) return ad->space.has_value();
  const NatFun& f = std::get<NatFun>(a);
  auto vars = arith::free_vars(f.body);
  vars.erase(f.param);
  return vars.empty();
}

[[noreturn]] void no_size_value(const std::string& what, const Span& span) {
  throw Error(ErrorKind::User, "size " + what + " has no value; " + how_to_give_size(what), span);
}

std::string first_free_name(const Type& t) {
  auto vars = free_nat_vars(t);
  if (!vars.empty()) return vars.begin()->first;
  return print(t);
}

Type resolve_type(const Type& t, const TEnv& tenv, const Span& span) {
  Type r = tenv ? substitute(t, *tenv) : t;
  if (!closed_type(r)) no_size_value(first_free_name(r), span);
  return r;
}

TypeArg resolve_arg(const TypeArg& a, const TEnv& tenv, const Span& span) {
  TypeArg r = tenv ? substitute(a, *tenv) : a;
  if (!closed_arg(r)) {
    if (auto n = std::get_if<Nat>(&r)) {
      auto vars = arith::free_vars(*n);
      no_size_value(vars.empty() ? arith::print(*n) : vars.begin()->first, span);
    }
    no_size_value(print(r), span);
  }
  return r;
}

void bind(TypeSubst& s, Kind kind, const std::string& name, const TypeArg& arg) {
  switch (kind) {
    case Kind::Nat:
      if (!std::holds_alternative<Nat>(arg)) internal_error("depFun over Nat applied to a non-Nat");
      s.nats[name] = std::get<Nat>(arg);
      return;
    case Kind::Data:
      if (!std::holds_alternative<Type>(arg))
        internal_error("depFun over Data applied to a non-type");
      std::erase_if(s.datas, [&](const auto& p) { return p.first == name; });
      s.datas.emplace_back(name, std::get<Type>(arg));
      return;
    case Kind::Addr:
      if (!std::holds_alternative<Addr>(arg))
        internal_error("depFun over Addr applied to a non-address");
      std::erase_if(s.addrs, [&](const auto& p) { return p.first == name; });
      s.addrs.emplace_back(name, std::get<Addr>(arg));
      return;
    case Kind::Nat2Nat:
      if (!std::holds_alternative<NatFun>(arg))
        internal_error("depFun over Nat2Nat applied to a non-function");
      std::erase_if(s.nat2nats, [&](const auto& p) { return p.first == name; });
      s.nat2nats.emplace_back(name, std::get<NatFun>(arg));
      return;
  }
}

// A primitive's function type with its explicit dependent binders instantiated (the
// type checker normally did that already).
Type value_level_type(Type t, const std::vector<TypeArg>& deps) {
  size_t i = 0;
  while (t && t->kind == TypeKind::DepFun && !t->implicit && i < deps.size())
    t = instantiate(t, deps[i++]);
  return t;
}

// ---------------------------------------------------------------------------------
// Literals
// ---------------------------------------------------------------------------------

}  // namespace

std::optional<Value> literal_value(const ExprNode& e, const Type& type) {
  const Literal& l = e.lit;
  switch (l.kind) {
    case LitKind::Int: {
      if (!type) return Value::integer(ScalarKind::I32, l.i);
      switch (type->kind) {
        case TypeKind::Scalar: {
          ScalarKind k = type->scalar;
          if (is_float(k)) return Value::from_double(k, static_cast<double>(l.i));
          if (k == ScalarKind::Bool) return Value::boolean(l.i != 0);
          return Value::integer(k, l.i);
        }
        case TypeKind::Index: {
          auto n = type->size.as_const();
          if (!n) return std::nullopt;
          if (l.i < 0 || l.i >= *n)
            throw Error(ErrorKind::User,
                        "index literal " + std::to_string(l.i) + " is out of range for idx[" +
                            std::to_string(*n) + "]",
                        e.span);
          return Value::index(l.i, *n);
        }
        case TypeKind::NatData:
          if (l.i < 0) throw Error(ErrorKind::User, "negative natType literal", e.span);
          return Value::nat(l.i);
        default:
          internal_error("integer literal of type " + print(type), e.span);
      }
    }
    case LitKind::Scalar:
      if (l.scalar == ScalarKind::F32) return Value::f32(static_cast<float>(l.f));
      if (l.scalar == ScalarKind::F64) return Value::f64(l.f);
      if (l.scalar == ScalarKind::Bool) return Value::boolean(l.i != 0);
      return Value::integer(l.scalar, l.i);
    case LitKind::Index: {
      auto i = l.nat.as_const();
      auto n = l.size.as_const();
      if (!i || !n) return std::nullopt;
      if (*i < 0 || *i >= *n)
        throw Error(ErrorKind::User,
                    "lidx(" + std::to_string(*i) + ", " + std::to_string(*n) + ") is out of range",
                    e.span);
      return Value::index(*i, *n);
    }
    case LitKind::NatVal: {
      auto v = l.nat.as_const();
      if (!v) return std::nullopt;
      if (*v < 0) throw Error(ErrorKind::User, "negative natType literal", e.span);
      // a size as a number (natAsScalar)
      if (type && type->kind == TypeKind::Scalar) {
        if (is_float(type->scalar))
          return Value::from_double(type->scalar, static_cast<double>(*v));
        return Value::integer(type->scalar, *v);
      }
      return Value::nat(*v);
    }
  }
  return std::nullopt;
}

namespace {

Value symbolic_literal(const ExprNode& e, const TEnv& tenv) {
  Type t = e.type ? resolve_type(e.type, tenv, e.span) : nullptr;
  if (e.lit.kind == LitKind::Index || e.lit.kind == LitKind::NatVal) {
    ExprNode copy = e;
    auto subst = [&](const Nat& n) {
      Nat r = tenv ? arith::substitute(n, tenv->nats) : n;
      if (!r.is_const()) {
        auto vars = arith::free_vars(r);
        no_size_value(vars.empty() ? arith::print(r) : vars.begin()->first, e.span);
      }
      return r;
    };
    copy.lit.nat = subst(e.lit.nat);
    if (e.lit.kind == LitKind::Index) copy.lit.size = subst(e.lit.size);
    auto v = literal_value(copy, t);
    if (!v) internal_error("interpreter: unresolved literal", e.span);
    return *v;
  }
  auto v = literal_value(e, t);
  if (!v) no_size_value(first_free_name(t), e.span);
  return *v;
}

// ---------------------------------------------------------------------------------
// Translation into instructions
// ---------------------------------------------------------------------------------

struct Scope {
  Scope* parent = nullptr;
  bool has_param = false;
  std::string param;
  std::vector<std::string> cap_names;
  std::vector<int> cap_from;
};

bool is_reduce(const PrimitiveInfo* p) {
  return p && p->family == Family::Reduce;
}

bool is_map(const PrimitiveInfo* p) {
  return p && p->family == Family::Map;
}

class Compiler {
 public:
  Compiler(InterpCode& code, bool hoist) : code_(code), hoist_(hoist) {}

  // Not on ExprVisitor: it translates into the interpreter's own nodes, with a scope
  // per binder and whole application spines compiled at once.
  const CNode* compile(const Expr& e, Scope* s) {
    if (!hoisted_.empty()) {
      auto it = hoisted_.find(e.get());
      if (it != hoisted_.end()) {
        CNode& n = make(Op::Force, *e);
        n.slot = resolve(s, it->second, e->span);
        return &n;
      }
    }
    switch (e->kind) {
      case ExprKind::Ident: {
        CNode& n = make(Op::Var, *e);
        n.slot = resolve(s, e->name, e->span);
        return &n;
      }
      case ExprKind::Lambda:
      case ExprKind::DepLambda: {
        const bool dep = e->kind == ExprKind::DepLambda;
        // The body's invariant subterms (interp_hoist.h) become captured memo cells,
        // their code translated in the enclosing scope; not for a lambda applied once
        // where it is written (let), which would gain nothing.
        std::vector<const ExprNode*> inv;
        const bool once = applied_once_;
        if (hoist_ && !dep && !applied_once_)
          inv = finder_.find(*e, [&](const ExprNode* x) { return hoisted_.count(x) > 0; });
        applied_once_ = false;
        std::vector<const CNode*> thunks;
        for (const ExprNode* x : inv) thunks.push_back(compile_thunk(*x, s));
        Scope inner;
        inner.parent = s;
        inner.has_param = !dep;
        inner.param = e->name;
        for (size_t i = 0; i < inv.size(); ++i) {
          std::string name = "\x01invariant" + std::to_string(next_name_++);
          hoisted_.emplace(inv[i], name);
          inner.cap_names.push_back(std::move(name));
          inner.cap_from.push_back(-1 - static_cast<int>(i));
        }
        const CNode* body = compile(e->fn, &inner);
        for (const ExprNode* x : inv) hoisted_.erase(x);
        CNode& n = make(dep ? Op::DepLambda : Op::Lambda, *e);
        n.body = body;
        n.captures = inner.cap_from;
        n.hoisted = std::move(thunks);
        n.frame_size = static_cast<int>(inner.cap_from.size()) + (dep ? 0 : 1);
        // A let whose variable is never read does not evaluate its value (as compiled
        // code, which drops it; docs/language.md, "let"). A name shadowed below counts
        // as read: then the value is evaluated, as before.
        n.unused_param = once && !dep && !any_subexpr(e->fn, [&](const Expr& x) {
                           return x->kind == ExprKind::Ident && x->name == e->name;
                         });
        return &n;
      }
      case ExprKind::App:
      case ExprKind::DepApp:
        return compile_app(e, s);
      case ExprKind::Literal: {
        std::optional<Value> v;
        if (closed_type(e->type)) v = literal_value(*e, e->type);
        CNode& n = make(v ? Op::Lit : Op::SymLit, *e);
        if (v) n.lit = *v;
        return &n;
      }
      case ExprKind::Primitive:
        return compile_prim(*e, {}, s).first;
      case ExprKind::Foreign:
        return &make(Op::Foreign, *e);
      case ExprKind::Annotation:
        return compile(e->fn, s);
    }
    internal_error("interpreter: unknown expression kind", e->span);
  }

 private:
  CNode& make(Op op, const ExprNode& src) {
    code_.nodes.emplace_back();
    CNode& n = code_.nodes.back();
    n.op = op;
    n.src = &src;
    n.span = src.span;
    return n;
  }

  static int base(const Scope* s) { return s->has_param ? 1 : 0; }

  // An invariant subterm as code of its own, its free variables captured from `s`.
  const CNode* compile_thunk(const ExprNode& x, Scope* s) {
    Scope th;
    th.parent = s;
    const CNode* body = compile_app(Expr(Expr(), &x), &th);  // (code_.root keeps x alive)
    CNode& n = make(Op::Thunk, x);
    n.body = body;
    n.captures = th.cap_from;
    n.frame_size = static_cast<int>(th.cap_from.size());
    return &n;
  }

  int resolve(Scope* s, const std::string& name, const Span& span) {
    if (s->has_param && s->param == name) return 0;
    for (size_t i = 0; i < s->cap_names.size(); ++i)
      if (s->cap_names[i] == name) return base(s) + static_cast<int>(i);
    if (!s->parent)
      throw Error(ErrorKind::User, "the interpreter found the unbound identifier '" + name + "'",
                  span);
    int from = resolve(s->parent, name, span);
    s->cap_names.push_back(name);
    s->cap_from.push_back(from);
    return base(s) + static_cast<int>(s->cap_names.size()) - 1;
  }

  const CNode* compile_app(const Expr& e, Scope* s) {
    std::vector<const ExprNode*> chain;  // applications, innermost first
    const ExprNode* h = e.get();
    while (h->kind == ExprKind::App || h->kind == ExprKind::DepApp) {
      chain.push_back(h);
      h = h->fn.get();
    }
    std::reverse(chain.begin(), chain.end());
    const CNode* node;
    size_t used = 0;
    if (h->kind == ExprKind::Primitive) {
      std::tie(node, used) = compile_prim(*h, chain, s);
    } else if (h->kind == ExprKind::Lambda && chain[0]->kind == ExprKind::App) {
      // (fun(x => fun(y => body)))(a)(b): bind the arguments in stack frames.
      applied_once_ = true;
      const CNode* lam = compile(chain[0]->fn, s);
      CNode& b = make(Op::Beta, *chain[0]);
      b.fn = lam;
      for (const CNode* l = lam;
           used < chain.size() && chain[used]->kind == ExprKind::App && l && l->op == Op::Lambda;
           l = l->body, ++used)
        b.vargs.push_back(compile(chain[used]->arg, s));
      node = &b;
    } else {
      node = compile(chain[0]->fn, s);
    }
    for (size_t i = used; i < chain.size(); ++i) {
      const ExprNode* a = chain[i];
      CNode& n = make(a->kind == ExprKind::App ? Op::App : Op::DepApp, *a);
      n.fn = node;
      if (a->kind == ExprKind::App) {
        n.arg = compile(a->arg, s);
      } else {
        n.targ = a->type_arg;
        n.sym = !closed_arg(n.targ);
      }
      node = &n;
    }
    return node;
  }

  // A primitive with the arguments the source applies to it; returns the instruction
  // and how many applications of `chain` it took.
  std::pair<const CNode*, size_t> compile_prim(const ExprNode& head,
                                               const std::vector<const ExprNode*>& chain,
                                               Scope* s) {
    if (!head.type)
      internal_error("interpreter: the primitive '" + head.name + "' has no type", head.span);
    if (!head.prim) internal_error("interpreter: unknown primitive '" + head.name + "'", head.span);
    CNode& p = make(Op::Prim, head);
    p.prim = head.prim;
    p.count = head.count;
    const bool make_array = head.prim->is(PrimId::MakeArray);  // arity from the node
    p.arity = make_array ? head.count : head.prim->arity;
    p.dep_arity = make_array ? 0 : head.prim->dep_arity;
    p.fn_type = head.type;
    size_t used = 0;
    for (; used < chain.size(); ++used) {
      const ExprNode* a = chain[used];
      if (a->kind == ExprKind::DepApp) {
        if (!p.vargs.empty() || static_cast<int>(p.deps.size()) >= p.dep_arity) break;
        p.deps.push_back(a->type_arg);
      } else {
        if (static_cast<int>(p.vargs.size()) >= p.arity ||
            static_cast<int>(p.deps.size()) < p.dep_arity)
          break;
        // let's function is applied once, where it is written
        applied_once_ =
            head.prim->is(PrimId::Let) && p.vargs.size() == 1 && a->arg->kind == ExprKind::Lambda;
        p.vargs.push_back(compile(a->arg, s));
        applied_once_ = false;
      }
      if (a->span.known()) p.span = a->span;
    }
    p.saturated = static_cast<int>(p.deps.size()) == p.dep_arity &&
                  static_cast<int>(p.vargs.size()) == p.arity;
    p.sym = !closed_type(p.fn_type);
    for (const TypeArg& d : p.deps) p.sym = p.sym || !closed_arg(d);
    if (!p.sym) p.fn_type = value_level_type(p.fn_type, p.deps);
    const PrimitiveInfo& info = *head.prim;
    if (ScalarOp op = scalar_op_of(&info)) {
      p.fast = Fast::Scalar;
      p.sop = op;
    } else if (info.is(PrimId::Select)) {
      p.fast = Fast::Select;
    } else if (info.is(PrimId::Fst)) {
      p.fast = Fast::Fst;
    } else if (info.is(PrimId::Snd)) {
      p.fast = Fast::Snd;
    } else if (info.is(PrimId::Idx)) {
      p.fast = Fast::Idx;
    } else if (info.eval == eval_id) {  // id, toMem, oclToMem
      p.fast = Fast::Id;
    } else if (info.is(PrimId::Let)) {
      p.fast = Fast::Let;
    } else if (p.saturated && is_reduce(&info) && p.vargs[2]->op == Op::Prim &&
               p.vargs[2]->saturated && is_map(p.vargs[2]->prim)) {
      // reduce(op)(init)(map(f)(xs)) streams: no intermediate array.
      p.fast = Fast::ReduceMap;
    }
    return {&p, used};
  }

  InterpCode& code_;
  const bool hoist_;
  bool applied_once_ = false;  // the next lambda translated is let's body
  InvariantFinder finder_;
  std::unordered_map<const ExprNode*, std::string> hoisted_;  // in scope: node -> its name
  int next_name_ = 0;
};

// ---------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------

struct Env {
  Value* frame;
  const TEnv& tenv;
  const CodeRef& code;
};

Value eval(Interpreter& I, const CNode* n, const Env& env);
Value apply_value(Interpreter& I, const Value& f, const Value& x);

// The value of n; for a variable, a reference to its slot (no reference counting).
inline const Value& eval_ref(Interpreter& I, const CNode* n, const Env& env, Value& tmp) {
  if (n->op == Op::Var) return env.frame[n->slot];
  tmp = eval(I, n, env);
  return tmp;
}

Value call_prim(Interpreter& I, const PrimitiveInfo* prim, int count, Fast fast, ScalarOp sop,
                Type fn_type, std::vector<TypeArg> deps, std::vector<Value> args,
                const Span& span) {
  if (fast == Fast::Scalar)
    return scalar_op(sop, args.at(0), is_unary(sop) ? Value() : args.at(1), span);
  PrimCall call;
  call.prim = prim;
  call.count = count;
  call.fn_type = value_level_type(std::move(fn_type), deps);
  call.dep_args = std::move(deps);
  call.args = std::move(args);
  call.span = span;
  call.interp = &I;
  if (!prim) return eval_makeArray(call);
  if (!prim->eval)
    internal_error("interpreter: the primitive '" + prim->name + "' has no semantics");
  return prim->eval(call);
}

// What a frame of the lambda `lam` made in `env` (whose slots are `outer`) holds for
// its capture `from`: a slot of `outer`, or (from < 0) a fresh memo cell of one of
// its invariant subterms.
Value capture(const CNode* lam, int from, const Value* outer, const Env& env) {
  if (from >= 0) return outer[from];
  const CNode* th = lam->hoisted[static_cast<size_t>(-1 - from)];
  auto t = std::make_shared<ThunkObj>();
  t->code = env.code;
  t->node = th;
  t->tenv = env.tenv;
  t->caps.reserve(th->captures.size());
  for (int slot : th->captures) t->caps.push_back(outer[slot]);
  return Value::make_object(ValueKind::Function, std::move(t));
}

// The value of an invariant subterm: evaluated on first use, then remembered.
Value force(Interpreter& I, const Value& cell) {
  const auto& t = static_cast<const ThunkObj&>(*cell.obj());
  if (!t.done) {
    Frame fr(t.node->frame_size);
    Value* slots = fr.data();
    for (size_t i = 0; i < t.caps.size(); ++i) slots[i] = t.caps[i];
    t.value = eval(I, t.node->body, Env{slots, t.tenv, t.code});
    t.done = true;
    t.caps.clear();  // (no longer needed: let them go)
    ++I.invariant_evaluations;
  }
  return t.value;
}

Value make_closure(const CNode* n, const Env& env) {
  if (n->op == Op::Lambda) {
    auto c = std::make_shared<ClosureObj>();
    c->code = env.code;
    c->lam = n;
    c->caps.reserve(n->captures.size());
    for (int from : n->captures) c->caps.push_back(capture(n, from, env.frame, env));
    c->tenv = env.tenv;
    return Value::make_object(ValueKind::Function, std::move(c));
  }
  auto c = std::make_shared<DepClosureObj>();
  c->code = env.code;
  c->lam = n;
  c->caps.reserve(n->captures.size());
  for (int slot : n->captures) c->caps.push_back(env.frame[slot]);
  c->tenv = env.tenv;
  return Value::make_object(ValueKind::Function, std::move(c));
}

Value eval_prim(Interpreter& I, const CNode* n, const Env& env) {
  if (n->saturated) {
    switch (n->fast) {
      case Fast::Scalar: {
        Value ta, tb;
        const Value& a = eval_ref(I, n->vargs[0], env, ta);
        if (is_unary(n->sop)) return scalar_op(n->sop, a, tb, n->span);
        const Value& b = eval_ref(I, n->vargs[1], env, tb);
        return scalar_op(n->sop, a, b, n->span);
      }
      case Fast::Select: {
        Value c = eval(I, n->vargs[0], env);
        // a mask: lane-wise, both branches computed
        if (c.kind() == ValueKind::Vector)
          return blend(c, eval(I, n->vargs[1], env), eval(I, n->vargs[2], env));
        if (c.kind() != ValueKind::Scalar || c.scalar_kind() != ScalarKind::Bool)
          internal_error("interpreter: select on " + c.to_string(), n->span);
        return eval(I, c.raw_int() ? n->vargs[1] : n->vargs[2], env);
      }
      case Fast::Fst: {
        Value t;
        return eval_ref(I, n->vargs[0], env, t).first();
      }
      case Fast::Snd: {
        Value t;
        return eval_ref(I, n->vargs[0], env, t).second();
      }
      case Fast::Idx: {
        Value ti, tx;
        const Value& i = eval_ref(I, n->vargs[0], env, ti);
        const Value& x = eval_ref(I, n->vargs[1], env, tx);
        return index_array(x, i, n->span);
      }
      case Fast::ReduceMap: {
        Value op = eval(I, n->vargs[0], env);
        Value acc = eval(I, n->vargs[1], env);
        const CNode* m = n->vargs[2];
        Value f = eval(I, m->vargs[0], env);
        Value xs = eval(I, m->vargs[1], env);
        Applier apply_f(I, f), apply_op(I, op);
        const int64_t len = xs.size();
        for (int64_t i = 0; i < len; ++i) acc = apply_op(acc, apply_f(xs.at(i)));
        return acc;
      }
      case Fast::Id:
        return eval(I, n->vargs[0], env);
      case Fast::Let: {
        const CNode* f = n->vargs[1];
        // an unused binding's value is not needed: not evaluated (it may stop the program)
        Value x = f->op == Op::Lambda && f->unused_param ? Value() : eval(I, n->vargs[0], env);
        if (f->op == Op::Lambda) {  // let x = e in body: no closure needed
          Frame fr(f->frame_size);
          Value* slots = fr.data();
          slots[0] = std::move(x);
          for (size_t i = 0; i < f->captures.size(); ++i)
            slots[i + 1] = capture(f, f->captures[i], env.frame, env);
          return eval(I, f->body, Env{slots, env.tenv, env.code});
        }
        return apply_value(I, eval(I, f, env), x);
      }
      case Fast::None:
        break;
    }
  }
  Type fn_type = n->sym ? resolve_type(n->fn_type, env.tenv, n->span) : n->fn_type;
  std::vector<TypeArg> deps;
  deps.reserve(n->deps.size());
  for (const TypeArg& d : n->deps) deps.push_back(n->sym ? resolve_arg(d, env.tenv, n->span) : d);
  std::vector<Value> args;
  args.reserve(n->vargs.size());
  for (const CNode* a : n->vargs) args.push_back(eval(I, a, env));
  if (n->saturated)
    return call_prim(I, n->prim, n->count, n->fast, n->sop, std::move(fn_type), std::move(deps),
                     std::move(args), n->span);
  auto p = std::make_shared<PartialObj>();
  p->prim = n->prim;
  p->count = n->count;
  p->arity = n->arity;
  p->dep_arity = n->dep_arity;
  p->fast = n->fast;
  p->sop = n->sop;
  p->fn_type = std::move(fn_type);
  p->deps = std::move(deps);
  p->args = std::move(args);
  p->span = n->span;
  return Value::make_object(ValueKind::Function, std::move(p));
}

Value apply_dep_value(Interpreter& I, const Value& f, const TypeArg& arg);

// The body of the lambda `lam` (nested `k` deep) with its parameters bound to args;
// the captured values come from `outer`.
Value beta(Interpreter& I, const CNode* lam, const Value* args, size_t k, const Value* outer,
           const Env& env) {
  Frame fr(lam->frame_size);
  Value* slots = fr.data();
  slots[0] = args[0];
  for (size_t i = 0; i < lam->captures.size(); ++i)
    slots[i + 1] = capture(lam, lam->captures[i], outer, env);
  if (k == 1) return eval(I, lam->body, Env{slots, env.tenv, env.code});
  return beta(I, lam->body, args + 1, k - 1, slots, env);
}

Value eval(Interpreter& I, const CNode* n, const Env& env) {
  switch (n->op) {
    case Op::Var:
      return env.frame[n->slot];
    case Op::Lit:
      return n->lit;
    case Op::SymLit:
      return symbolic_literal(*n->src, env.tenv);
    case Op::Prim:
      return eval_prim(I, n, env);
    case Op::Lambda:
    case Op::DepLambda:
      return make_closure(n, env);
    case Op::App: {
      Value f = eval(I, n->fn, env);
      Value x = eval(I, n->arg, env);
      return apply_value(I, f, x);
    }
    case Op::Beta: {
      const size_t k = n->vargs.size();
      Value small[4];
      std::vector<Value> big;
      Value* args = small;
      if (k > 4) {
        big.resize(k);
        args = big.data();
      }
      for (size_t i = 0; i < k; ++i) args[i] = eval(I, n->vargs[i], env);
      return beta(I, n->fn, args, k, env.frame, env);
    }
    case Op::DepApp: {
      Value f = eval(I, n->fn, env);
      return apply_dep_value(I, f, n->sym ? resolve_arg(n->targ, env.tenv, n->span) : n->targ);
    }
    case Op::Force:
      return force(I, env.frame[n->slot]);
    case Op::Thunk:
      internal_error("interpreter: a hoisted subterm's code evaluated in place", n->span);
    case Op::Foreign: {
      auto o = std::make_shared<ForeignObj>();
      o->f = n->src->foreign;
      o->span = n->span;
      if (!o->f) internal_error("interpreter: foreign node without its definition", n->span);
      if (o->f->params.empty())
        throw Error(ErrorKind::User,
                    "foreign function " + o->f->name +
                        " cannot be interpreted: the reference interpreter does not run C code",
                    n->span);
      return Value::make_object(ValueKind::Function, std::move(o));
    }
  }
  internal_error("interpreter: bad instruction");
}

Value apply_value(Interpreter& I, const Value& f, const Value& x) {
  if (f.kind() != ValueKind::Function)
    internal_error("interpreter: applying " + f.to_string() + ", which is not a function");
  switch (f.obj()->tag) {
    case Obj::Tag::Closure: {
      const auto& c = static_cast<const ClosureObj&>(*f.obj());
      Frame fr(c.lam->frame_size);
      Value* slots = fr.data();
      slots[0] = x;
      for (size_t i = 0; i < c.caps.size(); ++i) slots[i + 1] = c.caps[i];
      return eval(I, c.lam->body, Env{slots, c.tenv, c.code});
    }
    case Obj::Tag::PrimPartial: {
      const auto& p = static_cast<const PartialObj&>(*f.obj());
      if (static_cast<int>(p.deps.size()) < p.dep_arity)
        internal_error("interpreter: a primitive applied before its type-level arguments", p.span);
      std::vector<Value> args = p.args;
      args.push_back(x);
      if (static_cast<int>(args.size()) == p.arity)
        return call_prim(I, p.prim, p.count, p.fast, p.sop, p.fn_type, p.deps, std::move(args),
                         p.span);
      auto q = std::make_shared<PartialObj>();
      q->prim = p.prim;
      q->count = p.count;
      q->arity = p.arity;
      q->dep_arity = p.dep_arity;
      q->fast = p.fast;
      q->sop = p.sop;
      q->fn_type = p.fn_type;
      q->deps = p.deps;
      q->args = std::move(args);
      q->span = p.span;
      return Value::make_object(ValueKind::Function, std::move(q));
    }
    case Obj::Tag::Foreign: {
      const auto& o = static_cast<const ForeignObj&>(*f.obj());
      if (o.given + 1 >= o.f->params.size())
        throw Error(ErrorKind::User,
                    "foreign function " + o.f->name +
                        " cannot be interpreted: the reference interpreter does not run C code",
                    o.span);
      auto q = std::make_shared<ForeignObj>();
      q->f = o.f;
      q->given = o.given + 1;
      q->span = o.span;
      return Value::make_object(ValueKind::Function, std::move(q));
    }
    case Obj::Tag::Native:
      return static_cast<const NativeObj&>(*f.obj()).fn(x);
    case Obj::Tag::DepClosure:
      internal_error("interpreter: a dependent function applied to a value");
    default:
      internal_error("interpreter: applying a non-function");
  }
}

Value apply_dep_value(Interpreter& I, const Value& f, const TypeArg& arg) {
  if (f.kind() != ValueKind::Function)
    internal_error("interpreter: dependent application of a non-function");
  switch (f.obj()->tag) {
    case Obj::Tag::DepClosure: {
      const auto& c = static_cast<const DepClosureObj&>(*f.obj());
      auto s = std::make_shared<TypeSubst>(c.tenv ? *c.tenv : TypeSubst{});
      bind(*s, c.lam->src->binder_kind, c.lam->src->name, arg);
      TEnv tenv = std::move(s);
      Frame fr(c.lam->frame_size);
      Value* slots = fr.data();
      for (size_t i = 0; i < c.caps.size(); ++i) slots[i] = c.caps[i];
      return eval(I, c.lam->body, Env{slots, tenv, c.code});
    }
    case Obj::Tag::PrimPartial: {
      const auto& p = static_cast<const PartialObj&>(*f.obj());
      if (!p.args.empty() || static_cast<int>(p.deps.size()) >= p.dep_arity)
        internal_error("interpreter: too many type-level arguments", p.span);
      auto q = std::make_shared<PartialObj>();
      q->prim = p.prim;
      q->count = p.count;
      q->arity = p.arity;
      q->dep_arity = p.dep_arity;
      q->fast = p.fast;
      q->sop = p.sop;
      q->fn_type = p.fn_type;
      q->deps = p.deps;
      q->deps.push_back(arg);
      q->span = p.span;
      return Value::make_object(ValueKind::Function, std::move(q));
    }
    default:
      internal_error("interpreter: dependent application of a value-level function");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------
// Interpreter
// ---------------------------------------------------------------------------------

Value Interpreter::eval(const Expr& e) {
  if (!e) internal_error("interpreter: null expression");
  auto code = std::make_shared<InterpCode>();
  code->root = e;
  Scope top;
  const CNode* root = Compiler(*code, hoist_invariants).compile(e, &top);
  CodeRef ref = code;
  TEnv none;
  return rise::eval(*this, root, Env{nullptr, none, ref});
}

Value Interpreter::apply(const Value& f, const Value& arg) {
  return apply_value(*this, f, arg);
}

Value Interpreter::apply(const Value& f, const Value& a, const Value& b) {
  return apply_value(*this, apply_value(*this, f, a), b);
}

Value Interpreter::apply_dep(const Value& f, const TypeArg& arg) {
  return apply_dep_value(*this, f, arg);
}

bool Interpreter::default_fast_path() {
  const char* v = std::getenv("RISEC_INTERP");
  return !(v && std::string(v) == "boxed");
}

bool Interpreter::default_hoist_invariants() {
  const char* v = std::getenv("RISEC_INTERP_HOIST");
  return !(v && std::string(v) == "off");
}

int Interpreter::default_threads() {
  const char* v = std::getenv("RISEC_INTERP_THREADS");
  return v ? std::max(0, std::atoi(v)) : 0;
}

Value Interpreter::run(const Expr& e, const std::vector<Value>& inputs) {
  if (!e) internal_error("interpreter: null expression");
  if (e->kind == ExprKind::DepLambda) no_size_value(e->name, e->span);
  if (!e->type) internal_error("interpreter: the entry has no type", e->span);
  EntrySignature sig = entry_signature(e->type);
  if (sig.params.size() != inputs.size())
    throw Error(ErrorKind::Usage, "the entry takes " + std::to_string(sig.params.size()) +
                                      " input(s), " + std::to_string(inputs.size()) + " given");
  // RISEC_INTERP_TIME=1: the evaluation's seconds on stderr (scripts/interp_timing.sh)
  // (wall, and CPU of the whole process)
  struct Timer {
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    bool on = std::getenv("RISEC_INTERP_TIME") != nullptr;
    ~Timer() {
      if (on)
        std::fprintf(stderr, "interpreter: %.3f s wall, %.3f s CPU\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    }
  } timer;
  if (fast_path) {
    if (auto fast = fast_compile(e)) {
      int threads =
          this->threads > 0 ? this->threads : static_cast<int>(std::thread::hardware_concurrency());
      Value v = fast_run(*fast, inputs, std::max(threads, 1));
      if (!v.is_none()) return v;
    }
  }
  Value f = eval(e);
  for (const Value& in : inputs) f = apply(f, in);
  return f;
}

EntrySignature entry_signature(const Type& t) {
  EntrySignature sig;
  Type cur = t;
  while (cur) {
    if (cur->kind == TypeKind::DepFun) no_size_value(cur->name, {});
    if (cur->kind != TypeKind::Fun) break;
    sig.params.push_back(cur->a);
    cur = cur->b;
  }
  sig.result = cur;
  return sig;
}

// ---------------------------------------------------------------------------------
// Applier
// ---------------------------------------------------------------------------------

Applier::Applier(Interpreter& interp, const Value& f) : interp_(interp), f_(f) {
  if (f.kind() != ValueKind::Function)
    internal_error("interpreter: applying " + f.to_string() + ", which is not a function");
  switch (f.obj()->tag) {
    case Obj::Tag::Closure: {
      const auto& c = static_cast<const ClosureObj&>(*f.obj());
      mode_ = Mode::Lambda;
      body_ = c.lam->body;
      frame_.resize(static_cast<size_t>(c.lam->frame_size));
      for (size_t i = 0; i < c.caps.size(); ++i) frame_[i + 1] = c.caps[i];
      if (body_->op == Op::Lambda) {
        inner_ = body_;
        frame2_.resize(static_cast<size_t>(inner_->frame_size));
      }
      break;
    }
    case Obj::Tag::PrimPartial: {
      const auto& p = static_cast<const PartialObj&>(*f.obj());
      if (p.fast == Fast::Scalar && p.args.empty() && p.arity == 2) fast_op_ = p.sop;
      break;
    }
    case Obj::Tag::Native:
      mode_ = Mode::Native;
      break;
    default:
      break;
  }
}

Value Applier::operator()(const Value& x) {
  switch (mode_) {
    case Mode::Lambda: {
      const auto& c = static_cast<const ClosureObj&>(*f_.obj());
      frame_[0] = x;
      return eval(interp_, body_, Env{frame_.data(), c.tenv, c.code});
    }
    case Mode::Native:
      return static_cast<const NativeObj&>(*f_.obj()).fn(x);
    case Mode::Generic:
      break;
  }
  return apply_value(interp_, f_, x);
}

Value Applier::operator()(const Value& x, const Value& y) {
  if (fast_op_) {
    const auto& p = static_cast<const PartialObj&>(*f_.obj());
    return scalar_op(fast_op_, x, y, p.span);
  }
  if (mode_ == Mode::Lambda && inner_) {
    const auto& c = static_cast<const ClosureObj&>(*f_.obj());
    frame_[0] = x;
    frame2_[0] = y;
    const Env env{frame_.data(), c.tenv, c.code};
    for (size_t i = 0; i < inner_->captures.size(); ++i)
      frame2_[i + 1] = capture(inner_, inner_->captures[i], frame_.data(), env);
    return eval(interp_, inner_->body, Env{frame2_.data(), c.tenv, c.code});
  }
  return apply_value(interp_, (*this)(x), y);
}

}  // namespace risec::rise
