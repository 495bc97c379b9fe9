// Boolean conditions over Nats (the guards of padding and concatenation), folded
// to true/false whenever range analysis can decide them.
#include <algorithm>

#include "arith/internal.h"

namespace risec::arith {

using namespace detail;

static Cond make_cond(CondKind kind, Nat a = Nat(), Nat b = Nat(), std::vector<Cond> args = {}) {
  auto n = std::make_shared<CondNode>();
  n->kind = kind;
  size_t h = hash_combine(101, static_cast<size_t>(kind));
  h = hash_combine(hash_combine(h, a.hash()), b.hash());
  for (const Cond& c : args) h = hash_combine(h, c.hash());
  n->hash = h;
  n->a = std::move(a);
  n->b = std::move(b);
  n->args = std::move(args);
  return Cond(std::shared_ptr<const CondNode>(std::move(n)));
}

static const Cond& true_cond() {
  static const Cond t = make_cond(CondKind::True);
  return t;
}
static const Cond& false_cond() {
  static const Cond f = make_cond(CondKind::False);
  return f;
}

Cond::Cond() : node_(true_cond().ptr()) {}
Cond Cond::truth(bool b) {
  return b ? true_cond() : false_cond();
}
CondKind Cond::kind() const {
  return node_->kind;
}
size_t Cond::hash() const {
  return node_->hash;
}
std::optional<bool> Cond::as_const() const {
  if (node_->kind == CondKind::True) return true;
  if (node_->kind == CondKind::False) return false;
  return std::nullopt;
}
std::string Cond::to_string() const {
  return print(*this, Syntax::Rise);
}

int compare_cond(const Cond& a, const Cond& b) {
  if (a.ptr() == b.ptr()) return 0;
  if (!a.ptr() || !b.ptr()) return a.ptr() ? 1 : -1;
  const CondNode& x = a.node();
  const CondNode& y = b.node();
  if (x.kind != y.kind) return x.kind < y.kind ? -1 : 1;
  if (int c = compare(x.a, y.a)) return c;
  if (int c = compare(x.b, y.b)) return c;
  size_t n = std::min(x.args.size(), y.args.size());
  for (size_t i = 0; i < n; ++i)
    if (int c = compare_cond(x.args[i], y.args[i])) return c;
  if (x.args.size() != y.args.size()) return x.args.size() < y.args.size() ? -1 : 1;
  return 0;
}

bool Cond::operator==(const Cond& o) const {
  if (node_ == o.node_) return true;
  if (hash() != o.hash()) return false;
  return compare_cond(*this, o) == 0;
}

Cond lt(const Nat& a, const Nat& b) {
  if (provably_lt(a, b)) return Cond::truth(true);
  if (provably_le(b, a)) return Cond::truth(false);
  return make_cond(CondKind::Lt, a, b);
}

Cond le(const Nat& a, const Nat& b) {
  if (provably_le(a, b)) return Cond::truth(true);
  if (provably_lt(b, a)) return Cond::truth(false);
  return make_cond(CondKind::Le, a, b);
}

Cond eq(const Nat& a, const Nat& b) {
  if (a == b) return Cond::truth(true);
  if (provably_lt(a, b) || provably_lt(b, a)) return Cond::truth(false);
  if (compare(a, b) > 0) return make_cond(CondKind::Eq, b, a);
  return make_cond(CondKind::Eq, a, b);
}

// And/Or are n-ary, flattened, with operands sorted and duplicates removed, so
// that `a && b` and `b && a` (or `(a && b) && c` and `a && (b && c)`) are one term.
// `absorbing` is the constant that decides the whole (false for &&, true for ||).
static Cond make_assoc(CondKind kind, const Cond& a, const Cond& b) {
  const bool absorbing = kind == CondKind::Or;
  std::vector<Cond> ops;
  for (const Cond* c : {&a, &b}) {
    if (auto v = c->as_const()) {
      if (*v == absorbing) return *c;
      continue;  // the neutral constant
    }
    if (c->kind() == kind) {
      ops.insert(ops.end(), c->node().args.begin(), c->node().args.end());
    } else {
      ops.push_back(*c);
    }
  }
  std::sort(ops.begin(), ops.end(),
            [](const Cond& x, const Cond& y) { return compare_cond(x, y) < 0; });
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  if (ops.empty()) return Cond::truth(!absorbing);
  if (ops.size() == 1) return ops[0];
  return make_cond(kind, Nat(), Nat(), std::move(ops));
}

Cond operator&&(const Cond& a, const Cond& b) {
  return make_assoc(CondKind::And, a, b);
}
Cond operator||(const Cond& a, const Cond& b) {
  return make_assoc(CondKind::Or, a, b);
}

Cond operator!(const Cond& a) {
  const CondNode& n = a.node();
  switch (n.kind) {
    case CondKind::True:
      return Cond::truth(false);
    case CondKind::False:
      return Cond::truth(true);
    case CondKind::Lt:
      return le(n.b, n.a);
    case CondKind::Le:
      return lt(n.b, n.a);
    case CondKind::Not:
      return n.args[0];
    default:
      return make_cond(CondKind::Not, Nat(), Nat(), {a});
  }
}

}  // namespace risec::arith
