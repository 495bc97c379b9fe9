// Lowering rules (family "lowering") and memory rules (family "memory"): each one
// encodes an implementation choice in the program — a sequential, unrolled,
// OpenMP-parallel or OpenCL/CUDA map, a sequential or parallel reduction, a
// rolling buffer for a sliding window, an explicit store into memory — and
// `lowerToC`, the default lowering: every choice a C program needs, made
// sequentially.
//
// Views and computations. Index-shuffling primitives (split, join, transpose, slide,
// zip, take, drop, pad*, idx, fst/snd, asVector, asScalar, generate, makeArray, ...)
// and maps whose function only shuffles indices are views: they cost no memory and
// are resolved into index expressions. Scalar arithmetic, reductions, scans, iterate,
// foreign functions, the low-level maps and identity maps (explicit copies) compute.
//
// lowerToC, precisely:
//  1. beta-redexes are removed without duplicating work (a redex whose parameter is
//     used more than once becomes a `let`);
//  2. every map whose function computes becomes mapSeq (maps of pure views stay
//     views: they are index transformations, not loops); every reduce reduceSeq;
//  3. a computed array (mapSeq/mapSeqUnroll/mapPar/mapGlobal/mapWorkGroup/mapLocal,
//     scanSeq, iterate, oclIterate fully applied) that is *read* — the data input of
//     another primitive — is wrapped in toMem. It is not wrapped where it is
//     written directly into its destination: the program's result, the body of the
//     function of a map/reduce/scan/iterate/circularBuffer/rotateValues (written
//     into the output element or the accumulator), the initial value of a
//     reduction, the value of a `let`, the argument of toMem, and, transitively, the
//     data arguments of views written in place (join, split, transpose, asScalar,
//     asVector, asVectorAligned, zip, makePair, concat, reorder, makeArray, id, the
//     array of padCst, the input of padClamp, the value and the array of update)
//     and the body of a generate or of a map of views that is written. The input of
//     any map is read. Reductions keep their result in their accumulator,
//     circularBuffer/rotateValues their windows in their own buffer: they are never
//     wrapped.
//  4. inside a kernel (under a mapGlobal or mapWorkGroup) the choices it makes are
//     explicit and private to a work item: reduce becomes oclReduceSeq(Private) and
//     the store of step 3 oclToMem(Private) — except an array computed together by
//     the work items of a mapLocal at work-group level, which gets a plain toMem:
//     nothing is local unless the strategy says so (toLocal), and DPIA's
//     address-space check asks for it.
// A program that already has all its choices is returned unchanged; lowerToC is
// idempotent and succeeds on every well-typed program.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include "elevate/library.h"
#include "elevate/loop_nest.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "rise/printer.h"

namespace risec::elevate {

using rise::ExprKind;
using rise::Nat;
using rise::PrimId;
using util::call;
using util::fun;
using util::PrimCall;

namespace {

// The farthest a loop may prefetch ahead (the rule prefetch): 1 MiB, beyond any L2.
constexpr int64_t kMaxPrefetchBytes = int64_t{1} << 20;

// ---------------------------------------------------------------- maps and reductions

// A primitive given its address space: oclToMem(Private), oclReduceSeq(Local).
Expr with_space(PrimId id, rise::AddrSpace a) {
  return rise::dep_app(util::prim(id), rise::Addr{a, ""});
}

// The primitive at the head of e is `from` (bare or applied to at most `max_args`
// value arguments): e with the head replaced by `to`.
Strategy replace_head(const std::string& name, const std::vector<PrimId>& from, size_t max_args,
                      std::function<Expr()> to, const std::string& expected) {
  return rule(name, [=](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || c->args.size() > max_args ||
        std::find(from.begin(), from.end(), c->id()) == from.end())
      return fail_at(name, e, "expected " + expected);
    return util::rebuild_call(*c, to());
  });
}

Strategy lower_map(PrimId target) {
  return replace_head(
      rise::prim_name(target), {PrimId::Map}, 2, [target] { return util::prim(target); },
      "a map (map, map(f) or map(f)(x))");
}

Strategy lower_map_dim(PrimId target, int64_t dim) {
  std::string name = rise::prim_name(target) + "(" + std::to_string(dim) + ")";
  if (dim < 0 || dim > 2)
    return rule(name, [name](const Expr& e, const Context&) -> Result {
      return fail_at(name, e, "the dimension must be 0, 1 or 2");
    });
  return replace_head(
      name, {PrimId::Map}, 2, [target, dim] { return rise::dep_app(util::prim(target), Nat(dim)); },
      "a map (map, map(f) or map(f)(x))");
}

// reducePar: the operator must be associative (and commutative) with the initial
// value its neutral element.
Strategy reduce_par() {
  return rule("reducePar", [](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || (!c->is(PrimId::Reduce) && !c->is(PrimId::ReduceSeq)) || c->args.size() < 2)
      return fail_at("reducePar", e,
                     "expected a reduction with its operator and initial value, reduce(op)(init)");
    auto op = util::match_binary_op(c->args[0]);
    const rise::PrimitiveInfo* opp = op ? op->prim : nullptr;
    if (!opp || !opp->has(rise::kAssocComm))
      return fail_at("reducePar", e,
                     "reducePar needs an associative operator: the operator is not " +
                         util::assoc_comm_names() + " (or their eta-expansion)");
    // the neutral element from the table (fmin's is +infinity, fmax's -infinity; on
    // integers their largest and least values)
    if (!loop_nest::is_neutral(opp->id, c->args[1]))
      return fail_at("reducePar", e,
                     "reducePar needs the initial value to be the neutral element of " + opp->name +
                         ", " + loop_nest::neutral_text(opp->id) + ", not " +
                         rise::print_expr(c->args[1]));
    return util::rebuild_call(*c, util::prim(PrimId::ReducePar));
  });
}

Strategy unroll() {
  return rule("unroll", [](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (c && c->is(PrimId::MapSeq)) return util::rebuild_call(*c, util::prim(PrimId::MapSeqUnroll));
    if (c && c->is(PrimId::ReduceSeq))
      return util::rebuild_call(*c, util::prim(PrimId::ReduceSeqUnroll));
    // oclReduceSeq(a) keeps its address space (the dependent argument is carried over)
    if (c && c->is(PrimId::OclReduceSeq) && !c->deps.empty())
      return util::rebuild_call(*c, util::prim(PrimId::OclReduceSeqUnroll));
    return fail_at("unroll", e, "expected mapSeq, reduceSeq or oclReduceSeq(a) (bare or applied)");
  });
}

