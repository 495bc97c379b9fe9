// The autoscheduler's decisions about the stages of a pipeline (docs/tuning.md,
// "Without a template"): whether a stage a `let` stores is computed where it is read
// instead (its value inlined, then fused with its consumer through zips and maps,
// zipMapFusion and mapFusion: a pointwise consumer then computes the element it
// needs, with no intermediate image; a consumer reading it through a window
// recomputes it per tap, which the measurements judge). Offered to programs that have
// a let or a zip. Programs that also zip a joined array (an upsampling writing the
// pixels it computes) get a second option, first: the last let alone inlined, the
// transposes moved towards the inputs (a pass over columns becomes a pass over
// windows of rows), the zips of joined arrays opened (zipJoin, joinBeforeMapF) and the
// maps under windows moved out of them, then everything fused: each block of output
// rows computes the upsampled rows it reads from the stored coarse image (Halide's
// compute_root of the coarse image, compute_inline of the upsampling).
#pragma once

#include <string>
#include <vector>

#include "driver/schedule_space.h"
#include "rise/check.h"

namespace risec::driver {

struct StageChoice {
  std::string label;  // in a few words, for the candidate's label ("inlined", ...)
  ScheduleStep step;
};

// The options of the "stages" decision other than "not taken".
std::vector<StageChoice> stage_choices(const rise::Checked& high);

}  // namespace risec::driver
