// Index-set splitting: a sequential loop whose indices clamp the loop variable
// (min/max from padClamp, boundary handling) or whose reads are guarded by a
// comparison with it (padCst, concat) is split at the points where a clamp changes
// side or a guard changes value, so that each part has plain indices (the interior vectorises; the
// borders are short): for i in [0, n) with min(i + 1, n - 1) becomes [0, n-1) and
// [n-1, n). The indices are those in the body's DPIA and those its views produce
// when they are resolved, which the caller supplies (the C backend resolves views
// while printing).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "dpia/imperative.h"

namespace risec::dpia {

// One part of a split loop: `var` runs over [0, len); the body has the original
// variable replaced by (start of the part) + var, and for a part of one iteration
// by the start itself (the body is then a single copy, not a loop). Loops in a
// body that the substitution makes unrollable are unrolled (dpia/unroll).
struct LoopPart {
  std::string var;
  arith::Nat len;
  CommandP body;
};

// What a body's accesses produce once its views are resolved: the flat indices, and
// the guards of conditional views (padCst, concat) that choose between sources.
struct BodyAccesses {
  std::vector<arith::Nat> indices;
  std::vector<arith::Cond> guards;
  // Every access to a memory variable: its name, flat index, and whether it stores.
  struct Access {
    std::string name;
    arith::Nat flat;
    bool write = false;
  };
  std::vector<Access> named;
};
using BodyIndices = std::function<BodyAccesses(const CommandP& body)>;

// The parts of the sequential loop `loop`, or none when it has no clamp to split
// at (or contains a parallel loop, or too many or unordered points).
// `part_name` gives each part's variable its name from the name the part would have
// (`i1_0` for the first part of the loop over i1): the caller's name supply
// (dpia/name_supply.h), so that it does not shadow a name in scope.
// `tiles`: also split a loop over tiles where the clamps of its inner loops stop
// changing side (the tiles in the middle then clamp nowhere); the OpenMP printer's
// parallel loops leave it off (their one-iteration parts would run in one thread).
std::optional<std::vector<LoopPart>> split_at_clamps(
    const Command& loop, const BodyIndices& body_indices,
    const std::function<std::string(const std::string&)>& part_name = nullptr, bool tiles = true);

// The points (values of `var`) where a min/max in `t` changes side, appended to out.
void collect_breakpoints(const arith::Nat& t, const arith::Nat& var, std::vector<arith::Nat>& out);
// The points (values of `var`) where a comparison in `c` changes value, appended to out.
void collect_breakpoints(const arith::Cond& c, const arith::Nat& var, std::vector<arith::Nat>& out);

}  // namespace risec::dpia
