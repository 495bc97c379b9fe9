// The stages decision of the autoscheduler's space (see schedule_pipeline.h).
#include "driver/schedule_pipeline.h"

#include "elevate/rule_util.h"
#include "rise/primitives.h"

namespace risec::driver {

namespace {

// Whether the program joins the rows that a computing map produces (an upsampling
// writing the pixels it interpolates: join(map(fun(w => [a, b]))(..))), not only views
// (the join of a window or of a constant table, as a 2-D dot product reads).
bool joins_computed_rows(const rise::Expr& e) {
  return rise::any_subexpr(e, [](const rise::Expr& s) {
    auto j = elevate::util::match_prim(s, rise::PrimId::Join, 1);
    auto m = j ? elevate::util::match_map(j->args[0]) : std::nullopt;
    return m && elevate::util::computes(m->first);
  });
}

}  // namespace

std::vector<StageChoice> stage_choices(const rise::Checked& high) {
  using rise::PrimId;
  if (!rise::has_prim(high.expr, {PrimId::Let, PrimId::Zip})) return {};
  const StageChoice inlined = {
      "inlined",
      {"stages", "normalize(inlineStage) ; normalize(zipMapFusion <+ mapFusion)",
       "every stage a let stores computed where it is read instead, fused with its "
       "consumer through zips and maps (no intermediate array; a stage read through a "
       "window is recomputed for each tap), except a reduction read inside a map, which "
       "stays stored (inlined, it would run again for each element)"}};
  if (!rise::has_prim(high.expr, {PrimId::Zip}) || !joins_computed_rows(high.expr))
    return {inlined};
  // First, so that a space truncated at its size limit (schedule_space.h) keeps it; it
  // fails (and is not a candidate) where no zip of a joined array is left to open.
  return {{"inlined through joins",
           {"stages",
            "try(bottomUp(inlineStage)) ; RNF ; normalize(mapJoinBeforeTranspose <+ "
            "mapMapFBeforeTranspose <+ mapSlideBeforeTranspose <+ mapPadBeforeTranspose <+ "
            "removeTransposePair) ; topDown(zipJoin) ; normalize(zipJoin <+ joinBeforeMapF) ; "
            "normalize(padClampBeforeMap <+ padCstBeforeMap <+ slideBeforeMap) ; "
            "normalize(zipMapFusion <+ mapFusion)",
            "the last stage a let stores computed where the result reads it: passes over "
            "columns turned into passes over windows of rows (transposes moved towards the "
            "inputs), zips of joined arrays opened (zipJoin) and the maps under windows "
            "moved out of them, so that each block of output rows computes the rows it "
            "reads from the stored stages before it (an upsampled image: no stored array, "
            "the coarse image it interpolates stored whole)"}},
          inlined};
}

}  // namespace risec::driver