// reduce or reduceSeq (bare or applied) -> oclReduceSeq(a): the accumulator lives in
// address space a.
Strategy ocl_reduce_seq(rise::AddrSpace a) {
  std::string name = std::string("oclReduceSeq(") + rise::addr_name(a) + ")";
  return replace_head(
      name, {PrimId::Reduce, PrimId::ReduceSeq}, 3,
      [a] { return with_space(PrimId::OclReduceSeq, a); },
      "a reduce or reduceSeq (bare or applied)");
}

bool map_fn_computes(const Expr& f) {
  return util::computes(f) || util::is_identity_fn(f);
}

Strategy parallel() {
  return rule("parallel", [](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::Map) || c->args.empty() || c->args.size() > 2)
      return fail_at("parallel", e, "expected a map applied to its function, map(f)");
    if (!map_fn_computes(c->args[0]))
      return fail_at("parallel", e,
                     "the map's function does not compute (it only rearranges data): nothing "
                     "to parallelise");
    return util::rebuild_call(*c, util::prim(PrimId::MapPar));
  });
}

// mapPar or reducePar (bare or applied) with the OpenMP schedule `s`; the arguments
// are checked when the strategy is built (a located error in a .elv file).
Strategy omp_schedule(const Args& a) {
  const std::string* kind = a.empty() ? nullptr : std::get_if<std::string>(&a[0]);
  const std::optional<rise::ParSchedule::Kind> k = kind ? rise::schedule_kind(*kind) : std::nullopt;
  if (!k)
    user_error("ompSchedule: the schedule must be static, dynamic or guided" +
               (kind ? ", not '" + *kind + "'" : std::string()));
  rise::ParSchedule s{*k, 0};
  if (a.size() > 1) {
    const int64_t* chunk = std::get_if<int64_t>(&a[1]);
    if (!chunk) user_error("ompSchedule: the chunk must be a number");
    if (*chunk < 1 || *chunk > rise::kMaxScheduleChunk)
      user_error("ompSchedule: the chunk must be a number of iterations from 1 to " +
                 std::to_string(rise::kMaxScheduleChunk) + ", not " + std::to_string(*chunk));
    s.chunk = *chunk;
  }
  const std::string name = "ompSchedule(" + rise::schedule_text(s) + ")";
  return rule(name, [s, name](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || (!c->is(PrimId::MapPar) && !c->is(PrimId::ReducePar)))
      return fail_at(name, e,
                     "expected a parallel loop, mapPar or reducePar (bare or applied): make the "
                     "loop parallel first (parallel, mapPar, reducePar, parallelOutput)");
    if (c->head->schedule == s)
      return fail_at(name, e, "the parallel loop already has this schedule");
    return util::rebuild_call(*c, rise::with_schedule(c->head, s));
  });
}

// reduceSeq (bare or applied) whose loop prefetches, `bytes` ahead, the streams it reads
// (ExprNode::prefetch; printed by the CPU printers, codegen/c/prefetch.cpp). The
// distance is checked when the strategy is built (a located error in a .elv file).
Strategy prefetch(const Args& a) {
  const int64_t* bytes = a.empty() ? nullptr : std::get_if<int64_t>(&a[0]);
  if (!bytes || *bytes < 1 || *bytes > kMaxPrefetchBytes)
    user_error("prefetch: the distance must be a number of bytes from 1 to " +
               std::to_string(kMaxPrefetchBytes) +
               (bytes ? ", not " + std::to_string(*bytes) : std::string()));
  const int64_t d = *bytes;
  const std::string name = "prefetch(" + std::to_string(d) + ")";
  return rule(name, [d, name](const Expr& e, const Context&) -> Result {
    auto c = util::as_prim_call(e);
    if (!c || !c->is(PrimId::ReduceSeq))
      return fail_at(name, e,
                     "expected a sequential reduction, reduceSeq (bare or applied): the k loop "
                     "of a register-blocked product (lower the reduction first, lowerToC or "
                     "splitStrategy)");
    if (c->head->prefetch == d)
      return fail_at(name, e, "the loop prefetches at this distance already");
    return util::rebuild_call(*c, rise::with_prefetch(c->head, d));
  });
}

// How the map writing a stage is made parallel: the writing map (a map whose function
// computes, applied to its function and data) to its parallel form.
using WritingMap = std::function<Expr(const PrimCall&)>;

struct OutputMaps {
  WritingMap make;
  // Also the stages the writing maps read, found likewise in their data arguments: a
  // computed array a map reads is stored before it (lowerToC's toMem), a stage of its
  // own at the top of the program.
  bool read_stages = false;
};

// Whether `data` is circularBuffer's or rotateValues' windows: they are filled as a
// sequential loop steps through them, so a map over them stays sequential (lowerToC
// makes it mapSeq), on threads (parallelOutput) as on work items (globalOutput).
bool over_sliding_windows(const Expr& data) {
  auto src = util::as_prim_call(data);
  return src && (src->is(PrimId::CircularBuffer) || src->is(PrimId::RotateValues));
}

