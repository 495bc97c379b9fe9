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
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "rise/check.h"
#include "rise/infer.h"
#include "rise/lexer.h"
#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::rise {

namespace {

// An integer literal without a suffix takes its type from the context (`x + 300`
// with x: u8); a value that type cannot hold is an error at the literal, as a
// suffixed one is (`300u8`), not a silent wrap. Floating-point contexts take any.
void check_int_literal_fits(int64_t v, ScalarKind k, Span span) {
  if (!is_integer(k)) return;
  const int bits = scalar_bits(k);
  if (bits >= 64 && is_signed_int(k)) return;  // parsed as an int64_t already
  bool fits;
  if (is_unsigned_int(k))
    fits = v >= 0 && (bits >= 64 || v <= (int64_t{1} << bits) - 1);
  else
    fits = v >= -(int64_t{1} << (bits - 1)) && v <= (int64_t{1} << (bits - 1)) - 1;
  if (!fits)
    user_error("integer literal " + std::to_string(v) + " does not fit in " + scalar_name(k) +
                   ", the type its context gives it",
               span);
}

bool is_meta_name(const std::string& n) {
  return !n.empty() && n[0] == '?';
}

struct Ctx {
  Span span;
  Type expected;
  Type found;
  std::string what;  // "in the argument of map", ...
};

struct Postponed {
  Nat a, b;
  Ctx ctx;
};

struct PendingCondition {
  arith::Divisibility d;
  std::string prim;
  Span span;
};

// A size the checker solved for, which must not be negative.
struct PendingNonNegative {
  Nat value;
  std::string prim;
  Span span;
};

// A primitive that is polymorphic over bool and vector masks (vec[bool, n]), solved
// once the types around it are known:
//   Compare: t -> t -> mask, mask = bool, or vec[bool, n] when t = vec[s, n];
//   Mask:    mask is bool or vec[bool, n] (not, and the false/true of && and ||);
//   Select:  mask -> t -> t -> t, mask = bool (any t), or vec[bool, n] when t is a
//            vector of n lanes (or pairs of such), chosen lane-wise.
struct MaskUse {
  enum Kind { Compare, Mask, Select } kind;
  Type operand;  // Compare: t; Select: t
  Type mask;
  Span span;
  std::string what;
};

struct IntLit {
  std::string meta;
  int64_t value;
  Span span;
  Nat nat = Nat(0);  // nat_values_: the size
};

class Inferer {
 public:
  explicit Inferer(const SizeMap* sizes) : sizes_(sizes) {}
  bool closed = false;  // a whole program: every size name written is bound in it

