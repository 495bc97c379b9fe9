// Type inference for RISE: Hindley-Milner-style unification of data types, with
// array sizes unified through arith's linear solver.
//
// Unknowns ("metas") are type variables and Nat variables whose names start with
// '?'. Implicit dependent parameters ({n: Nat}) are instantiated with fresh metas
// at each use of a primitive; explicit ones are read from the call argument
// (`split(32)`), which the parser left as an ordinary expression: an application
// whose function has an explicit dependent type is a dependent application, and its
// argument is read as a size, data type, address space or Nat2Nat function.
// A dependent application of a depFun (a definition such as slide2D, or a top-level
// size given with --size) binds the binder's variable like a solved meta and drops
// the depFun/application pair, so the typed program is specialised.
// Binders are renamed when a name is reused, so every type-level variable of one
// inference run is unique. Equations on sizes that are not yet linear in one
// unknown are postponed until more is known. Side conditions (divisibility) are
// recorded with the primitive and span that needed them.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "rise/check.h"
#include "rise/infer_internal.h"
#include "rise/let_types.h"

namespace risec::rise {

namespace infer_impl {

Checked Inferer::run(const Expr& e, const std::vector<std::pair<std::string, Type>>* vars,
                     const Type& expected) {
  if (vars) {
    env_ = *vars;
    for (const auto& [name, t] : *vars)
      if (t)
        for (const auto& [size, v] : free_nat_vars(t)) stable_sizes_.insert(size);
  }
  Expr typed = infer_top(e);
  if (expected) unify(expected, typed->type, Ctx{e->span, expected, typed->type, "rewritten term"});
  use_earlier_types();
  solve_postponed(true);
  solve_masks(false);
  default_int_literals();
  default_float_literals();
  solve_masks(true);
  default_nat_values();
  check_index_arithmetic();
  Expr out = finalize(typed);
  Checked c;
  c.expr = out;
  c.type = out->type;
  check_conditions(c);
  return c;
}

TypeSubst Inferer::tl_subst() {
  TypeSubst s;
  s.avoid_capture = true;
  for (const auto& [name, kind, arg] : tl_env_) {
    switch (kind) {
      case Kind::Nat:
        s.nats[name] = std::get<Nat>(arg);
        break;
      case Kind::Data:
        s.datas.emplace_back(name, std::get<Type>(arg));
        break;
      case Kind::Addr:
        s.addrs.emplace_back(name, std::get<Addr>(arg));
        break;
      case Kind::Nat2Nat:
        s.nat2nats.emplace_back(name, std::get<NatFun>(arg));
        break;
    }
  }
  return s;
}

const std::tuple<std::string, Kind, TypeArg>* Inferer::find_tl(const std::string& name) {
  for (auto it = tl_env_.rbegin(); it != tl_env_.rend(); ++it)
    if (std::get<0>(*it) == name) return &*it;
  return nullptr;
}

const Type* Inferer::find_value(const std::string& name) {
  for (auto it = env_.rbegin(); it != env_.rend(); ++it)
    if (it->first == name) return &it->second;
  return nullptr;
}

Type Inferer::written_type(const Type& annot, const Span& span, const std::string& what) {
  require_bound_names(annot, span);
  Type t = separate_binders(substitute(annot, tl_subst()));
  require_whole_sizes(t, span, what);
  return t;
}

TypeArg Inferer::written_type(const TypeArg& a, const Span& span) {
  if (auto t = std::get_if<Type>(&a)) return written_type(*t, span);
  if (auto n = std::get_if<Nat>(&a)) require_bound_names(*n, span);
  TypeArg r = substitute(a, tl_subst());
  if (auto n = std::get_if<Nat>(&r)) {
    require_whole(*n, "in this size argument", span);
    require_size(*n, 0, "in this size argument", span);
  }
  return r;
}

void Inferer::require_bound_names(const Type& t, const Span& span) {
  for (const auto& [name, v] : free_nat_vars(t)) require_bound_names(v, span);
  if (!closed) return;
  // A data type name is a scalar type or bound by a depFun(t: Data => ...) around it or
  // a binder of the type itself (held-out K: `x: n.t` and a misspelt `n.f23` became
  // type variables, and the entry compiled to an internal error).
  std::vector<std::string> bound;
  std::function<void(const Type&)> walk = [&](const Type& x) {
    if (!x) return;
    if (x->kind == TypeKind::Var && !is_meta_name(x->name) &&
        std::find(bound.begin(), bound.end(), x->name) == bound.end()) {
      if (auto tl = find_tl(x->name); tl && std::get<1>(*tl) == Kind::Data) return;
      const std::string near = nearest_name(x->name, scalar_names());
      user_error("unknown type '" + x->name +
                     "': a data type is a scalar type (f32, i32, bool, ...), an array, a pair, "
                     "a vector or idx[n], or a name a depFun(" +
                     x->name + ": Data => ...) around it binds" +
                     (near.empty() ? "" : "; did you mean '" + near + "'?"),
                 span);
    }
    if (x->kind == TypeKind::DepFun) {
      bound.push_back(x->name);
      walk(x->b);
      bound.pop_back();
      return;
    }
    walk(x->a);
    walk(x->b);
  };
  walk(t);
}

void Inferer::require_bound_names(const Nat& n, const Span& span) {
  if (!closed) return;
  for (const auto& [name, v] : arith::free_vars(n)) {
    if (is_meta_name(name)) continue;
    if (auto tl = find_tl(name); tl && std::get<1>(*tl) == Kind::Nat) continue;
    user_error("the size '" + name +
                   "' is bound nowhere: size names come from a depFun around this type "
                   "(depFun(" +
                   name + ": Nat => ...)) or from a binder of the type itself",
               span);
  }
}

void Inferer::require_size(const Nat& n, int64_t least, const std::string& what, const Span& span) {
  Nat need = n - Nat(least);
  if (auto k = n.as_const()) {
    if (*k < least)
      user_error(what + ": a size would be " + std::to_string(*k) +
                     (least == 0 ? "; sizes cannot be negative"
                                 : "; a vector has at least " + std::to_string(least) + " lane"),
                 span);
    return;
  }
  if (arith::provably_le(Nat(0), need)) return;
  for (const auto& [name, v] : arith::free_vars(need))
    if (is_meta_name(name)) return;
  if (arith::provably_lt(need, Nat(0)))
    user_error(what + ": the size " + n.to_string() + " is below " + std::to_string(least) +
                   " for every value of the sizes",
               span);
  nonneg_.push_back({need, what, span});
}

void Inferer::require_whole_sizes(const Type& t, const Span& span, const std::string& what) {
  switch (t->kind) {
    case TypeKind::Array:
    case TypeKind::Vector:
      require_whole(t->size, what, span);
      require_size(t->size, t->kind == TypeKind::Vector ? 1 : 0, what, span);
      require_whole_sizes(t->a, span, what);
      break;
    case TypeKind::Index:
      require_whole(t->size, what, span);
      require_size(t->size, 0, what, span);
      break;
    case TypeKind::Pair:
    case TypeKind::Fun:
      require_whole_sizes(t->a, span, what);
      require_whole_sizes(t->b, span, what);
      break;
    case TypeKind::DepFun:
      require_whole_sizes(t->b, span, what);
      break;
    default:
      break;
  }
}

void Inferer::require_whole(const Nat& n, const std::string& what, const Span& span) {
  arith::SumForm f = arith::sum_form(n);
  int64_t d = f.constant.den();
  for (const auto& [c, m] : f.terms) d = arith::lcm64(d, c.den());
  if (d != 1) {
    // Said here, in the size's own words: the condition's dividend is reduced modulo d,
    // whose value ("the size 1 is not a multiple of 2" for (n/2) at n = 9, held-out P)
    // is not a size the program has.
    if (n.is_const())
      user_error(what + ": a size is " + n.to_string() +
                     " at these sizes, not a whole number (`/` on sizes is exact division)",
                 span);
    const Nat dividend = arith::plain_dividend(d, arith::scale(arith::Rational(d), n));
    if (dividend.is_const())
      user_error(what + ": the size " + n.to_string() + " is not a whole number at any size (" +
                     std::to_string(d) + " does not divide " +
                     arith::scale(arith::Rational(d), n).to_string() + ")",
                 span);
    conditions_.push_back({{Nat(d), dividend}, what, span});
  }
  // A division by a symbolic size is exact too (held-out M: take(n / m) recorded no
  // `m divides n`, and generic code divided with floor).
  arith::for_each_subterm(n, [&](const Nat& t) {
    const arith::Node& node = t.node();
    if (node.kind == arith::Kind::ExactDiv && node.args.size() == 2 &&
        !arith::provably_divides(node.args[1], node.args[0]))
      conditions_.push_back({{node.args[1], node.args[0]}, what, span});
  });
}

Type Inferer::separate_binders(const Type& t) {
  switch (t->kind) {
    case TypeKind::Array:
    case TypeKind::Vector: {
      Type e = separate_binders(t->a);
      if (e == t->a) return t;
      return t->kind == TypeKind::Array ? array(t->size, e) : vector_of(e, t->size);
    }
    case TypeKind::Pair:
    case TypeKind::Fun: {
      Type a = separate_binders(t->a), b = separate_binders(t->b);
      if (a == t->a && b == t->b) return t;
      return t->kind == TypeKind::Pair ? pair(a, b) : fun(a, b);
    }
    case TypeKind::DepFun: {
      Type body = t->b;
      std::string name = t->name;
      if (used_binders_.count(name)) {
        name = unique_binder(name);
        body = instantiate(t, binder_arg(t->binder_kind, name));
      }
      body = separate_binders(body);
      if (body == t->b && name == t->name) return t;
      return dep_fun(t->binder_kind, name, body, t->implicit);
    }
    default:
      return t;
  }
}

std::string Inferer::unique_binder(const std::string& name) {
  std::string n = name;
  for (int i = 2; used_binders_.count(n) || find_value(n); ++i) n = name + "_" + std::to_string(i);
  used_binders_.insert(n);
  return n;
}

// For a run-time value of type natType (a with-loop's index, docs/language.md) used
// where a size is expected: what takes such a number instead.
static std::string natval_hint(const Type* t, const std::string& name) {
  if (!t || !*t || (*t)->kind != TypeKind::NatData) return "";
  return " (a number of type natType, such as a with-loop's index: natAsScalar(" + name +
         ") and natAsScalar(" + name + " / 2) in a with-loop's body, and " + name +
         " in index arithmetic, a[" + name + " / 2], take it)";
}

Nat Inferer::expr_to_nat(const Expr& e, const std::string& who) {
  switch (e->kind) {
    case ExprKind::Literal:
      if (e->lit.kind == LitKind::Int ||
          (e->lit.kind == LitKind::Scalar && is_integer(e->lit.scalar)))
        return Nat(e->lit.i);
      // A size the desugaring computed (`take(natType(n - n%2))`, as `risec print`
      // writes it): its names are the sizes in scope, bound by a specialised depFun.
      if (e->lit.kind == LitKind::NatVal) return arith::substitute(e->lit.nat, tl_subst().nats);
      break;
    case ExprKind::Ident: {
      if (auto t = find_tl(e->name)) {
        if (std::get<1>(*t) == Kind::Nat) return std::get<Nat>(std::get<2>(*t));
        user_error(who + " expects a size here, but '" + written_name(e) + "' is a " +
                       kind_name(std::get<1>(*t)),
                   e->span);
      }
      if (find_value(e->name))
        user_error(who + " expects a size here, but '" + written_name(e) + "' is a run-time value" +
                       natval_hint(find_value(e->name), written_name(e)) +
                       "; sizes are numbers or size names bound by depFun",
                   e->span);
      user_error(who + " expects a size here, but '" + written_name(e) + "' is not a size name",
                 e->span);
    }
    case ExprKind::App: {
      Spine sp = spine(e);
      if (sp.head->kind == ExprKind::Primitive && sp.args.size() == 2 && !sp.args[0].dep &&
          !sp.args[1].dep) {
        const PrimId op = sp.head->prim ? sp.head->prim->id : PrimId::MakeArray;
        try {
          if (op == PrimId::Add || op == PrimId::Sub || op == PrimId::Mul || op == PrimId::Div ||
              op == PrimId::Mod) {
            Nat a = expr_to_nat(sp.args[0].value, who);
            Nat b = expr_to_nat(sp.args[1].value, who);
            if (op == PrimId::Add) return a + b;
            if (op == PrimId::Sub) return a - b;
            if (op == PrimId::Mul) return a * b;
            if (op == PrimId::Div) {
              // exact, even where the expression cancels it (n/2*2)
              Nat q = arith::exact_div(a, b);
              require_whole(q, "in the size expression", e->span);
              return q;
            }
            return arith::mod(a, b);
          }
        } catch (const arith::ArithError& err) {
          user_error(std::string("in a size expression: ") + err.what(), e->span);
        }
      }
      if (sp.head->kind == ExprKind::Primitive && sp.head->prim && sp.head->prim->is(PrimId::Neg) &&
          sp.args.size() == 1)
        return -expr_to_nat(sp.args[0].value, who);
      // min(a, b) and max(a, b) of sizes, as in types
      if (sp.head->kind == ExprKind::Ident && (sp.head->name == "min" || sp.head->name == "max") &&
          !find_value(sp.head->name) && sp.args.size() == 2 && !sp.args[0].dep && !sp.args[1].dep) {
        Nat a = expr_to_nat(sp.args[0].value, who);
        Nat b = expr_to_nat(sp.args[1].value, who);
        return sp.head->name == "min" ? arith::min(a, b) : arith::max(a, b);
      }
      break;
    }
    default:
      break;
  }
  user_error(who +
                 " expects a size here (a number, a size name, or + - * / % min max of "
                 "them), not this expression",
             e->span);
}

TypeArg Inferer::expr_to_arg(const Expr& e, Kind kind, const std::string& who) {
  switch (kind) {
    case Kind::Nat:
      return expr_to_nat(e, who);
    case Kind::Data:
      if (e->kind == ExprKind::Ident) {
        if (auto s = scalar_from_name(e->name)) return scalar(*s);
        if (e->name == "natType") return nat_data();
        if (auto t = find_tl(e->name); t && std::get<1>(*t) == Kind::Data) return std::get<2>(*t);
      }
      user_error(who + " expects a data type here (such as f32)", e->span);
    case Kind::Addr:
      if (e->kind == ExprKind::Ident) {
        if (auto a = addr_from_name(e->name)) return Addr{*a, ""};
        if (auto t = find_tl(e->name); t && std::get<1>(*t) == Kind::Addr) return std::get<2>(*t);
      }
      user_error(who + " expects an address space here (Global, Local, Private or Constant)",
                 e->span);
    case Kind::Nat2Nat:
      if (e->kind == ExprKind::Lambda) {
        tl_env_.emplace_back(e->name, Kind::Nat, Nat::var(e->name, Nat(0)));
        Nat body = expr_to_nat(e->fn, who);
        tl_env_.pop_back();
        return NatFun{e->name, body};
      }
      if (e->kind == ExprKind::Ident)
        if (auto t = find_tl(e->name); t && std::get<1>(*t) == Kind::Nat2Nat)
          return std::get<2>(*t);
      user_error(who + " expects a size function here, written fun(i => size expression)", e->span);
  }
  user_error(who + ": bad type-level argument", e->span);
}

std::string Inferer::head_name(const Expr& e) {
  Spine sp = spine(e);
  if (sp.head->kind == ExprKind::Primitive || sp.head->kind == ExprKind::Foreign)
    return sp.head->name;
  if (sp.head->kind == ExprKind::Ident) return sp.head->name;
  // A prelude definition (slide2D, a lambda) is inlined placed at its use
  // (resolve.cpp): the name written there names it (held-out H: slide2D's conditions
  // said "in this argument").
  if ((sp.head->kind == ExprKind::Lambda || sp.head->kind == ExprKind::DepLambda) &&
      sp.head->span.known()) {
    const std::string word = word_at(sp.head->span);
    for (const Definition& d : prelude().defs)
      if (d.name == word) return word;
  }
  return "";
}

void Inferer::note_origins(int before, const Expr& head) {
  if (head->kind != ExprKind::Primitive || !head->span.known() || before == counter_) return;
  meta_origins_.push_back({before + 1, counter_, head});
}

const ExprNode* Inferer::meta_origin(const std::string& meta) const {
  // a meta's name is a prefix and its number (fresh)
  const size_t digits = meta.find_first_of("0123456789");
  if (digits == std::string::npos) return nullptr;
  const int k = std::stoi(meta.substr(digits));
  auto it = std::lower_bound(meta_origins_.begin(), meta_origins_.end(), k,
                             [](const MetaOrigin& o, int n) { return o.last < n; });
  return it != meta_origins_.end() && it->first <= k ? it->head.get() : nullptr;
}

Expr Inferer::typed(const Expr& e, Type t, Expr fn, Expr arg) {
  auto n = std::make_shared<ExprNode>(*e);
  n->type = std::move(t);
  if (fn) n->fn = std::move(fn);
  if (arg) n->arg = std::move(arg);
  return n;
}

Expr Inferer::infer_top(const Expr& e) {
  if (e->kind == ExprKind::DepLambda && sizes_ && e->binder_kind == Kind::Nat) {
    auto it = sizes_->find(e->name);
    if (it != sizes_->end()) {
      tl_env_.emplace_back(e->name, Kind::Nat, Nat(it->second));
      Expr body = infer_top(e->fn);
      tl_env_.pop_back();
      return body;
    }
    std::string b = unique_binder(e->name);
    if (b == e->name) stable_sizes_.insert(b);
    tl_env_.emplace_back(e->name, Kind::Nat, Nat::size_var(b));
    Expr body = infer_top(e->fn);
    tl_env_.pop_back();
    auto n = std::make_shared<ExprNode>(*e);
    n->name = b;
    n->fn = body;
    n->type = dep_fun(Kind::Nat, b, body->type, false);
    return n;
  }
  return infer(e);
}

Expr Inferer::infer(const Expr& e) {
  check_stack_depth(e->span);
  for (const auto& [q, at] : e->size_quotients)
    require_whole(arith::substitute(q, tl_subst().nats), "in the size expression", at);
  switch (e->kind) {
    case ExprKind::Ident: {
      if (const Type* t = find_value(e->name)) {
        Expr r = typed(e, *t);
        for (auto it = known_values_.rbegin(); it != known_values_.rend(); ++it)
          if (it->first == e->name) {
            if (it->second) ident_values_[r.get()] = it->second;
            break;
          }
        return r;
      }
      if (auto tl = find_tl(e->name); tl && std::get<1>(*tl) == Kind::Nat)
        return size_value(e, arith::substitute(std::get<Nat>(std::get<2>(*tl)), tl_subst().nats));
      if (find_tl(e->name))
        user_error("'" + e->name +
                       "' is a type-level name (a size or type), not a value; pass it to a "
                       "dependent function, as in split(" +
                       e->name + ")",
                   e->span);
      if (scalar_from_name(e->name) || addr_from_name(e->name) || e->name == "natType")
        user_error("'" + e->name + "' is a type, not a value", e->span);
      user_error("unknown name '" + e->name + "'", e->span);
    }
    case ExprKind::Literal: {
      switch (e->lit.kind) {
        case LitKind::Int: {
          Type m = fresh_data();
          int_metas_.emplace(m->name, e->span);
          int_lits_.push_back({m->name, e->lit.i, e->span});
          return typed(e, m);
        }
        case LitKind::Scalar:
          if (e->lit.float_from_context) {
            Type m = fresh_data();
            float_lits_.push_back({m->name, 0, e->span});
            return typed(e, m);
          }
          if (e->lit.mask_from_context) {
            Type m = fresh_data();
            masks_.push_back({MaskUse::Mask, nullptr, m, e->span, "this operand"});
            return typed(e, m);
          }
          return typed(e, scalar(e->lit.scalar));
        case LitKind::Index: {
          // lidx(v, n): n (and v) are sizes in scope, as in a written type
          require_bound_names(e->lit.size, e->span);
          require_bound_names(e->lit.nat, e->span);
          auto n = std::make_shared<ExprNode>(*e);
          n->lit.size = arith::substitute(e->lit.size, tl_subst().nats);
          n->lit.nat = arith::substitute(e->lit.nat, tl_subst().nats);
          require_size(n->lit.size, 1, "the range of this index literal", e->span);
          n->type = index_type(n->lit.size);
          if (auto v = n->lit.nat.as_const()) {
            require_index_in_range(*v, n->lit.size, e->span);
          } else {
            std::string val = n->lit.nat.to_string(), size = n->lit.size.to_string();
            require_size(n->lit.nat, 0, "index literal " + val, e->span);
            require_size(n->lit.size - n->lit.nat, 1,
                         "index literal " + val + " (needs " + val + " < " + size + ")", e->span);
          }
          return n;
        }
        case LitKind::NatVal: {
          if (e->lit.scalar_value) return typed(e, scalar(e->lit.scalar));
          // A size as a natType value (the with-loops' index offsets): its names
          // are the sizes in scope, and it is a natural number.
          auto n = std::make_shared<ExprNode>(*e);
          n->lit.nat = arith::substitute(e->lit.nat, tl_subst().nats);
          n->type = nat_data();
          require_size(n->lit.nat, 0, e->lit.why.empty() ? "this natType value" : e->lit.why,
                       e->span);
          return n;
        }
      }
      break;
    }
    case ExprKind::Primitive: {
      Type t = !e->prim                         ? nullptr
               : e->prim->is(PrimId::MakeArray) ? make_array_type(e->count)
                                                : e->prim->type;
      if (!t) internal_error("primitive '" + e->name + "' without a type", e->span);
      const int before = counter_;
      Type inst = instantiate_implicits(t);
      note_origins(before, e);
      if (e->prim) inst = mask_polymorphic(*e->prim, inst, e->span);
      // A cast's target type is decided only by context, often an annotation that
      // checking removed: when a rewrite re-infers a checked cast, it keeps its
      // scalar target (scalars do not depend on the sizes the rewrite changes).
      if (e->prim && e->prim->is(PrimId::Cast) && e->type && e->type->kind == TypeKind::Fun &&
          e->type->b && e->type->b->kind == TypeKind::Scalar && inst->kind == TypeKind::Fun)
        unify(inst->b, e->type->b, Ctx{e->span, inst->b, e->type->b, e->prim->name});
      return typed(e, inst);
    }
    case ExprKind::Foreign: {
      const ForeignFun& f = *e->foreign;
      Type t = f.result;
      for (size_t i = f.param_types.size(); i-- > 0;) t = fun(f.param_types[i], t);
      return typed(e, t);
    }
    case ExprKind::Lambda: {
      Expr known = std::exchange(redex_arg_, nullptr);
      // The loops a with-loop becomes (generated binders) run over the slabs
      // between its bounds, whose lengths must not be negative.
      Type pt = e->annot
                    ? written_type(e->annot, e->span,
                                   is_reserved_name(e->name) ? "the order of the with-loop's bounds"
                                                             : "in the type written here")
                : known ? known->type
                        : fresh_data();
      env_.emplace_back(e->name, pt);
      known_values_.emplace_back(e->name, known);
      Expr body = infer(e->fn);
      known_values_.pop_back();
      env_.pop_back();
      auto n = std::make_shared<ExprNode>(*e);
      if (e->annot) n->annot = pt;
      n->fn = body;
      n->type = fun(pt, body->type);
      return n;
    }
    case ExprKind::DepLambda: {
      std::string b = unique_binder(e->name);
      TypeArg arg;
      switch (e->binder_kind) {
        case Kind::Nat:
          if (b == e->name) stable_sizes_.insert(b);
          arg = Nat::size_var(b);
          break;
        case Kind::Data:
          arg = data_var(b);
          break;
        case Kind::Addr:
          arg = Addr{std::nullopt, b};
          break;
        case Kind::Nat2Nat:
          arg = NatFun{"x", Nat::var(b)};
          break;
      }
      tl_env_.emplace_back(e->name, e->binder_kind, arg);
      Expr body = infer(e->fn);
      tl_env_.pop_back();
      auto n = std::make_shared<ExprNode>(*e);
      n->name = b;
      n->fn = body;
      n->type = dep_fun(e->binder_kind, b, body->type, false);
      return n;
    }
    case ExprKind::App: {
      Expr r = infer_app(e);
      if (e->type) record_earlier_type(e, r);
      return r;
    }
    case ExprKind::DepApp: {
      Expr f = infer(e->fn);
      Type tf = zonk(f->type);
      if (tf->kind != TypeKind::DepFun || tf->implicit)
        user_error("this expression takes no type-level argument; it has type " + show(tf),
                   e->span);
      return dep_apply(e, f, tf, written_type(e->type_arg, e->span));
    }
    case ExprKind::Annotation: {
      Expr inner = infer(e->fn);
      Type t = written_type(e->annot, e->span);
      unify(t, inner->type, Ctx{e->span, t, inner->type, "type annotation"});
      return inner;
    }
  }
  internal_error("unknown expression kind", e->span);
}

bool Inferer::kind_matches(const TypeArg& a, Kind k) {
  switch (k) {
    case Kind::Nat:
      return std::holds_alternative<Nat>(a);
    case Kind::Data:
      return std::holds_alternative<Type>(a);
    case Kind::Addr:
      return std::holds_alternative<Addr>(a);
    case Kind::Nat2Nat:
      return std::holds_alternative<NatFun>(a);
  }
  return false;
}

Expr Inferer::dep_apply(const Expr& e, const Expr& f, const Type& tf, const TypeArg& arg) {
  if (!kind_matches(arg, tf->binder_kind))
    user_error("expected a " + std::string(kind_name(tf->binder_kind)) + " argument", e->span);
  if (f->kind == ExprKind::DepLambda) {
    // Specialise: bind the binder and keep only the body.
    switch (tf->binder_kind) {
      case Kind::Nat:
        bind_nat(f->name, std::get<Nat>(arg));
        break;
      case Kind::Data:
        bind_data(f->name, std::get<Type>(arg), Ctx{e->span, nullptr, nullptr, ""});
        break;
      case Kind::Addr:
        bind_addr(f->name, std::get<Addr>(arg));
        break;
      case Kind::Nat2Nat:
        user_error("applying a depFun over Nat2Nat is not supported", e->span);
    }
    solve_postponed(false);
    return f->fn;
  }
  auto n = std::make_shared<ExprNode>(*e);
  n->kind = ExprKind::DepApp;
  n->fn = f;
  n->arg = nullptr;
  n->type_arg = arg;
  const int before = counter_;
  n->type = instantiate_implicits(instantiate(tf, arg));
  note_origins(before, spine(e).head);
  return n;
}

Expr Inferer::size_value(const Expr& e, const Nat& value) {
  auto n = std::make_shared<ExprNode>(*e);
  n->kind = ExprKind::Literal;
  n->fn = n->arg = nullptr;
  n->lit = Literal{};
  n->lit.kind = LitKind::NatVal;
  n->lit.nat = value;
  Type m = fresh_data();
  nat_values_.push_back({m->name, 0, e->span, n->lit.nat});
  n->type = m;
  return n;
}

Expr Inferer::infer_app(const Expr& e) {
  // min(a, b) and max(a, b) of sizes used as a value, like a size name.
  if (Spine sp = spine(e); sp.head->kind == ExprKind::Ident &&
                           (sp.head->name == "min" || sp.head->name == "max") &&
                           !find_value(sp.head->name))
    return size_value(e, expr_to_nat(e, "'" + sp.head->name + "'"));
  // A with-loop part's body beside an element of its default or modified array
  // (withloop.h, element_check): one type; only the body is kept.
  if (auto from = element_check(e->fn)) {
    Expr elem = infer(e->arg);
    Expr body = infer(e->fn->fn);
    solve_masks(false);  // a comparison's result type (bool, or a mask) first
    const bool deflt = *from == WithLoop::Op::Genarray;
    unify(elem->type, body->type,
          Ctx{e->span, elem->type, body->type,
              std::string("in the with-loop, this part's elements have the type of ") +
                  (deflt ? "the default's (genarray's second argument)"
                         : "the modified array's elements")});
    return body;
  }
  // A redex (fun(x => b))(v): v first, so that index arithmetic in b sees x's value.
  Expr pre_arg;
  if (e->fn->kind == ExprKind::Lambda) {
    pre_arg = infer(e->arg);
    redex_arg_ = pre_arg;
  }
  Expr f = infer(e->fn);
  redex_arg_ = nullptr;
  Type tf = instantiate_implicits(zonk(f->type));
  std::string head = head_name(e->fn);
  const bool with_loop = from_with_loop(e->fn);
  std::string who = with_loop ? "the with-loop" : head.empty() ? "this function" : "'" + head + "'";
  if (tf->kind == TypeKind::DepFun) {
    TypeArg arg = expr_to_arg(e->arg, tf->binder_kind, who);
    if (auto n = std::get_if<Nat>(&arg)) {
      // `/` on sizes is exact (the spec): split(n/2) needs 2 | n (held-out K: generic
      // code without it wrote past the output at odd n).
      require_whole(*n, "in the size argument of " + who, e->arg->span);
      require_size(*n, 0, "in the size argument of " + who, e->arg->span);
    }
    return dep_apply(e, f, tf, arg);
  }
  // let(v)(fun(x => b)): x has v's type and value while b is inferred, as in a redex, so
  // that a clash is found where x is used (held-out O: `let p = drop(1)(x) in zip(x)(p)`
  // was "in the argument of let: expected (n - 1).f32 -> _ but found n.f32 -> n.f32" at
  // the whole let, and an integer literal bound by a let was not named at its use).
  if (Spine sp = spine(f); !pre_arg && e->arg->kind == ExprKind::Lambda && !e->arg->annot &&
                           sp.head->kind == ExprKind::Primitive && sp.head->prim &&
                           sp.head->prim->is(PrimId::Let) && sp.args.size() == 1 && !sp.args[0].dep)
    redex_arg_ = sp.args[0].value;
  Expr a = pre_arg ? pre_arg : infer(e->arg);
  redex_arg_ = nullptr;
  if (tf->kind == TypeKind::Fun) a = broadcast_logic_operand(f, a, e->arg->span);
  if (tf->kind == TypeKind::Fun && f->kind == ExprKind::Primitive && f->prim &&
      f->prim->is(PrimId::Idx)) {
    Type want = zonk(tf->a);
    if (want->kind == TypeKind::Index && zonk(a->type)->kind == TypeKind::NatData)
      a = index_from_nat(a, want->size, e->arg->span);
  }
  if (tf->kind == TypeKind::Fun) {
    unify(tf->a, a->type,
          Ctx{e->arg->span, tf->a, a->type,
              with_loop      ? "in the with-loop"
              : head.empty() ? "in this argument"
                             : "in the argument of " + head});
    Type result = instantiate_implicits(tf->b);
    return typed(e, result, f, a);
  }
  if (tf->kind == TypeKind::Var && is_meta_name(tf->name)) {
    Type r = fresh_data();
    unify(tf, fun(a->type, r), Ctx{e->span, tf, fun(a->type, r), ""});
    return typed(e, r, f, a);
  }
  user_error("this is applied to an argument but it is not a function: it has type " + show(tf),
             e->fn->span);
}

// `m && b`, `m || b`: with m a mask and b a bool, b stands for all lanes (docs/
// language.md), as the false and true of the operators do (held-out M F15: it was
// refused, "select on a mask ... not bool"; `b && m` chose between masks already). The
// operand gets a type of its own, its slot's, solved once the condition's is known
// (MaskUse::Broadcast); finalize makes it a vectorFromScalar where the two differ.
Expr Inferer::broadcast_logic_operand(const Expr& f, const Expr& a, const Span& span) {
  Spine sp = spine(f);
  if (sp.head->kind != ExprKind::Primitive || !sp.head->prim ||
      !sp.head->prim->is(PrimId::Select) || !sp.head->lit.mask_from_context || sp.args.empty() ||
      sp.args[0].dep || (a->kind == ExprKind::Literal && a->lit.mask_from_context))
    return a;
  Type slot = fresh_data();
  masks_.push_back({MaskUse::Broadcast, a->type, sp.args[0].value->type, span,
                    "this operand of && or ||", slot});
  auto marker = std::make_shared<ExprNode>(*prim_expr(PrimId::VectorFromScalar, span));
  marker->lit.mask_from_context = true;
  marker->type = fun(a->type, slot);
  return typed(app(marker, a, span), slot);
}

Expr Inferer::index_from_nat(const Expr& v, const Nat& size, const Span& span) {
  Expr p = infer(prim_expr(PrimId::NatAsIndex, span));
  Expr d = dep_apply(dep_app(p, TypeArg(size), span), p, p->type, TypeArg(size));
  index_checks_.push_back({v, size, span});
  return typed(app(d, v, span), index_type(size), d, v);
}

std::optional<Nat> Inferer::symbolic_nat(const Expr& e, std::map<std::string, Nat>& vars) {
  if (e->kind == ExprKind::Ident) {
    auto it = ident_values_.find(e.get());
    if (it == ident_values_.end()) return std::nullopt;
    return symbolic_nat(it->second, vars);
  }
  if (e->kind == ExprKind::Literal) {
    if (e->lit.kind == LitKind::Int) return Nat(e->lit.i);
    if (e->lit.kind == LitKind::NatVal || e->lit.kind == LitKind::Index) return zonk(e->lit.nat);
    return std::nullopt;
  }
  Spine sp = spine(e);
  if (sp.head->kind != ExprKind::Primitive || !sp.head->prim) return std::nullopt;
  for (const Spine::Arg& a : sp.args)
    if (a.dep) return std::nullopt;
  const PrimitiveInfo& p = *sp.head->prim;
  if (p.is(PrimId::IndexAsNat) && sp.args.size() == 1) {
    const Expr& x = sp.args[0].value;
    if (x->kind == ExprKind::Literal) return symbolic_nat(x, vars);
    Type t = zonk(x->type);
    if (x->kind != ExprKind::Ident || t->kind != TypeKind::Index) return std::nullopt;
    auto it = vars.find(x->name);
    if (it == vars.end())
      it = vars.emplace(x->name, Nat::var("index_" + std::to_string(++counter_), Nat(0), t->size))
               .first;
    return it->second;
  }
  if (sp.args.size() != 2 || !(p.is(PrimId::Add) || p.is(PrimId::Sub) || p.is(PrimId::Mul) ||
                               p.is(PrimId::Div) || p.is(PrimId::Mod)))
    return std::nullopt;
  auto a = symbolic_nat(sp.args[0].value, vars), b = symbolic_nat(sp.args[1].value, vars);
  if (!a || !b) return std::nullopt;
  if (p.is(PrimId::Div) || p.is(PrimId::Mod)) {
    // C's / and % agree with floor division on the non-negative values proven below
    if (!arith::provably_pos(*b)) return std::nullopt;
    if (!arith::provably_nonneg(*a)) return std::nullopt;
    return p.is(PrimId::Div) ? arith::floordiv(*a, *b) : arith::mod(*a, *b);
  }
  if (p.is(PrimId::Add)) return *a + *b;
  if (p.is(PrimId::Sub)) return *a - *b;
  return *a * *b;
}

// `t` with every modulo by a positive divisor, `x % d`, replaced by a variable over
// [0, d) (the same one for each occurrence, in variables' ranges too); the names made
// are added to `fresh`. A sound relaxation that forgets how the modulo follows its
// dividend: the first index of a stepped generator's tail, `n - 1 - n % 2` for
// `[1] <= [i] < [n - 1] step [2]`, which the range analysis bounds through
// `n % 2 <= n` as -1 for every n, is then at least n - 2, a condition on the size that
// the generator's own bounds (1 <= n - 1) already impose.
static Nat moduli_as_variables(const Nat& t, std::map<Nat, Nat, arith::NatLess>& made,
                               std::set<std::string>& fresh) {
  auto go = [&](const Nat& x) { return moduli_as_variables(x, made, fresh); };
  const arith::Node& n = t.node();
  switch (n.kind) {
    case arith::Kind::Var: {
      if (!n.lo && !n.hi) return t;
      std::optional<Nat> lo, hi;
      if (n.lo) lo = go(*n.lo);
      if (n.hi) hi = go(*n.hi);
      if (lo == n.lo && hi == n.hi) return t;
      return Nat::var(n.name, lo, hi);
    }
    case arith::Kind::Sum: {
      arith::SumForm f = arith::sum_form(t);
      Nat r = arith::scale(f.constant, Nat(1));
      for (const auto& [c, m] : f.terms) r = r + arith::scale(c, go(m));
      return r;
    }
    case arith::Kind::Prod: {
      Nat r(1);
      for (const Nat& a : n.args) r = r * go(a);
      return r;
    }
    case arith::Kind::Mod: {
      if (!arith::provably_pos(n.args[1])) return t;
      auto it = made.find(t);
      if (it == made.end()) {
        std::string name = "modulo#" + std::to_string(made.size() + 1);  // no size's name
        fresh.insert(name);
        it = made.emplace(t, Nat::var(name, Nat(0), go(n.args[1]))).first;
      }
      return it->second;
    }
    default:
      return t;
  }
}

void Inferer::check_index_arithmetic() {
  for (const IndexCheck& c : index_checks_) {
    std::map<std::string, Nat> vars;
    std::optional<Nat> v = symbolic_nat(c.value, vars);
    Nat n = zonk(c.size);
    std::string text = c.span.file
                           ? c.span.file->text.substr(c.span.begin, c.span.end - c.span.begin)
                           : "this index";
    if (!v)
      user_error("cannot prove the index '" + text +
                     "' in bounds: index arithmetic is + - * of with-loop index names, "
                     "sizes and numbers, and / % by a positive size",
                 c.span);
    auto show_range = [&] {
      auto lo = arith::lower_bound(*v), hi = arith::upper_bound(*v);
      return " (it ranges over [" + (lo ? lo->to_string() : std::string("?")) + ", " +
             (hi ? hi->to_string() : std::string("?")) + "])";
    };
    // Where only the sizes decide (the index ranges over [n - 3, n - 1]: in bounds when
    // n >= 3), the bound is a side condition on the sizes, as a take's length is:
    // checked at --size or on entry of generic code. A bound that still depends on
    // the index variables, or none at all, is refused.
    std::set<std::string> index_vars;
    for (const auto& [x, iv] : vars)
      for (const auto& [name, range] : arith::free_vars(iv)) index_vars.insert(name);
    // The index as it is, then with its moduli as variables (moduli_as_variables)
    // where that is another term: each side is judged on the first that proves it,
    // else the first whose bound depends on sizes alone.
    std::map<Nat, Nat, arith::NatLess> made;
    std::vector<Nat> forms{*v};
    if (Nat relaxed = moduli_as_variables(*v, made, index_vars); relaxed != *v)
      forms.push_back(relaxed);
    auto of_sizes = [&](const std::optional<Nat>& b) {
      if (!b) return false;
      for (const auto& [name, range] : arith::free_vars(*b))
        if (index_vars.count(name) || is_meta_name(name)) return false;
      return true;
    };
    const std::string what =
        "index '" + text + "' (needs 0 <= " + text + " < " + n.to_string() + ")";
    // The condition on the sizes that makes one side hold: nullopt when it is proven,
    // the Nat that must be >= 0 otherwise; refused when no form gives one.
    auto side = [&](bool upper) -> std::optional<Nat> {
      for (const Nat& f : forms)
        if (upper ? arith::provably_lt(f, n) : arith::provably_nonneg(f)) return std::nullopt;
      for (const Nat& f : forms) {
        auto b = upper ? arith::upper_bound(f) : arith::lower_bound(f);
        if (of_sizes(b) && !(upper ? arith::provably_le(n, *b) : arith::provably_lt(*b, Nat(0))))
          return upper ? n - Nat(1) - *b : *b;
      }
      if (upper)
        user_error("the index '" + text + "' may be out of bounds of idx[" + n.to_string() + "]" +
                       show_range(),
                   c.span);
      user_error("the index '" + text + "' may be negative" + show_range(), c.span);
    };
    if (std::optional<Nat> need = side(false)) nonneg_.push_back({*need, what, c.span});
    if (std::optional<Nat> need = side(true)) nonneg_.push_back({*need, what, c.span});
  }
}

}  // namespace infer_impl

using infer_impl::Inferer;

namespace {

// An overflow of the size arithmetic: the arithmetic's message says so itself.
std::string size_arith_message(const arith::ArithError& err) {
  const std::string what = err.what();
  return what.find("size arithmetic") != std::string::npos ? what : "size arithmetic: " + what;
}

}  // namespace

Checked infer_in_context(const Expr& e, const std::vector<std::pair<std::string, Type>>& vars,
                         const Type& expected) {
  Inferer inf(nullptr);
  try {
    return inf.run(e, &vars, expected);
  } catch (const arith::ArithError& err) {
    user_error(size_arith_message(err), e->span);
  }
}

Checked infer_entry(const Expr& resolved, const SizeMap* sizes, bool closed) {
  auto run = [&](const Expr& e) {
    Inferer inf(sizes);
    inf.closed = closed;
    try {
      return inf.run(e);
    } catch (const arith::ArithError& err) {
      // With sizes given, where the program's arithmetic does not overflow without
      // them, the sizes are too large for it: a usage error, as sizes past the memory
      // limit are.
      auto overflows_without_sizes = [&] {
        try {
          Inferer generic(nullptr);
          generic.closed = closed;
          generic.run(e);
        } catch (const arith::ArithError&) {
          return true;
        } catch (const Error&) {
        }
        return false;
      };
      const bool sizes_overflow = sizes && !sizes->empty() && !overflows_without_sizes();
      if (sizes_overflow)
        throw Error(ErrorKind::Usage,
                    "at these sizes the program's size arithmetic overflows 64 bits (" +
                        size_arith_message(err) + "); use smaller --size values",
                    e->span);
      user_error(size_arith_message(err), e->span);
    }
  };
  try {
    return run(resolved);
  } catch (const Error& err) {
    // A let-bound name used at two types: say so rather than where they met.
    if (err.kind() != ErrorKind::User) throw;
    if (std::optional<Error> why = explain_monomorphic_let(resolved, run)) throw *why;
    throw;
  }
}

}  // namespace risec::rise
