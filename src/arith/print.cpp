// Printing Nats and conditions as C expressions (minimal parentheses, used by code
// generation) and in RISE type syntax (used by the type printer and errors).
#include <sstream>

#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

namespace {

// Precedence levels: a context of level L requires a term of level >= L without
// parentheses.
enum Prec { kSum = 1, kProd = 2, kAtom = 3 };

struct Printer {
  Syntax syntax;

  std::string paren(const std::string& s, bool need) { return need ? "(" + s + ")" : s; }

  // C's `/` and `%` truncate toward zero; they agree with floor division and modulo
  // when the dividend is >= 0 and the divisor > 0 (always the case for the indices
  // of views). Otherwise C code calls the runtime's risec_floordiv/risec_floormod.
  bool c_helper(const Nat& t) {
    if (syntax != Syntax::C) return false;
    if (t.kind() != Kind::Div && t.kind() != Kind::Mod) return false;
    return !(provably_nonneg(t.node().args[0]) && provably_pos(t.node().args[1]));
  }

  bool divlike(const Nat& t) {
    Kind k = t.kind();
    return (k == Kind::Div || k == Kind::Mod || k == Kind::ExactDiv) && !c_helper(t);
  }

  // A monomial (atom or product) at product precedence, each factor guarded.
  // `guarded`: the monomial follows a coefficient or a unary minus.
  std::string mono(const Nat& m, bool guarded) {
    std::vector<Nat> fs = factors(m);
    std::string out;
    for (size_t i = 0; i < fs.size(); ++i) {
      if (i > 0) out += "*";
      // x*(a/b) must not print as x*a/b, which C reads as (x*a)/b; -(a/b) must not
      // print as -a/b, which RISE reads as (-a)/b.
      bool need = divlike(fs[i]) && (i > 0 || guarded || fs.size() > 1);
      // A power in RISE syntax is parenthesised inside a product (`2*(2^k)`), so that
      // the text does not depend on how a reader ranks `^` against `*`.
      need = need ||
             (syntax == Syntax::Rise && fs[i].kind() == Kind::Pow && (guarded || fs.size() > 1));
      out += need ? "(" + raw(fs[i]) + ")" : term(fs[i], kProd);
    }
    return out;
  }

  std::string sum(const Node& n) {
    int64_t l = n.value.den();
    for (const auto& [c, m] : n.terms) l = lcm64(l, c.den());
    std::vector<std::pair<int64_t, const Nat*>> parts;  // (integer coefficient, monomial)
    for (const auto& [c, m] : n.terms) {
      Rational s = c * Rational(l);
      parts.emplace_back(s.num(), &m);
    }
    std::string out;
    bool first = true;
    auto emit = [&](int64_t coef, const Nat* m) {
      bool neg = coef < 0;
      uint64_t mag = neg ? uint64_t(0) - uint64_t(coef) : uint64_t(coef);
      std::string body;
      if (!m) {
        body = std::to_string(mag);
      } else if (mag == 1) {
        body = mono(*m, first && neg);
      } else {
        body = std::to_string(mag) + "*" + mono(*m, true);
      }
      if (first) {
        out += neg ? "-" + body : body;
      } else {
        out += neg ? " - " + body : " + " + body;
      }
      first = false;
    };
    for (auto& [c, m] : parts)
      if (c > 0) emit(c, m);
    for (auto& [c, m] : parts)
      if (c < 0) emit(c, m);
    Rational k = n.value * Rational(l);
    if (!k.is_zero()) emit(k.num(), nullptr);
    if (l == 1) return out;
    // An exact division by the common denominator; a single term needs no parentheses
    // (`n/4`, `3*n/4`, `-n/4`), several do.
    bool single = n.terms.size() == 1 && k.is_zero();
    return (single ? out : "(" + out + ")") + "/" + std::to_string(l);
  }