  Checked run(const Expr& e, const std::vector<std::pair<std::string, Type>>* vars = nullptr,
              const Type& expected = nullptr) {
    if (vars) env_ = *vars;
    Expr typed = infer_top(e);
    if (expected)
      unify(expected, typed->type, Ctx{e->span, expected, typed->type, "rewritten term"});
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

 private:
  const SizeMap* sizes_;
  int counter_ = 0;
  // The solution, kept triangular: a bound value may mention names bound after it,
  // and zonk resolves them, storing each resolved value back so that it is resolved
  // once. Binding is then constant time; rewriting every earlier value at each
  // binding made checking quadratic in the length of the program (a chain of 2,000
  // maps took seconds).
  std::unordered_map<std::string, Type> datas_;
  std::unordered_map<std::string, Nat> nats_;
  std::vector<std::pair<std::string, Addr>> addrs_;
  // Bindings being resolved: a value that mentions its own name stays unresolved
  // there instead of looping.
  std::unordered_set<std::string> resolving_;
  std::vector<Postponed> postponed_;
  std::vector<PendingCondition> conditions_;
  std::vector<PendingNonNegative> nonneg_;
  std::vector<IntLit> int_lits_;
  std::vector<MaskUse> masks_;
  std::vector<IntLit> float_lits_;  // inf and nan: f32 or f64 from context
  std::vector<IntLit> nat_values_;  // sizes used as values: a number type or natType
  std::set<std::string> int_metas_;
  std::set<std::string> used_binders_;
  // Type-level names in scope: source name -> (kind, argument).
  std::vector<std::tuple<std::string, Kind, TypeArg>> tl_env_;
  // Value names in scope.
  std::vector<std::pair<std::string, Type>> env_;

  // ---------------------------------------------------------------- metas
  std::string fresh(const char* prefix) {
    return std::string("?") + prefix + std::to_string(++counter_);
  }
  Type fresh_data() { return data_var(fresh("t")); }
  Nat fresh_nat() { return Nat::var(fresh("n")); }

  TypeArg fresh_arg(Kind k) {
    switch (k) {
      case Kind::Nat:
        return fresh_nat();
      case Kind::Data:
        return fresh_data();
      case Kind::Addr:
        return Addr{std::nullopt, fresh("a")};
      case Kind::Nat2Nat:
        return NatFun{"x", Nat::var("x")};
    }
    return fresh_nat();
  }

  // The type with every bound name replaced by its resolved value (names bound by a
  // depFun inside the type excepted).
  Type zonk(const Type& t) {
    if (datas_.empty() && nats_.empty()) return t;
    std::vector<std::string> bound;
    return zonk_in(t, bound);
  }
  Nat zonk(const Nat& n) {
    std::vector<std::string> bound;
    return zonk_in(n, bound);
  }
  TypeArg zonk(const TypeArg& a) {
    if (auto n = std::get_if<Nat>(&a)) return zonk(*n);
    if (auto t = std::get_if<Type>(&a)) return zonk(*t);
    if (auto ad = std::get_if<Addr>(&a)) {
      if (!ad->space)
        for (const auto& [name, v] : addrs_)
          if (name == ad->var) return v;
      return a;
    }
    const NatFun& f = std::get<NatFun>(a);
    return NatFun{f.param, zonk_in(f.body, {f.param})};
  }

  static bool shadowed(const std::vector<std::string>& bound, const std::string& name) {
    return std::find(bound.begin(), bound.end(), name) != bound.end();
  }

  Nat zonk_in(const Nat& n, const std::vector<std::string>& bound) {
    if (nats_.empty()) return n;
    return arith::substitute_fn(n, [&](const Nat& v) -> std::optional<Nat> {
      const std::string& name = v.var_name();
      auto it = nats_.find(name);
      if (it == nats_.end() || shadowed(bound, name) || resolving_.count(name)) return std::nullopt;
      resolving_.insert(name);
      std::vector<std::string> none;
      Nat r = zonk_in(it->second, none);
      resolving_.erase(name);
      it->second = r;
      return r;
    });
  }

  Type zonk_in(const Type& t, std::vector<std::string>& bound) {
    check_stack_depth();
    switch (t->kind) {
      case TypeKind::Scalar:
      case TypeKind::NatData:
        return t;
      case TypeKind::Index: {
        Nat n = zonk_in(t->size, bound);
        return n == t->size ? t : index_type(n);
      }
      case TypeKind::Array: {
        Nat n = zonk_in(t->size, bound);
        Type e = zonk_in(t->a, bound);
        return (n == t->size && e == t->a) ? t : array(n, e);
      }
      case TypeKind::Vector: {
        Nat n = zonk_in(t->size, bound);
        Type e = zonk_in(t->a, bound);
        return (n == t->size && e == t->a) ? t : vector_of(e, n);
      }
      case TypeKind::Pair: {
        Type a = zonk_in(t->a, bound), b = zonk_in(t->b, bound);
        return (a == t->a && b == t->b) ? t : pair(a, b);
      }
      case TypeKind::Fun: {
        Type a = zonk_in(t->a, bound), b = zonk_in(t->b, bound);
        return (a == t->a && b == t->b) ? t : fun(a, b);
      }
      case TypeKind::Var: {
        auto it = datas_.find(t->name);
        if (it == datas_.end() || shadowed(bound, t->name) || resolving_.count(t->name)) return t;
        resolving_.insert(t->name);
        std::vector<std::string> none;
        Type r = zonk_in(it->second, none);
        resolving_.erase(t->name);
        it->second = r;
        return r;
      }
      case TypeKind::DepFun: {
        bound.push_back(t->name);
        Type b = zonk_in(t->b, bound);
        bound.pop_back();
        return b == t->b ? t : dep_fun(t->binder_kind, t->name, b, t->implicit);
      }
    }
    return t;
  }

  Type instantiate_implicits(Type t) {
    while (t->kind == TypeKind::DepFun && t->implicit)
      t = instantiate(t, fresh_arg(t->binder_kind));
    return t;
  }

  // ---------------------------------------------------------------- messages
  // Types for messages: metas print as `_`.
  std::string show(const Type& t) {
    Type z = zonk(t);
    TypeSubst s;
    for (auto& [name, v] : free_nat_vars(z))
      if (is_meta_name(name)) s.nats[name] = Nat::var("_");
    std::string out = print(substitute(z, s));
    std::string clean;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == '?') {
        // a data meta: ?t12 -> _
        size_t j = i + 1;
        while (j < out.size() && std::isalnum(static_cast<unsigned char>(out[j]))) ++j;
        clean += "_";
        i = j - 1;
      } else {
        clean += out[i];
      }
    }
    return clean;
  }

  [[noreturn]] void mismatch(const Ctx& ctx, const std::string& extra = "") {
    std::string msg;
    if (ctx.expected && ctx.found) {
      msg = "expected " + show(ctx.expected) + " but found " + show(ctx.found);
    } else {
      msg = "type mismatch";
    }
    if (!ctx.what.empty()) msg = ctx.what + ": " + msg;
    if (!extra.empty()) msg += " (" + extra + ")";
    user_error(msg, ctx.span);
  }

  // ---------------------------------------------------------------- binding
  void bind_nat(const std::string& name, const Nat& value) { nats_[name] = value; }

  void bind_data(const std::string& name, const Type& value, const Ctx& ctx) {
    if (mentions_data_var(value, name)) mismatch(ctx, "infinite type");
    if (int_metas_.count(name)) {
      if (value->kind == TypeKind::Var && is_meta_name(value->name)) {
        int_metas_.insert(value->name);
      } else if (value->kind == TypeKind::Scalar && is_float(value->scalar)) {
        mismatch(ctx, "an integer literal cannot be a " + std::string(scalar_name(value->scalar)) +
                          "; write it with a decimal point, e.g. 2.0f");
      } else if (!((value->kind == TypeKind::Scalar && value->scalar != ScalarKind::Bool) ||
                   value->kind == TypeKind::Index || value->kind == TypeKind::NatData)) {
        mismatch(ctx, "an integer literal cannot have type " + show(value));
      }
    }
    datas_.emplace(name, value);
  }

  void bind_addr(const std::string& name, const Addr& value) {
    for (auto& [k, v] : addrs_)
      if (!v.space && v.var == name) v = value;
    addrs_.emplace_back(name, value);
  }