// The map whose iterations write the program's result, made parallel by `make`, and
// likewise the map of each stage a let stores before it: found from the entry's body
// through its lambdas, a let's value and body, a store (toMem) and views of the result
// (join, split, transpose, ...), and through maps that only rearrange;
// not into a reduction's, scan's or iteration's argument, whose elements are
// consumed, not stored (a parallel map there would store what the sequential loop
// reads without storing). With `read_stages`, the stages the writing maps read too.
// nullopt when there is no such map.
std::optional<Expr> parallelise_output(const Expr& e, const OutputMaps& make) {
  using rise::ExprKind;
  if (e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda) {
    std::vector<Expr> kids = rise::children(e);
    if (kids.empty()) return std::nullopt;
    std::optional<Expr> body = parallelise_output(kids.back(), make);
    if (!body) return std::nullopt;
    kids.back() = *body;
    return rise::rebuild(e, kids);
  }
  auto c = util::as_prim_call(e);
  if (!c) return std::nullopt;
  // Descend into argument `i` of the call, rebuilding the call around the result.
  auto into = [&](size_t i) -> std::optional<Expr> {
    if (i >= c->args.size()) return std::nullopt;
    std::optional<Expr> a = parallelise_output(c->args[i], make);
    if (!a) return std::nullopt;
    util::PrimCall copy = *c;
    copy.args[i] = *a;
    return util::rebuild_call(copy, c->head);
  };
  const rise::PrimitiveInfo* info = c->head->prim;
  if (!info) return std::nullopt;
  if (info->is(PrimId::Map) && c->args.size() == 2) {
    if (over_sliding_windows(c->args[1])) return std::nullopt;
    if (!map_fn_computes(c->args[0])) return into(1);  // map(transpose)(y): the writes are y's
    util::PrimCall copy = *c;
    if (make.read_stages)
      if (std::optional<Expr> read = parallelise_output(c->args[1], make)) copy.args[1] = *read;
    return make.make(copy);
  }
  if (info->is(PrimId::Let) && c->args.size() == 2) {
    // let(v)(fun(x => body)): the result is the body's, and v is a stage computed
    // (and stored) once before it: both get their writing map parallel
    std::optional<Expr> v = parallelise_output(c->args[0], make);
    std::optional<Expr> f = parallelise_output(c->args[1], make);
    if (!v && !f) return std::nullopt;
    util::PrimCall copy = *c;
    if (v) copy.args[0] = *v;
    if (f) copy.args[1] = *f;
    return util::rebuild_call(copy, c->head);
  }
  if (info->is(PrimId::ToMem) && c->args.size() == 1) return into(0);
  // A view of one array (its last argument; zip and concat combine several)
  if (info->has(rise::kView) && info->arity == 1 && c->args.size() == 1) return into(0);
  // padCst(l)(r)(c)(x): x's elements are the result's middle (held-out O: parallelOutput
  // said no map writes a result padded with a constant, which the default parallelises)
  if (info->is(PrimId::PadCst) && c->args.size() == 2) return into(1);
  return std::nullopt;
}

// parallelise_output of e, or, where that finds no map, of e with its redexes reduced
// (without duplicating work): a prelude definition is inlined as a lambda applied to
// its argument (map2D(f) is fun(x => map(map(f))(x))), and the map writing the
// result is inside it (held-out F: the tutorial's blur needed simplify or DFNF first).
std::optional<Expr> output_maps_made(const Expr& e, const OutputMaps& make) {
  if (std::optional<Expr> r = parallelise_output(e, make)) return r;
  const Expr reduced = util::beta_normalize_sharing(e);
  if (reduced == e) return std::nullopt;
  return parallelise_output(reduced, make);
}

// The failure of parallelOutput or globalOutput where no map writes the result: its
// maps are parallel already (an earlier parallelOutput), the program is lowered
// already (a mapSeq: `before` says when the rule applies), or its result is not
// written by a map.
Failure no_output_map(const std::string& rule, const Expr& e, const std::string& before) {
  const bool lowered = rise::has_prim(e, {PrimId::MapSeq});
  if (!lowered && rise::has_prim(e, {PrimId::MapPar, PrimId::MapGlobal}))
    return fail_at(rule, e,
                   "no sequential map writes the result: its maps are parallel already "
                   "(mapPar or mapGlobal)");
  if (lowered)
    return fail_at(rule, e,
                   "no map writes the result: the program is lowered already (" + before + ")");
  return fail_at(rule, e,
                 rise::has_prim(e, {PrimId::Generate})
                     ? "no map writes the result (it is a reduction, an iteration, a scalar, a "
                       "generated array (generate, which a with-loop becomes), or its maps only "
                       "rearrange data)"
                     : "no map writes the result (it is a reduction, an iteration, a scalar, "
                       "or its maps only rearrange data)");
}

// parallelOutput(w): the maps stay sequential where they do fewer than w operations
// (util::stage_work; the default lowering's w is util::kParallelWork).
Strategy parallel_output(int64_t min_work) {
  return rule("parallelOutput", [min_work](const Expr& e, const Context&) -> Result {
    int small = 0;
    int made = 0;
    const OutputMaps par{[&](const PrimCall& c) {
                           if (util::loop_work(c, nullptr) < static_cast<double>(min_work)) {
                             ++small;
                             return util::rebuild_call(c, c.head);
                           }
                           ++made;
                           return util::rebuild_call(c, util::prim(PrimId::MapPar));
                         },
                         false};
    std::optional<Expr> r = output_maps_made(e, par);
    if (r && made == 0 && small > 0)
      return fail_at("parallelOutput", e,
                     "every map writing the result or a stored stage does fewer than " +
                         std::to_string(min_work) + " operations (" + std::to_string(small) +
                         " map(s)), which stay sequential: a parallel loop over so little work "
                         "costs more than it saves");
    if (r) return *r;
    return no_output_map("parallelOutput", e,
                         "parallelOutput makes maps parallel before lowerToC; after it, "
                         "parallelStages does");
  });
}

Expr map_global(int64_t dim) {
  return rise::dep_app(util::prim(PrimId::MapGlobal), Nat(dim));
}

// The computing map that writes each element of a map's output, found in the map's
// function `f`: f itself a map partially applied to a computing function (map(g)), or
// f's body, through views of one array (join, split, transpose, ...), a computing map
// applied to its data. That map made mapGlobal(0); nullopt when there is none (the
// body is a let, a store, a reduction, a scalar, ...).
std::optional<Expr> inner_global(const Expr& f) {
  if (auto c = util::as_prim_call(f); c && c->is(PrimId::Map) && c->args.size() == 1)
    return map_fn_computes(c->args[0]) ? std::optional<Expr>(util::rebuild_call(*c, map_global(0)))
                                       : std::nullopt;
  if (f->kind != ExprKind::Lambda) return std::nullopt;
  // The body, through views of one array: the path of calls down to the map.
  std::vector<PrimCall> views;
  Expr at = rise::children(f).back();
  for (;;) {
    auto c = util::as_prim_call(at);
    if (!c || !c->head->prim) return std::nullopt;
    if (c->is(PrimId::Map) && c->args.size() == 2) {
      if (!map_fn_computes(c->args[0]) || over_sliding_windows(c->args[1])) return std::nullopt;
      Expr r = util::rebuild_call(*c, map_global(0));
      for (auto v = views.rbegin(); v != views.rend(); ++v) {
        v->args[0] = r;
        r = util::rebuild_call(*v, v->head);
      }
      std::vector<Expr> kids = rise::children(f);
      kids.back() = r;
      return rise::rebuild(f, kids);
    }
    if (!c->head->prim->has(rise::kView) || c->head->prim->arity != 1 || c->args.size() != 1)
      return std::nullopt;
    views.push_back(*c);
    at = c->args[0];
  }
}

