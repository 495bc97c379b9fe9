// Which C integer type a unit's loops, sizes and index arithmetic use. `int` is kept
// where everything is known to stay below 2^31 (the common case, and the code people
// read); a symbolic size, or a known trip count, index or array length of 2^31 or
// more, makes the unit use int64_t, so that `i * m + j` cannot overflow.
#include "codegen/c/c_printer.h"
#include "dpia/traverse.h"

#include <functional>
#include <numeric>
#include <set>
#include <unordered_set>

namespace risec::codegen {

namespace {

constexpr int64_t kIntLimit = int64_t{1} << 31;

// True when |n| may reach 2^31: a constant that large, or one of its constant bounds.
bool nat_is_wide(const arith::Nat& n) {
  if (auto v = n.as_const()) return *v >= kIntLimit || *v <= -kIntLimit;
  if (auto hi = arith::upper_bound(n))
    if (auto v = hi->as_const(); v && *v >= kIntLimit) return true;
  if (auto lo = arith::lower_bound(n))
    if (auto v = lo->as_const(); v && *v <= -kIntLimit) return true;
  return false;
}

// True when an array type's total number of elements (or any of its sizes) may
// reach 2^31: flat indices go up to the element count.
bool type_is_wide(const rise::Type& t, const arith::Nat& outer = 1) {
  if (!t) return false;
  rise::Type x = t;
  arith::Nat total = outer;
  while (x && (x->kind == TypeKind::Array || x->kind == TypeKind::Vector)) {
    if (nat_is_wide(x->size)) return true;
    total = total * x->size;
    x = x->a;
  }
  if (x && x->kind == TypeKind::Pair) return type_is_wide(x->a, total) || type_is_wide(x->b, total);
  if (x && x->kind == TypeKind::Index && nat_is_wide(x->size)) return true;
  return nat_is_wide(total);
}

// Calls `f` on every value C computes while it evaluates `n` as arith::print(Syntax::C)
// prints it: the term itself and each of its sub-terms, and within a sum or product
// each partial result in the printed order (`a*b*c` computes `a*b` first; a sum adds
// its positive terms, then subtracts the negative ones, then divides by the common
// denominator of its coefficients). Wrap-around in any of these makes the final
// index wrong even when the index itself is small (`i*i % n`).
void for_each_intermediate(const arith::Nat& n, const std::function<void(const arith::Nat&)>& f);

void for_each_intermediate(const arith::Cond& c, const std::function<void(const arith::Nat&)>& f) {
  const arith::CondNode& n = c.node();
  if (n.kind == arith::CondKind::Lt || n.kind == arith::CondKind::Le ||
      n.kind == arith::CondKind::Eq) {
    for_each_intermediate(n.a, f);
    for_each_intermediate(n.b, f);
  }
  for (const arith::Cond& a : n.args) for_each_intermediate(a, f);
}

// The partial products of `coef * f1 * f2 * ...` (coef 1: of `f1 * f2 * ...`).
void product_intermediates(int64_t coef, const arith::Nat& mono,
                           const std::function<void(const arith::Nat&)>& f) {
  std::vector<arith::Nat> fs = arith::factors(mono);
  if (fs.empty()) fs.push_back(mono);
  for (const arith::Nat& x : fs) for_each_intermediate(x, f);
  arith::Nat acc = coef == 1 ? fs[0] : arith::Nat(coef) * fs[0];
  f(acc);
  for (size_t k = 1; k < fs.size(); ++k) {
    acc = acc * fs[k];
    f(acc);
  }
}

void for_each_intermediate(const arith::Nat& n, const std::function<void(const arith::Nat&)>& f) {
  const arith::Node& node = n.node();
  switch (node.kind) {
    case arith::Kind::Const:
    case arith::Kind::Var:
      break;
    case arith::Kind::Sum: {
      int64_t l = node.value.den();
      for (const auto& [c, m] : node.terms) l = std::lcm(l, c.den());
      std::vector<arith::Nat> parts;  // the printed terms, positive ones first
      for (int sign : {1, -1})
        for (const auto& [c, m] : node.terms) {
          int64_t s = (c * arith::Rational(l)).num();
          if ((s > 0) != (sign > 0)) continue;
          product_intermediates(s < 0 ? -s : s, m, f);
          parts.push_back(arith::Nat(s) * m);
        }
      arith::Rational k = node.value * arith::Rational(l);
      if (!k.is_zero()) parts.push_back(arith::Nat(k.num()));
      arith::Nat acc = parts.empty() ? arith::Nat(0) : parts[0];
      for (size_t i = 1; i < parts.size(); ++i) {
        acc = acc + parts[i];
        f(acc);
      }
      break;
    }
    case arith::Kind::Prod:
      product_intermediates(1, n, f);
      break;
    case arith::Kind::Select:
      for_each_intermediate(arith::Cond(node.cond), f);
      [[fallthrough]];
    default:
      for (const arith::Nat& a : node.args) for_each_intermediate(a, f);
      break;
  }
  f(n);
}

// Whether `b` is a bound that can be used: a constant, or a term over `symbolic` only.
bool usable_bound(const arith::Nat& b, const std::set<std::string>& symbolic) {
  for (const auto& [name, var] : arith::free_vars(b))
    if (!symbolic.count(name)) return false;
  return true;
}

// Inclusive bounds [lo, hi] of `t` over `symbolic` (constants when it is empty), or
// nullopt. arith's range analysis first; where it cannot eliminate a loop index (it
// leaves `i*i` as it is, and a clamp `max(0, i - 1)` with symbolic sizes), interval
// arithmetic over the factors of a product of non-negative factors, over the terms of
// a sum, over the operands of a min, max or choice, and over a floor division or
// modulo of a non-negative term by a positive one.
std::optional<std::pair<arith::Nat, arith::Nat>> index_bounds(
    const arith::Nat& t, const std::set<std::string>& symbolic) {
  std::optional<arith::Nat> lo = arith::lower_bound(t), hi = arith::upper_bound(t);
  if (lo && hi && usable_bound(*lo, symbolic) && usable_bound(*hi, symbolic))
    return std::pair{*lo, *hi};
  const arith::Node& node = t.node();
  if (node.kind == arith::Kind::Prod) {
    arith::Nat l = 1, h = 1;
    for (const arith::Nat& f : arith::factors(t)) {
      auto b = index_bounds(f, symbolic);
      if (!b || !arith::provably_nonneg(b->first)) return std::nullopt;
      l = l * b->first;
      h = h * b->second;
    }
    return std::pair{l, h};
  }
  if (node.kind == arith::Kind::Min || node.kind == arith::Kind::Max ||
      node.kind == arith::Kind::Select) {
    // a clamp (padClamp's min(max(i - l, 0), n - 1)) or a choice: within its operands'
    // bounds
    auto a = index_bounds(node.args[0], symbolic), b = index_bounds(node.args[1], symbolic);
    if (!a || !b) return std::nullopt;
    if (node.kind == arith::Kind::Min)
      return std::pair{arith::min(a->first, b->first), arith::min(a->second, b->second)};
    if (node.kind == arith::Kind::Max)
      return std::pair{arith::max(a->first, b->first), arith::max(a->second, b->second)};
    return std::pair{arith::min(a->first, b->first), arith::max(a->second, b->second)};
  }
  if ((node.kind == arith::Kind::Div || node.kind == arith::Kind::Mod) &&
      arith::provably_pos(node.args[1])) {
    auto a = index_bounds(node.args[0], symbolic), b = index_bounds(node.args[1], symbolic);
    if (!a || !b || !arith::provably_nonneg(a->first) || !arith::provably_pos(b->first))
      return std::nullopt;
    if (node.kind == arith::Kind::Mod) return std::pair{arith::Nat(0), b->second - arith::Nat(1)};
    return std::pair{arith::floordiv(a->first, b->second), arith::floordiv(a->second, b->first)};
  }
  if (node.kind == arith::Kind::Sum) {
    arith::Nat l = arith::scale(node.value, 1), h = l;
    for (const auto& [c, m] : node.terms) {
      auto b = index_bounds(m, symbolic);
      if (!b) return std::nullopt;
      const bool neg = c.sign() < 0;
      l = l + arith::scale(c, neg ? b->second : b->first);
      h = h + arith::scale(c, neg ? b->first : b->second);
    }
    return std::pair{l, h};
  }
  return std::nullopt;
}

// Whether some intermediate of `n` may reach 2^31 in magnitude: its bounds are unknown,
// or constant bounds say so, or they depend on something other than `symbolic` (sizes
// that a host checks at run time, narrow_index_bounds). `bound` gets the bounds over
// the symbolic sizes.
bool intermediates_may_be_wide(const arith::Nat& n, const std::set<std::string>& symbolic,
                               const std::function<void(const arith::Nat&)>& bound) {
  bool wide = false;
  auto check = [&](const arith::Nat& b, bool upper) {
    if (auto v = b.as_const()) {
      if (upper ? *v >= kIntLimit : *v <= -kIntLimit) wide = true;
    } else if (bound) {
      bound(b);
    }
  };
  try {
    for_each_intermediate(n, [&](const arith::Nat& t) {
      if (wide) return;
      if (auto v = t.as_const()) return void(wide = *v >= kIntLimit || *v <= -kIntLimit);
      auto b = index_bounds(t, symbolic);
      if (!b) return void(wide = true);
      check(b->first, false);
      check(b->second, true);
    });
  } catch (const arith::ArithError&) {
    return true;  // a bound that overflows 64 bits
  }
  return wide;
}

class WideFinder : public dpia::Visitor {
 public:
  explicit WideFinder(const std::vector<std::string>& symbolic)
      : symbolic_(symbolic.begin(), symbolic.end()) {}
  bool wide = false;
  void visit_nat(const arith::Nat& n) override {
    if (wide || !seen_.insert(n).second) return;
    wide = intermediates_may_be_wide(n, symbolic_, nullptr);  // n itself included
  }
  void visit_type(const Type& t) override { wide = wide || type_is_wide(t); }

