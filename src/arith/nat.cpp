// Nat terms: node construction, hashing, the canonical order, and the canonical
// sum-of-products form (addition and multiplication). Division, modulo and the other
// atoms live in divmod.cpp; conditions in cond.cpp.
#include "arith/nat.h"

#include <algorithm>

#include "arith/internal.h"

namespace risec::arith {

namespace detail {

size_t hash_combine(size_t seed, size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t hash_rational(const Rational& r) {
  return hash_combine(std::hash<int64_t>()(r.num()), std::hash<int64_t>()(r.den()));
}

static Nat new_const(const Rational& v) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Const;
  n->value = v;
  n->hash = hash_combine(1, hash_rational(v));
  return Nat(std::shared_ptr<const Node>(std::move(n)));
}

// The small integers are made once and shared: constants are the terms the compiler
// makes most (every `Nat(0)`, every index offset), and a search that rewrites and
// re-infers thousands of programs spent a tenth of its time allocating them.
Nat make_const(const Rational& v) {
  constexpr int64_t kLo = -64;
  constexpr int64_t kHi = 1024;
  if (v.is_int() && v.num() >= kLo && v.num() <= kHi) {
    static const std::vector<Nat> small = [] {
      std::vector<Nat> t;
      t.reserve(kHi - kLo + 1);
      for (int64_t i = kLo; i <= kHi; ++i) t.push_back(new_const(Rational(i)));
      return t;
    }();
    return small[static_cast<size_t>(v.num() - kLo)];
  }
  return new_const(v);
}

Nat make_node(Kind kind, std::vector<Nat> args, std::shared_ptr<const CondNode> cond) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  size_t h = hash_combine(17, static_cast<size_t>(kind));
  for (const Nat& a : args) h = hash_combine(h, a.hash());
  if (cond) h = hash_combine(h, cond->hash);
  n->hash = h;
  n->args = std::move(args);
  n->cond = std::move(cond);
  return Nat(std::shared_ptr<const Node>(std::move(n)));
}

Nat make_sum(const Rational& constant, std::vector<std::pair<Rational, Nat>> terms) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Sum;
  size_t h = hash_combine(3, hash_rational(constant));
  for (const auto& [c, m] : terms) h = hash_combine(hash_combine(h, hash_rational(c)), m.hash());
  n->hash = h;
  n->value = constant;
  n->terms = std::move(terms);
  return Nat(std::shared_ptr<const Node>(std::move(n)));
}

Nat make_mono(std::vector<Nat> fs) {
  if (fs.empty()) return Nat(1);
  if (fs.size() == 1) return fs[0];
  std::sort(fs.begin(), fs.end(), NatLess());
  return make_node(Kind::Prod, std::move(fs));
}

// Accumulates c + sum(k * term) in canonical form.
void Poly::add(const Nat& t, const Rational& k) {
  if (k.is_zero()) return;
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
      constant = constant + k * n.value;
      break;
    case Kind::Sum:
      constant = constant + k * n.value;
      for (const auto& [c, m] : n.terms) add_mono(m, k * c);
      break;
    default:
      add_mono(t, k);
      break;
  }
}

void Poly::add_mono(const Nat& m, const Rational& k) {
  if (k.is_zero()) return;
  auto [it, inserted] = terms.emplace(m, k);
  if (!inserted) it->second = it->second + k;
}

// (x/n)*n + x%n  ->  x. For a term c*f*(x%n) (f: the other factors of its monomial,
// possibly none) whose partner c*f*(x/n)*n is present (every non-constant term of
// it, with exactly its coefficient), the pair becomes c*f*x; the partner's constant
// part, if any, moves into the constant. The quotient is floordiv(x, n), the
// canonical term a user's (x/n) became, so nested chains such as
// (w/(m*p))*m*p + ((w/p)%m)*p + w%p fold step by step back to w. Returns true when
// something changed.
static thread_local bool g_folding = false;

