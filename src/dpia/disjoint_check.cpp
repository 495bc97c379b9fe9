// The disjoint-writes check (see disjoint_check.h): one walk over imperative DPIA that
// keeps the loops and allocations around each write, resolves the write to its memory
// and place, and records it for every parallel loop between the allocation and the
// write; each loop's writes are then compared pairwise with arith's range reasoning.
#include "dpia/disjoint_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dpia/distribute.h"
#include "dpia/traverse.h"
#include "dpia/view_resolution.h"
#include "support/diagnostics.h"

namespace risec::dpia {

namespace {

using arith::Nat;

bool is_parallel(LoopKind k) {
  return k == LoopKind::Par || is_gpu_loop(k);
}

// One part of a written place: a run of array dimensions flattened to one index (the
// place covers [index, index + width)), or a pair component. Vector lanes are left out:
// a lane is inside its vector's place.
struct Seg {
  enum Kind { Flat, Fst, Snd } kind = Flat;
  Nat index, width;
  bool usable = true;  // false: not a place to compare (a dimension under a vector store)
};

// A usable Flat segment of a place, to compare: [index, index + width).
struct Run {
  Nat index, width;
};

struct Place {
  std::vector<Seg> segs;
  bool unknown = false;  // a destination the check cannot resolve: it meets everything
};

struct LoopWrite {
  std::string memory;
  Place place;
  std::vector<const Command*> loops;                // the loops around it, outermost first
  std::vector<std::pair<std::string, Nat>> opaque;  // data-dependent indices (scatter)
};

struct Alloc {
  size_t depth = 0;          // the loops around the allocation
  bool local = false;        // GPU local memory (shared by a work group)
  bool private_ = false;     // GPU private memory (one work item's own)
  bool distributed = false;  // private, distributed over the work items (distribute.h)
  // A reduction's accumulator at work-group level, which the address-space check
  // accepts written by mapLocals only as a distributed accumulator (each work item
  // keeps a copy and touches only its own blocks of it).
  bool group_accumulator = false;
};

// A write to shared memory that several work items of a launch run alike (it is
// outside the loop over one of the launch's dimensions).
struct Redundant {
  LoopWrite write;
  std::string missing;          // the loop it is outside of, "mapGlobal(0)"
  const Command* innermost;     // the GPU loop it is inside of
  std::set<std::string> reads;  // the memory its value reads
  bool local = false;
};

// The work items a GPU launch runs: per level (WorkGroup, Local, Global), the
// dimensions its loops spread them over; the write sites per memory in it.
struct Launch {
  std::set<std::pair<LoopKind, int>> dims;
  std::map<std::string, int> sites;
  std::vector<Redundant> redundant;
};

// The memory an expression (or an acceptor's data-dependent indices) reads.
struct Reads : Visitor {
  std::set<std::string> names;
  void visit_expression(const Expression& e) override {
    if (e.kind == Expression::Var) names.insert(e.name);
    Visitor::visit_expression(e);
  }
};

std::string loop_name(const Command& c) {
  std::string name = c.origin ? c.origin->name : std::string(loop_kind_name(c.loop));
  if (is_gpu_loop(c.loop)) name += "(" + std::to_string(c.dim) + ")";
  return name;
}

// A refusal of the loop `l`: located at the primitive that made it parallel (in the
// program), and naming the strategy step that introduced that primitive, when a
// strategy did (rise::ExprNode::step), where the user would change the mapping.
Error refusal(const Command& l, std::string message) {
  std::string step = location(l.step);
  if (!step.empty())
    message += " (the " + loop_name(l) + " was made by the strategy step at " + step + ")";
  return Error(ErrorKind::User, std::move(message), l.span);
}

std::string loop_at(const Command& c) {
  std::string loc = location(c.span);
  return "the " + loop_name(c) + (loc.empty() ? "" : " at " + loc);
}

// The map primitive of a GPU level (mapGlobal, mapWorkGroup, mapLocal), from the table.
std::string level_word(LoopKind k) {
  for (const rise::PrimitiveInfo& p : rise::primitives())
    if (p.family == rise::Family::Map && p.loop == k) return p.name;
  return loop_kind_name(k);
}

class DisjointChecker {
 public:
  void walk(const CommandP& c) {
    if (!c) return;
    switch (c->kind) {
      case Command::For: {
        loops_.push_back(c.get());
        if (is_parallel(c->loop)) order_.push_back(c.get());
        if (is_gpu_loop(c->loop) && !launch_) launch_ = launch_of(*c);
        walk(c->body[0]);
        loops_.pop_back();
        if (gpu_depth() == 0 && launch_) {
          end_launch(*launch_);
          launch_.reset();
        }
        return;
      }
      case Command::New: {
        Alloc a;
        a.depth = loops_.size();
        bool kernel = gpu_depth() > 0;
        a.local = kernel && c->space == Space::Local;
        a.private_ = kernel && c->space != Space::Local;
        a.distributed = c->distribution != nullptr;
        a.group_accumulator =
            a.private_ && c->origin && c->origin->family == rise::Family::Reduce && in_group_only();
        allocs_[c->var] = a;
        walk(c->body[0]);
        allocs_.erase(c->var);
        return;
      }
      case Command::NewDoubleBuffer: {
        // The two buffers are allocated here; the output buffer's last writes land in
        // the command's output memory, so they count as writes there.
        Alloc a;
        a.depth = loops_.size();
        allocs_[double_buffer_in(c->var)] = a;
        allocs_[double_buffer_out(c->var)] = a;
        if (c->acc) alias_[double_buffer_out(c->var)] = acceptor_root(c->acc);
        for (const CommandP& b : c->body) walk(b);
        allocs_.erase(double_buffer_in(c->var));
        allocs_.erase(double_buffer_out(c->var));
        alias_.erase(double_buffer_out(c->var));
        return;
      }
      case Command::Assign:
        record(*c);
        return;
      default:
        for (const CommandP& b : c->body) walk(b);
        return;
    }
  }