  int level(const Nat& t) {
    const Node& n = t.node();
    switch (n.kind) {
      case Kind::Const:
        return n.value.sign() < 0 || !n.value.is_int() ? kSum : kAtom;
      case Kind::Var:
        return kAtom;
      case Kind::Sum: {
        int64_t l = n.value.den();
        for (const auto& [c, m] : n.terms) l = lcm64(l, c.den());
        if (l != 1) return kProd;
        if (n.terms.size() == 1 && n.value.is_zero())
          return n.terms[0].first.sign() < 0 ? kSum : kProd;
        return kSum;
      }
      case Kind::Prod:
      case Kind::ExactDiv:
        return kProd;
      case Kind::Div:
      case Kind::Mod:
        return c_helper(t) ? kAtom : kProd;
      case Kind::Pow:
        return syntax == Syntax::C ? kAtom : kProd;
      case Kind::Min:
      case Kind::Max:
        return kAtom;
      case Kind::Select:
        return kAtom;
    }
    return kAtom;
  }

  std::string term(const Nat& t, int ctx) {
    std::string s = raw(t);
    return paren(s, level(t) < ctx);
  }

  std::string raw(const Nat& t) {
    const Node& n = t.node();
    switch (n.kind) {
      case Kind::Const:
        return n.value.to_string();
      case Kind::Var:
        return n.name;
      case Kind::Sum:
        return sum(n);
      case Kind::Prod:
        return mono(t, false);
      case Kind::Div:
      case Kind::Mod:
        if (c_helper(t)) {
          return std::string(n.kind == Kind::Div ? "risec_floordiv(" : "risec_floormod(") +
                 raw(n.args[0]) + ", " + raw(n.args[1]) + ")";
        }
        return term(n.args[0], kProd) + (n.kind == Kind::Div ? "/" : "%") + term(n.args[1], kAtom);
      case Kind::ExactDiv:
        return term(n.args[0], kProd) + "/" + term(n.args[1], kAtom);
      case Kind::Pow:
        if (syntax == Syntax::C) return "risec_pow(" + raw(n.args[0]) + ", " + raw(n.args[1]) + ")";
        return term(n.args[0], kAtom) + "^" + term(n.args[1], kAtom);
      case Kind::Min:
        return std::string(syntax == Syntax::C ? "risec_min(" : "min(") + raw(n.args[0]) + ", " +
               raw(n.args[1]) + ")";
      case Kind::Max:
        return std::string(syntax == Syntax::C ? "risec_max(" : "max(") + raw(n.args[0]) + ", " +
               raw(n.args[1]) + ")";
      case Kind::Select:
        return "(" + cond(Cond(n.cond), 0) + " ? " + raw(n.args[0]) + " : " + raw(n.args[1]) + ")";
    }
    return "?";
  }

  // Condition precedence: 0 any, 1 inside &&/||, 2 inside !.
  std::string cond(const Cond& c, int ctx) {
    const CondNode& n = c.node();
    switch (n.kind) {
      case CondKind::True:
        return syntax == Syntax::C ? "1" : "true";
      case CondKind::False:
        return syntax == Syntax::C ? "0" : "false";
      case CondKind::Lt:
        return paren(raw(n.a) + " < " + raw(n.b), ctx >= 2);
      case CondKind::Le:
        return paren(raw(n.a) + " <= " + raw(n.b), ctx >= 2);
      case CondKind::Eq:
        return paren(raw(n.a) + " == " + raw(n.b), ctx >= 2);
      case CondKind::And:
      case CondKind::Or: {
        std::string out;
        for (const Cond& a : n.args) {
          if (!out.empty()) out += n.kind == CondKind::And ? " && " : " || ";
          out += cond(a, 1);
        }
        return paren(out, ctx >= 1);
      }
      case CondKind::Not:
        return "!" + cond(n.args[0], 2);
    }
    return "?";
  }
};

}  // namespace

std::ostream& operator<<(std::ostream& os, const Nat& n) {
  return os << print(n);
}
std::ostream& operator<<(std::ostream& os, const Cond& c) {
  return os << print(c);
}

std::string print(const Nat& t, Syntax syntax) {
  return Printer{syntax}.raw(t);
}
std::string print(const Cond& c, Syntax syntax) {
  return Printer{syntax}.cond(c, 0);
}

}  // namespace risec::arith