static bool fold_div_mod_pairs(Poly& p) {
  if (g_folding) return false;  // building a partner: no folding inside
  // Cheap filter: a partner has a division factor, and there must be a modulo.
  bool any_div = false, any_mod = false;
  for (const auto& [m, c] : p.terms) {
    if (c.is_zero()) continue;
    for (const Nat& f : factors(m)) {
      any_div = any_div || f.kind() == Kind::Div;
      any_mod = any_mod || f.kind() == Kind::Mod;
    }
  }
  if (!any_div || !any_mod) return false;
  struct Reset {
    ~Reset() { g_folding = false; }
  } reset;
  for (const auto& [m, c] : p.terms) {
    if (c.is_zero()) continue;
    std::vector<Nat> fs = factors(m);
    for (size_t idx = 0; idx < fs.size(); ++idx) {
      if (fs[idx].kind() != Kind::Mod || (idx > 0 && fs[idx] == fs[idx - 1])) continue;
      const Nat x = fs[idx].node().args[0];
      const Nat n = fs[idx].node().args[1];
      std::vector<Nat> others = fs;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(idx));
      const Nat cofactor = make_mono(std::move(others));
      const Rational k = c;
      const Nat mono = m;
      Nat partner;
      try {
        g_folding = true;
        partner = scale(k, cofactor * (floordiv(x, n) * n));
        g_folding = false;
      } catch (const ArithError&) {
        g_folding = false;
        continue;  // the partner is not representable, so it is not present either
      }
      SumForm pf = sum_form(partner);
      if (pf.terms.empty()) continue;
      bool ok = true;
      for (const auto& [pc, pm] : pf.terms) {
        auto it = p.terms.find(pm);
        if (pm == mono || it == p.terms.end() || !(it->second == pc)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      for (const auto& [pc, pm] : pf.terms) p.terms[pm] = Rational(0);
      p.terms[mono] = Rational(0);
      p.constant = p.constant - pf.constant;
      g_folding = true;
      Nat whole = scale(k, cofactor * x);
      g_folding = false;
      p.add(whole, 1);
      return true;
    }
  }
  return false;
}

Nat Poly::finish() {
  for (int guard = 0; guard < 16 && fold_div_mod_pairs(*this); ++guard) {
  }
  std::vector<std::pair<Rational, Nat>> ts;
  for (auto& [m, c] : terms)
    if (!c.is_zero()) ts.emplace_back(c, m);
  if (ts.empty()) return make_const(constant);
  if (ts.size() == 1 && constant.is_zero() && ts[0].first == Rational(1)) return ts[0].second;
  return make_sum(constant, std::move(ts));
}

// Multiplies two monomials (atoms or products), cancelling exact divisions whose
// divisor appears among the other factors: (x /^ d) * d = x.
static Nat mono_mul(const Nat& a, const Nat& b) {
  std::vector<Nat> fs = factors(a);
  std::vector<Nat> fb = factors(b);
  fs.insert(fs.end(), fb.begin(), fb.end());
  for (size_t i = 0; i < fs.size(); ++i) {
    if (fs[i].kind() != Kind::ExactDiv) continue;
    std::vector<Nat> df = factors(fs[i].node().args[1]);
    std::vector<Nat> rest;
    for (size_t j = 0; j < fs.size(); ++j)
      if (j != i) rest.push_back(fs[j]);
    bool all = true;
    for (const Nat& d : df) {
      auto it = std::find(rest.begin(), rest.end(), d);
      if (it == rest.end()) {
        all = false;
        break;
      }
      rest.erase(it);
    }
    if (!all) continue;
    Nat result = fs[i].node().args[0];
    for (const Nat& r : rest) result = result * r;
    return result;
  }
  return make_mono(std::move(fs));
}

}  // namespace detail

using namespace detail;

Nat::Nat() : Nat(int64_t{0}) {}
Nat::Nat(int64_t value) : node_(make_const(Rational(value)).ptr()) {}

Nat Nat::var(const std::string& name, std::optional<Nat> lo, std::optional<Nat> hi) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Var;
  n->name = name;
  n->lo = std::move(lo);
  n->hi = std::move(hi);
  n->hash = hash_combine(2, std::hash<std::string>()(name));
  return Nat(std::shared_ptr<const Node>(std::move(n)));
}

