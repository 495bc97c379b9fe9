// The address-space check (see address_spaces.h): one walk over functional DPIA that
// keeps the GPU maps around the current phrase, checks each GPU map against them
// (nesting) and each allocation against them (address spaces).
#include "dpia/address_spaces.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/diagnostics.h"

namespace risec::dpia {

namespace {

using rise::Family;
using rise::PrimId;

// Errors point at the primitive's name when it is known.
const Span& where(const PhraseNode& n) {
  return n.head_span.known() ? n.head_span : n.span;
}

// A low-level map running on the GPU hierarchy (mapGlobal, mapWorkGroup, mapLocal).
bool is_gpu_map(const Phrase& p) {
  return p->kind == PhraseNode::Prim && p->prim && p->prim->family == Family::Map &&
         is_gpu_loop(p->prim->loop);
}

// The explicit address space among a primitive's type-level arguments (oclToMem(a),
// oclReduceSeq(a)), if any.
std::optional<Space> explicit_space(const PhraseNode& n) {
  for (const rise::TypeArg& t : n.targs) {
    const auto* a = std::get_if<rise::Addr>(&t);
    if (a && a->space) return to_space(*a->space);
  }
  return std::nullopt;
}

// The dimension of a GPU map (its first type-level argument).
std::optional<int64_t> dimension(const PhraseNode& n) {
  if (n.targs.empty()) return std::nullopt;
  const auto* d = std::get_if<Nat>(&n.targs[0]);
  if (!d) return std::nullopt;
  return d->as_const();
}

const Phrase& innermost_body(const Phrase& f) {
  const Phrase* b = &f;
  while ((*b)->kind == PhraseNode::Lambda || (*b)->kind == PhraseNode::DepLambda) b = &(*b)->body();
  return *b;
}

// Whether p only rearranges data that is already in memory (inputs, stored values,
// views of them): storing it would compute nothing.
bool already_in_memory(const Phrase& p) {
  switch (p->kind) {
    case PhraseNode::Var:
      return true;
    case PhraseNode::Prim:
      break;
    default:
      return false;
  }
  const rise::PrimitiveInfo& info = *p->prim;
  bool rearranges = info.family == Family::View || info.family == Family::Pair ||
                    info.family == Family::Memory || info.is(PrimId::Id) ||
                    (info.family == Family::Map && info.has(rise::kHighLevel));
  if (!rearranges || info.is(PrimId::Let)) return false;
  return std::all_of(p->args.begin(), p->args.end(), [](const Phrase& a) {
    return already_in_memory(a->kind == PhraseNode::Lambda ? innermost_body(a) : a);
  });
}

// Whether p is itself a store (toMem, oclToMem): storing it again directly, `e |>
// toMem |> toMem`, copies nothing computed, as storing a let's stored value would
// (held-out H). Only directly: a view of a stored value stored again is how the
// strips and row panels of the autoscheduler copy a producer's rows into a buffer
// of their own.
bool stored_directly(const Phrase& p) {
  return p->kind == PhraseNode::Prim && p->prim->family == Family::Memory &&
         !p->prim->is(PrimId::Let);
}

// The GPU maps whose results are written into the destination of p (p's value
// where it must be written): the maps in p's write positions, found through the
// writable views, let bodies and function bodies of p.
void gpu_writers(const Phrase& p, std::vector<Phrase>& out) {
  if (p->kind == PhraseNode::Lambda || p->kind == PhraseNode::DepLambda) {
    gpu_writers(p->body(), out);
    return;
  }
  if (p->kind != PhraseNode::Prim || p->access() != Access::Wr) return;
  if (is_gpu_map(p)) out.push_back(p);
  if (p->prim->is(PrimId::Let)) {
    if (p->args.size() > 1) gpu_writers(p->args[1], out);
    return;
  }
  for (const Phrase& a : p->args) gpu_writers(a, out);
}

// How often the variable `name` occurs in p (binders are unique).
int64_t occurrences(const Phrase& p, const std::string& name) {
  if (p->kind == PhraseNode::Var) return p->name == name ? 1 : 0;
  int64_t n = 0;
  for (const Phrase& a : p->args) n += occurrences(a, name);
  return n;
}

// How often the variable `name` occurs in p as data read through views only (zip,
// split, transpose, pair components, maps of those), element by element.
int64_t viewed_occurrences(const Phrase& p, const std::string& name) {
  if (p->kind == PhraseNode::Var) return p->name == name ? 1 : 0;
  if (p->kind != PhraseNode::Prim) return 0;
  const rise::PrimitiveInfo& info = *p->prim;
  if (info.family == Family::Map && info.has(rise::kHighLevel))  // a map of views
    return p->args.size() > 1 ? viewed_occurrences(p->args[1], name) : 0;
  if (info.family != Family::View && info.family != Family::Pair) return 0;
  int64_t n = 0;
  for (const Phrase& a : p->args) n += viewed_occurrences(a, name);
  return n;
}

// The reductions whose results p reads through views only (zip, split, join, ...):
// the values a map over p distributes element by element.
void reductions_viewed(const Phrase& p, std::set<const PhraseNode*>& out) {
  if (p->kind != PhraseNode::Prim) return;
  if (p->prim->family == Family::Reduce) {
    out.insert(p.get());
    return;
  }
  if (p->prim->family != Family::View) return;
  for (const Phrase& a : p->args) reductions_viewed(a, out);
}

// The stores (toMem, oclToMem) whose values p is, through destination views (join,
// map(transpose), ...) and let bodies: written where p is written.
void stores_through_views(const Phrase& p, std::set<const PhraseNode*>& out) {
  if (p->kind != PhraseNode::Prim) return;
  const rise::PrimitiveInfo& info = *p->prim;
  if (info.is(PrimId::Let)) {
    if (p->args.size() > 1) stores_through_views(innermost_body(p->args[1]), out);
  } else if (info.family == Family::Memory) {
    out.insert(p.get());
  } else if (info.family == Family::View) {
    for (const Phrase& a : p->args) stores_through_views(a, out);
  } else if (info.family == Family::Map && info.has(rise::kHighLevel) && p->args.size() > 1) {
    stores_through_views(p->args[1], out);
  }
}

struct Enclosing {
  LoopKind kind;
  std::optional<int64_t> dim;
  Span span;
  std::string name;
};

class AddressSpaceChecker {
 public:
  void visit(const Phrase& p) {
    switch (p->kind) {
      case PhraseNode::Var:
      case PhraseNode::Literal:
        return;
      case PhraseNode::Lambda:
      case PhraseNode::DepLambda:
        visit(p->body());
        return;
      case PhraseNode::Foreign:
        for (const Phrase& a : p->args) visit(a);
        return;
      case PhraseNode::Prim:
        break;
    }
    // A store that is the result of a map's or a reduction's function, or a
    // reduction's initial value, allocates nothing: it is written into the map's
    // destination or the accumulator (whose own check covers it).
    bool loop_map = p->prim->family == Family::Map && !p->prim->has(rise::kHighLevel);
    if ((loop_map || p->prim->family == Family::Reduce) && !p->args.empty())
      stores_through_views(innermost_body(p->args[0]), operator_results_);
    if (p->prim->family == Family::Reduce && p->args.size() > 1)
      stores_through_views(p->args[1], operator_results_);  // the initial value
    if (is_gpu_map(p)) {
      check_nesting(*p);
      if (p->prim->loop == LoopKind::Local && p->args.size() > 1)
        reductions_viewed(p->args[1], read_by_local_);
      // the input is computed around the map, the function inside it
      if (p->args.size() > 1) visit(p->args[1]);
      stack_.push_back(Enclosing{p->prim->loop, dimension(*p), where(*p), p->prim->name});
      visit(p->args[0]);
      stack_.pop_back();
      return;
    }
    check_allocation(p);
    for (const Phrase& a : p->args) visit(a);
  }

