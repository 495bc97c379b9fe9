// The autoscheduler's decisions about the stages of a pipeline (docs/tuning.md,
// "Without a template"): whether a stage a `let` stores is computed where it is read
// instead (its value inlined, then fused with its consumer through zips and maps,
// zipMapFusion and mapFusion: a pointwise consumer then computes the element it
// needs, with no intermediate image; a consumer reading it through a window
// recomputes it per tap, which the measurements judge). Offered to programs that have
// a let or a zip.
#pragma once

#include <vector>

#include "driver/schedule_space.h"
#include "rise/check.h"

namespace risec::driver {

// The options of the "stages" decision other than "not taken".
std::vector<ScheduleStep> stage_choices(const rise::Checked& high);

}  // namespace risec::driver
