// Access strides of vector reads, for the autoscheduler's cost model (cost_model.h):
// whether the lanes of the vectors a loop reads are consecutive elements in memory
// (one vector load), two apart (windows slid by two along a row: two loads and a
// shuffle) or otherwise (the C backend gathers them lane by lane: a transposed or
// strided view, rows vectorised across, the wrong dimension of a window).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rise/expr.h"

namespace risec::driver {

// The distance, in elements of the array the reads come from, between lane 0 and lane
// 1 of the vectors in one element of `xs` (an array whose element holds vectors: the
// data of a vectorised map, `asVector(n)(x)` or vectorizeWindows's groups), found by
// resolving its views (split, join, transpose, slide, pads, take, drop, maps of views,
// asVector, idx by a literal) at an element in the middle of every dimension, away
// from clamped borders. nullopt when it cannot tell (a computed array, pairs, sizes
// not known): the model then assumes a contiguous load.
// `env` binds the parameters of the loops around xs to the element they run over
// (name -> (array, index)), so that a row of a transposed matrix is seen as one.
using LaneEnv = std::map<std::string, std::pair<rise::Expr, std::vector<int64_t>>>;
std::optional<int64_t> lane_stride(const rise::Expr& xs, const LaneEnv& env = {});

}  // namespace risec::driver
