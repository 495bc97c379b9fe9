// Vectorised reductions in the autoscheduler's space (docs/tuning.md, "Without a
// template"): the `reductions` decision, offered when the program has a reduction of
// add, mul, fmax or fmin over scalars (found by PrimId), whose options are every such
// reduction kept in one vector accumulator of `lanes` lanes
// (normalize(vectorizeReductionRemainder(lanes))), in two
// (vectorizeReduction2Remainder: two dependency chains) or in four
// (vectorizeReduction4Remainder), any length (a scalar loop for the remainder). add and mul are
// reassociated: the candidate's result is checked against the interpreter within the tolerance, as
// every candidate's is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rise/check.h"

namespace risec::driver {

struct ReductionOption {
  std::string strategy;  // the step's strategy text
  std::string comment;   // what it does, in words
  std::string label;     // its short name in the candidate's label
};

// The options of the reductions decision for `high` (not taken is not among them); empty
// when `high` has no reduction the rules could vectorise.
std::vector<ReductionOption> reduction_options(const rise::Checked& high);

// The division decision (reciprocalDivision, rules_reciprocal.cpp): offered when `high`
// divides floats by a literal or a variable (a divisor that may be invariant in the
// loop around it: softmax's `v / s`, a filter's `/ 0.1f`); every map's such divisions
// become multiplications by the reciprocal. Empty when there is none.
std::optional<ReductionOption> division_option(const rise::Checked& high);

// How many maps of `high` run over elements that are not arrays (the maps a vectorize
// step can take); the vectorize decision offers `every map` when there are two or more
// (softmax's exponentials and its division: innermost(..) takes only the first).
int scalar_maps(const rise::Checked& high);

// Whether `high` reads windows (a `slide`: a stencil); the vectorize decision then
// offers vectorizeWindows(lanes), the map over windows on vectors of windows.
bool reads_windows(const rise::Checked& high);

}  // namespace risec::driver