 private:
  std::vector<Enclosing> stack_;  // the GPU maps around, outermost first
  // Reductions whose results a mapLocal reads (through views), element by element.
  std::set<const PhraseNode*> read_by_local_;
  // Stores that are the result of a loop map's or a reduction's function.
  std::set<const PhraseNode*> operator_results_;

  // A private accumulator at work-group level distributed over the work items (the
  // register blocks of a tiled matrix multiplication): every work item keeps its own
  // copy and touches only the elements of it that it computes. It is, when the
  // operator's result is written by mapLocals only, the operator reads the
  // accumulator only in those mapLocals' inputs, through views (each work item reads
  // the elements it then writes, element by element), and the reduction's result is read by a
  // mapLocal (each work item copies out its own part, not the group's sequential
  // code reading every work item's part).
  bool distributed_accumulator(const PhraseNode& n, const std::vector<Phrase>& writers) const {
    if (n.prim->family != Family::Reduce || n.args.empty() || !read_by_local_.count(&n))
      return false;
    const Phrase& op = n.args[0];
    if (op->kind != PhraseNode::Lambda) return false;
    const std::string& acc = op->name;
    int64_t in_inputs = 0;
    for (const Phrase& w : writers) {
      if (w->prim->loop != LoopKind::Local) return false;
      if (w->args.size() > 1) in_inputs += viewed_occurrences(w->args[1], acc);
      if (occurrences(w->args[0], acc) > 0) return false;
    }
    return in_inputs == occurrences(innermost_body(op), acc);
  }

