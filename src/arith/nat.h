// Symbolic arithmetic over sizes and indices ("Nat"). Every later layer uses it:
// the type checker unifies array sizes with it and code generation simplifies every
// index expression with it. Terms are immutable, hashable and kept in a canonical
// form by their smart constructors, so structural equality is semantic equality for
// everything the canonical form can decide (sums of products with rational
// coefficients, folded constants, divisions and moduli simplified with ranges).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "arith/rational.h"

namespace risec::arith {

struct Node;
struct CondNode;

enum class Kind : uint8_t {
  Const,     // an integer constant
  Var,       // a named variable, optionally ranged [lo, hi)
  Sum,       // constant + sum of (rational coefficient * monomial)
  Prod,      // product of two or more atoms (sorted, repetition allowed)
  Div,       // floor division a / b
  Mod,       // floor modulo a % b
  ExactDiv,  // a / b where b divides a (b symbolic; constant divisors become coefficients)
  Pow,       // a ^ b with symbolic exponent (constant exponents are expanded)
  Min,
  Max,
  Select,  // c ? a : b
};

// A Nat term. A cheap value type (one shared pointer).
class Nat {
 public:
  Nat();               // the constant 0
  Nat(int64_t value);  // NOLINT: implicit, so `n + 1` reads naturally
  Nat(int value) : Nat(static_cast<int64_t>(value)) {}
  explicit Nat(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

  // A variable. Identity is the name: two variables with the same name are the
  // same variable (keep ranges consistent). `lo` is an inclusive lower bound,
  // `hi` an exclusive upper bound; both may be symbolic.
  static Nat var(const std::string& name, std::optional<Nat> lo = std::nullopt,
                 std::optional<Nat> hi = std::nullopt);
  // A size variable: an array length, range [1, inf). Sizes are positive, which is
  // what lets `(a*n + b) / n` simplify for a symbolic `n`.
  static Nat size_var(const std::string& name) { return var(name, Nat(1)); }

  Kind kind() const;
  const Node& node() const { return *node_; }
  const std::shared_ptr<const Node>& ptr() const { return node_; }
  size_t hash() const;

  bool is_const() const { return kind() == Kind::Const; }
  std::optional<int64_t> as_const() const;
  bool is_const(int64_t v) const { return as_const() == v; }
  bool is_var() const { return kind() == Kind::Var; }
  const std::string& var_name() const;  // only for Var

  bool operator==(const Nat& o) const;
  bool operator!=(const Nat& o) const { return !(*this == o); }

  std::string to_string() const;  // RISE type syntax

 private:
  std::shared_ptr<const Node> node_;
};

// A boolean condition over Nats.
enum class CondKind : uint8_t { True, False, Lt, Le, Eq, And, Or, Not };

class Cond {
 public:
  Cond();  // true
  explicit Cond(std::shared_ptr<const CondNode> n) : node_(std::move(n)) {}
  static Cond truth(bool b);
  CondKind kind() const;
  const CondNode& node() const { return *node_; }
  const std::shared_ptr<const CondNode>& ptr() const { return node_; }
  std::optional<bool> as_const() const;
  bool operator==(const Cond& o) const;
  bool operator!=(const Cond& o) const { return !(*this == o); }
  size_t hash() const;
  std::string to_string() const;

