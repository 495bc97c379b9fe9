// Compiling one autoscheduler candidate as `risec compile --strategy` would: its
// strategy text parsed back (the default candidate: the default lowering), for the
// driver's property tests that compare candidates with the interpreter. `entry`: the
// definition compiled (empty: the last one).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "driver/autoschedule.h"
#include "driver/compile.h"
#include "driver/schedule_space.h"
#include "elevate/parser.h"
#include "support/files.h"

namespace risec::driver {

inline Compiled compile_candidate(const rise::Program& p, const rise::SizeMap& sizes,
                                  const std::string& target, const ScheduleCandidate& c,
                                  const std::string& entry = "") {
  CompileRequest req;
  req.program = &p;
  req.entry = entry;
  req.sizes = &sizes;
  req.target = target;
  std::optional<elevate::Strategy> s;
  if (!c.is_default) {
    s = elevate::parse_strategy_file(
        std::make_shared<SourceFile>(SourceFile{"candidate.elv", c.strategy_text()}));
    req.strategy = &*s;
  }
  return compile(req);
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
