// Helpers shared by the arith tests: a "shadow" expression tree that is evaluated
// directly with plain int64 floor semantics (the oracle for the canonical Nat built
// from the same tree), a seeded random generator of such trees over a fixed set of
// ranged variables, and a small evaluator for the text the printer produces (C and
// RISE syntax), so that printing is checked by reading it back.
#pragma once

#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "arith/nat.h"

namespace risec::arith::testing {

// ---- deterministic random numbers (independent of the standard library's
// distributions, so that a seed means the same terms everywhere) ----
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return range(0, 99) < percent; }

 private:
  uint64_t s_;
};

// The shadow evaluation overflowed or divided by zero: the sample is skipped.
struct ShadowUndefined {};

// ---- shadow expression trees ----
enum class Op { Const, Var, Add, Sub, Mul, Neg, Div, Mod, ExactDiv, Pow, Min, Max, Select };
enum class COp { Lt, Le, Eq, And, Or, Not };

struct Expr;
struct CExpr;
using E = std::shared_ptr<const Expr>;
using C = std::shared_ptr<const CExpr>;

struct Expr {
  Op op;
  int64_t value = 0;  // Const
  std::string name;   // Var
  E a, b;
  C c;  // Select
};

struct CExpr {
  COp op;
  E a, b;  // Lt, Le, Eq
  C x, y;  // And, Or (x, y); Not (x)
};

inline E mk(Op op, E a = nullptr, E b = nullptr) {
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}
inline E cst(int64_t v) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Const;
  e->value = v;
  return e;
}
inline E var(const std::string& n) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Var;
  e->name = n;
  return e;
}
inline E sel(C c, E a, E b) {
  auto e = std::make_shared<Expr>();
  e->op = Op::Select;
  e->c = std::move(c);
  e->a = std::move(a);
  e->b = std::move(b);
  return e;
}
inline C cmk(COp op, E a, E b) {
  auto c = std::make_shared<CExpr>();
  c->op = op;
  c->a = std::move(a);
  c->b = std::move(b);
  return c;
}
inline C clog(COp op, C x, C y = nullptr) {
  auto c = std::make_shared<CExpr>();
  c->op = op;
  c->x = std::move(x);
  c->y = std::move(y);
  return c;
}