  // Every parallel loop's writes compared, outer loops first.
  void finish() const {
    for (const Command* l : order_) {
      auto it = writes_.find(l);
      if (it == writes_.end()) continue;
      check_loop(*l, it->second);
    }
  }

 private:
  std::vector<const Command*> loops_;
  std::vector<const Command*> order_;  // parallel loops in pre-order
  std::map<std::string, Alloc> allocs_;
  std::map<std::string, std::string> alias_;
  std::map<const Command*, std::vector<LoopWrite>> writes_;
  std::optional<Launch> launch_;
  int opaque_ = 0;

  // Inside a mapWorkGroup, outside its mapLocals: the work group's code.
  bool in_group_only() const {
    bool group = false;
    for (const Command* l : loops_) {
      if (l->loop == LoopKind::Local) return false;
      group = group || l->loop == LoopKind::WorkGroup;
    }
    return group;
  }

  size_t gpu_depth() const {
    size_t n = 0;
    for (const Command* l : loops_) n += is_gpu_loop(l->loop) ? 1 : 0;
    return n;
  }

  static Launch launch_of(const Command& top) {
    struct Dims : Visitor {
      Launch l;
      void visit_command(const Command& c) override {
        if (c.kind == Command::For && is_gpu_loop(c.loop)) l.dims.insert({c.loop, c.dim});
        Visitor::visit_command(c);
      }
    } d;
    d.visit_command(top);
    return d.l;
  }

  // The flat index of a resolved write into a variable's scalars (its leading run of
  // array dimensions), when it indexes every one of them.
  static std::optional<Nat> flat_of(const ResolvedWrite& w) {
    if (w.target->kind != Acceptor::Var) return std::nullopt;
    std::vector<Nat> dims;
    for (Type t = w.target->dt; t && t->kind == rise::TypeKind::Array; t = t->a)
      dims.push_back(t->size);
    if (w.path.size() < dims.size()) return std::nullopt;
    for (size_t k = 0; k < dims.size(); ++k)
      if (w.path[k].kind != rise::PathElem::Index) return std::nullopt;
    return flat_index(dims, w.path, w.target->name);
  }