  // ---------------------------------------------------------------- unification
  void unify(const Type& a0, const Type& b0, const Ctx& ctx) {
    Type a = zonk(a0), b = zonk(b0);
    if (a == b) return;
    if (a->kind == TypeKind::Var && is_meta_name(a->name)) {
      if (b->kind == TypeKind::Var && b->name == a->name) return;
      // Keep integer-literal metas as the representative.
      if (b->kind == TypeKind::Var && is_meta_name(b->name) && int_metas_.count(b->name) &&
          !int_metas_.count(a->name)) {
        bind_data(a->name, b, ctx);
        return;
      }
      bind_data(a->name, b, ctx);
      return;
    }
    if (b->kind == TypeKind::Var && is_meta_name(b->name)) {
      bind_data(b->name, a, ctx);
      return;
    }
    if (a->kind != b->kind) mismatch(ctx);
    switch (a->kind) {
      case TypeKind::Scalar:
        if (a->scalar != b->scalar) mismatch(ctx);
        return;
      case TypeKind::NatData:
        return;
      case TypeKind::Index:
        unify_nat(a->size, b->size, ctx);
        return;
      case TypeKind::Vector:
        unify(a->a, b->a, ctx);
        unify_nat(a->size, b->size, ctx);
        return;
      case TypeKind::Array:
        // Elements first, so that a size mismatch is reported with known elements.
        unify(a->a, b->a, ctx);
        unify_nat(a->size, b->size, ctx);
        return;
      case TypeKind::Pair:
      case TypeKind::Fun:
        unify(a->a, b->a, ctx);
        unify(a->b, b->b, ctx);
        return;
      case TypeKind::Var:
        if (a->name != b->name) mismatch(ctx);
        return;
      case TypeKind::DepFun: {
        if (a->binder_kind != b->binder_kind || a->implicit != b->implicit) mismatch(ctx);
        // A rigid name, not a meta: the binder's own name when nothing else in the two
        // types uses it (so that errors read "the sizes l and ..."), else a fresh one.
        std::string common = a->name;
        bool clash = a->binder_kind != Kind::Nat || common.empty() || is_meta_name(common) ||
                     rise::free_nat_vars(a).count(common) || rise::free_nat_vars(b).count(common);
        if (clash) common = fresh("b").substr(1);
        TypeArg arg;
        switch (a->binder_kind) {
          case Kind::Nat:
            arg = Nat::size_var(common);
            break;
          case Kind::Data:
            arg = data_var(common);
            break;
          case Kind::Addr:
            arg = Addr{std::nullopt, common};
            break;
          case Kind::Nat2Nat:
            arg = NatFun{"x", Nat::var(common)};
            break;
        }
        unify(instantiate(a, arg), instantiate(b, arg), ctx);
        return;
      }
    }
  }

  void unify_nat(const Nat& a0, const Nat& b0, const Ctx& ctx) {
    Nat a = zonk(a0), b = zonk(b0);
    if (a == b) return;
    Nat d = a - b;
    if (d.is_const(0)) return;
    bool has_meta = false;
    // Solve first for an unknown that needs no divisibility condition: in
    // a * (n + 4) = b + 1 with both unknown, b = a * (n + 4) - 1 keeps the equation
    // solvable once a is known, while a = (b + 1) / (n + 4) leaves a quotient that a
    // later a = 1 cannot be unified with (a let or map body inferred before its
    // argument's type; the pipeline fuzzer found such a well-typed program refused).
    std::vector<std::pair<std::string, Nat>> metas;
    for (auto& [name, v] : arith::free_vars(d))
      if (is_meta_name(name)) metas.emplace_back(name, v);
    std::stable_partition(metas.begin(), metas.end(), [&](const auto& m) {
      try {
        arith::Solution s = arith::solve(a, b, m.first);
        return s.status == arith::Solution::Status::Solved && s.conditions.empty();
      } catch (const arith::ArithError&) {
        return false;
      }
    });
    for (auto& [name, v] : metas) {
      has_meta = true;
      arith::Solution s;
      try {
        s = arith::solve(a, b, name);
      } catch (const arith::ArithError& e) {
        mismatch(ctx, e.what());
      }
      using St = arith::Solution::Status;
      if (s.status == St::Solved) {
        for (const auto& c : s.conditions) {
          if (c.divisor.is_const() && c.dividend.is_const()) {
            if (*c.dividend.as_const() % *c.divisor.as_const() != 0)
              mismatch(ctx,
                       c.dividend.to_string() + " is not a multiple of " + c.divisor.to_string());
          } else {
            conditions_.push_back({c, ctx.what, ctx.span});
          }
        }
        if (auto v = s.value.as_const(); v && *v < 0)
          mismatch(ctx, "a size would be " + std::to_string(*v) + "; sizes cannot be negative");
        if (!arith::provably_le(Nat(0), s.value)) nonneg_.push_back({s.value, ctx.what, ctx.span});
        bind_nat(name, s.value);
        solve_postponed(false);
        return;
      }
      if (s.status == St::Unsatisfiable) {
        std::string hint;
        if (auto lin = arith_linear(d, v)) hint = *lin;
        mismatch(ctx, hint);
      }
      if (s.status == St::Trivial) return;
    }
    if (has_meta) {
      postponed_.push_back({a, b, ctx});
      return;
    }
    mismatch(ctx, d.is_const() ? ""
                               : "the sizes " + a.to_string() + " and " + b.to_string() +
                                     " are not provably equal");
  }

