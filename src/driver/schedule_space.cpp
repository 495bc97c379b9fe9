// The autoscheduler's search space (see schedule_space.h).
#include "driver/schedule_space.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include <unistd.h>

#include "driver/commands.h"
#include "driver/compile.h"
#include "driver/explore.h"
#include "driver/schedule_blocked.h"
#include "driver/schedule_omp.h"
#include "driver/schedule_pipeline.h"
#include "driver/schedule_reduce.h"
#include "driver/schedule_row_panels.h"
#include "driver/schedule_strips.h"
#include "elevate/default_lowering.h"
#include "elevate/parser.h"
#include "rise/primitives.h"
#include "rise/term_set.h"
#include "support/cpu.h"
#include "support/diagnostics.h"

namespace risec::driver {

namespace {

using rise::Expr;
using rise::ExprKind;

std::string first_line_of(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// explore's best variants by its model (MemoryCost after lowerToC): a beam search of
// width 2 over the fusion, store and hoist sites, at most 4 steps deep. Each is a
// structure `RNF ; step ; ...`, with its steps.
std::vector<std::vector<Site>> explore_structures(const rise::Checked& high, size_t count,
                                                  int* rewrites) {
  if (count == 0) return {};
  struct Node {
    std::vector<Site> steps;
    rise::Checked program;
    MemoryCost cost;
  };
  const rise::Checked start = rewrite_with("RNF", high, rewrites);
  std::vector<Node> level = {{{}, start, {}}}, all;
  rise::TermSet seen = {start.expr};
  for (int depth = 0; depth < 4 && !level.empty(); ++depth) {
    std::vector<Node> next;
    for (const Node& n : level)
      for (AppliedSite& s : applied_sites(n.program)) {  // each step applied once
        ++*rewrites;
        try {
          Node k{n.steps, std::move(s.program), {}};
          k.steps.push_back(std::move(s.site));
          if (!seen.insert(k.program.expr).second) continue;
          k.cost = memory_cost(rewrite_with("lowerToC", k.program, rewrites, false));
          next.push_back(std::move(k));
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::User) throw;
        }
      }
    std::sort(next.begin(), next.end(),
              [](const Node& a, const Node& b) { return a.cost < b.cost; });
    if (next.size() > 2) next.resize(2);
    for (const Node& n : next) all.push_back(n);
    level = std::move(next);
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Node& a, const Node& b) { return a.cost < b.cost; });
  std::vector<std::vector<Site>> out;
  for (size_t i = 0; i < all.size() && out.size() < count; ++i) out.push_back(all[i].steps);
  return out;
}

// One option of a decision: the candidate's fields it sets and its step.
struct Option {
  ScheduleStep step;  // empty strategy: the decision not taken
  std::function<void(ScheduleCandidate&)> mark;
};

}  // namespace

int64_t space_work_limit(const rise::Expr& program, const SpaceOptions& opt) {
  if (opt.max_work > 0) return opt.max_work;
  int64_t nodes = 0;
  rise::for_each_subexpr(program, [&](const Expr&) { return ++nodes, true; });
  return kSpaceWorkBase + kSpaceWorkPerNode * nodes;
}

std::string ScheduleCandidate::strategy_text() const {
  std::string out = "let main =\n";
  if (is_default) {
    out +=
        "  // the default lowering (risec compile without --strategy)\n  " + default_text + ";\n";
    return out;
  }
  // Each step under its comment, `;` before all but the first: the steps applied
  // before lowering in their order, lowerToC, then the steps applied after it in
  // theirs, as lower_candidate and the space's leaves apply them (a parallel decision
  // taken after lowering, parallelStages, may come before a vector step in `steps`).
  bool first = true;
  auto emit = [&](const std::string& comment, const std::string& strategy) {
    out += "  // " + comment + "\n" + (first ? "  " : "  ; ") + strategy + "\n";
    first = false;
  };
  for (const ScheduleStep& st : steps)
    if (!st.after_lowering) emit(st.decision + ": " + st.comment, st.strategy);
  emit(
      "lower: the remaining maps sequential loops, reductions fused with the maps they "
      "read, intermediates stored",
      "lowerToC");
  for (const ScheduleStep& st : steps)
    if (st.after_lowering) emit(st.decision + ": " + st.comment, st.strategy);
  out.insert(out.size() - 1, ";");
  return out;
}

