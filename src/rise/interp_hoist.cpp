// Loop-invariant subterms of a lambda (see interp_hoist.h).
#include "rise/interp_hoist.h"

#include <algorithm>

#include "rise/interp_prims.h"
#include "rise/primitives.h"

namespace risec::rise {

namespace {

// Primitives whose application costs about as much as reading a memo cell.
bool cheap(const PrimitiveInfo* p) {
  if (!p) return false;
  if (scalar_op_of(p)) return true;
  return p->is(PrimId::Select) || p->is(PrimId::Fst) || p->is(PrimId::Snd) || p->is(PrimId::Idx) ||
         p->is(PrimId::Let) || p->is(PrimId::MakePair) || p->is(PrimId::IndexAsNat) ||
         p->is(PrimId::NatAsIndex) || p->eval == eval_id;
}

}  // namespace

const std::vector<std::string>& InvariantFinder::free(const ExprNode* e) {
  auto it = free_.find(e);
  if (it != free_.end()) return it->second;
  std::vector<std::string> vs;
  auto add = [&](const std::vector<std::string>& more) {
    for (const std::string& v : more)
      if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
  };
  switch (e->kind) {
    case ExprKind::Ident:
      vs.push_back(e->name);
      break;
    case ExprKind::Lambda:
      add(free(e->fn.get()));
      std::erase(vs, e->name);
      break;
    case ExprKind::App:
      add(free(e->fn.get()));
      add(free(e->arg.get()));
      break;
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      add(free(e->fn.get()));
      break;
    default:
      break;
  }
  return free_.emplace(e, std::move(vs)).first->second;
}

bool InvariantFinder::heavy(const ExprNode* e) {
  auto it = heavy_.find(e);
  if (it != heavy_.end()) return it->second;
  bool h = false;
  switch (e->kind) {
    case ExprKind::Primitive:
      h = !cheap(e->prim);
      break;
    case ExprKind::App:
      h = heavy(e->fn.get()) || heavy(e->arg.get());
      break;
    case ExprKind::Lambda:
    case ExprKind::DepLambda:
    case ExprKind::DepApp:
    case ExprKind::Annotation:
      h = heavy(e->fn.get());
      break;
    default:
      break;
  }
  heavy_[e] = h;
  return h;
}

void InvariantFinder::count(const ExprNode* e, std::unordered_map<const ExprNode*, int>& seen) {
  if (++seen[e] > 1) return;
  if (e->fn) count(e->fn.get(), seen);
  if (e->kind == ExprKind::App && e->arg) count(e->arg.get(), seen);
}

std::vector<const ExprNode*> InvariantFinder::find(
    const ExprNode& lam, const std::function<bool(const ExprNode*)>& outer) {
  std::vector<const ExprNode*> found;
  std::unordered_map<const ExprNode*, int> seen;
  count(lam.fn.get(), seen);
  std::vector<std::string> bound{lam.name};
  auto walk = [&](auto& self, const ExprNode* e) -> void {
    if (outer(e)) return;
    if ((e->kind == ExprKind::App || e->kind == ExprKind::DepApp) && e->type && is_data(e->type) &&
        seen[e] == 1 && heavy(e)) {
      const auto& fv = free(e);
      if (std::none_of(fv.begin(), fv.end(), [&](const std::string& v) {
            return std::find(bound.begin(), bound.end(), v) != bound.end();
          })) {
        found.push_back(e);
        return;
      }
    }
    switch (e->kind) {
      case ExprKind::Lambda:
        bound.push_back(e->name);
        self(self, e->fn.get());
        bound.pop_back();
        return;
      case ExprKind::App:
        self(self, e->fn.get());
        self(self, e->arg.get());
        return;
      case ExprKind::DepApp:
      case ExprKind::Annotation:
        self(self, e->fn.get());
        return;
      default:  // leaves; a DepLambda's body may use its type-level variable
        return;
    }
  };
  walk(walk, lam.fn.get());
  return found;
}

}  // namespace risec::rise
