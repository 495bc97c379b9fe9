// Row panels of a network of products (see schedule_row_panels.h).
#include "driver/schedule_row_panels.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "driver/schedule_strips.h"

namespace risec::driver {

std::vector<int64_t> row_panel_heights(int64_t rows, int threads) {
  std::vector<int64_t> out;
  for (int64_t p : {8, 16, 32, 64})
    if (rows % p == 0 && rows / p >= std::max(2, threads)) out.push_back(p);
  return out;
}

std::vector<ScheduleCandidate> row_panel_candidates(const rise::Checked& high,
                                                    const Contraction& product,
                                                    const BlockMachine& machine,
                                                    const std::string& target, size_t keep,
                                                    ScheduleSpace& space) {
  std::vector<ScheduleCandidate> out;
  if (keep == 0) return out;
  // Each activation after a product fused into the product's epilogue (as the
  // whole-product blocked candidates do) once the lets are inlined, then the panels;
  // each block of a panel applies its epilogue where its accumulator is stored.
  StripPlanOptions po;
  po.need_halo = false;
  po.structure = {{"panels", "normalize(fuseReduceMap) ; normalize(productEpilogueFusion)",
                   "each reduction fused with the map of products it reads, each activation "
                   "after a product fused into its epilogue (bias, activation)"}};
  struct Ranked {
    double score;
    const StripPlan* plan;
    BlockPoint point;
  };
  const std::vector<StripPlan> plans =
      strip_plans(high, row_panel_heights(product.rows, machine.threads), &space.rewrites, po);
  std::vector<Ranked> ranked;
  const bool par = target == "openmp";
  const double fmas = static_cast<double>(product.rows) * static_cast<double>(product.cols) *
                      static_cast<double>(product.depth);
  for (const StripPlan& plan : plans) {
    // One panel's product, on one thread (the panels are the parallel loop), never
    // packed (a packed operand would be copied again by every panel).
    Contraction in = product;
    in.rows = plan.rows;
    BlockMachine one = machine;
    one.threads = 1;
    const double rounds =
        std::ceil(static_cast<double>(plan.strips) / std::max(1, par ? machine.threads : 1));
    const double balance = par ? rounds * machine.threads / static_cast<double>(plan.strips) : 1.0;
    // The best points of each shape whose block divides the panel (no rows peeled).
    size_t taken = 0;
    for (const BlockPoint& p : rank_block_points(in, one, 4 * keep)) {
      if (p.panel || p.pack || p.rest || taken >= keep) continue;
      ++taken;
      double score = p.score * balance;
      // The panel loop's fork and join, once per call (a thread's share of the
      // multiply-adds pays it).
      if (par && machine.threads > 1) score += machine.fork_join_cycles * machine.threads / fmas;
      ranked.push_back({score, &plan, p});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.score < b.score; });
  for (const Ranked& r : ranked) {
    if (out.size() >= keep) break;
    const BlockPoint& p = r.point;
    ScheduleCandidate c;
    c.structure = "row panels";
    c.steps = r.plan->steps;
    for (ScheduleStep& st : c.steps) st.decision = "panels";  // (the strips' plan)
    // The blocking of each product inside a panel: the blocked candidates' steps
    // without their structure (done above) and without a parallel loop of their own.
    std::vector<BlockStep> steps = block_steps(p, "c");
    for (size_t i = 1; i < steps.size(); ++i)
      c.steps.push_back(
          {steps[i].decision, steps[i].strategy, "in each panel, " + steps[i].comment});
    if (par) {
      c.steps.push_back({"parallel", "mapPar @ outermost(isFullyApplied(isMap))",
                         "the panels an OpenMP parallel loop, the program's only one (each panel "
                         "computes its rows of every layer in buffers of its own)"});
      c.parallel = "row panels";
    }
    c.block = "row panels of " + std::to_string(r.plan->rows) + ", block " + std::to_string(p.ti) +
              "x" + std::to_string(p.tj) + ", k split " + std::to_string(p.kk) +
              (p.register_block ? ", register block" : ", rows outside k.i") +
              (p.rows_outer ? "" : ", column blocks outer");
    c.vector = p.width == 1 ? "lanes" : "lanes * 2";
    c.block_reason = p.reason + "; every layer of a panel of " + std::to_string(r.plan->rows) +
                     " rows computed by one thread, one parallel loop in all";
    c.block_score = r.score;
    if (lower_candidate(c, high, space)) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace risec::driver
