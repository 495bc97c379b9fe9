// The autoscheduler's OpenMP schedule choice (see schedule_omp.h).
#include "driver/schedule_omp.h"

#include <algorithm>

#include "driver/cost_model.h"
#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::driver {

int64_t dynamic_chunk(const rise::Expr& lowered, int threads) {
  std::vector<rise::Expr> todo = {lowered};
  while (!todo.empty()) {  // pre-order: the first parallel loop found is the outermost
    rise::Expr e = todo.back();
    todo.pop_back();
    auto c = elevate::util::as_prim_call(e);
    if (c && (c->is(rise::PrimId::MapPar) || c->is(rise::PrimId::ReducePar)) && !c->args.empty() &&
        c->args.back()->type && c->args.back()->type->kind == rise::TypeKind::Array) {
      const int64_t n = c->args.back()->type->size.as_const().value_or(0);
      return std::clamp<int64_t>(n / (8 * std::max(1, threads)), 1, 64);
    }
    std::vector<rise::Expr> kids = rise::children(e);
    for (auto k = kids.rbegin(); k != kids.rend(); ++k) todo.push_back(*k);
  }
  return 1;
}

void add_schedule_choices(ScheduleSpace& space, const rise::Checked& high,
                          const SpaceOptions& opt) {
  if (opt.schedule_choices == 0) return;
  CostMachine m = host_cost_machine("openmp");
  m.threads = std::max(1, opt.threads);
  std::vector<std::pair<double, size_t>> parallel;
  for (size_t i = 0; i < space.candidates.size(); ++i) {
    const ScheduleCandidate& c = space.candidates[i];
    if (c.is_default || !c.block.empty() || c.parallel.empty() || !c.schedule.empty()) continue;
    parallel.push_back({estimate_cost(c.lowered, m, c.tile).score, i});
  }
  std::stable_sort(parallel.begin(), parallel.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (parallel.size() > opt.schedule_choices) parallel.resize(opt.schedule_choices);
  for (const auto& [score, i] : parallel) {
    ScheduleCandidate c = space.candidates[i];
    const std::string chunk = std::to_string(dynamic_chunk(c.lowered.expr, m.threads));
    c.schedule = "dynamic, " + chunk;
    c.steps.push_back({"schedule", "everywhere(ompSchedule(dynamic, " + chunk + "))",
                       "the parallel loops hand out their iterations in chunks of " + chunk +
                           " to whichever thread is free (schedule(dynamic, " + chunk +
                           ")): uneven iterations keep every thread busy",
                       true});
    if (lower_candidate(c, high, space)) space.candidates.push_back(std::move(c));
  }
}

}  // namespace risec::driver