std::string ScheduleCandidate::label() const {
  if (is_default) return "the default lowering";
  std::string out = "structure " + structure;
  if (inlined()) out += ", stages " + stages;
  if (unrolled) out += ", taps unrolled";
  if (reordered) out += ", reordered";
  if (!block.empty()) out += ", " + block;
  if (!gpu.empty()) out += ", " + gpu;
  if (strip) out += ", strips of " + std::to_string(strip) + " rows";
  if (tile) out += ", tile " + std::to_string(tile) + "x" + std::to_string(tile);
  if (!parallel.empty()) out += ", parallel " + parallel;
  if (sequential) out += ", parallel none (sequential)";
  if (!schedule.empty()) out += " schedule(" + schedule + ")";
  if (reciprocal) out += ", divisions by reciprocals";
  if (!reduction.empty()) out += ", reductions on vectors (" + reduction + ")";
  if (!vector.empty()) out += ", vectorize(" + vector + ")";
  return out;
}

int64_t longest_reduction(const Expr& e) {
  int64_t best = 0;
  std::vector<Expr> todo = {e};
  while (!todo.empty()) {
    Expr t = todo.back();
    todo.pop_back();
    if (t->kind == ExprKind::App) {
      rise::Spine sp = rise::spine(t);
      if (sp.head->kind == ExprKind::Primitive && sp.head->prim &&
          sp.head->prim->family == rise::Family::Reduce) {
        std::vector<Expr> args;
        for (const auto& a : sp.args)
          if (!a.dep) args.push_back(a.value);
        if (args.size() == 3 && args[2]->type && args[2]->type->kind == rise::TypeKind::Array)
          best = std::max(best, args[2]->type->size.as_const().value_or(0));
      }
    }
    for (const Expr& k : rise::children(t)) todo.push_back(k);
  }
  return best;
}

std::optional<ScheduleStep> unroll_step(const rise::Checked& high) {
  const int64_t taps = longest_reduction(high.expr);
  if (taps < 2 || taps > 25) return std::nullopt;
  return ScheduleStep{"unroll", "normalize(expandReduce) ; partialEval",
                      "every reduction of at most " + std::to_string(taps) +
                          " elements expanded into one expression (constant offsets, no loop)"};
}

ScheduleStep vectorize_lanes_step() {
  return {"vectorize", "vectorize(lanes) @ innermost(isFullyApplied(isMap))",
          "the innermost map over scalars on vectors of `lanes` floats (this machine's "
          "registers)"};
}

std::optional<ScheduleStep> taps_step(const rise::Checked& high, const std::string& target) {
  const int64_t taps = default_lowering_for(high.expr, target).unroll_taps;
  if (taps <= 0) return std::nullopt;
  const std::string n = std::to_string(taps);
  return ScheduleStep{"taps", "try(unrollReductions(" + n + "))",
                      "after lowering, as the default lowering: reductions of at most " + n +
                          " copies unrolled (a window's taps at constant offsets, so that its "
                          "clamped or padded borders are split off and the interior's vector "
                          "reads are contiguous)",
                      true};
}

namespace {
// The work meter of the space being built (build_space sets it): every rewrite of the
// space is charged to it.
thread_local elevate::WorkMeter* space_work = nullptr;
}  // namespace

rise::Checked rewrite_with(const std::string& text, const rise::Checked& c, int* count, bool note) {
  ++*count;
  elevate::Strategy s = elevate::parse_strategy_file(
      std::make_shared<SourceFile>(SourceFile{"autoschedule.elv", "let main = " + text + ";\n"}));
  return apply_strategy(s, c, false, nullptr, note, space_work);
}

bool lower_candidate(ScheduleCandidate& c, const rise::Checked& high, ScheduleSpace& space) {
  std::string text;
  for (const ScheduleStep& st : c.steps)
    if (!st.after_lowering) text += st.strategy + " ; ";
  text += "lowerToC";
  for (const ScheduleStep& st : c.steps)
    if (st.after_lowering) text += " ; " + st.strategy;
  try {
    c.lowered = rewrite_with(text, high, &space.rewrites, false);
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::User) throw;
    ++space.dropped;
    if (space.drop_reason.empty()) space.drop_reason = first_line_of(e.what());
    return false;
  }
}