// globalOutput(dims): parallelOutput's maps over global threads, mapGlobal(0); with
// dims 2, a writing map whose elements are each written by a computing map (a nest of
// two parallel maps) becomes mapGlobal(1) over mapGlobal(0) (the inner map's elements,
// adjacent in memory, on adjacent work items).
Strategy global_output(int64_t dims) {
  const std::string name = "globalOutput(" + std::to_string(dims) + ")";
  if (dims != 1 && dims != 2)
    return rule(name, [name](const Expr& e, const Context&) -> Result {
      return fail_at(name, e, "the dimensions must be 1 or 2");
    });
  return rule(name, [dims, name](const Expr& e, const Context&) -> Result {
    const OutputMaps global{[dims](const PrimCall& c) {
                              if (dims == 2)
                                if (std::optional<Expr> inner = inner_global(c.args[0])) {
                                  PrimCall copy = c;
                                  copy.args[0] = *inner;
                                  return util::rebuild_call(copy, map_global(1));
                                }
                              return util::rebuild_call(c, map_global(0));
                            },
                            true};
    if (std::optional<Expr> r = output_maps_made(e, global)) return *r;
    return no_output_map(name, e, name + " maps the result before lowerToC");
  });
}

// ---------------------------------------------------------------- memory

Strategy to_mem_after() {
  return rule("toMemAfter", [](const Expr& e, const Context&) -> Result {
    if (!e->type || !rise::is_data(e->type))
      return fail_at("toMemAfter", e, "toMemAfter applies to data, not to a function");
    if (util::match_prim(e, PrimId::ToMem, 1))
      return fail_at("toMemAfter", e, "already stored in memory: toMem(x)");
    return call(PrimId::ToMem, {e});
  });
}

// toGlobal, toLocal, toPrivate: x -> oclToMem(a)(x).
Strategy to_space(const std::string& name, rise::AddrSpace a) {
  return rule(name, [name, a](const Expr& e, const Context&) -> Result {
    if (!e->type || !rise::is_data(e->type))
      return fail_at(name, e, name + " applies to data, not to a function");
    if (util::match_prim(e, PrimId::ToMem, 1) || util::match_prim(e, PrimId::OclToMem, 1))
      return fail_at(name, e, "already stored in memory: " + rise::print_expr(e));
    return rise::app(with_space(PrimId::OclToMem, a), e);
  });
}

// Replace the occurrences of t (alpha-equal, with t's free variables not rebound on
// the way) by x.
Expr replace_all(const Expr& e, const Expr& t, const std::set<std::string>& fv_t, const Expr& x,
                 std::vector<std::string>& bound) {
  struct Replacer : rise::ExprMutator {
    const Expr& t;
    const std::set<std::string>& fv_t;
    const Expr& x;
    std::vector<std::string>& bound;
    Replacer(const Expr& t_, const std::set<std::string>& fv, const Expr& x_,
             std::vector<std::string>& b)
        : t(t_), fv_t(fv), x(x_), bound(b) {}
    Expr mutate(const Expr& e) override {
      bool shadowed = std::any_of(bound.begin(), bound.end(),
                                  [&](const std::string& b) { return fv_t.count(b) > 0; });
      if (!shadowed && rise::alpha_equal(e, t)) return x;
      return ExprMutator::mutate(e);
    }
    Expr visit_lambda(const Expr& e) override {
      bound.push_back(e->name);
      Expr r = mutate_children(e);
      bound.pop_back();
      return r;
    }
  };
  return Replacer(t, fv_t, x, bound).mutate(e);
}

// The first subterm (pre-order) of e that satisfies p, is data, and uses no
// variable bound inside e; e itself is a candidate only when `self`. A subterm that
// can stop the program (util::may_fail: an integer division, an index made from data)
// in a conditional position (util::conditional_args: a select's branch) is not taken,
// nor anything of it that can: computed before, it would run where the program never
// runs it (`guarded` then says one was passed over).
std::optional<Expr> find_hoistable(const Expr& e, const Env& env, const Strategy& p,
                                   std::vector<std::string>& bound, bool& guarded,
                                   std::set<const rise::ExprNode*>& conds, bool self = true,
                                   bool conditional = false) {
  if (self && e->type && rise::is_data(e->type) && p(e, env).ok()) {
    bool local = false;
    for (const std::string& v : rise::free_vars(e))
      if (std::find(bound.begin(), bound.end(), v) != bound.end()) local = true;
    if (!local && conditional && util::may_fail(e))
      guarded = true;
    else if (!local)
      return e;
  }
  std::vector<Expr> kids = children(e);
  // a spine's conditional arguments, marked at its top, so that those below are found too
  for (const Expr& a : util::conditional_args(e)) conds.insert(a.get());
  for (size_t i = 0; i < kids.size(); ++i) {
    Env ce = env;
    ce.ctx = child_context(e, i, env.ctx);
    if (e->kind == ExprKind::Lambda) bound.push_back(e->name);
    auto r = find_hoistable(kids[i], ce, p, bound, guarded, conds, true,
                            conditional || conds.count(kids[i].get()) > 0);
    if (e->kind == ExprKind::Lambda) bound.pop_back();
    if (r) return r;
  }
  return std::nullopt;
}

