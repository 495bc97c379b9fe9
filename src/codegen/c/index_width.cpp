// Which C integer type a unit's loops, sizes and index arithmetic use. `int` is kept
// where everything is known to stay below 2^31 (the common case, and the code people
// read); a symbolic size, or a known trip count, index or array length of 2^31 or
// more, makes the unit use int64_t, so that `i * m + j` cannot overflow.
#include "codegen/c/c_printer.h"
#include "dpia/traverse.h"

#include <set>

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

class WideFinder : public dpia::Visitor {
 public:
  bool wide = false;
  void visit_nat(const arith::Nat& n) override { wide = wide || nat_is_wide(n); }
  void visit_type(const Type& t) override { wide = wide || type_is_wide(t); }
};

// The symbolic quantities over the sizes: every Nat of the program and every array
// length and element count of its types, as far as they depend on the sizes only.
class BoundCollector : public dpia::Visitor {
 public:
  explicit BoundCollector(const std::vector<std::string>& sizes)
      : sizes_(sizes.begin(), sizes.end()) {}
  std::vector<arith::Nat> bounds;
  void visit_nat(const arith::Nat& n) override { add(n); }
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
};

}  // namespace

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
  if (type_is_wide(out_dt)) return true;
  for (const dpia::Input& in : inputs)
    if (type_is_wide(in.dt)) return true;
  WideFinder f;
  f.visit(program);
  return f.wide;
}

}  // namespace risec::codegen
