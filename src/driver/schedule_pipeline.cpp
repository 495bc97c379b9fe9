// The stages decision of the autoscheduler's space (see schedule_pipeline.h).
#include "driver/schedule_pipeline.h"

#include "rise/primitives.h"

namespace risec::driver {

std::vector<ScheduleStep> stage_choices(const rise::Checked& high) {
  const bool stages = rise::any_subexpr(high.expr, [](const rise::Expr& s) {
    return s->kind == rise::ExprKind::Primitive && s->prim &&
           (s->prim->is(rise::PrimId::Let) || s->prim->is(rise::PrimId::Zip));
  });
  if (!stages) return {};
  return {{"stages", "normalize(inlineLet) ; normalize(zipMapFusion <+ mapFusion)",
           "every stage a let stores computed where it is read instead, fused with its "
           "consumer through zips and maps (no intermediate array; a stage read through a "
           "window is recomputed for each tap)"}};
}

}  // namespace risec::driver
