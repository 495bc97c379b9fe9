// The autoscheduler's OpenMP schedule choice (docs/tuning.md, "Without a template"):
// a follow-up of the parallel decision, not a decision of every candidate, so that
// the space grows by a few candidates and not by a factor. The `schedule_choices`
// best parallel candidates by the cost model (cost_model.h; not the default lowering,
// not a register-blocked one) each get a copy whose parallel loops are scheduled
// dynamically, `everywhere(ompSchedule(dynamic, chunk))` after lowering, with a chunk
// of about an eighth of a thread's share of the outermost parallel loop (1 to 64
// iterations). The model ranks the copy below its original where the iterations cost
// the same (it pays for its chunks) and above it where they do not (a static schedule
// leaves threads waiting): triangular masks, cheap borders beside an expensive inside,
// data-dependent loops.
#pragma once

#include "driver/schedule_space.h"

namespace risec::driver {

// Appends the dynamically scheduled copies to `space` (refusals counted as dropped).
void add_schedule_choices(ScheduleSpace& space, const rise::Checked& high,
                          const SpaceOptions& options);

// The chunk a dynamic schedule of `lowered`'s outermost parallel loop gets on `threads`
// threads (1 when it has none).
int64_t dynamic_chunk(const rise::Expr& lowered, int threads);

}  // namespace risec::driver
