// View resolution (see view_resolution.h).
#include "dpia/view_resolution.h"

namespace risec::dpia {

using arith::Nat;
using rise::path_index;
using rise::path_need_index;
using rise::path_prepend;
using rise::path_rest;

namespace {

ResolvedReadP leaf(const ExpressionP& e, const Path& p) {
  auto r = std::make_shared<ResolvedRead>();
  r->source = e;
  r->path = p;
  return r;
}

ResolvedReadP choice(const arith::Cond& g, ResolvedReadP then, ResolvedReadP orelse) {
  auto r = std::make_shared<ResolvedRead>();
  r->guard = g;
  r->then = std::move(then);
  r->orelse = std::move(orelse);
  return r;
}

// The alternatives of a view from `from` on: a guard known to hold or to fail
// decides without a choice.
ResolvedReadP alternatives(const Expression& e, const std::vector<rise::ViewAccess>& alts,
                           size_t from) {
  if (from >= alts.size()) internal_error("view resolution: " + e.prim->name + " reads nothing");
  const rise::ViewAccess& a = alts[from];
  auto input = [&](const rise::ViewAccess& x) {
    return resolve_read(e.args.at(static_cast<size_t>(x.input)), x.path);
  };
  if (from + 1 == alts.size()) return input(a);
  if (auto c = a.guard.as_const()) return *c ? input(a) : alternatives(e, alts, from + 1);
  return choice(a.guard, input(a), alternatives(e, alts, from + 1));
}

}  // namespace

ResolvedReadP resolve_read(const ExpressionP& e, const Path& p) {
  switch (e->kind) {
    case Expression::Idx:
      return resolve_read(e->args[0], path_prepend(path_index(e->idx), p));
    case Expression::View: {
      rise::ViewSite site{e->nats, e->funs, {}, e->dt};
      for (const ExpressionP& a : e->args) site.inputs.push_back(a->dt);
      return alternatives(*e, e->prim->read(site, p), 0);
    }
    case Expression::MkPair:
      if (p.empty() || p[0].kind == PathElem::Index)
        internal_error("view resolution: pair used without projection");
      return resolve_read(p[0].kind == PathElem::Fst ? e->args[0] : e->args[1], path_rest(p, 1));
    case Expression::Fst:
      return resolve_read(e->args[0], path_prepend(PathElem{PathElem::Fst, Nat(0)}, p));
    case Expression::Snd:
      return resolve_read(e->args[0], path_prepend(PathElem{PathElem::Snd, Nat(0)}, p));
    case Expression::AsVector:
      // One lane of a vector element is a scalar of the input.
      if (p.size() >= 2) {
        Nat i = path_need_index(p, 0, rise::PrimId::AsVector);
        return resolve_read(e->args[0],
                            path_prepend(path_index(i * e->n + p[1].i), path_rest(p, 2)));
      }
      return leaf(e, p);
    case Expression::Broadcast:
      // Every lane of a broadcast vector is its scalar.
      if (!p.empty()) return resolve_read(e->args[0], path_rest(p, 1));
      return leaf(e, p);
    default:
      return leaf(e, p);
  }
}

ResolvedWrite resolve_write(const AcceptorP& a0, const Path& p0, const DynamicIndex& dynamic) {
  AcceptorP a = a0;
  Path p = p0;
  for (;;) {
    switch (a->kind) {
      case Acceptor::Var:
        return {a, p};
      case Acceptor::Idx:
        p = path_prepend(path_index(a->idx), p);
        a = a->inner;
        break;
      case Acceptor::View: {
        rise::ViewSite site{a->nats, a->funs, a->inputs, a->inner->dt};
        p = a->prim->write(site, a->input, p);
        a = a->inner;
        break;
      }
      case Acceptor::Pair1:
      case Acceptor::Pair2:
        p = path_prepend(
            PathElem{a->kind == Acceptor::Pair1 ? PathElem::Fst : PathElem::Snd, Nat(0)}, p);
        a = a->inner;
        break;
      case Acceptor::AsVector: {
        // A whole vector is the backend's store; one lane is a scalar of the buffer.
        if (p.size() < 2) return {a, p};
        Nat i = path_need_index(p, 0, "asVectorAcc");
        p = path_prepend(path_index(i * a->n + p[1].i), path_rest(p, 2));
        a = a->inner;
        break;
      }
      case Acceptor::MapView: {
        Nat i = path_need_index(p, 0, "mapAcc");
        a = ac_idx(a, i);
        p = path_rest(p, 1);
        break;
      }
      case Acceptor::Hole:
        internal_error("view resolution: a map-view template outside its map");
      case Acceptor::Scatter: {
        if (!dynamic) internal_error("view resolution: a scatter destination without its indices");
        Nat i = path_need_index(p, 0, "scatterAcc");
        p = path_prepend(path_index(dynamic(*a, i)), path_rest(p, 1));
        a = a->inner;
        break;
      }
    }
  }
}

Nat flat_index(const std::vector<Nat>& dims, const Path& path, const std::string& what) {
  if (path.size() < dims.size())
    internal_error("view resolution: partial access to " + what + " (" +
                   std::to_string(path.size()) + " of " + std::to_string(dims.size()) +
                   " indices)");
  Nat flat(0);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (path[k].kind != PathElem::Index) internal_error("view resolution: projection on an array");
    flat = flat * dims[k] + path[k].i;
  }
  return flat;
}

}  // namespace risec::dpia