// storeInMemory(p, s): the first subterm t where p holds (that does not depend on
// variables bound below the location) is rewritten with s and computed once into
// memory: let(toMem(s(t)))(fun(m => body[t := m])), placed inside the leading
// lambdas of the location; when s(t) is a store already (s ends with toLocal, say),
// let(s(t)) keeps the memory s chose.
// hoist(p, s) (`hoist`): the same, except that the location itself is never the
// subterm stored, so at a loop `map(fun(x => ..t..))(y)` it moves a t that does not
// use x out of the loop: computed once instead of once per iteration.
Strategy store_in_memory(Strategy p, Strategy s, bool hoist) {
  const char* rule = hoist ? "hoist" : "storeInMemory";
  std::string name = std::string(rule) + "(" + p.name() + ", " + s.name() + ")";
  return Strategy(name, [rule, p, s, hoist](const Expr& e, const Env& env) -> Result {
    std::vector<Expr> binders;
    Expr body = e;
    Env benv = env;
    while (body->kind == ExprKind::Lambda || body->kind == ExprKind::DepLambda) {
      binders.push_back(body);
      benv.ctx = child_context(body, 0, benv.ctx);
      body = body->fn;
    }
    // a let must stand where data is computed: not around a partial application
    // (select(c)(a), reduce(op)) that a traversal reaches
    if (body->type && !rise::is_data(body->type))
      return fail_at(rule, e,
                     "the location is a function, not data below its lambdas: a let cannot "
                     "stand here");
    std::vector<std::string> bound;
    bool guarded = false;
    std::set<const rise::ExprNode*> conds;
    auto t = find_hoistable(body, benv, p, bound, guarded, conds, !hoist);
    if (!t && guarded)
      return fail_at(rule, e,
                     "the subterms satisfying " + p.name() +
                         " can stop the program (an integer division or modulo, an index "
                         "made from data) and run only under a condition (a select's "
                         "branch): computed before, they would run where the program does "
                         "not run them");
    if (!t)
      return fail_at(rule, e,
                     "no subterm satisfies " + p.name() +
                         " (data that does not depend on variables bound inside the term)");
    Result stored = s(*t, benv);
    if (!stored.ok()) return stored;
    std::set<std::string> fv;
    for (const std::string& v : rise::free_vars(*t)) fv.insert(v);
    std::string m = rise::fresh_name("mem");
    // s may choose the memory itself (a copy ending in toLocal): then it is the store.
    // A store seen through transposes (s = transposePairAfter ; argument(copy ; toLocal),
    // to keep a tile transposed in memory) stores the inner value and reads it through
    // the transposes.
    Expr value = stored.expr();
    auto is_store = [](const Expr& v) {
      return util::match_prim(v, PrimId::ToMem, 1) || util::match_prim(v, PrimId::OclToMem, 1);
    };
    int transposes = 0;
    for (Expr v = value; auto tr = util::match_prim(v, PrimId::Transpose, 1);) {
      v = tr->args[0];
      ++transposes;
      if (is_store(v)) {
        value = v;
        break;
      }
    }
    bool stores = is_store(value);
    if (!stores) transposes = 0;
    Expr use = rise::ident(m);
    for (int i = 0; i < transposes; ++i) use = call(PrimId::Transpose, {use});
    Expr replaced = replace_all(body, *t, fv, use, bound);
    Expr out = call(PrimId::Let,
                    {stores ? value : call(PrimId::ToMem, {value}), rise::lambda(m, replaced)});
    for (size_t i = binders.size(); i-- > 0;) out = rise::with_children(binders[i], out, nullptr);
    Result typed = retype(rule, out, env.ctx, e->type, e);
    if (typed.ok() && env.tracer && env.tracer->on_rule) env.tracer->on_rule(rule, e, typed.expr());
    return typed;
  });
}

// slide(sz)(1)(map(f)(x)) -> circularBuffer(sz)(sz)(f)(x), slide(sz)(1)(x) ->
// circularBuffer(sz)(sz)(fun(y => y))(x); rotateValues likewise (f : t -> t).
Strategy sliding_buffer(PrimId target) {
  const std::string& name = rise::prim_name(target);
  bool rotate = target == PrimId::RotateValues;
  return rule(name, [name, rotate](const Expr& e, const Context&) -> Result {
    auto s = util::match_prim(e, PrimId::Slide, 1);
    if (!s) return fail_at(name, e, "expected slide(sz)(1)(x)");
    Nat sz = *s->dep_nat(0), sp = *s->dep_nat(1);
    if (!sp.is_const(1))
      return fail_at(name, e, name + " needs a slide with step 1, not " + sp.to_string());
    Expr f = fun("y", [](const Expr& y) { return y; });
    Expr x = s->args[0];
    if (auto m = util::match_map(x)) {
      const Type& ft = m->first->type;
      bool fits = !rotate || (ft && ft->kind == rise::TypeKind::Fun && rise::equal(ft->a, ft->b));
      if (fits) {
        f = m->first;
        x = m->second;
      }
    }
    if (rotate) return call(PrimId::RotateValues, {sz}, {f, x});
    return call(PrimId::CircularBuffer, {sz, sz}, {f, x});
  });
}

// ---------------------------------------------------------------- lowerToC

enum class Pos { Write, Read };

// Reductions over arrays of at most this constant length (a 3 x 3 window) are
// unrolled.
constexpr int64_t kUnrollReduction = 9;

// Not an ExprMutator: each node is lowered for the position (read or write) that
// its parent's primitive gives it.
class Lowerer {
 public:
  Expr lower(const Expr& e, Pos pos) {
    switch (e->kind) {
      case ExprKind::Lambda:
      case ExprKind::DepLambda:
      case ExprKind::Annotation: {
        Expr b = lower(e->fn, pos);
        return b == e->fn ? e : rise::with_children(e, b, nullptr);
      }
      case ExprKind::Primitive:
        if (e->prim && e->prim->is(PrimId::Reduce)) return reduce_head();
        return e;
      case ExprKind::App:
      case ExprKind::DepApp:
        return lower_app(e, pos);
      default:
        return e;
    }
  }

 private:
  // The GPU maps (mapGlobal, mapWorkGroup, mapLocal) around the node being lowered.
  std::vector<rise::LoopKind> gpu_;