 private:
  std::shared_ptr<const CondNode> node_;
};

struct Node {
  Kind kind;
  size_t hash = 0;
  Rational value;                               // Const; Sum: the constant part
  std::string name;                             // Var
  std::optional<Nat> lo, hi;                    // Var range [lo, hi)
  std::vector<std::pair<Rational, Nat>> terms;  // Sum: (coefficient, monomial)
  std::vector<Nat> args;                        // Prod factors; Div/Mod/... operands
  std::shared_ptr<const CondNode> cond;         // Select
};

struct CondNode {
  CondKind kind;
  size_t hash = 0;
  Nat a, b;                // Lt/Le/Eq operands
  std::vector<Cond> args;  // And/Or: two or more operands (flattened, sorted); Not: one
};

// ---- smart constructors (canonicalising) ----
Nat operator+(const Nat& a, const Nat& b);
Nat operator-(const Nat& a, const Nat& b);
Nat operator-(const Nat& a);
Nat operator*(const Nat& a, const Nat& b);
Nat scale(const Rational& c, const Nat& a);
Nat floordiv(const Nat& a, const Nat& b);  // floor(a / b); b == 0 is an error
Nat mod(const Nat& a, const Nat& b);       // a - b*floor(a/b)
// Exact division: the caller asserts that b divides a (the type checker records it
// as a side condition). Throws ArithError when both are constants and b does not
// divide a.
Nat exact_div(const Nat& a, const Nat& b);
Nat pow(const Nat& a, const Nat& b);
Nat min(const Nat& a, const Nat& b);
Nat max(const Nat& a, const Nat& b);
Nat select(const Cond& c, const Nat& a, const Nat& b);

Cond lt(const Nat& a, const Nat& b);
Cond le(const Nat& a, const Nat& b);
Cond eq(const Nat& a, const Nat& b);
Cond operator&&(const Cond& a, const Cond& b);
Cond operator||(const Cond& a, const Cond& b);
Cond operator!(const Cond& a);

// Total, deterministic order on terms (used for canonical sorting).
int compare(const Nat& a, const Nat& b);
struct NatLess {
  bool operator()(const Nat& a, const Nat& b) const { return compare(a, b) < 0; }
};
struct NatHash {
  size_t operator()(const Nat& a) const { return a.hash(); }
};

// ---- errors ----
// Overflow, division by zero, missing variables, non-exact division. Derived from
// risec::Error (kind User) in arith.cpp's users; here a plain exception type so
// arith stays independent.
class ArithError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- queries ----
// Free variables (by name) with their Var terms.
std::map<std::string, Nat> free_vars(const Nat& t);
bool occurs(const std::string& var, const Nat& t);
// f at t and at each of its subterms (a sum's monomials, the operands of the others;
// not the Nats inside a select's condition or a variable's range), outermost first.
void for_each_subterm(const Nat& t, const std::function<void(const Nat&)>& f);
// Decompose into constant + sum of (coefficient, monomial).
struct SumForm {
  Rational constant;
  std::vector<std::pair<Rational, Nat>> terms;
};
SumForm sum_form(const Nat& t);
// The factors of a monomial (atoms), empty for 1.
std::vector<Nat> factors(const Nat& mono);

// ---- substitution and evaluation ----
using Substitution = std::map<std::string, Nat>;
Nat substitute(const Nat& t, const Substitution& s);
Cond substitute(const Cond& c, const Substitution& s);
// Replace every variable whose name `f` maps to a term.
Nat substitute_fn(const Nat& t, const std::function<std::optional<Nat>(const Nat& var)>& f);

using Assignment = std::unordered_map<std::string, int64_t>;
int64_t evaluate(const Nat& t, const Assignment& env);  // throws ArithError
bool evaluate(const Cond& c, const Assignment& env);

// ---- range analysis and decisions ----
// Symbolic inclusive bounds. Variables that have a finite upper bound (loop
// indices) are eliminated; variables without one (sizes) stay symbolic. Terms are
// integer-valued (exact divisions are assumed exact), which the decisions use.
// Range queries never throw: an intermediate that overflows means "unknown".
std::optional<Nat> lower_bound(const Nat& t);
std::optional<Nat> upper_bound(const Nat& t);
// "yes" only when certain for every value of the variables within their ranges.
bool provably_nonneg(const Nat& t);
bool provably_pos(const Nat& t);
bool provably_lt(const Nat& a, const Nat& b);
bool provably_le(const Nat& a, const Nat& b);
bool provably_eq(const Nat& a, const Nat& b);
// Whether every value of t is an integer multiple of d (syntactic: every term of t
// has d as a factor of its coefficient/monomial).
bool provably_divides(const Nat& d, const Nat& t);

// ---- printing ----
// C: minimal parentheses for C's precedence; floor division and modulo print as `/`
// and `%` where that is exact in C (dividend provably >= 0, divisor > 0, always the
// case for view indices), otherwise as calls risec_floordiv(a, b) and
// risec_floormod(a, b), which generated code must define (like risec_min, risec_max
// and risec_pow). Rise: the type syntax of spec/rise-syntax.md.
enum class Syntax { Rise, C };
std::string print(const Nat& t, Syntax syntax = Syntax::Rise);
std::string print(const Cond& c, Syntax syntax = Syntax::Rise);

// ---- solving (for type inference) ----
// `divisor` divides `dividend` must hold for the solution to be valid.
struct Divisibility {
  Nat divisor;
  Nat dividend;
  bool operator==(const Divisibility&) const = default;
};

struct Solution {
  enum class Status {
    Solved,   // unknown = value (under `conditions`)
    Trivial,  // the equation holds whatever the unknown is
    Unsatisfiable,
    NotLinear,  // the unknown appears non-linearly (or not at all while the
                // equation is not trivially true)
  };
  Status status = Status::NotLinear;
  Nat value;
  std::vector<Divisibility> conditions;
};
// The dividend of `d divides t` (d a positive constant) written plainly, equivalent for
// every value of t's variables: `3 divides m` for `3 divides -m - 3`.
Nat plain_dividend(int64_t d, const Nat& t);

// Solve lhs == rhs for the variable named `unknown`.
Solution solve(const Nat& lhs, const Nat& rhs, const std::string& unknown);

std::ostream& operator<<(std::ostream& os, const Nat& n);
std::ostream& operator<<(std::ostream& os, const Cond& c);

}  // namespace risec::arith

template <>
struct std::hash<risec::arith::Nat> {
  size_t operator()(const risec::arith::Nat& n) const { return n.hash(); }
};