  // The place an acceptor writes: its memory and its index in each run of dimensions.
  std::pair<std::string, Place> place_of(const AcceptorP& acc,
                                         std::vector<std::pair<std::string, Nat>>& opaque) {
    DynamicIndex dynamic = [&](const Acceptor& scatter, const Nat&) {
      // Any element of the destination: a data-dependent index, free in each iteration.
      std::string name = "risec_scatter" + std::to_string(++opaque_);
      Nat n = scatter.inner->dt->kind == rise::TypeKind::Array ? scatter.inner->dt->size : Nat(1);
      opaque.push_back({name, n});
      return Nat::var(name, Nat(0), n);
    };
    ResolvedWrite w = resolve_write(acc, {}, dynamic);
    Nat width(1);
    if (w.target->kind == Acceptor::AsVector && !w.path.empty() &&
        w.path[0].kind == rise::PathElem::Index) {
      // A whole vector: n elements of the scalar array under it, lane l at i*n + l.
      const Nat n = w.target->n;
      auto lane = [&, vec = w](const Nat& l) {
        rise::Path p = rise::path_prepend(rise::path_index(vec.path[0].i * n + l),
                                          rise::path_rest(vec.path, 1));
        return resolve_write(vec.target->inner, p, dynamic);
      };
      ResolvedWrite first = lane(Nat(0));
      auto a = flat_of(first), b = flat_of(lane(Nat(1)));
      if (n.is_const(1) || (a && b && *b - *a == Nat(1))) {
        // consecutive in memory: one run of n elements
        width = n;
        w = first;
      } else {
        // lanes apart in memory (a vector stored through a transpose, lane by lane):
        // each lane its own place, any lane of the vector in an iteration
        std::string name = "risec_lane" + std::to_string(++opaque_);
        opaque.push_back({name, n});
        w = lane(Nat::var(name, Nat(0), n));
      }
    }
    Place place;
    if (w.target->kind != Acceptor::Var) {
      place.unknown = true;
      return {acceptor_root(acc), place};
    }
    Type t = w.target->dt;
    size_t k = 0;
    while (t) {
      if (t->kind == rise::TypeKind::Array) {
        // The run flattened, and each of its dimensions on its own: equal places have
        // equal indices in every dimension (indices are in bounds), so a dimension in
        // which the iterations differ proves them apart even where the flat index
        // mixes them (a transposed write, output[j][i] in a loop over i).
        Nat flat(0), extent(1);
        std::vector<Seg> dims;
        while (t->kind == rise::TypeKind::Array) {
          if (k < w.path.size() && w.path[k].kind == rise::PathElem::Index) {
            flat = flat * t->size + w.path[k].i;
            dims.push_back({Seg::Flat, w.path[k].i, Nat(1)});
            ++k;
          } else {
            flat = flat * t->size;  // the whole rest of the array
            extent = extent * t->size;
            dims.push_back({Seg::Flat, Nat(0), t->size});
          }
          t = t->a;
        }
        place.segs.push_back({Seg::Flat, flat, extent});
        // A vector store's lanes are consecutive in memory, not in one dimension.
        for (Seg& d : dims) d.usable = width.is_const(1);
        place.segs.insert(place.segs.end(), dims.begin(), dims.end());
        continue;
      }
      if (t->kind == rise::TypeKind::Pair && k < w.path.size() &&
          w.path[k].kind != rise::PathElem::Index) {
        bool first = w.path[k].kind == rise::PathElem::Fst;
        place.segs.push_back({first ? Seg::Fst : Seg::Snd, Nat(0), Nat(1)});
        t = first ? t->a : t->b;
        ++k;
        continue;
      }
      break;  // a scalar, a vector (its lanes), or a whole pair
    }
    // The vector store's width counts in elements of the innermost run (its flat
    // index: the last usable Flat segment).
    for (auto it = place.segs.rbegin(); it != place.segs.rend(); ++it)
      if (it->kind == Seg::Flat && it->usable) {
        it->width = it->width * width;
        break;
      }
    return {w.target->name, place};
  }

