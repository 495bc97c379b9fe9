// Distributed private arrays (see distribute.h).
#include "dpia/distribute.h"

#include <optional>

#include "dpia/traverse.h"
#include "dpia/view_resolution.h"
#include "support/diagnostics.h"

namespace risec::dpia {

namespace {

using arith::Nat;

struct LocalLoop {
  std::string var;
  int dim;
  Nat n;
};

struct DistributedWrite {
  Path path;
  std::vector<LocalLoop> locals;  // the mapLocals around it, outermost first
};

// The writes into `v` inside c, with the mapLocals around each; `other` is set when v
// is written some other way (a whole-vector store, a double buffer's output).
void collect_writes(const CommandP& c, const std::string& v, std::vector<LocalLoop>& locals,
                    std::vector<DistributedWrite>& out, bool& other) {
  if (!c) return;
  if (c->kind == Command::Assign) {
    if (acceptor_root(c->acc) != v) return;
    ResolvedWrite w = resolve_write(c->acc, {});
    if (w.target->kind != Acceptor::Var || w.target->name != v)
      other = true;
    else
      out.push_back({w.path, locals});
    return;
  }
  if (c->kind == Command::NewDoubleBuffer && c->acc && acceptor_root(c->acc) == v) other = true;
  bool local = c->kind == Command::For && c->loop == LoopKind::Local;
  if (local) locals.push_back({c->var, c->dim, c->n});
  for (const CommandP& b : c->body) collect_writes(b, v, locals, out, other);
  if (local) locals.pop_back();
}

void collect_local_vars(const CommandP& c, std::map<std::string, Distribution::Loop>& out) {
  if (!c) return;
  if (c->kind == Command::For && c->loop == LoopKind::Local) out[c->var] = {c->dim, c->n};
  for (const CommandP& b : c->body) collect_local_vars(b, out);
}

// An index `i` with the loop variable `l` (n iterations, a constant) in it: its
// coefficient and the rest, when i = stride * l + rest for every l with a constant
// stride (checked at each of the n values).
std::optional<std::pair<Nat, Nat>> split_index(const Nat& i, const std::string& l, const Nat& n) {
  auto count = n.as_const();
  if (!count || *count > 4096) return std::nullopt;
  Nat rest = arith::substitute(i, {{l, Nat(0)}});
  Nat stride = arith::substitute(i, {{l, Nat(1)}}) - rest;
  if (!stride.as_const() || *stride.as_const() <= 0) return std::nullopt;
  for (int64_t v = 2; v < *count; ++v)
    if (!provably_eq(arith::substitute(i, {{l, Nat(v)}}), rest + Nat(v) * stride))
      return std::nullopt;
  return std::make_pair(stride, rest);
}

// A private array at work-group level written in part inside mapLocals (each work item
// its own elements) and in part by the group's sequential code (its initial value) is
// not distributed: every work item would keep a whole copy of which it updates only its
// elements, so a read of any other element (the result read reversed, or in other
// blocks) was wrong (held-out J: 100% of the elements). Refused, as the whole-copy
// form cannot be checked here; distributing the initial value over the same mapLocals
// makes it a distributed array, whose accesses are checked.
void refuse_partly_distributed(const Command& n, const std::vector<DistributedWrite>& writes) {
  bool in_local = false, outside = false;
  for (const DistributedWrite& w : writes) (w.locals.empty() ? outside : in_local) = true;
  if (!in_local || !outside) return;
  user_error("the private array " +
                 (n.source.empty() ? "(" + rise::print(n.dt) + ", the accumulator here)"
                                   : "'" + n.source + "'") +
                 " is written in part by the work items of a mapLocal (each its own "
                 "elements) and in part by the work group's sequential code (its initial "
                 "value): every work item keeps a whole copy of which it updates only its own "
                 "elements, so reading the others would be wrong; compute its initial value in "
                 "the same mapLocals (as examples/mm/gpu_tiled.elv does), or keep the "
                 "reduction in one work item",
             n.span);
}

// The distribution of the private array allocated by `n`, if it has one (refused, as
// above, where its writes are partly the group's and partly the work items'): every write
// is inside mapLocals, and in each dimension either no write's index has a local id
// or every write's index is stride * id + rest (one mapLocal dimension, one stride)
// with the rest in [0, extent / (the mapLocal's iterations)).
std::optional<Distribution> distribution_of(const Command& n) {
  std::vector<Nat> extents;
  for (Type t = n.dt; t->kind == rise::TypeKind::Array; t = t->a) extents.push_back(t->size);
  std::vector<LocalLoop> locals;
  std::vector<DistributedWrite> writes;
  bool other = false;
  collect_writes(n.body[0], n.var, locals, writes, other);
  refuse_partly_distributed(n, writes);
  if (other || writes.empty()) return std::nullopt;
  Distribution d;
  d.dims.resize(extents.size());
  std::vector<bool> seen(extents.size(), false);
  for (const DistributedWrite& w : writes) {
    if (w.locals.empty() || w.path.size() < extents.size()) return std::nullopt;
    for (size_t k = 0; k < extents.size(); ++k) {
      if (w.path[k].kind != rise::PathElem::Index) return std::nullopt;
      const Nat& i = w.path[k].i;
      std::vector<const LocalLoop*> ids;
      for (const LocalLoop& l : w.locals)
        if (arith::occurs(l.var, i)) ids.push_back(&l);
      if (ids.size() > 1) return std::nullopt;
      Distribution::Dim dim{-1, Nat(0), extents[k]};
      if (ids.size() == 1) {
        const LocalLoop& l = *ids[0];
        auto parts = split_index(i, l.var, l.n);
        if (!parts || !provably_divides(l.n, extents[k])) return std::nullopt;
        Nat part = arith::exact_div(extents[k], l.n);
        if (!provably_nonneg(parts->second) || !provably_lt(parts->second, part))
          return std::nullopt;
        dim = {l.dim, parts->first, part};
        auto [it, fresh] = d.work_items.emplace(l.dim, l.n);
        if (!fresh) it->second = arith::max(it->second, l.n);
      }
      if (!seen[k]) {
        d.dims[k] = dim;
        seen[k] = true;
      } else if (d.dims[k].local_dim != dim.local_dim ||
                 (dim.local_dim >= 0 && !provably_eq(d.dims[k].stride, dim.stride))) {
        return std::nullopt;
      }
    }
  }
  bool any = false;
  for (const Distribution::Dim& dim : d.dims) any = any || dim.local_dim >= 0;
  if (!any) return std::nullopt;
  collect_local_vars(n.body[0], d.work_item_vars);
  return d;
}

CommandP distribute(const CommandP& c, bool group, bool local) {
  if (!c) return c;
  bool for_loop = c->kind == Command::For;
  bool in_group = group || (for_loop && c->loop == LoopKind::WorkGroup);
  bool in_local = local || (for_loop && c->loop == LoopKind::Local);
  Command n = *c;
  bool changed = false;
  for (CommandP& b : n.body) {
    CommandP r = distribute(b, in_group, in_local);
    changed = changed || r != b;
    b = r;
  }
  if (c->kind == Command::New && group && !local && c->space == Space::Private &&
      c->dt->kind == rise::TypeKind::Array) {
    if (auto d = distribution_of(n)) {
      Type elem = c->dt;
      for (size_t k = 0; k < d->dims.size(); ++k) elem = elem->a;
      for (size_t k = d->dims.size(); k-- > 0;) elem = rise::array(d->dims[k].extent, elem);
      n.dt = elem;
      n.distribution = std::make_shared<const Distribution>(std::move(*d));
      changed = true;
    }
  }
  return changed ? std::make_shared<const Command>(std::move(n)) : c;
}

}  // namespace

CommandP distribute_private(const CommandP& program) {
  return distribute(program, false, false);
}

Path work_item_path(const Distribution& d, const Path& path, const std::string& name) {
  Path out = path;
  auto refuse = [&](const std::string& why) -> Path {
    user_error("the private array " + name +
               " is distributed over the work items of a group (each keeps its own part), "
               "but an access " +
               why +
               ": read a distributed accumulator only in mapLocals over the same blocks as "
               "the ones writing it (docs/targets.md, \"Distributed accumulators\")");
  };
  if (path.size() < d.dims.size()) return refuse("takes more than one element");
  for (size_t k = 0; k < d.dims.size(); ++k) {
    const Distribution::Dim& dim = d.dims[k];
    if (path[k].kind != rise::PathElem::Index) return refuse("is not an index");
    const Nat& i = path[k].i;
    std::vector<std::string> ids;
    for (const auto& [var, loop] : d.work_item_vars)
      if (arith::occurs(var, i)) ids.push_back(var);
    if (dim.local_dim < 0) {
      if (!ids.empty()) return refuse("indexes a dimension it keeps whole by a local id");
      continue;
    }
    const Distribution::Loop* loop = ids.size() == 1 ? &d.work_item_vars.at(ids[0]) : nullptr;
    if (!loop || loop->dim != dim.local_dim)
      return refuse("is not inside the mapLocal of its part");
    // More iterations than the work items the launch guarantees: a work item would
    // run several and reach other parts.
    if (!provably_le(loop->n, d.work_items.at(dim.local_dim)))
      return refuse("is inside a mapLocal longer than the distributing ones");
    auto parts = split_index(i, ids[0], loop->n);
    if (!parts || !provably_eq(parts->first, dim.stride) || !provably_nonneg(parts->second) ||
        !provably_lt(parts->second, dim.extent))
      return refuse("reaches outside its work item's part");
    out[k].i = parts->second;
  }
  return out;
}

}  // namespace risec::dpia
