// The stages decision of the autoscheduler's space (see schedule_pipeline.h).
#include "driver/schedule_pipeline.h"

#include "rise/primitives.h"

namespace risec::driver {

std::vector<ScheduleStep> stage_choices(const rise::Checked& high) {
  const bool has_let = rise::any_subexpr(high.expr, [](const rise::Expr& s) {
    return s->kind == rise::ExprKind::Primitive && s->prim && s->prim->is(rise::PrimId::Let);
  });
  if (!has_let) return {};
  return {{"stages", "normalize(inlineLet)",
           "every stage a let stores computed where it is read instead (no intermediate "
           "array; a stage read through a window is recomputed for each tap)"}};
}

}  // namespace risec::driver