  void record(const Command& c) {
    LoopWrite w;
    auto [memory, place] = place_of(c.acc, w.opaque);
    if (auto a = alias_.find(memory); a != alias_.end()) memory = a->second;
    w.memory = memory;
    w.place = place;
    w.loops = loops_;
    Alloc alloc;  // inputs and the output: global memory around everything
    if (auto it = allocs_.find(memory); it != allocs_.end()) alloc = it->second;
    if (launch_) launch_->sites[memory]++;
    std::vector<const Command*> between(loops_.begin() + static_cast<long>(alloc.depth),
                                        loops_.end());
    if (alloc.private_) {
      // A work item's private memory written by the iterations of a GPU loop around
      // which it is allocated: each work item's copy gets its own iterations only.
      for (const Command* l : between)
        if (is_gpu_loop(l->loop) && !alloc.distributed &&
            !(alloc.group_accumulator && l->loop == LoopKind::Local))
          throw refusal(
              *l, loop_name(*l) + " writes private memory allocated around it (" + memory +
                      "): private memory belongs to one work item, so each work item would write "
                      "its own iterations into a copy of its own and no copy would hold the whole "
                      "value; compute the value inside the " +
                      loop_name(*l) + "'s function (one copy per work item)" +
                      (l->loop == LoopKind::Local
                           ? ", or store it in local memory (toLocal), which the work group shares"
                           : ", or store it in global memory outside the kernel (toGlobal)"));
      return;
    }
    if (launch_) every_work_item(c, w, alloc);
    for (const Command* l : between) {
      if (!is_parallel(l->loop) || l->reduction_var == memory) continue;
      writes_[l].push_back(w);
    }
  }

  // Rule 2 of disjoint_check.h: a write to shared memory inside a kernel is inside a
  // loop over every dimension of the launch that shares the memory. Checked when the
  // launch ends (end_launch), since one kind of such write is accepted there.
  void every_work_item(const Command& c, const LoopWrite& w, const Alloc& alloc) {
    std::set<std::pair<LoopKind, int>> bound;
    const Command* innermost = nullptr;
    for (const Command* l : loops_)
      if (is_gpu_loop(l->loop)) {
        bound.insert({l->loop, l->dim});
        innermost = l;
      }
    for (const auto& [kind, dim] : launch_->dims) {
      if (alloc.local && kind != LoopKind::Local) continue;
      if (bound.count({kind, dim})) continue;
      Reads r;
      r.visit(c.exp);
      r.visit(c.acc);
      launch_->redundant.push_back(
          {w, level_word(kind) + "(" + std::to_string(dim) + ")", innermost, r.names, alloc.local});
      return;
    }
  }

  // The writes that several work items run alike are refused, unless each is a copy:
  // the only write to its memory in the launch, of a value read from memory the launch
  // does not write, each place once (every sequential loop around it writes apart
  // places), so that every work item writes the same values to the same places and
  // nothing else does.
  static void end_launch(const Launch& l) {
    for (const Redundant& r : l.redundant) {
      bool copy = l.sites.at(r.write.memory) == 1;
      for (const std::string& m : r.reads) copy = copy && !l.sites.count(m);
      for (const Command* x : r.write.loops)
        if (copy && !is_parallel(x->loop) && !arith::provably_le(x->n, Nat(1)))
          copy = apart(*x, r.write, r.write);
      if (copy) continue;
      const Command& at = *r.innermost;
      throw refusal(
          at, "every work item of the " + r.missing + " runs a write to " +
                  (r.local ? "local memory " : "global memory ") + r.write.memory + " inside " +
                  loop_at(at) +
                  ": on the GPU each work item runs the code outside its parallel loops, so "
                  "they would all write the same places, racing with each other and with "
                  "the launch's other writes there; compute the value inside the " +
                  r.missing + " (or in private memory, each work item its own)");
    }
  }