Kind Nat::kind() const {
  return node_->kind;
}
size_t Nat::hash() const {
  return node_->hash;
}

std::optional<int64_t> Nat::as_const() const {
  if (node_->kind == Kind::Const && node_->value.is_int()) return node_->value.num();
  return std::nullopt;
}

const std::string& Nat::var_name() const {
  return node_->name;
}

bool Nat::operator==(const Nat& o) const {
  if (node_ == o.node_) return true;
  if (node_->hash != o.node_->hash) return false;
  return compare(*this, o) == 0;
}

std::string Nat::to_string() const {
  return print(*this, Syntax::Rise);
}

static int compare_rational(const Rational& a, const Rational& b) {
  if (a == b) return 0;
  return a < b ? -1 : 1;
}

int compare(const Nat& a, const Nat& b) {
  if (a.ptr() == b.ptr()) return 0;
  const Node& x = a.node();
  const Node& y = b.node();
  if (x.kind != y.kind) return x.kind < y.kind ? -1 : 1;
  switch (x.kind) {
    case Kind::Const:
      return compare_rational(x.value, y.value);
    case Kind::Var:
      return x.name.compare(y.name) < 0 ? -1 : (x.name == y.name ? 0 : 1);
    case Kind::Sum: {
      size_t n = std::min(x.terms.size(), y.terms.size());
      for (size_t i = 0; i < n; ++i) {
        if (int c = compare(x.terms[i].second, y.terms[i].second)) return c;
        if (int c = compare_rational(x.terms[i].first, y.terms[i].first)) return c;
      }
      if (x.terms.size() != y.terms.size()) return x.terms.size() < y.terms.size() ? -1 : 1;
      return compare_rational(x.value, y.value);
    }
    default: {
      if (x.cond || y.cond) {
        if (int c = compare_cond(Cond(x.cond), Cond(y.cond))) return c;
      }
      size_t n = std::min(x.args.size(), y.args.size());
      for (size_t i = 0; i < n; ++i)
        if (int c = compare(x.args[i], y.args[i])) return c;
      if (x.args.size() != y.args.size()) return x.args.size() < y.args.size() ? -1 : 1;
      return 0;
    }
  }
}

namespace detail {

static bool deep_equal_opt(const std::optional<Nat>& a, const std::optional<Nat>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || deep_equal(*a, *b);
}

bool deep_equal(const Nat& a, const Nat& b) {
  if (a.ptr() == b.ptr()) return true;
  const Node& x = a.node();
  const Node& y = b.node();
  if (x.hash != y.hash || x.kind != y.kind) return false;
  switch (x.kind) {
    case Kind::Const:
      return x.value == y.value;
    case Kind::Var:
      return x.name == y.name && deep_equal_opt(x.lo, y.lo) && deep_equal_opt(x.hi, y.hi);
    case Kind::Sum:
      if (!(x.value == y.value) || x.terms.size() != y.terms.size()) return false;
      for (size_t i = 0; i < x.terms.size(); ++i)
        if (!(x.terms[i].first == y.terms[i].first) ||
            !deep_equal(x.terms[i].second, y.terms[i].second))
          return false;
      return true;
    default:
      if (x.args.size() != y.args.size()) return false;
      for (size_t i = 0; i < x.args.size(); ++i)
        if (!deep_equal(x.args[i], y.args[i])) return false;
      if (static_cast<bool>(x.cond) != static_cast<bool>(y.cond)) return false;
      return !x.cond || deep_equal(Cond(x.cond), Cond(y.cond));
  }
}

bool deep_equal(const Cond& a, const Cond& b) {
  if (a.ptr() == b.ptr()) return true;
  const CondNode& x = a.node();
  const CondNode& y = b.node();
  if (x.hash != y.hash || x.kind != y.kind || x.args.size() != y.args.size()) return false;
  if (!deep_equal(x.a, y.a) || !deep_equal(x.b, y.b)) return false;
  for (size_t i = 0; i < x.args.size(); ++i)
    if (!deep_equal(x.args[i], y.args[i])) return false;
  return true;
}

}  // namespace detail

