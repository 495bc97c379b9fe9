// Substitution (rebuilding through the smart constructors, so results stay
// canonical) and evaluation under a concrete assignment of the variables.
#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

Nat substitute_fn(const Nat& t, const std::function<std::optional<Nat>(const Nat&)>& f);

static Cond substitute_cond_fn(const Cond& c,
                               const std::function<std::optional<Nat>(const Nat&)>& f) {
  const CondNode& n = c.node();
  switch (n.kind) {
    case CondKind::True:
    case CondKind::False:
      return c;
    case CondKind::Lt:
      return lt(substitute_fn(n.a, f), substitute_fn(n.b, f));
    case CondKind::Le:
      return le(substitute_fn(n.a, f), substitute_fn(n.b, f));
    case CondKind::Eq:
      return eq(substitute_fn(n.a, f), substitute_fn(n.b, f));
    case CondKind::And: {
      Cond r = Cond::truth(true);
      for (const Cond& a : n.args) r = r && substitute_cond_fn(a, f);
      return r;
    }
    case CondKind::Or: {
      Cond r = Cond::truth(false);
      for (const Cond& a : n.args) r = r || substitute_cond_fn(a, f);
      return r;
    }
    case CondKind::Not:
      return !substitute_cond_fn(n.args[0], f);
  }
  return c;
}

// A term whose operands the substitution leaves as they are is returned itself, not
// rebuilt: inference substitutes into every size of every type it zonks, and most
// have nothing to replace.
Nat substitute_fn(const Nat& t, const std::function<std::optional<Nat>(const Nat&)>& f) {
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
      return t;
    case Kind::Var: {
      if (auto r = f(t)) return *r;
      if (!n.lo && !n.hi) return t;
      // Keep the variable, with its range rewritten too.
      std::optional<Nat> lo, hi;
      if (n.lo) lo = substitute_fn(*n.lo, f);
      if (n.hi) hi = substitute_fn(*n.hi, f);
      if (lo == n.lo && hi == n.hi) return t;
      return Nat::var(n.name, lo, hi);
    }
    case Kind::Sum: {
      std::vector<Nat> monos;
      monos.reserve(n.terms.size());
      bool same = true;
      for (const auto& term : n.terms) {
        monos.push_back(substitute_fn(term.second, f));
        same = same && monos.back().ptr() == term.second.ptr();
      }
      if (same) return t;
      Nat r = make_const(n.value);
      for (size_t i = 0; i < monos.size(); ++i) r = r + scale(n.terms[i].first, monos[i]);
      return r;
    }
    case Kind::Prod: {
      std::vector<Nat> fs;
      fs.reserve(n.args.size());
      bool same = true;
      for (const Nat& a : n.args) {
        fs.push_back(substitute_fn(a, f));
        same = same && fs.back().ptr() == a.ptr();
      }
      if (same) return t;
      Nat r(1);
      for (const Nat& a : fs) r = r * a;
      return r;
    }
    case Kind::Select: {
      Cond c = substitute_cond_fn(Cond(n.cond), f);
      Nat a = substitute_fn(n.args[0], f), b = substitute_fn(n.args[1], f);
      if (c.ptr() == n.cond && a.ptr() == n.args[0].ptr() && b.ptr() == n.args[1].ptr()) return t;
      return select(c, a, b);
    }
    default:
      break;
  }
  // The binary atoms.
  Nat a = substitute_fn(n.args[0], f), b = substitute_fn(n.args[1], f);
  if (a.ptr() == n.args[0].ptr() && b.ptr() == n.args[1].ptr()) return t;
  switch (n.kind) {
    case Kind::Div:
      return floordiv(a, b);
    case Kind::Mod:
      return mod(a, b);
    case Kind::ExactDiv:
      return exact_div(a, b);
    case Kind::Pow:
      return pow(a, b);
    case Kind::Min:
      return min(a, b);
    case Kind::Max:
      return max(a, b);
    default:
      return t;
  }
}

Nat substitute(const Nat& t, const Substitution& s) {
  if (s.empty()) return t;
  return substitute_fn(t, [&](const Nat& v) -> std::optional<Nat> {
    auto it = s.find(v.var_name());
    if (it == s.end()) return std::nullopt;
    return it->second;
  });
}

Cond substitute(const Cond& c, const Substitution& s) {
  return substitute_cond_fn(c, [&](const Nat& v) -> std::optional<Nat> {
    auto it = s.find(v.var_name());
    if (it == s.end()) return std::nullopt;
    return it->second;
  });
}

static Rational eval_r(const Nat& t, const Assignment& env);

static int64_t eval_int(const Nat& t, const Assignment& env) {
  Rational r = eval_r(t, env);
  if (!r.is_int())
    throw ArithError("size expression " + print(t) + " is not an integer for these sizes");
  return r.num();
}

static Rational eval_r(const Nat& t, const Assignment& env) {
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
      return n.value;
    case Kind::Var: {
      auto it = env.find(n.name);
      if (it == env.end()) throw ArithError("no value for size variable '" + n.name + "'");
      return Rational(it->second);
    }
    case Kind::Sum: {
      Rational r = n.value;
      for (const auto& [c, m] : n.terms) r = r + c * eval_r(m, env);
      return r;
    }
    case Kind::Prod: {
      Rational r(1);
      for (const Nat& a : n.args) r = r * eval_r(a, env);
      return r;
    }
    case Kind::Div:
      return Rational(floor_div(eval_int(n.args[0], env), eval_int(n.args[1], env)));
    case Kind::Mod:
      return Rational(floor_mod(eval_int(n.args[0], env), eval_int(n.args[1], env)));
    case Kind::ExactDiv: {
      int64_t a = eval_int(n.args[0], env), b = eval_int(n.args[1], env);
      if (b == 0) throw ArithError("division by zero in " + print(t));
      if (floor_mod(a, b) != 0)
        throw ArithError(std::to_string(b) + " does not divide " + std::to_string(a) + " in " +
                         print(t));
      return Rational(floor_div(a, b));  // checked: INT64_MIN / -1 overflows
    }
    case Kind::Pow: {
      int64_t b = eval_int(n.args[0], env), e = eval_int(n.args[1], env);
      if (e < 0) throw ArithError("negative exponent in " + print(t));
      return Rational(checked_pow(b, e));
    }
    case Kind::Min:
      return std::min(eval_int(n.args[0], env), eval_int(n.args[1], env));
    case Kind::Max:
      return std::max(eval_int(n.args[0], env), eval_int(n.args[1], env));
    case Kind::Select:
      return evaluate(Cond(n.cond), env) ? eval_r(n.args[0], env) : eval_r(n.args[1], env);
  }
  return Rational(0);
}

int64_t evaluate(const Nat& t, const Assignment& env) {
  return eval_int(t, env);
}

bool evaluate(const Cond& c, const Assignment& env) {
  const CondNode& n = c.node();
  switch (n.kind) {
    case CondKind::True:
      return true;
    case CondKind::False:
      return false;
    case CondKind::Lt:
      return eval_r(n.a, env) < eval_r(n.b, env);
    case CondKind::Le:
      return eval_r(n.a, env) <= eval_r(n.b, env);
    case CondKind::Eq:
      return eval_r(n.a, env) == eval_r(n.b, env);
    case CondKind::And:
      for (const Cond& a : n.args)
        if (!evaluate(a, env)) return false;
      return true;
    case CondKind::Or:
      for (const Cond& a : n.args)
        if (evaluate(a, env)) return true;
      return false;
    case CondKind::Not:
      return !evaluate(n.args[0], env);
  }
  return false;
}

}  // namespace risec::arith