  // Whether the writes a (iteration i) and b (iteration i' != i) of loop l provably
  // write different places.
  static bool apart(const Command& l, const LoopWrite& a, const LoopWrite& b) {
    if (a.place.unknown || b.place.unknown) return false;
    if (a.place.segs.size() != b.place.segs.size()) return true;  // different components
    for (size_t k = 0; k < a.place.segs.size(); ++k)
      if (a.place.segs[k].kind != b.place.segs[k].kind) return true;
    // b's own loops inside l, and its data-dependent indices, run independently of a's.
    arith::Substitution inner;
    size_t from = 0;
    while (from < b.loops.size() && b.loops[from] != &l) ++from;
    for (size_t k = from + 1; k < b.loops.size(); ++k) {
      const Command& x = *b.loops[k];
      inner[x.var] = Nat::var(x.var + "'", Nat(0), arith::substitute(x.n, inner));
    }
    for (const auto& [name, n] : b.opaque) inner[name] = Nat::var(name + "'", Nat(0), n);
    std::vector<Run> sa, sb;
    for (size_t k = 0; k < a.place.segs.size(); ++k) {
      const Seg& x = a.place.segs[k];
      const Seg& y = b.place.segs[k];
      if (x.kind != Seg::Flat || !x.usable || !y.usable) continue;
      sa.push_back({x.index, x.width});
      sb.push_back({arith::substitute(y.index, inner), arith::substitute(y.width, inner)});
    }
    return apart_in(sa, sb, l.var, l.n, 2);
  }

  // Whether the places a (at v) and b (at v' != v) differ. Besides spans_apart, a
  // permutation through div and mod (a write through split, map(reverse), join, or
  // split, transpose, join: 4*(i/4) + 3 - i%4, (n/4)*(i%4) + i/4): v written as
  // d*q + r, two iterations differ in q (whatever their r) or have equal q and differ
  // in r, or the other way round; each case proven the same way, `depth` more times
  // (nested splits divide q or r again).
  static bool apart_in(const std::vector<Run>& a, const std::vector<Run>& b, const std::string& v,
                       const Nat& n, int depth) {
    if (spans_apart(a, b, v, n)) return true;
    if (depth == 0) return false;
    for (const Nat& d : divisors_of(a, b, v)) {
      // (named after d: a variable's name is its identity, and its range depends on d)
      const std::string qn = v + "/" + arith::print(d), rn = v + "%" + arith::print(d);
      Nat nq = arith::floordiv(n + d - Nat(1), d);
      Nat q = Nat::var(qn, Nat(0), nq), r = Nat::var(rn, Nat(0), d);
      arith::Substitution split{{v, d * q + r}};
      std::vector<Run> qa = substituted(a, split), qb = substituted(b, split);
      std::vector<Run> qb_r = substituted(qb, {{rn, Nat::var(rn + "'", Nat(0), d)}});
      std::vector<Run> qb_q = substituted(qb, {{qn, Nat::var(qn + "'", Nat(0), nq)}});
      if ((apart_in(qa, qb_r, qn, nq, depth - 1) && apart_in(qa, qb, rn, d, depth - 1)) ||
          (apart_in(qa, qb_q, rn, d, depth - 1) && apart_in(qa, qb, qn, nq, depth - 1)))
        return true;
    }
    return false;
  }

  static std::vector<Run> substituted(const std::vector<Run>& s, const arith::Substitution& sub) {
    std::vector<Run> out;
    for (const Run& x : s)
      out.push_back({arith::substitute(x.index, sub), arith::substitute(x.width, sub)});
    return out;
  }