ScheduleSpace build_space(const rise::Checked& high, const SpaceOptions& opt) {
  ScheduleSpace space;
  // Every rewrite after the default lowering is charged to one meter
  // (schedule_space.h): once it runs out, the rewrite in flight stops (a refusal) and
  // nothing more is grown.
  elevate::WorkMeter meter;
  meter.left = space_work_limit(high.expr, opt);
  struct Metered {
    elevate::WorkMeter* outer;
    explicit Metered(elevate::WorkMeter* m) : outer(space_work) { space_work = m; }
    ~Metered() { space_work = outer; }
  };
  auto out_of_work = [&] {
    if (!meter.exhausted()) return false;
    space.truncated = true;
    space.work_limited = true;
    return true;
  };
  rise::TermSet keys;
  auto add = [&](ScheduleCandidate c) {
    if (!keys.insert(c.lowered.expr).second) {
      ++space.duplicates;
      return;
    }
    space.candidates.push_back(std::move(c));
  };
  // The default lowering: what `risec compile` does without a strategy.
  {
    ScheduleCandidate d;
    d.is_default = true;
    d.structure = "default";
    if (opt.target == "openmp") d.parallel = "parallelOutput";
    const elevate::DefaultLowering dl = default_lowering_for(high.expr, opt.target);
    // Above the default's simplify limit the space is reduced (schedule_space.h).
    space.reduced = !dl.simplify;
    d.default_text = elevate::default_lowering_text(dl);
    d.lowered = rewrite_with(d.default_text, high, &space.rewrites);
    // On openmp, as compile decides it: without its parallel loops where compile's
    // checks refuse them (compiled only when it has one).
    if (dl.parallel && rise::any_subexpr(d.lowered.expr, [](const Expr& x) {
          return rise::is_prim(x, rise::PrimId::MapPar);
        })) {
      const elevate::DefaultLowering checked = default_lowering_checked(high, opt.target);
      if (!checked.parallel) {
        d.default_text = elevate::default_lowering_text(checked);
        d.lowered = rewrite_with(d.default_text, high, &space.rewrites);
      }
    }
    add(std::move(d));
  }
  // openmp: the default without a parallel loop (the c target's default lowering):
  // every other openmp candidate the model ranks high has one, and a fork and join
  // costs tens of microseconds (far more on a loaded machine), more than a small
  // program computes. The model cannot see the load: measuring decides.
  if (opt.target == "openmp") {
    ScheduleCandidate s;
    s.structure = space.reduced ? "none" : "simplify";
    s.sequential = true;
    if (!space.reduced)
      s.steps.push_back({"structure", "simplify",
                         "simplify (as the default lowering): inline, common subexpressions, "
                         "invariant code moved out of loops; no parallel loop (every loop "
                         "sequential: no fork and join, the c target's default lowering)"});
    if (std::optional<ScheduleStep> taps = taps_step(high, opt.target)) s.steps.push_back(*taps);
    if (lower_candidate(s, high, space)) add(std::move(s));
  }
  // The default lowering and its sequential twin are not charged (they are always
  // candidates); all else is.
  Metered metered(&meter);

  // Register-blocked candidates, before the general decisions (which may truncate).
  if (std::optional<Contraction> con = find_contraction(high)) {
    BlockMachine bm;
    bm.lanes = machine_lanes();               // what `lanes` means in the strategy text
    bm.registers = bm.lanes >= 16 ? 32 : 16;  // AVX-512 has 32, AVX2 and SSE 16
    bm.threads = opt.target == "openmp" ? std::max(1, opt.threads) : 1;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    if (long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE); l1 > 0) bm.l1 = l1;
    if (long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) bm.l2 = l2;
#endif
    bm.fork_join_cycles = opt.fork_join_cycles;
    std::vector<ScheduleCandidate> whole;
    for (const BlockPoint& pt : rank_block_points(*con, bm, opt.register_blocks)) {
      ScheduleCandidate c;
      c.structure = pt.pack ? "register blocks, packed" : "register blocks";
      c.block = "block " + std::to_string(pt.ti) + "x" + std::to_string(pt.tj) + ", k split " +
                std::to_string(pt.kk) +
                (pt.register_block ? ", register block" : ", rows outside k.i") +
                (pt.rows_outer ? "" : ", column blocks outer") + (pt.pack ? ", packed" : "") +
                (pt.panel ? ", panels of " + std::to_string(pt.panel) + " rows" : "") +
                (pt.kc ? ", kc " + std::to_string(pt.kc) : "") +
                (pt.prefetch ? ", prefetch " + std::to_string(pt.prefetch) + " bytes ahead" : "") +
                (pt.rest ? ", last " + std::to_string(pt.rest) + " rows peeled" : "");
      c.vector = pt.width == 1 ? "lanes" : "lanes * 2";
      if (opt.target == "openmp") c.parallel = "outermost map";
      c.block_reason = pt.reason;
      c.block_score = pt.score;
      for (const BlockStep& b : block_steps(pt, opt.target))
        c.steps.push_back({b.decision, b.strategy, b.comment});
      if (!lower_candidate(c, high, space)) continue;
      whole.push_back(std::move(c));
    }
    // The row panels (schedule_row_panels.h) interleaved by the model's estimate, each
    // list keeping its own order (the whole products' is diverse, not sorted).
    std::vector<ScheduleCandidate> panels =
        space.reduced ? std::vector<ScheduleCandidate>{}
                      : row_panel_candidates(high, *con, bm, opt.target, opt.row_panels, space);
    size_t w = 0, q = 0;
    while (w < whole.size() || q < panels.size()) {
      if (q < panels.size() && (w == whole.size() || panels[q].block_score < whole[w].block_score))
        add(std::move(panels[q++]));
      else
        add(std::move(whole[w++]));
    }
  }

  // Strips of output rows with their producers computed per strip
  // (schedule_strips.h), before the general decisions (which may truncate); they do
  // not count in max_candidates, so the general space is the same with or without.
  const size_t before_strips = space.candidates.size();
  if (!space.reduced)
    for (ScheduleCandidate& c : strip_candidates(high, opt, space)) add(std::move(c));
  const size_t strips = space.candidates.size() - before_strips;

  // The decisions, each a list of options (the first: not taken, except structure).
  std::vector<std::vector<Option>> decisions;
  std::vector<Option> structures;
  if (!space.reduced)
    structures.push_back(
        {{"structure", "simplify",
          "simplify (as the default lowering): inline, common subexpressions, invariant code "
          "moved out of loops"},
         [](ScheduleCandidate& c) { c.structure = "simplify"; }});
  std::vector<Option> others = {
      {{"structure", "DFNF", "data-flow normal form: every map and reduction applied to its data"},
       [](ScheduleCandidate& c) { c.structure = "DFNF"; }},
      {{"structure", "DFNF ; normalize(fuseReduceMap)",
        "every reduction fused with the map it reads (no array of products)"},
       [](ScheduleCandidate& c) { c.structure = "fused reductions"; }},
  };
  for (Option& o : others) structures.push_back(std::move(o));
  size_t v = 0;
  for (const std::vector<Site>& steps :
       explore_structures(high, space.reduced ? 0 : opt.explore_variants, &space.rewrites)) {
    std::string text = "RNF", what;
    int fusions = 0, stores = 0, hoists = 0;
    for (const Site& s : steps) {
      text += " ; " + site_strategy(s);
      fusions += s.kind == Site::Kind::Fusion;
      stores += s.kind == Site::Kind::Store;
      hoists += s.kind == Site::Kind::Hoist;
    }
    what = "explore's variant " + std::to_string(++v) + " (RNF, then " + std::to_string(fusions) +
           " fusion(s), " + std::to_string(stores) + " store(s), " + std::to_string(hoists) +
           " hoist(s): least memory traffic by explore's model)";
    const std::string name = "explore variant " + std::to_string(v);
    structures.push_back(
        {{"structure", text, what}, [name](ScheduleCandidate& c) { c.structure = name; }});
  }
  decisions.push_back(std::move(structures));

  auto none = [] { return Option{{}, [](ScheduleCandidate&) {}}; };
  std::vector<Option> stages = {none()};
  for (const StageChoice& st : stage_choices(high))
    stages.push_back({st.step, [label = st.label](ScheduleCandidate& c) { c.stages = label; }});
  decisions.push_back(std::move(stages));
  std::vector<Option> unroll = {none()};
  if (std::optional<ScheduleStep> st = unroll_step(high))
    unroll.push_back({*st, [](ScheduleCandidate& c) { c.unrolled = true; }});
  decisions.push_back(std::move(unroll));

  decisions.push_back(
      {none(),
       {{"order", "reorder([1, 3, 2])",
         "loop order: the reduction of the first nest moved outside its inner map (an array "
         "accumulator; the inner map over contiguous elements)"},
        [](ScheduleCandidate& c) { c.reordered = true; }}});

  // A reduced space tries one tile size (the middle one) and one vector width.
  std::vector<int64_t> tile_sizes = opt.tiles;
  if (space.reduced && tile_sizes.size() > 1) tile_sizes = {tile_sizes[tile_sizes.size() / 2]};
  std::vector<Option> tiles = {none()};
  for (int64_t t : tile_sizes)
    tiles.push_back(
        {{"tile",
          "tile(" + std::to_string(t) + ", " + std::to_string(t) + ") @ outermost(mapNest(2))",
          "the outermost nest of two maps in " + std::to_string(t) + " x " + std::to_string(t) +
              " tiles (each tile's reads stay in cache)"},
         [t](ScheduleCandidate& c) { c.tile = t; }});
  decisions.push_back(std::move(tiles));

  if (opt.target == "openmp")
    decisions.push_back(
        {none(),
         {{"parallel", "parallelOutput",
           "the map writing the result (and each stored stage) an OpenMP parallel loop"},
          [](ScheduleCandidate& c) { c.parallel = "parallelOutput"; }},
         {{"parallel", "parallel @ outermost(isApplied(isMap))",
           "the outermost computing map an OpenMP parallel loop"},
          [](ScheduleCandidate& c) { c.parallel = "outermost map"; }},
         {{"parallel", "parallelStages",
           "after lowering, the outer loop of every stage an OpenMP parallel loop (the "
           "result, each stored stage, and the arrays lowerToC stores: a transposed or "
           "windowed intermediate)",
           true},
          [](ScheduleCandidate& c) { c.parallel = "every stage"; }}});

  // Divisions by a loop invariant as multiplications (schedule_reduce.h), when the
  // program divides floats by a literal or a variable.
  if (std::optional<ReductionOption> o = division_option(high))
    decisions.push_back({none(), {{"division", o->strategy, o->comment}, [](ScheduleCandidate& c) {
                                    c.reciprocal = true;
                                  }}});

  // Vectorised reductions (schedule_reduce.h), when the program has one.
  if (std::vector<ReductionOption> reds = reduction_options(high); !reds.empty()) {
    std::vector<Option> reduce = {none()};
    for (const ReductionOption& o : reds)
      reduce.push_back({{"reductions", o.strategy, o.comment},
                        [label = o.label](ScheduleCandidate& c) { c.reduction = label; }});
    decisions.push_back(std::move(reduce));
  }

  std::vector<Option> vectors = {
      none(), {vectorize_lanes_step(), [](ScheduleCandidate& c) { c.vector = "lanes"; }}};
  if (!space.reduced)
    vectors.push_back(
        {{"vectorize", "vectorize(lanes * 2) @ innermost(isFullyApplied(isMap))",
          "the innermost map over scalars on vectors of two registers (2 * lanes floats)"},
         [](ScheduleCandidate& c) { c.vector = "lanes * 2"; }});
  // Every map over scalars, when there are several (innermost(..) takes the first);
  // not in a reduced space: normalize rewrites each map in turn, each rewrite retyping
  // what the map reads (a chain of K maps: K^2 work).
  if (!space.reduced && scalar_maps(high) >= 2)
    vectors.push_back(
        {{"vectorize", "normalize(vectorizeRemainder(lanes) @ innermost(isFullyApplied(isMap)))",
          "every map over scalars on vectors of `lanes` floats (a remainder by a scalar "
          "loop), not only the innermost first one"},
         [](ScheduleCandidate& c) { c.vector = "lanes, every map"; }});
  // A stencil's map over windows, vectorised across windows (shifted vector loads).
  if (reads_windows(high))
    vectors.push_back(
        {{"vectorize", "vectorizeWindows(lanes) @ innermost(isApplied(isMap))",
          "the innermost map over windows on vectors of `lanes` windows: each tap one vector "
          "of `lanes` neighbouring windows' entries, a shifted load along the row"},
         [](ScheduleCandidate& c) { c.vector = "lanes, windows"; }});
  decisions.push_back(std::move(vectors));
  // Every candidate's lowering ends as the default's (taps_step): one option, taken.
  if (std::optional<ScheduleStep> taps = taps_step(high, opt.target))
    decisions.push_back({{*taps, [](ScheduleCandidate&) {}}});

  // How many leaves are under one option of decision d (for counting drops).
  auto leaves_below = [&](size_t d) {
    int n = 1;
    for (size_t k = d + 1; k < decisions.size(); ++k) n *= static_cast<int>(decisions[k].size());
    return n;
  };
  auto refuse = [&](const Error& e, int leaves) {
    if (e.kind() != ErrorKind::User) throw e;
    space.dropped += leaves;
    if (space.drop_reason.empty()) space.drop_reason = first_line_of(e.what());
  };
  // A subtree grown before from a program that prints alike at the same decision, with
  // the same steps left for after lowering, lowers to the same programs: its leaves
  // are all duplicates or refusals. It is counted as such (what growing it again
  // would count) without rewriting it again: sharpen's OpenMP space reaches most of
  // its programs by several paths (a tile or an order that changes nothing).
  struct Grown {
    int dropped = 0, leaves = 0;
  };
  using GrownAt = std::unordered_map<Expr, Grown, rise::PrintKeyHash, rise::PrintAlike>;
  std::vector<std::map<std::string, GrownAt>> grown(decisions.size() + 1);
  std::function<void(size_t, const rise::Checked&, const ScheduleCandidate&)> grow_new;
  auto grow = [&](size_t d, const rise::Checked& at, const ScheduleCandidate& c) {
    if (space.candidates.size() - strips >= opt.max_candidates || out_of_work()) {
      space.truncated = true;
      return;
    }
    std::string pending;
    for (const ScheduleStep& st : c.steps)
      if (st.after_lowering) pending += st.strategy + " ; ";
    GrownAt& seen = grown[d][pending];
    if (auto it = seen.find(at.expr); it != seen.end()) {
      space.dropped += it->second.dropped;
      space.duplicates += it->second.leaves;
      return;
    }
    const int dropped = space.dropped;
    const size_t leaves = space.candidates.size() + space.duplicates;
    grow_new(d, at, c);
    if (space.truncated) return;  // nothing is grown after this
    seen.emplace(at.expr,
                 Grown{space.dropped - dropped,
                       static_cast<int>(space.candidates.size() + space.duplicates - leaves)});
  };
  grow_new = [&](size_t d, const rise::Checked& at, const ScheduleCandidate& c) {
    if (d == decisions.size()) {
      ScheduleCandidate done = c;
      std::string lower = "lowerToC";
      for (const ScheduleStep& st : c.steps)
        if (st.after_lowering) lower += " ; " + st.strategy;
      try {
        done.lowered = rewrite_with(lower, at, &space.rewrites, false);
      } catch (const Error& e) {
        refuse(e, 1);
        return;
      }
      add(std::move(done));
      return;
    }
    for (const Option& o : decisions[d]) {
      if (o.step.strategy.empty()) {
        grow(d + 1, at, c);
        continue;
      }
      ScheduleCandidate next = c;
      next.steps.push_back(o.step);
      o.mark(next);
      if (o.step.after_lowering) {  // applied with lowerToC, at the leaves
        grow(d + 1, at, next);
        continue;
      }
      rise::Checked after;
      try {
        after = rewrite_with(o.step.strategy, at, &space.rewrites, false);
      } catch (const Error& e) {
        refuse(e, leaves_below(d));
        continue;
      }
      grow(d + 1, after, next);
    }
  };
  grow(0, high, ScheduleCandidate{});
  if (opt.target == "openmp" && !out_of_work()) add_schedule_choices(space, high, opt);
  out_of_work();
  space.work = meter.spent;
  return space;
}

}  // namespace risec::driver