std::vector<Nat> factors(const Nat& mono) {
  if (mono.kind() == Kind::Prod) return mono.node().args;
  if (mono.kind() == Kind::Const) {
    // Only the constant 1 is a legitimate empty monomial.
    return {};
  }
  return {mono};
}

SumForm sum_form(const Nat& t) {
  SumForm f;
  const Node& n = t.node();
  if (n.kind == Kind::Const) {
    f.constant = n.value;
  } else if (n.kind == Kind::Sum) {
    f.constant = n.value;
    f.terms = n.terms;
  } else {
    f.terms.emplace_back(Rational(1), t);
  }
  return f;
}

Nat operator+(const Nat& a, const Nat& b) {
  if (a.is_const(0)) return b;
  if (b.is_const(0)) return a;
  if (a.kind() == Kind::Const && b.kind() == Kind::Const)
    return make_const(a.node().value + b.node().value);
  Poly p;
  p.add(a, 1);
  p.add(b, 1);
  return p.finish();
}

Nat scale(const Rational& c, const Nat& a) {
  if (c.is_zero()) return Nat(0);
  if (c == Rational(1)) return a;
  if (a.kind() == Kind::Const) return make_const(a.node().value * c);
  Poly p;
  p.add(a, c);
  return p.finish();
}

Nat operator-(const Nat& a) {
  return scale(Rational(-1), a);
}
Nat operator-(const Nat& a, const Nat& b) {
  if (b.is_const(0)) return a;
  if (a == b) return Nat(0);
  Poly p;
  p.add(a, 1);
  p.add(b, -1);
  return p.finish();
}

Nat operator*(const Nat& a, const Nat& b) {
  if (a.kind() == Kind::Const) return scale(a.node().value, b);
  if (b.kind() == Kind::Const) return scale(b.node().value, a);
  SumForm fa = sum_form(a);
  SumForm fb = sum_form(b);
  Poly p;
  p.constant = fa.constant * fb.constant;
  for (const auto& [c, m] : fa.terms) p.add(m, c * fb.constant);
  for (const auto& [c, m] : fb.terms) p.add(m, c * fa.constant);
  for (const auto& [ca, ma] : fa.terms)
    for (const auto& [cb, mb] : fb.terms) p.add(mono_mul(ma, mb), ca * cb);
  return p.finish();
}

static void collect_vars(const Nat& t, std::map<std::string, Nat>& out) {
  const Node& n = t.node();
  switch (n.kind) {
    case Kind::Const:
      return;
    case Kind::Var:
      out.emplace(n.name, t);
      return;
    case Kind::Sum:
      for (const auto& [c, m] : n.terms) collect_vars(m, out);
      return;
    default:
      for (const Nat& a : n.args) collect_vars(a, out);
      if (n.cond) {
        std::vector<const CondNode*> stack{n.cond.get()};
        while (!stack.empty()) {
          const CondNode* c = stack.back();
          stack.pop_back();
          if (c->kind == CondKind::Lt || c->kind == CondKind::Le || c->kind == CondKind::Eq) {
            collect_vars(c->a, out);
            collect_vars(c->b, out);
          }
          for (const Cond& s : c->args) stack.push_back(&s.node());
        }
      }
      return;
  }
}

std::map<std::string, Nat> free_vars(const Nat& t) {
  std::map<std::string, Nat> out;
  collect_vars(t, out);
  return out;
}

bool occurs(const std::string& var, const Nat& t) {
  return free_vars(t).count(var) > 0;
}

void for_each_subterm(const Nat& t, const std::function<void(const Nat&)>& f) {
  f(t);
  const Node& n = t.node();
  for (const auto& [c, m] : n.terms) for_each_subterm(m, f);
  for (const Nat& a : n.args) for_each_subterm(a, f);
}

}  // namespace risec::arith
