// Access strides of vector reads (see lane_stride.h).
#include "driver/lane_stride.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::driver {

namespace {

using rise::Expr;
using rise::ExprKind;
using rise::PrimId;
using rise::TypeKind;

// A read resolved to its source: the variable it reads and the row-major index.
struct Flat {
  std::string source;
  int64_t index = 0;
};

std::optional<int64_t> size_of(const rise::Type& t) {
  if (!t || (t->kind != TypeKind::Array && t->kind != TypeKind::Vector)) return std::nullopt;
  return t->size.as_const();
}

class Resolver {
 public:
  explicit Resolver(const LaneEnv& env) : bound_(env) {}
  // e[path...] as a read of a variable, or nullopt.
  std::optional<Flat> at(const Expr& e, std::vector<int64_t> path) {
    if (++steps_ > 10000 || !e) return std::nullopt;
    if (e->kind == ExprKind::Ident) {
      if (auto b = bound_.find(e->name); b != bound_.end()) {
        std::vector<int64_t> p = b->second.second;
        p.insert(p.end(), path.begin(), path.end());
        const Expr bound = b->second.first;
        return at(bound, std::move(p));
      }
      // a variable: an input or a stored array, row-major (vectors' lanes innermost)
      int64_t flat = 0;
      rise::Type t = e->type;
      for (int64_t i : path) {
        std::optional<int64_t> n = size_of(t);
        if (!n || i < 0 || i >= *n) return std::nullopt;
        flat = flat * *n + i;
        t = t->a;
      }
      for (; t && (t->kind == TypeKind::Array || t->kind == TypeKind::Vector); t = t->a) {
        std::optional<int64_t> n = size_of(t);
        if (!n) return std::nullopt;
        flat *= *n;
      }
      return Flat{e->name, flat};
    }
    std::optional<elevate::util::PrimCall> c = elevate::util::as_prim_call(e);
    if (!c || !c->head->prim || static_cast<int>(c->args.size()) != c->head->prim->arity)
      return std::nullopt;
    const Expr& x = c->args.back();
    auto need = [&](size_t k) { return path.size() >= k; };
    auto inner = [&](const rise::Type& t) { return t ? size_of(t->a) : std::nullopt; };
    switch (c->id()) {
      case PrimId::Split: {  // split(k)(x)[i][j] = x[i k + j]
        std::optional<int64_t> k = inner(e->type);
        if (!need(2) || !k) return std::nullopt;
        path[1] += path[0] * *k;
        path.erase(path.begin());
        return at(x, std::move(path));
      }
      case PrimId::Join: {  // join(x)[i] = x[i / m][i % m]
        std::optional<int64_t> m = inner(x->type);
        if (!need(1) || !m || *m <= 0) return std::nullopt;
        const int64_t i = path[0];
        path[0] = i % *m;
        path.insert(path.begin(), i / *m);
        return at(x, std::move(path));
      }
      case PrimId::AsVector:
      case PrimId::AsVectorAligned: {  // asVector(n)(x)[i][l] = x[i n + l]
        std::optional<int64_t> n = inner(e->type);
        if (!need(2) || !n) return std::nullopt;
        path[1] += path[0] * *n;
        path.erase(path.begin());
        return at(x, std::move(path));
      }
      case PrimId::Transpose:
        if (!need(2)) return std::nullopt;
        std::swap(path[0], path[1]);
        return at(x, std::move(path));
      case PrimId::Slide: {  // slide(sz)(sp)(x)[i][j] = x[i sp + j]
        std::optional<rise::Nat> sp = c->dep_nat(1);
        const int64_t step = sp ? sp->as_const().value_or(-1) : -1;
        if (!need(2) || step < 0) return std::nullopt;
        path[1] += path[0] * step;
        path.erase(path.begin());
        return at(x, std::move(path));
      }
      case PrimId::PadClamp:
      case PrimId::PadCst:
      case PrimId::Drop: {  // x[i - l] (a pad's border is not asked for: middle indices)
        std::optional<rise::Nat> l = c->dep_nat(0);
        const int64_t by = l ? l->as_const().value_or(-1) : -1;
        std::optional<int64_t> n = size_of(x->type);
        if (!need(1) || by < 0 || !n) return std::nullopt;
        path[0] += c->is(PrimId::Drop) ? by : -by;
        if (path[0] < 0 || path[0] >= *n) return std::nullopt;
        return at(x, std::move(path));
      }
      case PrimId::Take:
        return at(x, std::move(path));
      case PrimId::Idx: {
        std::optional<double> i = elevate::util::literal_value(c->args[0]);
        if (!i) return std::nullopt;
        path.insert(path.begin(), static_cast<int64_t>(*i));
        return at(x, std::move(path));
      }
      default:
        break;
    }
    // a map of views: map(fun(a => body))(x)[i][rest] = body[rest] with a = x[i]
    if (c->head->prim->family == rise::Family::Map && c->args.size() == 2 &&
        c->args[0]->kind == ExprKind::Lambda && need(1)) {
      const Expr& f = c->args[0];
      auto saved = bound_.find(f->name) != bound_.end()
                       ? std::optional<std::pair<Expr, std::vector<int64_t>>>(bound_[f->name])
                       : std::nullopt;
      bound_[f->name] = {x, {path[0]}};
      path.erase(path.begin());
      std::optional<Flat> r = at(f->fn, std::move(path));
      if (saved)
        bound_[f->name] = *saved;
      else
        bound_.erase(f->name);
      return r;
    }
    return std::nullopt;
  }

 private:
  LaneEnv bound_;
  int steps_ = 0;
};

}  // namespace

std::optional<int64_t> lane_stride(const rise::Expr& xs, const LaneEnv& env) {
  // the path to an element in the middle of every dimension, down to the first
  // vector; its lane 0 and lane 1
  std::vector<int64_t> path;
  rise::Type t = xs ? xs->type : nullptr;
  for (; t && t->kind == TypeKind::Array; t = t->a) {
    std::optional<int64_t> n = size_of(t);
    if (!n || *n <= 0) return std::nullopt;
    path.push_back(*n / 2);
  }
  if (!t || t->kind != TypeKind::Vector) return std::nullopt;
  std::vector<int64_t> second = path;
  path.push_back(0);
  second.push_back(1);
  Resolver r(env);
  std::optional<Flat> a = r.at(xs, path), b = r.at(xs, second);
  if (!a || !b || a->source != b->source) return std::nullopt;
  return b->index - a->index;
}

}  // namespace risec::driver
