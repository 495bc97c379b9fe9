// Compiling one autoscheduler candidate as `risec compile --strategy` would: its
// strategy text parsed back (the default candidate: the default lowering), for the
// driver's property tests that compare candidates with the interpreter. `entry`: the
// definition compiled (empty: the last one).
#pragma once

#include <string>

#include "driver/autoschedule.h"
#include "driver/compile.h"
#include "driver/schedule_space.h"

namespace risec::driver {

inline Compiled compile_candidate(const rise::Program& p, const rise::SizeMap& sizes,
                                  const std::string& target, const ScheduleCandidate& c,
                                  const std::string& entry = "") {
  AutoscheduleConfig cfg;
  cfg.program = &p;
  cfg.entry = entry;
  cfg.sizes = sizes;
  cfg.target = target;
  return compile_candidate(cfg, c);
}

// A small space for the property tests of one decision (tiles of 4, one explore
// variant, no strips): the decision's candidates without the space's breadth.
inline SpaceOptions small_row_space(const std::string& target) {
  SpaceOptions o;
  o.target = target;
  o.tiles = {4};
  o.explore_variants = 1;
  o.strips = {};
  return o;
}

}  // namespace risec::driver
