// The default lowering (what `compile` and `run` do without --strategy): the one place
// that says which library steps it is made of, and the rule only it needs,
// unrollReductions(n). Unrolling a stencil's window reduction gives each tap a
// constant offset; the C backend then splits the loops around it at the points where
// the border's clamps or padding guards change (dpia/split_loop), so the interior has
// plain indices and GCC vectorises it (docs/cli.md, "The default lowering").
#include "elevate/default_lowering.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "support/stack.h"

namespace risec::elevate {

using rise::Expr;
using rise::PrimId;

namespace {

// a * b for counts of copies, saturated (trip counts may be any constant).
int64_t times(int64_t a, int64_t b) {
  constexpr int64_t kCap = int64_t{1} << 40;
  if (a >= kCap || b >= kCap || (b > 0 && a > kCap / b)) return kCap;
  return a * b;
}

// The most copies of one body the unrolled loops may make: the product of the trip
// counts of the unrolled loops nested along any path.
struct Unroller {
  int64_t limit;
  bool changed = false;

  // The constant trip count of an applied sequential reduction or map (its data
  // argument's length), or none.
  static std::optional<int64_t> trip_count(const util::PrimCall& c, size_t data) {
    if (c.args.size() <= data || !c.args[data]->type) return std::nullopt;
    std::optional<rise::Nat> len = util::array_size(c.args[data]->type);
    return len ? len->as_const() : std::nullopt;
  }

  // The vectors one step of a reduction over groups of k vectors (split(k) of
  // asVector: vectorizeReduction2 and 4's interleaved accumulators) reads: k, each a
  // copy of the step's operation; 1 otherwise. Such a loop is a pass over a row, not a
  // window's taps: fully unrolled (16 steps of 4 accumulators over a row of 1024), the
  // loads of two passes over the same row became common subexpressions GCC kept in 64
  // registers, spilled (layer norm 181 against 159 ns a row, docs/performance.md).
  static int64_t vectors_per_step(const Expr& data) {
    std::optional<util::PrimCall> s = util::as_prim_call(data);
    if (!s || !s->is(PrimId::Split) || s->args.size() != 1 || !s->args[0]->type) return 1;
    const rise::Type elem = util::array_elem(s->args[0]->type);
    if (!elem || elem->kind != rise::TypeKind::Vector) return 1;
    std::optional<rise::Nat> k = util::array_size(util::array_elem(data->type));
    std::optional<int64_t> kc = k ? k->as_const() : std::nullopt;
    return kc && *kc >= 1 ? *kc : 1;
  }

