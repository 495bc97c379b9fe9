// Index-set splitting (see split_loop.h).
#include "dpia/split_loop.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "dpia/traverse.h"
#include "dpia/unroll.h"

namespace risec::dpia {

using arith::Nat;

namespace {

// Where `d` (linear in `var` with a constant integer coefficient c, as a strided
// index minus a bound is: 2*i + 4 - 2047) changes sign when its root is not an
// integer: the first integer above the root, ceil(-d(0) / c). Below it d has one sign,
// from it on the other, so a clamp or guard over d is constant on each side. None
// when d is not of that form.
std::optional<Nat> integer_crossing(const Nat& d, const Nat& var) {
  const std::string& v = var.var_name();
  Nat d0 = arith::substitute(d, {{v, Nat(0)}});
  std::optional<int64_t> c = (arith::substitute(d, {{v, Nat(1)}}) - d0).as_const();
  if (!c || *c == 0 || d != d0 + Nat(*c) * var) return std::nullopt;
  // ceil(-d0 / c) = floor((-d0 + c - 1) / c) for c > 0, floor((d0 - c - 1) / -c) for c < 0.
  if (*c > 0) return arith::floordiv(-d0 + Nat(*c - 1), Nat(*c));
  return arith::floordiv(d0 + Nat(-*c - 1), Nat(-*c));
}

}  // namespace

void collect_breakpoints(const Nat& t, const Nat& var, std::vector<Nat>& out) {
  const arith::Node& n = t.node();
  if ((n.kind == arith::Kind::Min || n.kind == arith::Kind::Max) &&
      arith::occurs(var.var_name(), t)) {
    arith::Solution s = arith::solve(n.args[0], n.args[1], var.var_name());
    if (s.status == arith::Solution::Status::Solved && s.conditions.empty()) {
      // Below the point one side is smaller, from it on the other (or equal).
      out.push_back(s.value);
    } else if (std::optional<Nat> p = integer_crossing(n.args[0] - n.args[1], var)) {
      out.push_back(*p);  // a strided index: the sides cross between two integers
    }
  }
  for (const auto& [c, m] : n.terms) collect_breakpoints(m, var, out);
  for (const Nat& a : n.args) collect_breakpoints(a, var, out);
}

void collect_breakpoints(const arith::Cond& c, const Nat& var, std::vector<Nat>& out) {
  const arith::CondNode& n = c.node();
  for (const arith::Cond& a : n.args) collect_breakpoints(a, var, out);
  if (n.kind != arith::CondKind::Lt && n.kind != arith::CondKind::Le &&
      n.kind != arith::CondKind::Eq)
    return;
  Nat d = n.a - n.b;
  if (!arith::occurs(var.var_name(), d)) return;
  arith::Solution s = arith::solve(n.a, n.b, var.var_name());
  if (s.status != arith::Solution::Status::Solved || !s.conditions.empty()) {
    // No integer root: a strided index crosses the bound between two integers, and
    // a < b, a <= b change value at the first integer above the root (a == b never
    // holds).
    if (n.kind == arith::CondKind::Eq) return;
    if (std::optional<Nat> p = integer_crossing(d, var)) out.push_back(*p);
    return;
  }
  // a - b is zero at s; its sign just after s says on which side the comparison holds.
  Nat after = arith::substitute(d, {{var.var_name(), s.value + Nat(1)}});
  bool increasing = arith::provably_lt(Nat(0), after);
  if (!increasing && !arith::provably_lt(after, Nat(0))) return;
  if (n.kind == arith::CondKind::Eq) {
    out.push_back(s.value);
    out.push_back(s.value + Nat(1));
  } else if ((n.kind == arith::CondKind::Lt) == increasing) {
    out.push_back(s.value);  // a < b up to s (excluded), or a <= b from s on
  } else {
    out.push_back(s.value + Nat(1));  // a <= b up to s (included), or a < b after s
  }
}

namespace {

bool has_parallel_loop(const CommandP& c) {
  if (c->kind == Command::For && c->loop == LoopKind::Par) return true;
  for (const CommandP& b : c->body)
    if (has_parallel_loop(b)) return true;
  return false;
}

// The size variables the body binds itself: inner loops' variables, the element
// variables of generate and map views, and Nat functions' parameters. A split point
// of the loop may not mention them, as its parts' bounds are printed before the body
// (outside the scope where they exist); a clamp against an inner loop's variable
// changes side inside that loop, not at a point of this one.
std::set<std::string> bound_inside(const CommandP& body) {
  struct Binders : Visitor {
    std::set<std::string> names;
    void visit_command(const Command& c) override {
      if (c.kind == Command::For) names.insert(c.var);
      Visitor::visit_command(c);
    }
    void visit_expression(const Expression& e) override {
      if (e.kind == Expression::Generate || e.kind == Expression::MapView) names.insert(e.name);
      Visitor::visit_expression(e);
    }
    void visit_fn(const rise::NatFun& f) override { names.insert(f.param); }
  } binders;
  binders.visit(body);
  return binders.names;
}

bool mentions_any(const Nat& p, const std::set<std::string>& names) {
  for (const auto& [name, v] : arith::free_vars(p))
    if (names.count(name)) return true;
  return false;
}

using InnerRanges = std::map<std::string, std::pair<int64_t, int64_t>>;

// The constant ranges [lo, hi) of the body's own loops (a tile's inner loops).
InnerRanges inner_loop_ranges(const CommandP& body) {
  struct Loops : Visitor {
    InnerRanges ranges;
    void visit_command(const Command& c) override {
      if (c.kind == Command::For)
        if (std::optional<int64_t> n = c.n.as_const(); n && *n > 0) ranges[c.var] = {0, *n};
      Visitor::visit_command(c);
    }
  } loops;
  loops.visit(body);
  return loops.ranges;
}

// The ends of the inner loops' ranges that `d` depends on: one substitution per corner
// (each inner variable at its first or its last value), when d is linear in each with
// a constant coefficient, so that d's extremes over the tile are at those corners;
// none when d has no inner variable, or more than two.
std::vector<arith::Substitution> tile_corners(const Nat& d, const InnerRanges& inner) {
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> us;
  for (const auto& [name, v] : arith::free_vars(d)) {
    auto it = inner.find(name);
    if (it == inner.end()) continue;
    const Nat d0 = arith::substitute(d, {{name, Nat(0)}});
    std::optional<int64_t> c = (arith::substitute(d, {{name, Nat(1)}}) - d0).as_const();
    if (!c || d != d0 + Nat(*c) * v) return {};
    us.emplace_back(name, it->second);
  }
  std::vector<arith::Substitution> out;
  if (us.empty() || us.size() > 2) return out;
  for (size_t mask = 0; mask < (size_t{1} << us.size()); ++mask) {
    arith::Substitution ends;
    for (size_t k = 0; k < us.size(); ++k)
      ends[us[k].first] = Nat((mask >> k) & 1 ? us[k].second.second - 1 : us[k].second.first);
    out.push_back(std::move(ends));
  }
  return out;
}

// The points of `var` (a loop over tiles) where a clamp that also depends on the
// tile's inner loop variables stops changing side inside the tile: the clamp's two
// sides taken at each corner of the inner ranges (tile_corners); each corner's
// crossing is a point. Between two points the clamp keeps its side for every inner
// iteration, so a middle part of the tile loop has plain indices and its inner loop
// vectorises (a tiled stencil with clamped borders: tiles 1 .. T-2 never clamp).
void collect_tile_breakpoints(const Nat& t, const Nat& var, const InnerRanges& inner,
                              std::vector<Nat>& out) {
  const arith::Node& n = t.node();
  if ((n.kind == arith::Kind::Min || n.kind == arith::Kind::Max) &&
      arith::occurs(var.var_name(), t))
    for (const arith::Substitution& ends : tile_corners(n.args[0] - n.args[1], inner))
      collect_breakpoints(
          arith::max(arith::substitute(n.args[0], ends), arith::substitute(n.args[1], ends)), var,
          out);
  for (const auto& [c, m] : n.terms) collect_tile_breakpoints(m, var, inner, out);
  for (const Nat& a : n.args) collect_tile_breakpoints(a, var, inner, out);
}

// The same for a guard of a padded read (padCst, concat): where its comparison stops
// changing value inside the tile.
void collect_tile_breakpoints(const arith::Cond& c, const Nat& var, const InnerRanges& inner,
                              std::vector<Nat>& out) {
  const arith::CondNode& n = c.node();
  for (const arith::Cond& a : n.args) collect_tile_breakpoints(a, var, inner, out);
  if (n.kind != arith::CondKind::Lt && n.kind != arith::CondKind::Le &&
      n.kind != arith::CondKind::Eq)
    return;
  if (!arith::occurs(var.var_name(), n.a - n.b)) return;
  for (const arith::Substitution& ends : tile_corners(n.a - n.b, inner)) {
    const Nat a = arith::substitute(n.a, ends), b = arith::substitute(n.b, ends);
    collect_breakpoints(n.kind == arith::CondKind::Lt   ? arith::lt(a, b)
                        : n.kind == arith::CondKind::Le ? arith::le(a, b)
                                                        : arith::eq(a, b),
                        var, out);
  }
}

}  // namespace

std::optional<std::vector<LoopPart>> split_at_clamps(
    const Command& c, const BodyIndices& body_indices,
    const std::function<std::string(const std::string&)>& part_name, bool tiles) {
  if (c.exits || has_parallel_loop(c.body[0])) return std::nullopt;
  Nat var = Nat::var(c.var, Nat(0), c.n);
  std::vector<Nat> raw;
  struct Collect : Visitor {
    const Nat& var;
    std::vector<Nat>& out;
    Collect(const Nat& v, std::vector<Nat>& o) : var(v), out(o) {}
    void visit_nat(const Nat& n) override { collect_breakpoints(n, var, out); }
  } collect(var, raw);
  collect.visit(c.body[0]);
  // Clamps also appear while views are resolved (padClamp).
  BodyAccesses accesses = body_indices(c.body[0]);
  for (const Nat& f : accesses.indices) collect_breakpoints(f, var, raw);
  // Guards of padCst and concat reads.
  for (const arith::Cond& g : accesses.guards) collect_breakpoints(g, var, raw);
  // Keep points provably inside (0, n), distinct and totally ordered, that mention only
  // sizes and variables bound outside the loop; none when there are more than 6.
  const std::set<std::string> inner = bound_inside(c.body[0]);
  auto usable = [&](const std::vector<Nat>& found) -> std::optional<std::vector<Nat>> {
    std::vector<Nat> kept;
    for (const Nat& p : found) {
      if (mentions_any(p, inner)) continue;
      if (!arith::provably_lt(Nat(0), p) || !arith::provably_lt(p, c.n)) continue;
      bool dup = false;
      for (const Nat& q : kept) dup |= (q == p);
      if (!dup) kept.push_back(p);
    }
    if (kept.empty() || kept.size() > 6) return std::nullopt;
    for (size_t i = 0; i < kept.size(); ++i)
      for (size_t j = i + 1; j < kept.size(); ++j)
        if (!arith::provably_lt(kept[i], kept[j]) && !arith::provably_lt(kept[j], kept[i]))
          return std::nullopt;
    return kept;
  };
  // A loop over tiles: also where its inner loops' clamps stop changing side (the
  // plain points alone where the two together are not usable).
  std::optional<std::vector<Nat>> chosen;
  if (tiles) {
    const auto ranges = inner_loop_ranges(c.body[0]);
    if (!ranges.empty()) {
      std::vector<Nat> with_tiles = raw;
      struct CollectTiles : Visitor {
        const Nat& var;
        const InnerRanges& ranges;
        std::vector<Nat>& out;
        CollectTiles(const Nat& v, const InnerRanges& r, std::vector<Nat>& o)
            : var(v), ranges(r), out(o) {}
        void visit_nat(const Nat& n) override { collect_tile_breakpoints(n, var, ranges, out); }
      } tile_points(var, ranges, with_tiles);
      tile_points.visit(c.body[0]);
      for (const Nat& f : accesses.indices) collect_tile_breakpoints(f, var, ranges, with_tiles);
      for (const arith::Cond& g : accesses.guards)
        collect_tile_breakpoints(g, var, ranges, with_tiles);
      if (with_tiles.size() > raw.size()) chosen = usable(with_tiles);
    }
  }
  if (!chosen) chosen = usable(raw);
  if (!chosen) return std::nullopt;
  std::vector<Nat> points = std::move(*chosen);
  std::sort(points.begin(), points.end(),
            [](const Nat& a, const Nat& b) { return arith::provably_lt(a, b); });
  std::vector<Nat> bounds{Nat(0)};
  bounds.insert(bounds.end(), points.begin(), points.end());
  bounds.push_back(c.n);
  std::vector<LoopPart> parts;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    Nat lo = bounds[k], len = bounds[k + 1] - bounds[k];
    // The part's own variable, from 0, with the original one at lo + it.
    std::string part = c.var + "_" + std::to_string(k);
    if (part_name) part = part_name(part);
    Nat pv = Nat::var(part, Nat(0), len);
    CommandP body = substitute_nat(c.body[0], c.var, lo + pv);
    if (len.is_const(1)) body = substitute_nat(body, part, Nat(0));
    // Substitution can make inner loops unrollable (one iteration, a constant count).
    parts.push_back(LoopPart{part, len, unroll(body)});
  }
  return parts;
}

}  // namespace risec::dpia