 private:
  std::set<std::string> symbolic_;
  std::unordered_set<arith::Nat> seen_;
};

// The symbolic quantities over the sizes: every Nat of the program and every array
// length and element count of its types, as far as they depend on the sizes only.
class BoundCollector : public dpia::Visitor {
 public:
  explicit BoundCollector(const std::vector<std::string>& sizes)
      : sizes_(sizes.begin(), sizes.end()) {}
  std::vector<arith::Nat> bounds;
  void visit_nat(const arith::Nat& n) override {
    add(n);
    if (visited_.insert(n).second)
      intermediates_may_be_wide(n, sizes_, [&](const arith::Nat& b) { add(b); });
  }
  void visit_type(const Type& t) override { add_type(t, 1); }
  void add_type(const rise::Type& t, const arith::Nat& outer) {
    rise::Type x = t;
    arith::Nat total = outer;
    while (x && (x->kind == TypeKind::Array || x->kind == TypeKind::Vector)) {
      add(x->size);
      total = total * x->size;
      add(total);
      x = x->a;
    }
    if (x && x->kind == TypeKind::Pair) {
      add_type(x->a, total);
      add_type(x->b, total);
    }
    if (x && x->kind == TypeKind::Index) add(x->size);
  }

 private:
  void add(const arith::Nat& n) {
    if (n.as_const()) return;
    auto vars = arith::free_vars(n);
    if (vars.empty()) return;
    for (const auto& [name, range] : vars)
      if (!sizes_.count(name)) return;
    std::string key = n.to_string();
    if (seen_.insert(key).second) bounds.push_back(n);
  }
  std::set<std::string> sizes_;
  std::set<std::string> seen_;
  std::unordered_set<arith::Nat> visited_;
};

thread_local PrintedNats* innermost_printed = nullptr;

}  // namespace

PrintedNats::PrintedNats() : outer_(innermost_printed) {
  innermost_printed = this;
}
PrintedNats::~PrintedNats() {
  innermost_printed = outer_;
  if (outer_) outer_->nats_.insert(outer_->nats_.end(), nats_.begin(), nats_.end());
}

void PrintedNats::note(const arith::Nat& n) {
  if (innermost_printed && !n.as_const()) innermost_printed->nats_.push_back(n);
}

void PrintedNats::note(const arith::Cond& c) {
  if (!innermost_printed) return;
  const arith::CondNode& n = c.node();
  if (n.kind == arith::CondKind::Lt || n.kind == arith::CondKind::Le ||
      n.kind == arith::CondKind::Eq) {
    note(n.a);
    note(n.b);
  }
  for (const arith::Cond& a : n.args) note(a);
}

bool printed_terms_narrow(const std::vector<arith::Nat>& printed,
                          const std::vector<std::string>& sizes, std::vector<arith::Nat>* bounds) {
  const std::set<std::string> symbolic(sizes.begin(), sizes.end());
  std::unordered_set<arith::Nat> seen;
  std::set<std::string> listed;
  if (bounds)
    for (const arith::Nat& b : *bounds) listed.insert(b.to_string());
  // Whether the checks of `bounds` already imply |b| < 2^31: b is at most one of them
  // (or a constant below 2^31), and at least one of them or the negation of one (or a
  // constant above -2^31).
  auto implied = [&](const arith::Nat& b) {
    auto lo = arith::lower_bound(b), hi = arith::upper_bound(b);
    auto lo_c = lo ? lo->as_const() : std::nullopt, hi_c = hi ? hi->as_const() : std::nullopt;
    bool below = hi_c && *hi_c < kIntLimit;
    bool above = lo_c && *lo_c > -kIntLimit;
    for (const arith::Nat& x : *bounds) {
      if (below && above) break;
      below = below || arith::provably_le(b, x);
      above = above || arith::provably_le(x, b) || arith::provably_le(-b, x);
    }
    return below && above;
  };
  std::function<void(const arith::Nat&)> add;
  if (!sizes.empty())
    add = [&](const arith::Nat& b) {
      if (bounds && listed.insert(b.to_string()).second && !implied(b)) bounds->push_back(b);
    };
  for (const arith::Nat& n : printed) {
    if (!seen.insert(n).second) continue;
    if (intermediates_may_be_wide(n, symbolic, add)) return false;
  }
  return true;
}

std::vector<arith::Nat> narrow_index_bounds(const dpia::CommandP& program, const rise::Type& out_dt,
                                            const std::vector<dpia::Input>& inputs,
                                            const std::vector<std::string>& sizes) {
  BoundCollector c(sizes);
  c.add_type(out_dt, 1);
  for (const dpia::Input& in : inputs) c.add_type(in.dt, 1);
  c.visit(program);
  return c.bounds;
}

bool needs_wide_indices(const dpia::CommandP& program, const rise::Type& out_dt,
                        const std::vector<dpia::Input>& inputs,
                        const std::vector<std::string>& sizes) {
  if (!sizes.empty()) return true;
  return !narrow_possible(program, out_dt, inputs, {});
}

bool narrow_possible(const dpia::CommandP& program, const rise::Type& out_dt,
                     const std::vector<dpia::Input>& inputs,
                     const std::vector<std::string>& sizes) {
  if (type_is_wide(out_dt)) return false;
  for (const dpia::Input& in : inputs)
    if (type_is_wide(in.dt)) return false;
  WideFinder f(sizes);
  f.visit(program);
  return !f.wide;
}

}  // namespace risec::codegen
