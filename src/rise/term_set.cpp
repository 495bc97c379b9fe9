// The hash of rise/term_set.h.
#include "rise/term_set.h"

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "support/stack.h"

namespace risec::rise {

namespace {

size_t mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
}

// What alpha_equal compares, less what renaming may change: a bound identifier counts
// by its binder's level, a binder's name not at all, and below a dependent binder the
// sizes (which may name it) not at all; types are left to the equality.
struct AlphaHasher {
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
        bound.emplace_back(e->name, static_cast<int>(bound.size()));
        h = mix(h, hash(e->fn));
        bound.pop_back();
        return h;
      }
      case ExprKind::App:
        return mix(mix(h, hash(e->fn)), hash(e->arg));
      case ExprKind::DepLambda: {
        ++dep_binders;
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
        return mix(mix(h, static_cast<size_t>(e->schedule.kind)),
                   static_cast<size_t>(e->schedule.chunk));
      case ExprKind::Foreign:
        return mix(h, std::hash<std::string>()(e->name));
      case ExprKind::Annotation:
        return mix(h, hash(e->fn));
    }
    return h;
  }
};

}  // namespace

size_t alpha_hash(const Expr& e) {
  AlphaHasher h;
  return h.hash(e);
}

}  // namespace risec::rise