  // A hint for an unsatisfiable linear equation c*u + r = 0 with constants.
  std::optional<std::string> arith_linear(const Nat& d, const Nat& var) {
    arith::SumForm f = arith::sum_form(d);
    for (const auto& [c, m] : f.terms)
      if (m == var && c.is_int() && f.terms.size() == 1 && f.constant.is_int()) {
        int64_t k = c.num() < 0 ? -c.num() : c.num();
        int64_t n = f.constant.num() < 0 ? -f.constant.num() : f.constant.num();
        return std::to_string(n) + " is not a multiple of " + std::to_string(k);
      }
    return std::nullopt;
  }

  void solve_postponed(bool final) {
    for (bool progress = true; progress && !postponed_.empty();) {
      progress = false;
      std::vector<Postponed> todo;
      todo.swap(postponed_);
      for (auto& p : todo) {
        Nat a = zonk(p.a), b = zonk(p.b);
        size_t before = postponed_.size();
        unify_nat(a, b, p.ctx);
        if (postponed_.size() == before) progress = true;
      }
      if (!progress) break;
    }
    if (final && !postponed_.empty()) {
      const Postponed& p = postponed_.front();
      mismatch(p.ctx, "cannot solve the size equation " + show_nat(p.a) + " = " + show_nat(p.b));
    }
  }

  std::string show_nat(const Nat& n) {
    Nat z = zonk(n);
    arith::Substitution s;
    for (auto& [name, v] : arith::free_vars(z))
      if (is_meta_name(name)) s[name] = Nat::var("_");
    return arith::substitute(z, s).to_string();
  }

  // ---------------------------------------------------------------- masks
  bool is_meta(const Type& t) { return t->kind == TypeKind::Var && is_meta_name(t->name); }

  // The type of a comparison, not, select (or a && / || literal) with its bool
  // replaced by a mask to be solved (MaskUse).
  Type mask_polymorphic(const PrimitiveInfo& p, const Type& inst, const Span& span) {
    if (inst->kind != TypeKind::Fun) return inst;
    Type m = fresh_data();
    if (p.is(PrimId::Gt) || p.is(PrimId::Lt) || p.is(PrimId::Equal)) {
      masks_.push_back({MaskUse::Compare, inst->a, m, span, "'" + p.name + "'"});
      return fun(inst->a, fun(inst->a, m));
    }
    if (p.is(PrimId::Not)) {
      masks_.push_back({MaskUse::Mask, nullptr, m, span, "the argument of not"});
      return fun(m, m);
    }
    if (p.is(PrimId::Select)) {
      masks_.push_back({MaskUse::Select, inst->b->a, m, span, "the condition of select"});
      return fun(m, inst->b);
    }
    return inst;
  }

  void solve_masks(bool final) {
    for (bool progress = true; progress && !masks_.empty();) {
      progress = false;
      std::vector<MaskUse> todo;
      todo.swap(masks_);
      for (size_t i = 0; i < todo.size(); ++i) {
        if (solve_mask(todo[i], false)) {
          progress = true;
        } else {
          masks_.push_back(todo[i]);
        }
      }
    }
    if (!final) return;
    // What nothing decided is bool (a scalar condition).
    std::vector<MaskUse> todo;
    todo.swap(masks_);
    for (const MaskUse& u : todo) solve_mask(u, true);
  }

  // Whether t is a vector of `lanes` lanes or pairs of such (what a mask selects).
  void require_lanes(const Type& t0, const Nat& lanes, const MaskUse& u) {
    Type t = zonk(t0);
    if (is_meta(t)) {
      unify(t, vector_of(fresh_data(), lanes), Ctx{u.span, nullptr, nullptr, ""});
      return;
    }
    if (t->kind == TypeKind::Pair) {
      require_lanes(t->a, lanes, u);
      require_lanes(t->b, lanes, u);
      return;
    }
    if (t->kind != TypeKind::Vector)
      user_error("select on a mask of " + show_nat(lanes) +
                     " lanes chooses lane-wise between vectors of as many lanes, not " + show(t),
                 u.span);
    unify_nat(t->size, lanes,
              Ctx{u.span, vector_of(t->a, lanes), t, "the branches of a select on a mask"});
  }

  bool solve_mask(const MaskUse& u, bool final) {
    const Type b = scalar(ScalarKind::Bool);
    Type m = zonk(u.mask);
    Ctx ctx{u.span, b, m, u.what};
    switch (u.kind) {
      case MaskUse::Mask:
        if (m->kind == TypeKind::Vector) {
          unify(b, m->a, Ctx{u.span, vector_of(b, m->size), m, u.what});
          return true;
        }
        if (is_meta(m) && !final) return false;
        unify(b, m, ctx);
        return true;
      case MaskUse::Compare: {
        Type t = zonk(u.operand);
        if (t->kind == TypeKind::Vector) {
          unify(vector_of(b, t->size), m, Ctx{u.span, vector_of(b, t->size), m, u.what});
          return true;
        }
        if (!is_meta(t)) {
          unify(b, m, Ctx{u.span, b, m, u.what + " of " + show(t)});
          return true;
        }
        if (m->kind == TypeKind::Vector) {
          unify(t, vector_of(fresh_data(), m->size), ctx);
          return true;
        }
        if (!final) return false;
        unify(b, m, ctx);
        return true;
      }
      case MaskUse::Select:
        if (m->kind == TypeKind::Vector) {
          unify(b, m->a, Ctx{u.span, vector_of(b, m->size), m, u.what});
          require_lanes(u.operand, m->size, u);
          return true;
        }
        if (is_meta(m) && !final) return false;
        unify(b, m, ctx);
        return true;
    }
    return true;
  }