  bool inside(rise::LoopKind k) const {
    return std::find(gpu_.begin(), gpu_.end(), k) != gpu_.end();
  }
  // Inside a kernel: under a mapGlobal or a mapWorkGroup.
  bool in_kernel() const {
    return inside(rise::LoopKind::Global) || inside(rise::LoopKind::WorkGroup);
  }
  // In the code of one work item: under a mapGlobal or a mapLocal.
  bool in_work_item() const {
    return inside(rise::LoopKind::Global) || inside(rise::LoopKind::Local);
  }

  // The sequential reduction lowerToC chooses: in a kernel its accumulator is
  // explicitly private.
  // A reduction over a short array of constant length (the window of a stencil)
  // is unrolled, so that its reads have constant offsets: constant weights are
  // read as literals and the loop around it splits into border and interior parts.
  Expr reduce_head(bool unrolled = false) const {
    if (!in_kernel()) return util::prim(unrolled ? PrimId::ReduceSeqUnroll : PrimId::ReduceSeq);
    return with_space(unrolled ? PrimId::OclReduceSeqUnroll : PrimId::OclReduceSeq,
                      rise::AddrSpace::Private);
  }

  // The store lowerToC puts around a computed array that is read. In a kernel it is
  // private, unless the array is computed by the work items of a mapLocal together
  // (at work-group level): then no choice is made here (the strategy must say
  // toLocal, and DPIA's address-space check says so).
  Expr store(const Expr& computed) const {
    if (!in_kernel()) return call(PrimId::ToMem, {computed});
    bool shared = !in_work_item() && rise::any_subexpr(computed, [](const Expr& s) {
      return s->kind == ExprKind::Primitive && s->prim && s->prim->loop == rise::LoopKind::Local;
    });
    if (shared) return call(PrimId::ToMem, {computed});
    return rise::app(with_space(PrimId::OclToMem, rise::AddrSpace::Private), computed);
  }

  Expr lower_app(const Expr& e, Pos pos) {
    auto c = util::as_prim_call(e);
    if (!c) {
      // A non-primitive head (a variable or foreign function): everything is read.
      rise::Spine sp = rise::spine(e);
      Expr out = lower(sp.head, Pos::Read);
      bool same = out == sp.head;
      for (const auto& a : sp.args) {
        if (a.dep) {
          out = rise::dep_app(out, a.type_arg);
        } else {
          Expr v = lower(a.value, Pos::Read);
          same = same && v == a.value;
          out = rise::app(out, v);
        }
      }
      return same ? e : out;
    }
    const rise::PrimitiveInfo* p = c->head->prim;
    Expr head = c->head;
    std::vector<Expr> args = c->args;
    const size_t na = args.size();
    auto is = [&](PrimId id) { return p && p->is(id); };
    if (is(PrimId::Map) && na >= 1 && map_fn_computes(args[0])) {
      head = util::prim(PrimId::MapSeq);
      p = &rise::primitive(PrimId::MapSeq);
    }
    if (is(PrimId::Reduce) && na == 3) {
      // Reduce-map fusion: the mapped function is applied as each element is
      // reduced, so no array of its results is stored.
      if (auto m = util::match_map(args[2]); m && map_fn_computes(m->first)) {
        args[0] = util::beta_normalize_sharing(util::fold_after_map(args[0], m->first));
        args[2] = m->second;
      }
    }
    if (is(PrimId::Reduce)) {
      auto len = na == 3 ? util::array_size(args[2]->type) : std::nullopt;
      auto k = len ? len->as_const() : std::nullopt;
      bool unrolled = k && *k <= kUnrollReduction;
      head = reduce_head(unrolled);
      p = &rise::primitive(in_kernel()
                               ? (unrolled ? PrimId::OclReduceSeqUnroll : PrimId::OclReduceSeq)
                               : (unrolled ? PrimId::ReduceSeqUnroll : PrimId::ReduceSeq));
    }
    int arity = c->head->prim ? c->head->prim->arity : 0;
    bool full = static_cast<int>(na) == arity && !is(PrimId::MakeArray);
    // Each argument in the position its row's access column gives: read, written into
    // the primitive's own memory, or in the call's own position. The function of a
    // GPU map is lowered inside that level of the thread hierarchy.
    const bool gpu = p && rise::is_gpu_loop(p->loop);
    for (size_t i = 0; i < na; ++i) {
      const rise::ArgAccess a = p ? p->arg_access(i) : rise::ArgAccess::Read;
      const bool in_loop = gpu && a == rise::ArgAccess::Write;
      if (in_loop) gpu_.push_back(p->loop);
      args[i] = lower(args[i], a == rise::ArgAccess::Read    ? Pos::Read
                               : a == rise::ArgAccess::Write ? Pos::Write
                                                             : pos);
      if (in_loop) gpu_.pop_back();
    }
    const bool computed_array = full && p && p->computes_array();
    bool same = head == c->head;
    for (size_t i = 0; i < na; ++i) same = same && args[i] == c->args[i];
    Expr out = e;
    if (!same) {
      PrimCall nc = *c;
      nc.args = args;
      out = util::rebuild_call(nc, head);
    }
    if (computed_array && pos == Pos::Read) out = store(out);
    return out;
  }
};

// ---------------------------------------------------------------- constant arrays

// Arrays of at most this many elements that depend on nothing (built from array
// literals) are computed once per call instead of once per use.
constexpr int64_t kMaxHoisted = 4096;

bool is_make_array_expr(const Expr& e) {
  return e->kind == ExprKind::Primitive && e->prim && e->prim->is(PrimId::MakeArray);
}

// The number of scalars of a data type whose sizes are constants (nullopt otherwise).
std::optional<int64_t> constant_elements(const rise::Type& t) {
  if (!t) return std::nullopt;
  int64_t count = 1;
  rise::Type d = t;
  while (auto n = util::array_size(d)) {
    auto k = n->as_const();
    if (!k || *k > kMaxHoisted) return std::nullopt;
    count *= *k;
    d = util::array_elem(d);
  }
  if (d->kind != rise::TypeKind::Scalar || count > kMaxHoisted || t == d) return std::nullopt;
  return count;
}