  const Enclosing* innermost(LoopKind k) const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->kind == k) return &*it;
    return nullptr;
  }
  bool in_kernel() const { return innermost(LoopKind::Global) || innermost(LoopKind::WorkGroup); }
  // The work item whose code this is: the innermost mapGlobal or mapLocal.
  const Enclosing* work_item() const {
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->kind == LoopKind::Global || it->kind == LoopKind::Local) return &*it;
    return nullptr;
  }

  static std::string with_dim(const std::string& name, std::optional<int64_t> d) {
    return d ? name + "(" + std::to_string(*d) + ")" : name;
  }

  static std::string at(const Enclosing& e) {
    std::string loc = location(e.span);
    return "the " + e.name + (loc.empty() ? "" : " at " + loc);
  }

  void check_nesting(const PhraseNode& n) {
    auto d = dimension(n);
    std::string name = with_dim(n.prim->name, d);
    LoopKind k = n.prim->loop;
    // "mapGlobal(0) inside mapGlobal(0) cannot run on the GPU hierarchy: why (the
    // mapGlobal(0) at FILE:L:C)"
    auto refuse = [&](const Enclosing& outer, const std::string& why) {
      std::string loc = location(outer.span);
      std::string outer_name = with_dim(outer.name, outer.dim);
      throw Error(ErrorKind::User,
                  name + " inside " + outer_name + " cannot run on the GPU hierarchy: " + why +
                      (loc.empty() ? "" : " (the " + outer_name + " at " + loc + ")"),
                  where(n));
    };
    if (k == LoopKind::Global || k == LoopKind::WorkGroup) {
      for (const Enclosing& e : stack_) {
        if (e.kind == LoopKind::Local)
          refuse(e, "a work item cannot start " +
                        std::string(k == LoopKind::Global ? "global threads" : "work groups") +
                        " (parallel maps nest as mapWorkGroup > mapLocal, or mapGlobal alone)");
        if (e.kind != k)
          refuse(e,
                 std::string(k == LoopKind::Global ? "a work group cannot start global threads"
                                                   : "a global thread cannot start work groups") +
                     " (mapGlobal and mapWorkGroup are both the top level of a kernel)");
      }
    }
    if (k == LoopKind::Local) {
      if (const Enclosing* g = innermost(LoopKind::Global))
        refuse(*g,
               "a global thread is a single work item and has no local threads (use "
               "mapWorkGroup around the mapLocal instead of mapGlobal)");
      if (!innermost(LoopKind::WorkGroup))
        throw Error(ErrorKind::User,
                    n.prim->name +
                        " outside a work group: mapLocal must be inside a mapWorkGroup, local "
                        "threads exist only in a work group (use mapGlobal for a map over all "
                        "threads)",
                    where(n));
    }
    for (const Enclosing& e : stack_)
      if (e.kind == k && d && e.dim == d)
        refuse(e, "dimension " + std::to_string(*d) +
                      " is already used by the enclosing map (nested parallel maps of one level "
                      "take different dimensions)");
  }

  // The GPU maps writing what an allocation stores: the stored value (toMem,
  // oclToMem, let), or the operator and initial value of a reduction (oclIterate: its
  // step).
  static std::vector<Phrase> gpu_writers_of(const PhraseNode& n) {
    std::vector<Phrase> writers;
    if (n.args.empty()) return writers;
    if (n.prim->is(PrimId::Let)) {
      gpu_writers(n.args[0], writers);
    } else if (n.prim->family == Family::Memory) {
      gpu_writers(n.args.back(), writers);
    } else {
      for (const Phrase& a : n.args) gpu_writers(a, writers);
    }
    // A reduction's step stored (toMem around it, through views) is written into the
    // accumulator all the same.
    if (n.prim->family == Family::Reduce) {
      std::set<const PhraseNode*> stores;
      stores_through_views(innermost_body(n.args[0]), stores);
      for (const PhraseNode* s : stores) gpu_writers(s->args.back(), writers);
    }
    return writers;
  }

  void check_allocation(const Phrase& p) {
    const rise::PrimitiveInfo& info = *p->prim;
    bool memory = info.family == Family::Memory && !info.is(PrimId::Let);
    bool reduction = info.family == Family::Reduce;
    std::optional<Space> chosen = explicit_space(*p);
    if (!memory && !reduction && !info.is(PrimId::Let) && !chosen) return;
    if (operator_results_.count(p.get())) return;
    if (memory && !p->args.empty() &&
        (already_in_memory(p->args.back()) || stored_directly(p->args.back())))
      throw Error(ErrorKind::User,
                  info.name +
                      " of a value that is already in memory (an input, a stored value or a view "
                      "of them): there is nothing to store; to copy it, map a copy over it, "
                      "e.g. mapSeq(fun(x => x))",
                  where(*p));
    Space space = chosen ? *chosen : (in_kernel() ? Space::Private : Space::Global);
    std::string what = reduction ? "the accumulator of this " + info.name : "this " + info.name;
    std::string in_kernel_text = stack_.empty() ? "" : " (inside " + at(stack_.back()) + ")";
    // An accumulator is written at every step; constant memory is read-only in a
    // kernel (held-out I: oclReduceSeq(Constant) was compiled as private memory).
    if (reduction && space == Space::Constant)
      throw Error(ErrorKind::User,
                  what +
                      " in constant memory, which a kernel can only read: an accumulator "
                      "is written at every step; leave its memory to the default, or "
                      "choose Private, Local or Global",
                  where(*p));
    switch (space) {
      case Space::Global:
      case Space::Constant:
        if (in_kernel())
          throw Error(ErrorKind::User,
                      std::string(space_name(space)) + " memory allocated inside a kernel" +
                          in_kernel_text + ": " + what +
                          " would need a buffer the host allocates before the launch; store it "
                          "in local or private memory, or outside the kernel",
                      where(*p));
        return;
      case Space::Local: {
        const Enclosing* wg = innermost(LoopKind::WorkGroup);
        if (!wg)
          throw Error(ErrorKind::User,
                      "local memory written outside a work group" + in_kernel_text + ": " + what +
                          " stores into local memory, which exists only inside a mapWorkGroup",
                      where(*p));
        if (const Enclosing* item = innermost(LoopKind::Local))
          throw Error(ErrorKind::User,
                      "local memory allocated inside one work item (" + at(*item) +
                          "): local arrays belong to the whole work group; store it before the "
                          "mapLocal (or in private memory)",
                      where(*p));
        if (reduction)
          throw Error(ErrorKind::User,
                      "the accumulator of this " + info.name +
                          " is in local memory at work-group level: every work item of the group "
                          "would update it at once (use Private)",
                      where(*p));
        std::vector<Phrase> writers = gpu_writers_of(*p);
        bool shared_writing = std::any_of(writers.begin(), writers.end(), [](const Phrase& w) {
          return w->prim->loop == LoopKind::Local;
        });
        if (!shared_writing)
          throw Error(ErrorKind::User,
                      "local memory written by every work item at once: " + what +
                          " is computed by the sequential code of the work group, which each of "
                          "its work items runs; compute it with a mapLocal so that the work "
                          "items share the writing (or keep it private)",
                      where(*p));
        return;
      }
      case Space::Private: {
        // A reduction's accumulator lives as long as the reduction: outside kernels it
        // belongs to the one work item running the sequential code. A stored value
        // outlives the code that writes it and would be read by every work item.
        bool accumulator = !memory && !info.is(PrimId::Let);
        if (!in_kernel() && !accumulator)
          throw Error(ErrorKind::User,
                      "private memory allocated outside a kernel: " + what +
                          " would be shared by every work item (private memory belongs to one "
                          "work item; use toGlobal, or allocate it inside the mapGlobal or "
                          "mapLocal)",
                      where(*p));
        if (work_item()) return;
        std::vector<Phrase> writers = gpu_writers_of(*p);
        if (writers.empty() || (accumulator && distributed_accumulator(*p, writers))) return;
        std::string loc = location(where(*writers.front()));
        throw Error(ErrorKind::User,
                    "private memory shared between work items: " + what +
                        (chosen ? " is in private memory" : " is private memory in a kernel") +
                        " but is written by the work items of the " + writers.front()->prim->name +
                        (loc.empty() ? "" : " at " + loc) +
                        "; private memory belongs to one work item: " +
                        (!in_kernel()  ? "keep it in global memory (Global)"
                         : accumulator ? "reduce inside each work item instead (the reduction "
                                         "in the mapLocal's function, one accumulator each)"
                                       : "store it in local memory (toLocal)"),
                    where(*p));
      }
      case Space::Default:
        return;
    }
  }
};

}  // namespace

void check_address_spaces(const Phrase& program) {
  AddressSpaceChecker c;
  c.visit(program);
}

}  // namespace risec::dpia
