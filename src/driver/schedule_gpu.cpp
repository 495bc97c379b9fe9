// The autoscheduler's GPU space and model (see schedule_gpu.h).
#include "driver/schedule_gpu.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "driver/commands.h"
#include "driver/compile.h"
#include "driver/run.h"
#include "driver/schedule_blocked.h"
#include "driver/schedule_space.h"
#include "elevate/default_lowering.h"
#include "elevate/parser.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"
#include "rise/term_set.h"
#include "support/diagnostics.h"

namespace risec::driver {

namespace {

using rise::Expr;

// What the model needs of a candidate, known from how it was built.
struct GpuPoint {
  std::string structure;  // the family (the measuring order caps each)
  std::string words;      // the mapping, for labels and --explain
  std::vector<ScheduleStep> steps;
  double items = 1;   // work items that compute
  double group = 0;   // work items per group (0: the platform chooses)
  double stride = 1;  // elements between what adjacent work items (dimension 0) touch
  int64_t tile = 0;   // local tiles: the block T of the result (0: none)
  int64_t block = 0;  // the register block R
  int64_t local_bytes = 0;
};

const char* const kComputing = "isApplied(isMap) ; containsComputation";

ScheduleStep fused() {
  return {"structure", "DFNF ; normalize(fuseReduceMap)",
          "data-flow normal form, every reduction fused with the map it reads (no array of "
          "products)"};
}

ScheduleStep simplified() {
  return {"structure", "simplify",
          "simplify (as the default lowering): inline, common subexpressions, invariant code "
          "moved out of loops"};
}

ScheduleStep lowered() {
  return {"lower", "lowerToC ; try(unrollReductions(25))",
          "the remaining maps sequential loops in the work item, each reduction's accumulator "
          "private, reductions of at most 25 elements unrolled"};
}

std::string num(int64_t v) {
  return std::to_string(v);
}

// The constant extents of the result's array dimensions, outermost first (a scalar
// result: none).
std::vector<int64_t> result_dims(const rise::Checked& high) {
  std::vector<int64_t> dims;
  for (rise::Type t = entry_result_type(high); t && t->kind == rise::TypeKind::Array; t = t->a)
    dims.push_back(t->size.as_const().value_or(0));
  return dims;
}

double product(const std::vector<int64_t>& dims, size_t from) {
  double p = 1;
  for (size_t i = from; i < dims.size(); ++i)
    p *= static_cast<double>(std::max<int64_t>(1, dims[i]));
  return p;
}

// The local-memory tiles of a matrix product (examples/mm/cuda_tiled.elv's steps): a
// work group per T x T block of the result, the reduction in k-tiles of K whose
// operands' T x K tiles the group copies into local memory (both stored as [K][T], the
// copy's K over mapLocal(1) and T over mapLocal(0)), each work item an R x R register
// block of the accumulator, its loops unrolled.
GpuPoint tile_point(int64_t T, int64_t K, int64_t R, double items, int64_t bytes) {
  const std::string comp = kComputing, r = num(R);
  const std::string copy_out = "isFullyApplied(isMap) ; argument(isFullyApplied(isReduceSeq))";
  auto over_items = [&](const std::string& p) {
    return "(function(mapLocal(1)) @ outermost(isFullyApplied(isMap) ; "
           "argument(isFullyApplied(isPrimitive(split)) ; argument(" +
           p +
           ")))) ; (function(argument(body(function(mapLocal(0))))) @ "
           "outermost(isFullyApplied(isPrimitive(mapLocal)) ; "
           "argument(isFullyApplied(isPrimitive(split)) ; argument(" +
           p + "))))";
  };
  const std::string copy_transposed =
      "transposePairAfter ; argument(idAfter ; idToCopy ; function(argument(body(idAfter ; "
      "idToCopy ; function(mapLocal(0))))) ; function(mapLocal(1)) ; toLocal)";
  // the k-tile of the first (fst of the zipped pair) or the second operand
  auto store = [&](bool first) {
    return "(function(function(argument(storeInMemory(isFullyApplied(isPrimitive(" +
           rise::prim_name(first ? rise::PrimId::Fst : rise::PrimId::Snd) + ")), " +
           copy_transposed + ")))) @ outermost(isFullyApplied(isReduceSeq)))";
  };
  GpuPoint g;
  g.structure = "local tiles";
  g.words = "local-memory tiles: a work group per " + num(T) + " x " + num(T) +
            " block, k-tiles of " + num(K) + ", a " + r + " x " + r +
            " register block per work item (" + num((T / R) * (T / R)) + " work items a group, " +
            num(bytes) + " bytes of local memory)";
  g.steps = {
      {"structure", "DFNF ; normalize(fuseReduceMap)",
       "data-flow normal form, the dot products fused (no array of products)"},
      {"blocks",
       "(tile(" + num(T) + ", " + num(T) +
           ") @ outermost(mapNest(2))) ; (reduceMapFission @ "
           "outermost(isApplied(isApplied(isReduceSeq)))) ; (splitStrategy(" +
           num(K) + ") @ innermost(isFullyApplied(isReduce))) ; reorder([1, 2, 5, 3, 4, 6])",
       "blocks of " + num(T) + " x " + num(T) + " of the result, the reduction in k-tiles of " +
           num(K) + " moved outside the block's maps"},
      {"groups",
       "(mapWorkGroup(1) @ outermost(" + comp + ")) ; (mapWorkGroup(0) @ outermost(" + comp + "))",
       "a work group per block (rows in dimension 1, columns in dimension 0)"},
      {"register block",
       "(tile(" + r + ", " + r + ") @ outermost(mapNest(2))) ; (mapLocal(1) @ outermost(" + comp +
           ")) ; (mapLocal(0) @ outermost(" + comp + "))",
       "each work item an " + r + " x " + r + " block of the accumulator"},
      {"register block",
       "(mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF ; "
       "(mapReduceInterchange @ innermost(isFullyApplied(isMap))) ; DFNF",
       "the k-tile's loop moved outside the block (each value read from local memory serves " + r +
           " multiply-adds)"},
      {"copy out",
       "(idAfter @ outermost(isFullyApplied(isReduceSeq))) ; (idToCopy @ topDown) ; "
       "(function(argument(body(idAfter ; idToCopy))) @ outermost(" +
           copy_out + "))",
       "the block's result copied to the output"},
      {"copy out",
       "(tile(" + r + ", " + r + ") @ outermost(" + copy_out + ")) ; DFNF ; " +
           over_items("isFullyApplied(isReduceSeq)"),
       "the copy by the work items, each its own " + r + " x " + r + " part"},
      {"local memory", store(true),
       "each k-tile of the first operand copied into local memory by the work group, stored "
       "[k][" +
           num(T) + "] (adjacent work items read adjacent floats)"},
      {"local memory", store(false), "and the second operand's, the same way"},
      {"initial value",
       "(function(argument(idAfter ; idToCopy ; function(argument(body(idAfter ; idToCopy))) ; "
       "tile(" +
           r + ", " + r + "))) @ outermost(isFullyApplied(isReduceSeq))) ; DFNF ; " +
           over_items("isFullyApplied(isPrimitive(generate))"),
       "the accumulator's zeros written by the work items, each its own part"},
      {"private", "normalize(oclReduceSeq(Private)) ; lowerToC",
       "the accumulators private to their work items; lowered"},
      {"unroll", "normalize(isFullyApplied(isMapSeq) ; unroll)",
       "the register block's loops unrolled"}};
  g.items = items / static_cast<double>(R * R);
  g.group = static_cast<double>((T / R) * (T / R));
  g.stride = 1;
  g.tile = T;
  g.block = R;
  g.local_bytes = bytes;
  return g;
}

std::vector<GpuPoint> points_of(const rise::Checked& high, const GpuDevice& dev,
                                const GpuSpaceOptions& opt) {
  std::vector<GpuPoint> out;
  const std::vector<int64_t> dims = result_dims(high);
  const std::string comp = kComputing;
  if (!dims.empty() && dims[0] > 0) {
    // A work item per element of the outer map.
    GpuPoint g{"global 1-D",
               "mapGlobal(0) over the outer map (" + num(dims[0]) + " work items)",
               {fused(),
                {"mapping", "(mapGlobal(0) @ outermost(isApplied(isMap)))",
                 "a work item per element of the outermost map (mapGlobal(0)); its inner loops "
                 "sequential"},
                lowered()},
               static_cast<double>(dims[0]),
               0,
               product(dims, 1)};
    out.push_back(g);
    for (int64_t w : opt.groups) {
      if (w > dims[0] || dims[0] % w || w > dev.max_group) continue;
      out.push_back(
          {"work groups 1-D",
           "work groups of " + num(w) + " (mapWorkGroup(0), mapLocal(0) over the outer map)",
           {fused(),
            {"mapping",
             "(splitJoin(" + num(w) +
                 ") @ outermost(isApplied(isMap))) ; (mapWorkGroup(0) @ "
                 "outermost(isApplied(isMap))) ; (mapLocal(0) @ outermost(isApplied(isMap)))",
             "the outermost map in groups of " + num(w) +
                 " elements: a work group per group (mapWorkGroup(0)), a work item per element "
                 "(mapLocal(0))"},
            lowered()},
           static_cast<double>(dims[0]),
           static_cast<double>(w),
           product(dims, 1)});
    }
  }
  if (dims.size() >= 2 && dims[0] > 0 && dims[1] > 0) {
    const double items = static_cast<double>(dims[0]) * static_cast<double>(dims[1]);
    out.push_back({"global 2-D",
                   "mapGlobal(1) x mapGlobal(0) over the two outer maps (" + num(dims[0]) + " x " +
                       num(dims[1]) + " work items)",
                   {fused(),
                    {"mapping",
                     "(mapGlobal(1) @ outermost(isApplied(isMap))) ; (mapGlobal(0) @ "
                     "outermost(isApplied(isMap)))",
                     "a work item per element of the two outer maps, the inner one in dimension "
                     "0 (adjacent work items, adjacent elements)"},
                    lowered()},
                   items,
                   0,
                   product(dims, 2)});
    out.push_back({"global 2-D",
                   "mapGlobal(0) x mapGlobal(1) over the two outer maps (dimension 0 on the rows)",
                   {fused(),
                    {"mapping",
                     "(mapGlobal(0) @ outermost(isApplied(isMap))) ; (mapGlobal(1) @ "
                     "outermost(isApplied(isMap)))",
                     "a work item per element of the two outer maps, the outer one in dimension "
                     "0"},
                    lowered()},
                   items,
                   0,
                   product(dims, 1)});
    for (int64_t tx : {16, 32, 64})
      for (int64_t ty : {1, 2, 4, 8, 16}) {
        if (tx * ty < 64 || tx * ty > 256 || tx * ty > dev.max_group) continue;
        if (tx > dims[1] || dims[1] % tx || ty > dims[0] || dims[0] % ty) continue;
        out.push_back(
            {"work groups 2-D",
             "work groups of " + num(ty) + " x " + num(tx) +
                 " (tile, mapWorkGroup(1, 0), mapLocal(1, 0))",
             {fused(),
              {"mapping",
               "(tile(" + num(ty) + ", " + num(tx) +
                   ") @ outermost(mapNest(2))) ; (mapWorkGroup(1) @ outermost(" + comp +
                   ")) ; (mapWorkGroup(0) @ outermost(" + comp + ")) ; (mapLocal(1) @ outermost(" +
                   comp + ")) ; (mapLocal(0) @ outermost(" + comp + "))",
               "the two outer maps in " + num(ty) + " x " + num(tx) +
                   " tiles: a work group per tile, a work item per element, columns in "
                   "dimension 0"},
              lowered()},
             items,
             static_cast<double>(tx * ty),
             product(dims, 2)});
      }
  }
  // Each mapping from two structures: the data-flow normal form with fused reductions
  // (above), and simplify, the default lowering's start (a window's weights computed
  // once, not per work item).
  for (size_t i = 0, n = out.size(); i < n; ++i) {
    GpuPoint g = out[i];
    g.steps.front() = simplified();
    g.words += ", after simplify";
    out.push_back(std::move(g));
  }
  // A scalar result: its reduction in chunks, a work item per chunk.
  if (dims.empty()) {
    const int64_t n = longest_reduction(high.expr);
    for (int64_t c : {16, 32, 64, 128, 256}) {
      if (n <= 0 || c * 2 > n || n % c) continue;
      out.push_back(
          {"chunked reduction",
           "the reduction in " + num(n / c) + " chunks of " + num(c) + ", a work item per chunk",
           {{"structure", "DFNF", "data-flow normal form"},
            {"reduction",
             "(blockedReduce(" + num(c) +
                 ") @ outermost(isFullyApplied(isReduce))) ; try(splitBeforeMap @ topDown) ; "
                 "try(mapFusion @ topDown) ; DFNF ; (mapGlobal(0) @ outermost(isApplied(isMap))) "
                 "; try(fuseReduceMap @ topDown)",
             "the reduction split into chunks of " + num(c) +
                 " (blockedReduce), a work item per chunk (mapGlobal(0)) reducing it in private "
                 "memory, the chunks' sums added by one work item"}},
           static_cast<double>(n / c),
           0,
           static_cast<double>(c)});
    }
  }
  // A matrix product: local-memory tiles and register blocks.
  if (std::optional<Contraction> con = find_contraction(high)) {
    for (int64_t T : {16, 32, 64})
      for (int64_t K : {4, 8, 16})
        for (int64_t R : {2, 4, 8}) {
          const int64_t items_per_group = (T / R) * (T / R);
          if (T > con->rows || con->rows % T || T > con->cols || con->cols % T) continue;
          if (K > con->depth || con->depth % K || T % R) continue;
          if (items_per_group < 16 || items_per_group > std::min<int64_t>(256, dev.max_group))
            continue;
          const int64_t bytes = 2 * T * K * 4;
          if (dev.local_bytes > 0 && bytes > dev.local_bytes) continue;
          out.push_back(tile_point(T, K, R, static_cast<double>(con->rows * con->cols), bytes));
        }
  }
  return out;
}

// The widest mapping over global threads in `e`: 2 with a mapGlobal(1), 1 with
// mapGlobal(0) only, 0 without (one work item).
int global_dims_of(const Expr& e) {
  int dims = 0;
  std::vector<Expr> todo = {e};
  while (!todo.empty()) {
    Expr t = todo.back();
    todo.pop_back();
    if (std::optional<elevate::util::PrimCall> c = elevate::util::as_prim_call(t);
        c && c->is(rise::PrimId::MapGlobal))
      if (std::optional<rise::Nat> d = c->dep_nat(0))
        dims = std::max<int>(dims, static_cast<int>(d->as_const().value_or(0)) + 1);
    for (const Expr& k : rise::children(t)) todo.push_back(k);
  }
  return dims;
}

// The default lowering as a point of the model, its mapping read from the lowered
// program (compile decides it: docs/targets.md, "The default lowering").
GpuPoint default_point(const rise::Checked& high, const rise::Checked& lowered) {
  const std::vector<int64_t> dims = result_dims(high);
  const int used = global_dims_of(lowered.expr);
  GpuPoint g;
  g.structure = "default";
  if (used >= 2 && dims.size() >= 2) {
    g.words = "the default lowering: mapGlobal(1) x mapGlobal(0) over the two outer maps (" +
              num(dims[0]) + " x " + num(dims[1]) + " work items)";
    g.items = product(dims, 0) / product(dims, 2);
    g.stride = product(dims, 2);
  } else if (used >= 1 && !dims.empty()) {
    g.words =
        "the default lowering: mapGlobal(0) over the outer map (" + num(dims[0]) + " work items)";
    g.items = static_cast<double>(std::max<int64_t>(1, dims[0]));
    g.stride = product(dims, 1);
  } else {
    g.words = "one work item (the default lowering: no parallel map writes the result)";
  }
  return g;
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << v;
  return o.str();
}

// The GPU model (schedule_gpu.h): the candidate's sequential work over the parallelism
// it exposes, times its coalescing and global-load factors.
CostFeatures gpu_cost(const GpuPoint& g, const rise::Checked& lowered, const GpuDevice& dev) {
  CostMachine one;
  one.threads = 1;
  CostFeatures f = estimate_cost(lowered, one);
  const double work = f.score;
  f.reasons.clear();
  // Lanes: per compute unit, the lock-step width (several warps in flight on a GPU).
  const double per_unit = static_cast<double>(dev.warp) * (dev.gpu ? 4.0 : 1.0);
  const double lanes = static_cast<double>(dev.compute_units) * per_unit;
  double parallel = std::min(g.items, lanes);
  if (g.group > 0) {
    const double groups = std::max(1.0, std::floor(g.items / g.group));
    parallel = std::min(parallel, groups * std::min(g.group, per_unit));
    if (g.group < static_cast<double>(dev.warp))
      parallel *= g.group / static_cast<double>(dev.warp);
  }
  parallel = std::max(1.0, parallel);
  const double warp = static_cast<double>(dev.warp);
  const double coalescing =
      1.0 + (std::min(std::max(g.stride, 1.0), warp) - 1.0) * (dev.gpu ? 0.25 : 0.02);
  // Global loads: a dot product per work item loads 2 floats per multiply-add; a local
  // tile of T loads 2 / T from global memory and 2 / R from local memory.
  const double memory_share = dev.gpu ? 0.7 : 0.5;
  double loads = 1.0;
  if (g.tile > 0)
    loads = (1.0 - memory_share) + memory_share / static_cast<double>(g.tile) +
            0.1 / static_cast<double>(g.block);
  // Starting a work item costs a few operations on a GPU (its scheduler is hardware),
  // more on a CPU device, which runs a work group's items as a loop around the kernel.
  const double item_cost = dev.gpu ? 2.0 : 20.0;
  f.score = (work * coalescing * loads + item_cost * g.items) / parallel;
  f.reasons.push_back(fixed(g.items, 0) + " work item(s), " + fixed(parallel, 0) + " of " +
                      fixed(lanes, 0) + " lanes busy (" + num(dev.compute_units) +
                      " compute unit(s) x " + fixed(per_unit, 0) + ")" +
                      (g.group > 0 ? ", groups of " + fixed(g.group, 0) : std::string()));
  f.reasons.push_back(fixed(item_cost, 0) + " operation(s) to start a work item");
  f.reasons.push_back(g.stride <= 1
                          ? std::string("coalesced: adjacent work items touch adjacent elements")
                          : "adjacent work items " + fixed(g.stride, 0) + " elements apart (x" +
                                fixed(coalescing, 2) + ")");
  if (g.tile > 0)
    f.reasons.push_back("local tiles: " + fixed(2.0 / static_cast<double>(g.tile), 3) +
                        " global loads per multiply-add instead of 2, " + num(g.local_bytes) +
                        " bytes of local memory of " + num(dev.local_bytes) + " (x" +
                        fixed(loads, 2) + ")");
  return f;
}

}  // namespace

GpuSpace build_gpu_space(const rise::Checked& high, const std::string& target,
                         const GpuDevice& device, const GpuSpaceOptions& opt) {
  GpuSpace out;
  ScheduleSpace& space = out.space;
  rise::TermSet keys;
  {
    ScheduleCandidate d;
    d.is_default = true;
    d.structure = "default";
    d.default_text = elevate::default_lowering_text(default_lowering_checked(high, target));
    d.lowered = rewrite_with(d.default_text, high, &space.rewrites);
    keys.insert(d.lowered.expr);
    const GpuPoint g = default_point(high, d.lowered);
    d.gpu = g.words;
    out.costs.push_back(gpu_cost(g, d.lowered, device));
    space.candidates.push_back(std::move(d));
  }
  for (const GpuPoint& g : points_of(high, device, opt)) {
    if (space.candidates.size() >= opt.max_candidates) {
      space.truncated = true;
      break;
    }
    ScheduleCandidate c;
    c.structure = g.structure;
    c.gpu = g.words;
    c.steps = g.steps;
    if (!lower_candidate(c, high, space)) continue;
    if (!keys.insert(c.lowered.expr).second) {
      ++space.duplicates;
      continue;
    }
    out.costs.push_back(gpu_cost(g, c.lowered, device));
    space.candidates.push_back(std::move(c));
  }
  return out;
}

}  // namespace risec::driver