inline int64_t s_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw ShadowUndefined{};
  return r;
}
inline int64_t s_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw ShadowUndefined{};
  return r;
}
inline int64_t s_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw ShadowUndefined{};
  return r;
}
inline int64_t s_fdiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) throw ShadowUndefined{};
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t s_fmod(int64_t a, int64_t b) {
  if (b == 0) throw ShadowUndefined{};
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t s_pow(int64_t a, int64_t e) {
  if (e < 0) throw ShadowUndefined{};
  int64_t r = 1;
  for (int64_t i = 0; i < e; ++i) r = s_mul(r, a);
  return r;
}

using Env = std::function<int64_t(const std::string&)>;

inline bool shadow_cond(const C& c, const Env& env);

inline int64_t shadow(const E& e, const Env& env) {
  switch (e->op) {
    case Op::Const:
      return e->value;
    case Op::Var:
      return env(e->name);
    case Op::Add:
      return s_add(shadow(e->a, env), shadow(e->b, env));
    case Op::Sub:
      return s_sub(shadow(e->a, env), shadow(e->b, env));
    case Op::Mul:
      return s_mul(shadow(e->a, env), shadow(e->b, env));
    case Op::Neg:
      return s_sub(0, shadow(e->a, env));
    case Op::Div:
      return s_fdiv(shadow(e->a, env), shadow(e->b, env));
    case Op::Mod:
      return s_fmod(shadow(e->a, env), shadow(e->b, env));
    case Op::ExactDiv: {
      int64_t a = shadow(e->a, env), b = shadow(e->b, env);
      if (b == 0 || s_fmod(a, b) != 0) throw std::logic_error("generator made an inexact division");
      return a / b;
    }
    case Op::Pow:
      return s_pow(shadow(e->a, env), shadow(e->b, env));
    case Op::Min:
      return std::min(shadow(e->a, env), shadow(e->b, env));
    case Op::Max:
      return std::max(shadow(e->a, env), shadow(e->b, env));
    case Op::Select:
      return shadow_cond(e->c, env) ? shadow(e->a, env) : shadow(e->b, env);
  }
  return 0;
}

inline bool shadow_cond(const C& c, const Env& env) {
  switch (c->op) {
    case COp::Lt:
      return shadow(c->a, env) < shadow(c->b, env);
    case COp::Le:
      return shadow(c->a, env) <= shadow(c->b, env);
    case COp::Eq:
      return shadow(c->a, env) == shadow(c->b, env);
    case COp::And:
      return shadow_cond(c->x, env) && shadow_cond(c->y, env);
    case COp::Or:
      return shadow_cond(c->x, env) || shadow_cond(c->y, env);
    case COp::Not:
      return !shadow_cond(c->x, env);
  }
  return false;
}

// ---- building the Nat of a shadow tree ----
// With `order` set, chains of + and * are flattened, shuffled and re-associated and
// the operands of commutative operators are swapped at random: the result must be the
// same canonical term.
struct Builder {
  std::function<Nat(const std::string&)> vars;
  Rng* order = nullptr;

  void flatten(const E& e, Op op, bool negate, std::vector<std::pair<bool, E>>& out) {
    if (e->op == op) {
      flatten(e->a, op, negate, out);
      flatten(e->b, op, negate, out);
    } else if (op == Op::Add && e->op == Op::Sub) {
      flatten(e->a, op, negate, out);
      flatten(e->b, op, !negate, out);
    } else {
      out.emplace_back(negate, e);
    }
  }

  Nat chain(const E& e, Op op) {
    std::vector<std::pair<bool, E>> parts;
    flatten(e, op, false, parts);
    for (size_t i = parts.size(); i > 1; --i)
      std::swap(parts[i - 1], parts[static_cast<size_t>(order->range(0, int64_t(i) - 1))]);
    Nat acc;
    bool first = true;
    for (auto& [neg, p] : parts) {
      Nat x = build(p);
      if (first) {
        acc = neg ? -x : x;
        first = false;
      } else if (op == Op::Add) {
        acc = neg ? acc - x : acc + x;
      } else {
        acc = order->chance(50) ? acc * x : x * acc;
      }
    }
    return acc;
  }

  Cond build_cond(const C& c) {
    switch (c->op) {
      case COp::Lt:
        return lt(build(c->a), build(c->b));
      case COp::Le:
        return le(build(c->a), build(c->b));
      case COp::Eq:
        return order && order->chance(50) ? eq(build(c->b), build(c->a))
                                          : eq(build(c->a), build(c->b));
      case COp::And:
        return order && order->chance(50) ? build_cond(c->y) && build_cond(c->x)
                                          : build_cond(c->x) && build_cond(c->y);
      case COp::Or:
        return order && order->chance(50) ? build_cond(c->y) || build_cond(c->x)
                                          : build_cond(c->x) || build_cond(c->y);
      case COp::Not:
        return !build_cond(c->x);
    }
    return Cond();
  }

  Nat build(const E& e) {
    switch (e->op) {
      case Op::Const:
        return Nat(e->value);
      case Op::Var:
        return vars(e->name);
      case Op::Add:
      case Op::Sub:
        if (order) return chain(e, Op::Add);
        return e->op == Op::Add ? build(e->a) + build(e->b) : build(e->a) - build(e->b);
      case Op::Mul:
        if (order) return chain(e, Op::Mul);
        return build(e->a) * build(e->b);
      case Op::Neg:
        return -build(e->a);
      case Op::Div:
        return floordiv(build(e->a), build(e->b));
      case Op::Mod:
        return mod(build(e->a), build(e->b));
      case Op::ExactDiv:
        return exact_div(build(e->a), build(e->b));
      case Op::Pow:
        return pow(build(e->a), build(e->b));
      case Op::Min:
        return order && order->chance(50) ? min(build(e->b), build(e->a))
                                          : min(build(e->a), build(e->b));
      case Op::Max:
        return order && order->chance(50) ? max(build(e->b), build(e->a))
                                          : max(build(e->a), build(e->b));
      case Op::Select:
        return select(build_cond(e->c), build(e->a), build(e->b));
    }
    return Nat();
  }
};

// ---- the random world: size variables n, m in [1, 50], indices i in [0, n),
// j in [0, m), k in [0, 8), w in [0, n*m), a triangular p in [i, n), q in [-4, 4),
// and an unbounded u (sampled in [-50, 50]) ----
struct World {
  Nat n = Nat::size_var("n");
  Nat m = Nat::size_var("m");
  Nat i = Nat::var("i", Nat(0), n);
  Nat j = Nat::var("j", Nat(0), m);
  Nat k = Nat::var("k", Nat(0), Nat(8));
  Nat w = Nat::var("w", Nat(0), n* m);
  Nat p = Nat::var("p", i, n);
  Nat q = Nat::var("q", Nat(-4), Nat(4));
  Nat u = Nat::var("u");

  Nat lookup(const std::string& name) const {
    if (name == "n") return n;
    if (name == "m") return m;
    if (name == "i") return i;
    if (name == "j") return j;
    if (name == "k") return k;
    if (name == "w") return w;
    if (name == "p") return p;
    if (name == "q") return q;
    return u;
  }

  // A random assignment within the ranges.
  Assignment assignment(Rng& r) const {
    Assignment a;
    a["n"] = r.chance(20) ? r.range(1, 3) : r.range(1, 50);
    a["m"] = r.chance(20) ? r.range(1, 3) : r.range(1, 50);
    a["i"] = r.range(0, a["n"] - 1);
    a["j"] = r.range(0, a["m"] - 1);
    a["k"] = r.range(0, 7);
    a["w"] = r.range(0, a["n"] * a["m"] - 1);
    a["p"] = r.range(a["i"], a["n"] - 1);
    a["q"] = r.range(-4, 3);
    a["u"] = r.range(-50, 50);
    return a;
  }
};

// Random trees. `depth` bounds the nesting; leaves are variables and small
// constants; divisors are positive (constants, size variables, or size products).
class Generator {
 public:
  static constexpr int64_t kExtremes[] = {INT64_MAX,        INT64_MIN,        INT64_MAX - 1,
                                          INT64_MIN + 1,    int64_t{1} << 62, -(int64_t{1} << 62),
                                          int64_t{1} << 32, 3037000499};

  // `huge`: constants are sometimes near the ends of the 64-bit range.
  explicit Generator(Rng& r, bool huge = false) : r_(r), huge_(huge) {}

  E leaf() {
    static const char* const names[] = {"n", "m", "i", "j", "k", "w", "p", "q", "u"};
    if (huge_ && r_.chance(15)) return cst(kExtremes[r_.range(0, 7)]);
    if (r_.chance(30)) return cst(r_.range(-3, 9));
    return var(names[r_.range(0, 8)]);
  }

  E divisor() {
    if (huge_ && r_.chance(10)) return cst(kExtremes[r_.range(0, 7)]);
    switch (r_.range(0, 8)) {
      case 8:
        return cst(-r_.range(1, 4));
      case 0:
        return var("n");
      case 1:
        return var("m");
      case 2:
        return mk(Op::Mul, var("n"), var("m"));
      case 3:
        return mk(Op::Add, var("n"), cst(r_.range(0, 2)));
      default:
        return cst(r_.range(1, 8));
    }
  }

  C cond(int depth) {
    int pick = static_cast<int>(r_.range(0, depth > 0 ? 5 : 2));
    switch (pick) {
      case 0:
        return cmk(COp::Lt, expr(depth - 1), expr(depth - 1));
      case 1:
        return cmk(COp::Le, expr(depth - 1), expr(depth - 1));
      case 2:
        return cmk(COp::Eq, expr(depth - 1), expr(depth - 1));
      case 3:
        return clog(COp::And, cond(depth - 1), cond(depth - 1));
      case 4:
        return clog(COp::Or, cond(depth - 1), cond(depth - 1));
      default:
        return clog(COp::Not, cond(depth - 1));
    }
  }

  E expr(int depth) {
    if (depth <= 0 || r_.chance(15)) return leaf();
    switch (r_.range(0, 15)) {
      case 0:
      case 1:
      case 2:
        return mk(Op::Add, expr(depth - 1), expr(depth - 1));
      case 3:
        return mk(Op::Sub, expr(depth - 1), expr(depth - 1));
      case 4:
      case 5:
        return mk(Op::Mul, expr(depth - 1), r_.chance(50) ? leaf() : expr(depth - 2));
      case 6:
        return mk(Op::Neg, expr(depth - 1));
      case 7:
      case 8:
        return mk(Op::Div, expr(depth - 1), divisor());
      case 9:
      case 10:
        return mk(Op::Mod, expr(depth - 1), divisor());
      case 11:
        return mk(Op::Min, expr(depth - 1), expr(depth - 1));
      case 12:
        return mk(Op::Max, expr(depth - 1), expr(depth - 1));
      case 13:
        return sel(cond(depth - 2), expr(depth - 1), expr(depth - 1));
      case 14: {
        E d = divisor();
        return mk(Op::ExactDiv, mk(Op::Mul, expr(depth - 1), d), d);
      }
      default:
        return mk(Op::Pow, expr(depth - 2), cst(r_.range(0, 3)));
    }
  }

  // The index patterns of views: q*d + r with r (often) in [0, d), then / or % d.
  E index_pattern(int depth) {
    E d = divisor();
    E q = expr(depth - 1);
    E rr = r_.chance(50) ? mk(Op::Mod, expr(depth - 1), d) : expr(depth - 1);
    E sum = r_.chance(50) ? mk(Op::Add, mk(Op::Mul, q, d), rr) : mk(Op::Add, rr, mk(Op::Mul, d, q));
    switch (r_.range(0, 3)) {
      case 0:
        return mk(Op::Div, sum, d);
      case 1:
        return mk(Op::Mod, sum, d);
      case 2: {
        E x = expr(depth - 1);
        return mk(Op::Add, mk(Op::Mul, mk(Op::Div, x, d), d), mk(Op::Mod, x, d));
      }
      default:
        return mk(Op::Div, mk(Op::Div, sum, d), divisor());
    }
  }

 private:
  Rng& r_;
  bool huge_;
};

// ---- reading printed terms back ----
// Evaluates the text produced by print(): C syntax (C precedence, `/` and `%`
// truncate toward zero as in C, risec_* helpers) or RISE syntax (`/` and `%` floor,
// `^` power, min/max).
class TextEval {
 public:
  TextEval(std::string text, Syntax syntax, const Assignment& env)
      : s_(std::move(text)), syntax_(syntax), env_(env) {}

  int64_t run() {
    int64_t v = ternary();
    skip();
    if (p_ != s_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error("cannot read back '" + s_ + "': " + why + " at " + std::to_string(p_));
  }
  void skip() {
    while (p_ < s_.size() && s_[p_] == ' ') ++p_;
  }
  bool eat(const std::string& tok) {
    skip();
    if (s_.compare(p_, tok.size(), tok) != 0) return false;
    // Do not split "<=" into "<" and "=", "&&" into "&".
    if ((tok == "<" || tok == "!") && p_ + 1 < s_.size() && s_[p_ + 1] == '=') return false;
    p_ += tok.size();
    return true;
  }
  void expect(const std::string& tok) {
    if (!eat(tok)) fail("expected '" + tok + "'");
  }

  int64_t ternary() {
    int64_t c = logic_or();
    if (eat("?")) {
      int64_t a = ternary();
      expect(":");
      int64_t b = ternary();
      return c ? a : b;
    }
    return c;
  }
  int64_t logic_or() {
    int64_t v = logic_and();
    while (eat("||")) {
      int64_t w = logic_and();
      v = (v || w) ? 1 : 0;
    }
    return v;
  }
  int64_t logic_and() {
    int64_t v = equality();
    while (eat("&&")) {
      int64_t w = equality();
      v = (v && w) ? 1 : 0;
    }
    return v;
  }
  int64_t equality() {
    int64_t v = relational();
    while (eat("==")) v = (v == relational()) ? 1 : 0;
    return v;
  }
  int64_t relational() {
    int64_t v = additive();
    for (;;) {
      if (eat("<=")) {
        v = (v <= additive()) ? 1 : 0;
      } else if (eat("<")) {
        v = (v < additive()) ? 1 : 0;
      } else {
        return v;
      }
    }
  }
  int64_t additive() {
    int64_t v = multiplicative();
    for (;;) {
      if (eat("+")) {
        v = s_add(v, multiplicative());
      } else if (eat("-")) {
        v = s_sub(v, multiplicative());
      } else {
        return v;
      }
    }
  }
  int64_t cdiv(int64_t a, int64_t b, bool is_mod) {
    if (b == 0) throw ShadowUndefined{};
    if (syntax_ == Syntax::C) return is_mod ? a % b : a / b;
    return is_mod ? s_fmod(a, b) : s_fdiv(a, b);
  }
  int64_t multiplicative() {
    int64_t v = unary();
    for (;;) {
      if (eat("*")) {
        v = s_mul(v, unary());
      } else if (eat("/")) {
        v = cdiv(v, unary(), false);
      } else if (eat("%")) {
        v = cdiv(v, unary(), true);
      } else {
        return v;
      }
    }
  }
  int64_t unary() {
    if (eat("-")) return s_sub(0, unary());
    if (eat("!")) return unary() ? 0 : 1;
    return power();
  }
  int64_t power() {
    int64_t v = primary();
    if (syntax_ == Syntax::Rise && eat("^")) return s_pow(v, unary());
    return v;
  }
  std::vector<int64_t> call_args() {
    std::vector<int64_t> out;
    expect("(");
    out.push_back(ternary());
    while (eat(",")) out.push_back(ternary());
    expect(")");
    return out;
  }
  int64_t primary() {
    skip();
    if (p_ >= s_.size()) fail("unexpected end");
    if (eat("(")) {
      int64_t v = ternary();
      expect(")");
      return v;
    }
    char c = s_[p_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_])))
        v = s_add(s_mul(v, 10), s_[p_++] - '0');
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = p_;
      while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
        ++p_;
      std::string name = s_.substr(start, p_ - start);
      if (name == "risec_min" || name == "min") {
        auto a = call_args();
        return std::min(a.at(0), a.at(1));
      }
      if (name == "risec_max" || name == "max") {
        auto a = call_args();
        return std::max(a.at(0), a.at(1));
      }
      if (name == "risec_pow") {
        auto a = call_args();
        return s_pow(a.at(0), a.at(1));
      }
      if (name == "risec_floordiv") {
        auto a = call_args();
        return s_fdiv(a.at(0), a.at(1));
      }
      if (name == "risec_floormod") {
        auto a = call_args();
        return s_fmod(a.at(0), a.at(1));
      }
      if (name == "true") return 1;
      if (name == "false") return 0;
      auto it = env_.find(name);
      if (it == env_.end()) fail("unknown name " + name);
      return it->second;
    }
    fail(std::string("unexpected character '") + c + "'");
  }

  std::string s_;
  Syntax syntax_;
  const Assignment& env_;
  size_t p_ = 0;
};