  // `e` with its short reductions unrolled, and the copies its unrolled loops make.
  std::pair<Expr, int64_t> go(const Expr& e) {
    check_stack_depth(e->span);
    std::optional<util::PrimCall> c = util::as_prim_call(e);
    const rise::PrimitiveInfo* p = c ? c->head->prim : nullptr;
    const bool reduce = p && (p->is(PrimId::ReduceSeq) || p->is(PrimId::ReduceSeqUnroll));
    const bool map_unrolled = p && p->is(PrimId::MapSeqUnroll);
    if ((reduce && c->args.size() == 3) || (map_unrolled && c->args.size() == 2)) {
      // The function runs once per iteration; the initial value and the data once.
      const size_t fn = 0, data = c->args.size() - 1;
      util::PrimCall copy = *c;
      int64_t body = 1, once = 1;
      for (size_t i = 0; i < c->args.size(); ++i) {
        auto [a, k] = go(c->args[i]);
        copy.args[i] = a;
        int64_t& m = i == fn ? body : once;
        m = std::max(m, k);
      }
      std::optional<int64_t> n = trip_count(*c, data);
      Expr head = c->head;
      if (reduce) body = times(body, vectors_per_step(c->args[data]));
      int64_t copies = body;
      if (n && *n >= 1 && (map_unrolled || p->is(PrimId::ReduceSeqUnroll))) {
        copies = times(*n, body);
      } else if (n && *n >= 1 && p->is(PrimId::ReduceSeq) && times(*n, body) <= limit) {
        head = util::prim(PrimId::ReduceSeqUnroll);
        changed = true;
        copies = times(*n, body);
      }
      return {util::rebuild_call(copy, head), std::max(copies, once)};
    }
    std::vector<Expr> kids = rise::children(e);
    if (kids.empty()) return {e, 1};
    int64_t copies = 1;
    bool same = true;
    for (Expr& k : kids) {
      auto [a, n] = go(k);
      same = same && a == k;
      k = a;
      copies = std::max(copies, n);
    }
    return {same ? e : rise::rebuild(e, kids), copies};
  }
};

}  // namespace

Strategy unroll_reductions(int64_t max_copies) {
  return util::whole_term("unrollReductions", [max_copies](const Expr& e, const Env&) -> Result {
    Unroller u{max_copies};
    Expr out = u.go(e).first;
    if (!u.changed)
      return fail_at("unrollReductions", e,
                     "no reduceSeq over a constant length of at most " +
                         std::to_string(max_copies) + " copies");
    return out;
  });
}

namespace {

// The default lowering's steps, each as a strategy and as its text: the one list both
// forms are built from.
std::vector<std::pair<std::string, Strategy>> default_steps(const DefaultLowering& d) {
  std::vector<std::pair<std::string, Strategy>> steps;
  if (d.simplify) steps.emplace_back("simplify", make_strategy("simplify"));
  // Stages doing fewer than util::kParallelWork operations stay sequential, here and in
  // parallelStages below (held-out finding F8: a chain of cheap stages ran several times
  // slower with each one parallel).
  if (d.parallel)
    steps.emplace_back("try(parallelOutput(" + std::to_string(util::kParallelWork) + "))",
                       try_(make_strategy("parallelOutput", {Arg{util::kParallelWork}})));
  if (d.global_dims > 0) {
    const std::string g = "globalOutput(" + std::to_string(d.global_dims) + ")";
    steps.emplace_back("try(" + g + ")", try_(make_strategy("globalOutput", {Arg{d.global_dims}})));
  }
  steps.emplace_back("lowerToC", make_strategy("lowerToC"));
  // The stages lowerToC stores itself (simplify inlines a let read through a window or a
  // pad into the chain, and lowering stores it again): parallelOutput, before lowering,
  // cannot see them (held-out finding F5: a stencil pipeline's stages ran on one thread).
  if (d.parallel) steps.emplace_back("try(parallelStages)", try_(make_strategy("parallelStages")));
  if (d.unroll_taps > 0)
    steps.emplace_back("try(unrollReductions(" + std::to_string(d.unroll_taps) + "))",
                       try_(unroll_reductions(d.unroll_taps)));
  return steps;
}

}  // namespace

Strategy default_lowering(const DefaultLowering& d) {
  std::vector<Strategy> steps;
  for (auto& [text, s] : default_steps(d)) steps.push_back(std::move(s));
  return seq_all(std::move(steps));
}

std::string default_lowering_text(const DefaultLowering& d) {
  std::string out;
  for (const auto& [text, s] : default_steps(d)) out += (out.empty() ? "" : " ; ") + text;
  return out;
}

void register_default_lowering(Registry& r) {
  r.rule({"unrollReductions",
          RuleFamily::Lowering,
          "unrollReductions(n): after lowerToC, every reduceSeq over a constant length L becomes "
          "reduceSeqUnroll when L times the copies of the unrolled loops inside its operator is "
          "at most n (inner ones first); fails when none does. The default lowering's "
          "unrollReductions(25): a 5 x 5 window's taps get constant offsets",
          {ParamKind::Nat},
          [](const Args& a) { return unroll_reductions(arg_nat(a, 0)); }});
}

}  // namespace risec::elevate