  // The divisors d of the divisions and moduli `v / d`, `v % d` (d positive, v in the
  // dividend) in the places' indices.
  static std::vector<Nat> divisors_of(const std::vector<Run>& a, const std::vector<Run>& b,
                                      const std::string& v) {
    std::vector<Nat> out;
    auto divisor = [&](const Nat& t) {
      const arith::Node& node = t.node();
      if ((node.kind == arith::Kind::Div || node.kind == arith::Kind::Mod) &&
          arith::occurs(v, node.args[0]) && !arith::occurs(v, node.args[1]) &&
          arith::provably_pos(node.args[1]) &&
          std::find(out.begin(), out.end(), node.args[1]) == out.end())
        out.push_back(node.args[1]);
    };
    for (const std::vector<Run>* s : {&a, &b})
      for (const Run& x : *s) arith::for_each_subterm(x.index, divisor);
    return out;
  }

  // Whether the places a (at v) and b (at v' != v; b's other variables are its own)
  // differ in some run of dimensions: strided in v, or ranges that do not meet.
  static bool spans_apart(const std::vector<Run>& a, const std::vector<Run>& b,
                          const std::string& v, const Nat& n) {
    Nat i = Nat::var(v, Nat(0), n);
    for (size_t k = 0; k < a.size(); ++k) {
      const Nat& fa = a[k].index;
      const Nat& fb = b[k].index;
      const Nat& wa = a[k].width;
      const Nat& wb = b[k].width;
      // Strided: fa = s*i + ra, fb = s*i' + rb, the offsets within |s| of each other (s
      // negative too: a write through reverse, n - 1 - i; |s(i - i')| >= |s| either way).
      Nat ra = arith::substitute(fa, {{v, Nat(0)}});
      Nat rb = arith::substitute(fb, {{v, Nat(0)}});
      Nat stride = arith::substitute(fa, {{v, Nat(1)}}) - ra;
      Nat stride_b = arith::substitute(fb, {{v, Nat(1)}}) - rb;
      const std::optional<Nat> size = arith::provably_pos(stride)            ? stride
                                      : arith::provably_pos(Nat(0) - stride) ? Nat(0) - stride
                                                                             : std::optional<Nat>();
      if (size && arith::provably_eq(stride, stride_b) && arith::provably_eq(fa, ra + i * stride) &&
          arith::provably_eq(fb, rb + i * stride) && arith::provably_le(ra + wa - rb, *size) &&
          arith::provably_le(rb + wb - ra, *size))
        return true;
      // Ranges that do not meet, whatever the iterations.
      Nat fb2 = arith::substitute(fb, {{v, Nat::var(v + "'", Nat(0), n)}});
      if (arith::provably_le(fa + wa, fb2) || arith::provably_le(fb2 + wb, fa)) return true;
    }
    return false;
  }

  static void check_loop(const Command& l, const std::vector<LoopWrite>& writes) {
    if (arith::provably_le(l.n, Nat(1))) return;  // one iteration
    for (size_t x = 0; x < writes.size(); ++x)
      for (size_t y = x; y < writes.size(); ++y) {
        const LoopWrite& a = writes[x];
        const LoopWrite& b = writes[y];
        if (a.memory != b.memory || apart(l, a, b)) continue;
        std::string what = a.place.unknown ? "a destination it cannot follow" : a.memory;
        throw refusal(
            l, loop_name(l) +
                   " is a parallel loop, but its iterations may write the same place of " + what +
                   ": parallel loops must write disjoint parts of their output, and this "
                   "could not be proven (different iterations would race); keep the loop "
                   "sequential (mapSeq), or make each iteration write only its own part "
                   "(the element of its index)");
      }
  }
};

}  // namespace

void check_disjoint_writes(const CommandP& program) {
  DisjointChecker c;
  // Private arrays distributed over the work items are known by the pass that
  // distributes them (the printers run it again).
  CommandP distributed = distribute_private(program);
  c.walk(distributed);
  c.finish();
}

}  // namespace risec::dpia