inline int64_t eval_text(const std::string& text, Syntax syntax, const Assignment& env) {
  return TextEval(text, syntax, env).run();
}

// ---- describing shadow trees in failure messages ----
inline std::string describe(const C& c);
inline std::string describe(const E& e) {
  auto bin = [&](const char* op) {
    return "(" + describe(e->a) + " " + op + " " + describe(e->b) + ")";
  };
  switch (e->op) {
    case Op::Const:
      return std::to_string(e->value);
    case Op::Var:
      return e->name;
    case Op::Add:
      return bin("+");
    case Op::Sub:
      return bin("-");
    case Op::Mul:
      return bin("*");
    case Op::Neg:
      return "-" + describe(e->a);
    case Op::Div:
      return bin("//");
    case Op::Mod:
      return bin("%");
    case Op::ExactDiv:
      return bin("/^");
    case Op::Pow:
      return bin("^");
    case Op::Min:
      return "min(" + describe(e->a) + ", " + describe(e->b) + ")";
    case Op::Max:
      return "max(" + describe(e->a) + ", " + describe(e->b) + ")";
    case Op::Select:
      return "(" + describe(e->c) + " ? " + describe(e->a) + " : " + describe(e->b) + ")";
  }
  return "?";
}
inline std::string describe(const C& c) {
  switch (c->op) {
    case COp::Lt:
      return "(" + describe(c->a) + " < " + describe(c->b) + ")";
    case COp::Le:
      return "(" + describe(c->a) + " <= " + describe(c->b) + ")";
    case COp::Eq:
      return "(" + describe(c->a) + " == " + describe(c->b) + ")";
    case COp::And:
      return "(" + describe(c->x) + " && " + describe(c->y) + ")";
    case COp::Or:
      return "(" + describe(c->x) + " || " + describe(c->y) + ")";
    case COp::Not:
      return "!" + describe(c->x);
  }
  return "?";
}

inline std::string describe(const Assignment& a) {
  std::string out;
  for (const char* v : {"n", "m", "i", "j", "k", "w", "p", "q", "u"}) {
    auto it = a.find(v);
    if (it == a.end()) continue;
    if (!out.empty()) out += ", ";
    out += std::string(v) + "=" + std::to_string(it->second);
  }
  return out;
}

}  // namespace risec::arith::testing
