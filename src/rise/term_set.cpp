// The equality and hash of rise/term_set.h.
#include "rise/term_set.h"

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "support/stack.h"

namespace risec::rise {

namespace {

size_t mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

// A binder's name without the `__N` that fresh_name gives a generated one.
std::string_view base_name(const std::string& name) {
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  if (end < name.size() && end >= 2 && name[end - 1] == '_' && name[end - 2] == '_')
    return std::string_view(name).substr(0, end - 2);
  return name;
}

// What print_alike compares, less what renaming may change: a bound identifier counts
// by its binder's level, a binder by its base name, and below a dependent binder the
// sizes (which may name it) not at all; types are left to the equality.
struct PrintKeyHasher {
  std::vector<std::pair<std::string, int>> bound;  // value binders in scope, with levels
  int dep_binders = 0;

  size_t hash(const Expr& e) {
    if (!e) return 0x5bd1e995;
    check_stack_depth(e->span);
    size_t h = static_cast<size_t>(e->kind) + 1;
    switch (e->kind) {
      case ExprKind::Ident:
        for (auto it = bound.rbegin(); it != bound.rend(); ++it)
          if (it->first == e->name) return mix(h, static_cast<size_t>(it->second) + 1);
        return mix(h, std::hash<std::string>()(e->name));
      case ExprKind::Lambda: {
        h = mix(h, std::hash<std::string_view>()(base_name(e->name)));
        bound.emplace_back(e->name, static_cast<int>(bound.size()));
        h = mix(h, hash(e->fn));
        bound.pop_back();
        return h;
      }
      case ExprKind::App:
        return mix(mix(h, hash(e->fn)), hash(e->arg));
      case ExprKind::DepLambda: {
        ++dep_binders;
        h = mix(h, std::hash<std::string_view>()(base_name(e->name)));
        h = mix(mix(h, static_cast<size_t>(e->binder_kind)), hash(e->fn));
        --dep_binders;
        return h;
      }
      case ExprKind::DepApp: {
        h = mix(h, e->type_arg.index());
        if (const Nat* n = std::get_if<Nat>(&e->type_arg); n && dep_binders == 0)
          h = mix(h, n->hash());
        return mix(h, hash(e->fn));
      }
      case ExprKind::Literal:
        h = mix(mix(h, static_cast<size_t>(e->lit.kind)), static_cast<size_t>(e->lit.i));
        return mix(h, std::bit_cast<uint64_t>(e->lit.f));
      case ExprKind::Primitive:
        h = mix(mix(h, std::hash<std::string>()(e->name)), static_cast<size_t>(e->count));
        h = mix(mix(h, static_cast<size_t>(e->schedule.kind)),
                static_cast<size_t>(e->schedule.chunk));
        return mix(h, static_cast<size_t>(e->prefetch));
      case ExprKind::Foreign:
        return mix(h, std::hash<std::string>()(e->name));
      case ExprKind::Annotation:
        return mix(h, hash(e->fn));
    }
    return h;
  }
};

}  // namespace

// The binders' base names, walked in step with a stack of its own (alpha_equal
// compares the rest).
static bool same_binder_bases(const Expr& a, const Expr& b) {
  std::vector<std::pair<const ExprNode*, const ExprNode*>> todo = {{a.get(), b.get()}};
  while (!todo.empty()) {
    auto [x, y] = todo.back();
    todo.pop_back();
    if (x == y) continue;
    if (!x || !y || x->kind != y->kind) return false;
    switch (x->kind) {
      case ExprKind::Lambda:
      case ExprKind::DepLambda:
        if (base_name(x->name) != base_name(y->name)) return false;
        [[fallthrough]];
      case ExprKind::DepApp:
      case ExprKind::Annotation:
        todo.emplace_back(x->fn.get(), y->fn.get());
        break;
      case ExprKind::App:
        todo.emplace_back(x->fn.get(), y->fn.get());
        todo.emplace_back(x->arg.get(), y->arg.get());
        break;
      default:
        break;
    }
  }
  return true;
}

bool print_alike(const Expr& a, const Expr& b) {
  return same_binder_bases(a, b) && alpha_equal(a, b);
}

size_t print_key_hash(const Expr& e) {
  PrintKeyHasher h;
  return h.hash(e);
}

}  // namespace risec::rise