// The closed array expressions built from array literals (the weights of a stencil)
// under a lambda of `body`, one per class of alpha-equal ones.
void collect_constant_arrays(const Expr& e, bool under_lambda, std::vector<Expr>& out) {
  if (under_lambda && constant_elements(e->type) && rise::any_subexpr(e, is_make_array_expr) &&
      rise::free_vars(e).empty()) {
    for (const Expr& o : out)
      if (rise::alpha_equal(o, e)) return;
    out.push_back(e);
    return;
  }
  bool lam = under_lambda || e->kind == ExprKind::Lambda;
  for (const Expr& k : rise::children(e))
    if (k) collect_constant_arrays(k, lam, out);
}

// body with every occurrence of `consts[k]` replaced by `vars[k]`.
Expr replace_constant_arrays(const Expr& body, const std::vector<Expr>& consts,
                             const std::vector<Expr>& vars) {
  struct Replace : rise::ExprMutator {
    const std::vector<Expr>& consts;
    const std::vector<Expr>& vars;
    Replace(const std::vector<Expr>& c, const std::vector<Expr>& v) : consts(c), vars(v) {}
    Expr mutate(const Expr& e) override {
      if (constant_elements(e->type))
        for (size_t k = 0; k < consts.size(); ++k)
          if (rise::alpha_equal(consts[k], e)) return vars[k];
      return ExprMutator::mutate(e);
    }
  } r(consts, vars);
  return r.mutate(body);
}

// Hoisting: each constant array used inside a loop body (under a lambda of the
// entry's body) becomes the value of a `let` around the body, so it is written once
// per call and read where it was used; no loop iteration rebuilds it.
Expr hoist_constant_arrays(const Expr& e) {
  if (e->kind == ExprKind::Lambda || e->kind == ExprKind::DepLambda ||
      e->kind == ExprKind::Annotation) {
    Expr b = hoist_constant_arrays(e->fn);
    return b == e->fn ? e : rise::with_children(e, b, nullptr);
  }
  // A let of a closed value around the body (constants hoisted before): the body.
  if (auto let = util::match_prim(e, PrimId::Let, 2);
      let && let->args[1]->kind == ExprKind::Lambda && rise::free_vars(let->args[0]).empty()) {
    const Expr& f = let->args[1];
    Expr b = hoist_constant_arrays(f->fn);
    if (b == f->fn) return e;
    return call(PrimId::Let, {let->args[0], rise::with_children(f, b, nullptr)});
  }
  if (!rise::any_subexpr(e, is_make_array_expr)) return e;
  std::vector<Expr> consts;
  collect_constant_arrays(e, false, consts);
  if (consts.empty()) return e;
  std::vector<Expr> vars;
  std::function<Expr(size_t)> wrap = [&](size_t k) -> Expr {
    if (k == consts.size()) return replace_constant_arrays(e, consts, vars);
    return call(PrimId::Let, {consts[k], fun("w", [&](const Expr& w) {
                                vars.push_back(w);
                                return wrap(k + 1);
                              })});
  };
  return wrap(0);
}

Strategy lower_to_c() {
  return util::whole_term("lowerToC", [](const Expr& e, const Env&) -> Result {
    Lowerer l;
    // Hoisting after beta reduction: a definition applied to a constant array
    // (conv3x3(sobelX)) puts the array under the lambdas that use it.
    return l.lower(hoist_constant_arrays(util::beta_normalize_sharing(e)), Pos::Write);
  });
}

}  // namespace