  // ---------------------------------------------------------------- scopes
  // The type-level names in scope, for the types written in the program: their
  // values come from outside those types, so binders there must not capture them.
  TypeSubst tl_subst() {
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

  const std::tuple<std::string, Kind, TypeArg>* find_tl(const std::string& name) {
    for (auto it = tl_env_.rbegin(); it != tl_env_.rend(); ++it)
      if (std::get<0>(*it) == name) return &*it;
    return nullptr;
  }

  const Type* find_value(const std::string& name) {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (it->first == name) return &it->second;
    return nullptr;
  }

  // A type written in the program, with the type-level names in scope substituted.
  // Its dependent binders are renamed where a depFun binder already has their name:
  // specialising that depFun (n := k) substitutes into this type, where a binder
  // named k would capture it ((k: Nat) -> n.k.f32 must not become (k: Nat) ->
  // k.k.f32).
  // Its sizes' divisions are exact (spec: `/` on sizes): the divisibility they need is
  // a side condition, located at `span` (n/2 with --size n=9 is an error there).
  Type written_type(const Type& annot, const Span& span,
                    const std::string& what = "in the type written here") {
    require_bound_names(annot, span);
    Type t = separate_binders(substitute(annot, tl_subst()));
    require_whole_sizes(t, span, what);
    return t;
  }
  TypeArg written_type(const TypeArg& a, const Span& span) {
    if (auto t = std::get_if<Type>(&a)) return written_type(*t, span);
    if (auto n = std::get_if<Nat>(&a)) require_bound_names(*n, span);
    TypeArg r = substitute(a, tl_subst());
    if (auto n = std::get_if<Nat>(&r)) {
      require_whole(*n, "in this size argument", span);
      require_size(*n, 0, "in this size argument", span);
    }
    return r;
  }
  // Every size name of a type written in the program is bound: by a depFun around it
  // or by a binder of the type itself ((k: Nat) -> k.f32). A name bound nowhere
  // (fun(x: k.f32 => x) with no k in scope) would be an unknown size that nothing
  // ever fixes.
  void require_bound_names(const Type& t, const Span& span) {
    for (const auto& [name, v] : free_nat_vars(t)) require_bound_names(v, span);
  }
  void require_bound_names(const Nat& n, const Span& span) {
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
  // A size must be at least `least` (0 for array lengths and index ranges, 1 for the
  // lanes of a vector): a constant is decided now, a symbolic one becomes a side
  // condition (size - least >= 0) checked with the sizes (--size, or on entry of
  // generic code).
  void require_size(const Nat& n, int64_t least, const std::string& what, const Span& span) {
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
  void require_whole_sizes(const Type& t, const Span& span, const std::string& what) {
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
  // A size with fractional coefficients (n/2 is (1/2)*n) must be a whole number: the
  // least common denominator d divides d * n.
  void require_whole(const Nat& n, const std::string& what, const Span& span) {
    arith::SumForm f = arith::sum_form(n);
    int64_t d = f.constant.den();
    for (const auto& [c, m] : f.terms) d = arith::lcm64(d, c.den());
    if (d != 1) conditions_.push_back({{Nat(d), arith::scale(arith::Rational(d), n)}, what, span});
  }
  Type separate_binders(const Type& t) {
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

  std::string unique_binder(const std::string& name) {
    std::string n = name;
    for (int i = 2; used_binders_.count(n) || find_value(n); ++i)
      n = name + "_" + std::to_string(i);
    used_binders_.insert(n);
    return n;
  }

  // ---------------------------------------------------------------- type-level arguments
  Nat expr_to_nat(const Expr& e, const std::string& who) {
    switch (e->kind) {
      case ExprKind::Literal:
        if (e->lit.kind == LitKind::Int ||
            (e->lit.kind == LitKind::Scalar && is_integer(e->lit.scalar)))
          return Nat(e->lit.i);
        if (e->lit.kind == LitKind::NatVal) return e->lit.nat;
        break;
      case ExprKind::Ident: {
        if (auto t = find_tl(e->name)) {
          if (std::get<1>(*t) == Kind::Nat) return std::get<Nat>(std::get<2>(*t));
          user_error(who + " expects a size here, but '" + e->name + "' is a " +
                         kind_name(std::get<1>(*t)),
                     e->span);
        }
        if (find_value(e->name))
          user_error(who + " expects a size here, but '" + e->name +
                         "' is a run-time value; sizes are numbers or size names bound by depFun",
                     e->span);
        user_error(who + " expects a size here, but '" + e->name + "' is not a size name", e->span);
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
              if (op == PrimId::Div) return arith::exact_div(a, b);
              return arith::mod(a, b);
            }
          } catch (const arith::ArithError& err) {
            user_error(std::string("in a size expression: ") + err.what(), e->span);
          }
        }
        if (sp.head->kind == ExprKind::Primitive && sp.head->prim &&
            sp.head->prim->is(PrimId::Neg) && sp.args.size() == 1)
          return -expr_to_nat(sp.args[0].value, who);
        // min(a, b) and max(a, b) of sizes, as in types
        if (sp.head->kind == ExprKind::Ident &&
            (sp.head->name == "min" || sp.head->name == "max") && !find_value(sp.head->name) &&
            sp.args.size() == 2 && !sp.args[0].dep && !sp.args[1].dep) {
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

  TypeArg expr_to_arg(const Expr& e, Kind kind, const std::string& who) {
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
        user_error(who + " expects a size function here, written fun(i => size expression)",
                   e->span);
    }
    user_error(who + ": bad type-level argument", e->span);
  }

  static std::string head_name(const Expr& e) {
    Spine sp = spine(e);
    if (sp.head->kind == ExprKind::Primitive || sp.head->kind == ExprKind::Foreign)
      return sp.head->name;
    if (sp.head->kind == ExprKind::Ident) return sp.head->name;
    return "";
  }

  // ---------------------------------------------------------------- expressions
  Expr typed(const Expr& e, Type t, Expr fn = nullptr, Expr arg = nullptr) {
    auto n = std::make_shared<ExprNode>(*e);
    n->type = std::move(t);
    if (fn) n->fn = std::move(fn);
    if (arg) n->arg = std::move(arg);
    return n;
  }

  // The entry: leading depFuns whose binder has a size in --size are applied.
  Expr infer_top(const Expr& e) {
    if (e->kind == ExprKind::DepLambda && sizes_ && e->binder_kind == Kind::Nat) {
      auto it = sizes_->find(e->name);
      if (it != sizes_->end()) {
        tl_env_.emplace_back(e->name, Kind::Nat, Nat(it->second));
        Expr body = infer_top(e->fn);
        tl_env_.pop_back();
        return body;
      }
      std::string b = unique_binder(e->name);
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

  // Type inference proper, not on ExprMutator: each kind has its own rule, the
  // environment grows at binders, and children are inferred in a rule-specific order.
  Expr infer(const Expr& e) {
    check_stack_depth(e->span);
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
            int_metas_.insert(m->name);
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
            require_size(n->lit.nat, 0, "this natType value", e->span);
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
        Type inst = instantiate_implicits(t);
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
        Type pt = e->annot ? written_type(e->annot, e->span,
                                          is_reserved_name(e->name)
                                              ? "the order of the with-loop's bounds"
                                              : "in the type written here")
                  : known  ? known->type
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
      case ExprKind::App:
        return infer_app(e);
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

  bool kind_matches(const TypeArg& a, Kind k) {
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

  Expr dep_apply(const Expr& e, const Expr& f, const Type& tf, const TypeArg& arg) {
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
    n->type = instantiate_implicits(instantiate(tf, arg));
    return n;
  }

  // A size where a value is expected: its value, as the number type the context
  // needs (natType when nothing decides).
  Expr size_value(const Expr& e, const Nat& value) {
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

  Expr infer_app(const Expr& e) {
    // min(a, b) and max(a, b) of sizes used as a value, like a size name.
    if (Spine sp = spine(e); sp.head->kind == ExprKind::Ident &&
                             (sp.head->name == "min" || sp.head->name == "max") &&
                             !find_value(sp.head->name))
      return size_value(e, expr_to_nat(e, "'" + sp.head->name + "'"));
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
    std::string who = head.empty() ? "this function" : "'" + head + "'";
    if (tf->kind == TypeKind::DepFun) {
      TypeArg arg = expr_to_arg(e->arg, tf->binder_kind, who);
      if (auto n = std::get_if<Nat>(&arg))
        require_size(*n, 0, "in the size argument of " + who, e->arg->span);
      return dep_apply(e, f, tf, arg);
    }
    Expr a = pre_arg ? pre_arg : infer(e->arg);
    if (tf->kind == TypeKind::Fun && f->kind == ExprKind::Primitive && f->prim &&
        f->prim->is(PrimId::Idx)) {
      Type want = zonk(tf->a);
      if (want->kind == TypeKind::Index && zonk(a->type)->kind == TypeKind::NatData)
        a = index_from_nat(a, want->size, e->arg->span);
    }
    if (tf->kind == TypeKind::Fun) {
      unify(tf->a, a->type,
            Ctx{e->arg->span, tf->a, a->type,
                head.empty() ? "in this argument" : "in the argument of " + head});
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

  // ---------------------------------------------------------------- index arithmetic
  // x[v] with v a natType (a with-loop index name, or arithmetic on one): v becomes
  // natAsIndex(n)(v) for the n of x, and check_index_arithmetic proves it in bounds.
  struct IndexCheck {
    Expr value;
    Nat size;
    Span span;
  };
  std::vector<IndexCheck> index_checks_;
  // Lambda binders in scope with the argument of the redex they belong to (or null),
  // and the identifiers typed under them: index arithmetic sees through redexes.
  Expr redex_arg_;
  std::vector<std::pair<std::string, Expr>> known_values_;
  std::unordered_map<const ExprNode*, Expr> ident_values_;

  Expr index_from_nat(const Expr& v, const Nat& size, const Span& span) {
    Expr p = infer(prim_expr(PrimId::NatAsIndex, span));
    Expr d = dep_apply(dep_app(p, TypeArg(size), span), p, p->type, TypeArg(size));
    index_checks_.push_back({v, size, span});
    return typed(app(d, v, span), index_type(size), d, v);
  }

  // The value of index arithmetic as a term: numbers, sizes, indexAsNat of an index
  // variable (ranging over its idx[n]) and + - * of those.
  std::optional<Nat> symbolic_nat(const Expr& e, std::map<std::string, Nat>& vars) {
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

  void check_index_arithmetic() {
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
      if (!arith::provably_nonneg(*v))
        user_error("the index '" + text + "' may be negative" + show_range(), c.span);
      if (!arith::provably_lt(*v, n))
        user_error("the index '" + text + "' may be out of bounds of idx[" + n.to_string() + "]" +
                       show_range(),
                   c.span);
    }
  }

  // ---------------------------------------------------------------- finishing
  void default_nat_values() {
    for (const IntLit& l : nat_values_) {
      Type t = zonk(data_var(l.meta));
      if (t->kind == TypeKind::Var && is_meta_name(t->name))
        bind_data(t->name, nat_data(), Ctx{l.span, nullptr, nullptr, ""});
      t = zonk(data_var(l.meta));
      bool number = t->kind == TypeKind::Scalar && t->scalar != ScalarKind::Bool;
      if (!number && t->kind != TypeKind::NatData)
        user_error("a size used as a value is a number (natAsScalar), but " + show(t) +
                       " is expected here",
                   l.span);
      // natType values are natural numbers.
      if (t->kind == TypeKind::NatData) require_size(zonk(l.nat), 0, "this natType value", l.span);
    }
  }

  void default_float_literals() {
    for (const IntLit& l : float_lits_) {
      Type t = zonk(data_var(l.meta));
      if (t->kind == TypeKind::Var && is_meta_name(t->name))
        bind_data(t->name, scalar(ScalarKind::F64), Ctx{l.span, nullptr, nullptr, ""});
      t = zonk(data_var(l.meta));
      if (t->kind != TypeKind::Scalar || !is_float(t->scalar))
        user_error("inf and nan are floating-point literals (f32 or f64), but " + show(t) +
                       " is expected here",
                   l.span);
    }
  }

  void default_int_literals() {
    for (const IntLit& l : int_lits_) {
      Type t = zonk(data_var(l.meta));
      if (t->kind == TypeKind::Var && is_meta_name(t->name))
        bind_data(t->name, scalar(ScalarKind::I32), Ctx{l.span, nullptr, nullptr, ""});
      t = zonk(data_var(l.meta));
      if (t->kind == TypeKind::Index) require_index_in_range(l.value, t->size, l.span);
      if (t->kind == TypeKind::NatData && l.value < 0)
        user_error("a natType value is a natural number, not " + std::to_string(l.value), l.span);
    }
  }

  // An index literal `value` of type idx[size] must be below `size`.
  void require_index_in_range(int64_t value, const Nat& size, const Span& span) {
    require_below(
        value, size, "index literal " + std::to_string(value),
        [](const std::string& n) { return "idx[" + n + "]"; }, span);
  }

  // `what` (a constant `value`) must be below `size`, the bound of `range(size)`. A
  // constant size is decided now; a symbolic one becomes the side condition
  // size - value - 1 >= 0, like the length a `take` needs: --size values that violate
  // it are refused before anything runs, and generic code checks it on entry.
  void require_below(int64_t value, const Nat& size0, const std::string& what,
                     const std::function<std::string(const std::string&)>& range,
                     const Span& span) {
    Nat size = zonk(size0);
    if (value < 0) user_error(what + " is negative", span);
    if (auto n = size.as_const()) {
      if (value >= *n) user_error(what + " is out of range for " + range(std::to_string(*n)), span);
      return;
    }
    Nat need = size - Nat(value + 1);
    if (arith::provably_le(Nat(0), need)) return;
    if (arith::provably_lt(need, Nat(0)))
      user_error(what + " is out of range for " + range(size.to_string()) + " for every size",
                 span);
    nonneg_.push_back(
        {need, what + " (needs " + std::to_string(value) + " < " + size.to_string() + ")", span});
  }

  // lane(i) applied to a vec[t, n]: i is a constant below n.
  void check_lane(const Expr& e, const Nat& i0, const Type& fn_type) {
    Nat i = zonk(i0);
    auto v = i.as_const();
    if (!v) user_error("lane needs a constant lane index, not " + i.to_string(), e->span);
    if (fn_type->kind != TypeKind::Fun || fn_type->a->kind != TypeKind::Vector) return;
    require_below(
        *v, fn_type->a->size, "lane " + std::to_string(*v),
        [](const std::string& n) { return "a vector of " + n + " lanes"; }, e->span);
  }

  bool has_meta(const Type& t) {
    for (auto& [name, v] : free_nat_vars(t))
      if (is_meta_name(name)) return true;
    std::function<bool(const Type&)> data = [&](const Type& x) -> bool {
      switch (x->kind) {
        case TypeKind::Var:
          return is_meta_name(x->name);
        case TypeKind::Array:
        case TypeKind::Vector:
          return data(x->a);
        case TypeKind::Pair:
        case TypeKind::Fun:
          return data(x->a) || data(x->b);
        case TypeKind::DepFun:
          return data(x->b);
        default:
          return false;
      }
    };
    return data(t);
  }

  // Not on ExprMutator: every node is copied (its type zonked) even where its
  // children do not change, and a primitive's dependent applications are retyped
  // together with their spine.
  Expr finalize(const Expr& e) {
    auto n = std::make_shared<ExprNode>(*e);
    n->type = zonk(e->type);
    if (e->annot) n->annot = zonk(e->annot);
    switch (e->kind) {
      case ExprKind::Lambda:
      case ExprKind::DepLambda:
        n->fn = finalize(e->fn);
        break;
      case ExprKind::App:
        n->fn = finalize(e->fn);
        n->arg = finalize(e->arg);
        break;
      case ExprKind::DepApp: {
        n->fn = finalize(e->fn);
        n->type_arg = zonk(e->type_arg);
        // Primitives carry their fully instantiated type through their dependent
        // applications.
        Spine sp = spine(e);
        if (e->fn->kind == ExprKind::Primitive && e->fn->prim && e->fn->prim->is(PrimId::Lane))
          check_lane(e, std::get<Nat>(n->type_arg), n->type);
        if (sp.head->kind == ExprKind::Primitive && n->type->kind != TypeKind::DepFun) {
          std::function<Expr(const Expr&)> retype = [&](const Expr& x) -> Expr {
            auto c = std::make_shared<ExprNode>(*x);
            c->type = n->type;
            if (x->kind == ExprKind::DepApp) c->fn = retype(x->fn);
            return c;
          };
          n->fn = retype(n->fn);
        }
        break;
      }
      case ExprKind::Literal:
        if (e->lit.kind == LitKind::Int) {
          if (n->type->kind == TypeKind::Scalar) {
            n->lit.scalar = n->type->scalar;
            check_int_literal_fits(e->lit.i, n->type->scalar, e->span);
          }
          if (n->type->kind == TypeKind::Index) n->lit.nat = Nat(e->lit.i);
        }
        if (e->lit.float_from_context && n->type->kind == TypeKind::Scalar)
          n->lit.scalar = n->type->scalar;
        if (e->lit.kind == LitKind::NatVal) n->lit.nat = zonk(e->lit.nat);
        if (e->lit.mask_from_context && n->type->kind == TypeKind::Vector) {
          // all lanes of a mask: vectorFromScalar(b)
          Type bool_t = scalar(ScalarKind::Bool);
          auto lit = std::make_shared<ExprNode>(*n);
          lit->type = bool_t;
          lit->lit.mask_from_context = false;
          auto bcast = std::make_shared<ExprNode>(*prim_expr(PrimId::VectorFromScalar, e->span));
          bcast->type = fun(bool_t, n->type);
          auto out = std::make_shared<ExprNode>(*app(bcast, lit, e->span));
          out->type = n->type;
          return out;
        }
        if (e->lit.kind == LitKind::NatVal && n->type->kind == TypeKind::Scalar) {
          n->lit.scalar = n->type->scalar;
          n->lit.scalar_value = true;
        }
        break;
      default:
        break;
    }
    if (has_meta(n->type)) {
      std::string what = e->kind == ExprKind::Primitive ? "'" + e->name + "'" : "this expression";
      user_error("cannot infer the type of " + what + " (found " + show(n->type) +
                     "); add a type annotation",
                 e->span);
    }
    return n;
  }

  void check_conditions(Checked& c) {
    for (const PendingCondition& p : conditions_) {
      arith::Divisibility d{zonk(p.d.divisor), zonk(p.d.dividend)};
      if (auto k = d.divisor.as_const()) {
        if (auto v = d.dividend.as_const()) {
          if (*k != 0 && *v % *k != 0)
            user_error(p.prim + ": the size " + std::to_string(*v) + " is not a multiple of " +
                           std::to_string(*k),
                       p.span);
          continue;
        }
      }
      if (arith::provably_divides(d.divisor, d.dividend)) continue;
      SideCondition sc;
      sc.divides = d;
      sc.primitive = p.prim;
      sc.span = p.span;
      bool seen = false;
      for (const SideCondition& o : c.conditions) seen = seen || o.same(sc);
      if (!seen) c.conditions.push_back(sc);
    }
    // Sizes that must not be negative: constants are decided now; symbolic ones
    // remain as conditions unless provable or implied by a stronger one (n - 3 >= 0
    // gives n - 2 >= 0).
    std::vector<std::pair<Nat, const PendingNonNegative*>> open;
    for (const PendingNonNegative& p : nonneg_) {
      Nat v = zonk(p.value);
      if (auto k = v.as_const()) {
        if (*k < 0)
          user_error(p.prim + ": a size would be " + std::to_string(*k) +
                         " (sizes cannot be negative: the array is too short)",
                     p.span);
        continue;
      }
      if (arith::provably_le(Nat(0), v)) continue;
      if (arith::provably_lt(v, Nat(0)))
        user_error(p.prim + ": a size would be " + v.to_string() +
                       ", which is negative for every size (the array is too short)",
                   p.span);
      bool has_meta_var = false;
      for (const auto& [name, range] : arith::free_vars(v))
        has_meta_var = has_meta_var || is_meta_name(name);
      if (!has_meta_var) open.emplace_back(v, &p);
    }
    for (size_t i = 0; i < open.size(); ++i) {
      const Nat& v = open[i].first;
      bool drop = false;
      for (size_t j = 0; j < open.size() && !drop; ++j) {
        const Nat& w = open[j].first;
        if (i == j) continue;
        bool le = arith::provably_le(w, v), ge = arith::provably_le(v, w);
        drop = (w == v || (le && ge)) ? j < i : le;
      }
      if (drop) continue;
      SideCondition sc;
      sc.kind = SideCondition::Kind::NonNegative;
      sc.value = v;
      sc.primitive = open[i].second->prim;
      sc.span = open[i].second->span;
      c.conditions.push_back(sc);
    }
  }
};

}  // namespace

Checked infer_in_context(const Expr& e, const std::vector<std::pair<std::string, Type>>& vars,
                         const Type& expected) {
  Inferer inf(nullptr);
  try {
    return inf.run(e, &vars, expected);
  } catch (const arith::ArithError& err) {
    user_error(std::string("size arithmetic: ") + err.what(), e->span);
  }
}

Checked infer_entry(const Expr& resolved, const SizeMap* sizes, bool closed) {
  Inferer inf(sizes);
  inf.closed = closed;
  try {
    return inf.run(resolved);
  } catch (const arith::ArithError& e) {
    user_error(std::string("size arithmetic: ") + e.what(), resolved->span);
  }
}

}  // namespace risec::rise