void register_lowering(Registry& r) {
  using P = ParamKind;
  r.rule({"mapSeq",
          RuleFamily::Lowering,
          "map(f) -> mapSeq(f): a sequential loop",
          {},
          fixed(lower_map(PrimId::MapSeq))});
  r.rule({"mapSeqUnroll",
          RuleFamily::Lowering,
          "map(f) -> mapSeqUnroll(f): a fully unrolled sequential loop",
          {},
          fixed(lower_map(PrimId::MapSeqUnroll))});
  r.rule({"mapPar",
          RuleFamily::Lowering,
          "map(f) -> mapPar(f): an OpenMP parallel loop",
          {},
          fixed(lower_map(PrimId::MapPar))});
  r.rule(
      {"mapGlobal",
       RuleFamily::Lowering,
       "map(f) -> mapGlobal(d)(f): global threads in dimension d",
       {P::Nat},
       [](const std::vector<Arg>& a) { return lower_map_dim(PrimId::MapGlobal, arg_nat(a, 0)); }});
  r.rule({"mapWorkGroup",
          RuleFamily::Lowering,
          "map(f) -> mapWorkGroup(d)(f): work groups in dimension d",
          {P::Nat},
          [](const std::vector<Arg>& a) {
            return lower_map_dim(PrimId::MapWorkGroup, arg_nat(a, 0));
          }});
  r.rule(
      {"mapLocal",
       RuleFamily::Lowering,
       "map(f) -> mapLocal(d)(f): local threads of a work group in dimension d",
       {P::Nat},
       [](const std::vector<Arg>& a) { return lower_map_dim(PrimId::MapLocal, arg_nat(a, 0)); }});
  r.rule({"reduceSeq",
          RuleFamily::Lowering,
          "reduce -> reduceSeq: a sequential reduction (bare or applied)",
          {},
          fixed(replace_head(
              "reduceSeq", {PrimId::Reduce}, 3, [] { return util::prim(PrimId::ReduceSeq); },
              "a reduce (bare or applied)"))});
  r.rule({"reduceSeqUnroll",
          RuleFamily::Lowering,
          "reduce or reduceSeq -> reduceSeqUnroll: a fully unrolled sequential reduction",
          {},
          fixed(replace_head(
              "reduceSeqUnroll", {PrimId::Reduce, PrimId::ReduceSeq}, 3,
              [] { return util::prim(PrimId::ReduceSeqUnroll); }, "a reduce or reduceSeq"))});
  r.rule({"reducePar",
          RuleFamily::Lowering,
          "reduce(op)(init) -> reducePar(op)(init); needs op in add, mul, fmin, fmax (assumed "
          "associative, also on floats) with init its neutral element 0, 1, +inf, -inf",
          {},
          fixed(reduce_par())});
  r.rule({"oclReduceSeq",
          RuleFamily::Lowering,
          "reduce or reduceSeq -> oclReduceSeq(a): a sequential reduction whose accumulator "
          "lives in address space a (Private, Local, Global)",
          {P::Addr},
          [](const std::vector<Arg>& a) { return ocl_reduce_seq(arg_addr(a, 0)); }});
  r.rule({"unroll",
          RuleFamily::Lowering,
          "mapSeq -> mapSeqUnroll, reduceSeq -> reduceSeqUnroll, oclReduceSeq(a) -> "
          "oclReduceSeqUnroll(a) (bare or applied)",
          {},
          fixed(unroll())});
  r.rule({"parallel",
          RuleFamily::Lowering,
          "map(f) -> mapPar(f) when f computes (arithmetic, a reduction, a foreign function "
          "or a copy); use as parallel @ outermost(isApplied(isMap))",
          {},
          fixed(parallel())});
  r.rule({"parallelOutput",
          RuleFamily::Lowering,
          "the map whose iterations write the program's result, and each stage a let stores "
          "-> mapPar, found through lambdas, lets, toMem, views of one array and maps that "
          "only rearrange (not "
          "inside a reduction's argument, nor a map over circularBuffer's or rotateValues' "
          "windows); with w, the maps doing fewer than w operations stay sequential (as "
          "parallelStages(w) counts them; bare parallelOutput makes every one parallel); the "
          "default lowering for --target openmp applies parallelOutput(" +
              std::to_string(util::kParallelWork) + ")",
          {P::Nat},
          [](const std::vector<Arg>& a) { return parallel_output(a.empty() ? 0 : arg_nat(a, 0)); },
          {},
          1});
  r.rule({"globalOutput",
          RuleFamily::Lowering,
          "globalOutput(dims): parallelOutput's maps (the map writing the result and each "
          "stage a let stores), and likewise the stages those maps read (stored before them), "
          "-> mapGlobal(0); with dims 2, one whose elements are each "
          "written by a computing map (its function map(g), or a body that is such a map "
          "through views of one array) -> mapGlobal(1) over that map's mapGlobal(0); maps over "
          "circularBuffer's or rotateValues' windows stay sequential. What "
          "the default lowering does for --target cuda (dims 2, then 1 where compile's "
          "checks refuse the 2-D mapping) and opencl (dims 1: its device may be a CPU)",
          {P::Nat},
          [](const std::vector<Arg>& a) { return global_output(arg_nat(a, 0)); }});
  r.rule({"ompSchedule",
          RuleFamily::Lowering,
          "mapPar -> mapPar with schedule(kind, chunk), likewise reducePar (bare or applied): "
          "how OpenMP hands the loop's iterations to the threads; kind static, dynamic or "
          "guided, the chunk (iterations, at least 1) optional; fails where the loop has that "
          "schedule already. Only --target openmp has parallel loops",
          {P::Name, P::Nat},
          omp_schedule,
          {},
          1});
  r.rule({"prefetch",
          RuleFamily::Lowering,
          "reduceSeq -> reduceSeq whose loop prefetches, `bytes` ahead, the streams it reads "
          "(bare or applied): each iteration starts with one software prefetch per cache line "
          "of each buffer whose reads advance by at least a line an iteration (a packed "
          "operand in a register-blocked product's k loop); streams that advance less are "
          "left to the hardware. C and OpenMP targets only (__builtin_prefetch)",
          {P::Nat},
          prefetch});
  r.rule({"toMemAfter",
          RuleFamily::Memory,
          "x -> toMem(x): store the data x in memory",
          {},
          fixed(to_mem_after())});
  r.rule({"toGlobal",
          RuleFamily::Memory,
          "x -> oclToMem(Global)(x): store the data x in global memory",
          {},
          fixed(to_space("toGlobal", rise::AddrSpace::Global))});
  r.rule({"toLocal",
          RuleFamily::Memory,
          "x -> oclToMem(Local)(x): store the data x in the local memory of a work group",
          {},
          fixed(to_space("toLocal", rise::AddrSpace::Local))});
  r.rule({"toPrivate",
          RuleFamily::Memory,
          "x -> oclToMem(Private)(x): store the data x in the private memory of a work item",
          {},
          fixed(to_space("toPrivate", rise::AddrSpace::Private))});
  r.rule({"storeInMemory",
          RuleFamily::Memory,
          "storeInMemory(p, s): the first subterm t satisfying p (not depending on variables "
          "bound in the term) -> let(toMem(s(t)))(fun(m => ...m...)) inside the leading "
          "lambdas; every occurrence of t is replaced; a t that can stop the program (integer "
          "division, an index made from data) under a select's branch is not taken",
          {P::Strategy, P::Strategy},
          [](const std::vector<Arg>& a) {
            return store_in_memory(arg_strategy(a, 0), arg_strategy(a, 1), false);
          }});
  r.rule({"hoist",
          RuleFamily::Memory,
          "hoist(p, s): storeInMemory(p, s) where the location itself is never the stored "
          "subterm: at map(fun(x => ..t..))(y), a t satisfying p that does not use x is "
          "computed once before the loop (loop-invariant code motion)",
          {P::Strategy, P::Strategy},
          [](const std::vector<Arg>& a) {
            return store_in_memory(arg_strategy(a, 0), arg_strategy(a, 1), true);
          }});
  r.rule({"circularBuffer",
          RuleFamily::Memory,
          "slide(sz)(1)(map(f)(x)) -> circularBuffer(sz)(sz)(f)(x); slide(sz)(1)(x) -> "
          "circularBuffer(sz)(sz)(fun(y => y))(x)",
          {},
          fixed(sliding_buffer(PrimId::CircularBuffer))});
  r.rule({"rotateValues",
          RuleFamily::Memory,
          "slide(sz)(1)(map(f)(x)) -> rotateValues(sz)(f)(x) when f : t -> t; "
          "slide(sz)(1)(x) -> rotateValues(sz)(fun(y => y))(x)",
          {},
          fixed(sliding_buffer(PrimId::RotateValues))});
  r.rule({"lowerToC",
          RuleFamily::Lowering,
          "the default lowering: maps that compute -> mapSeq, reduce -> reduceSeq, redexes "
          "removed, toMem around computed arrays that another primitive reads; inside a "
          "kernel oclReduceSeq(Private) and oclToMem(Private)",
          {},
          fixed(lower_to_c())});
}

}  // namespace risec::elevate
