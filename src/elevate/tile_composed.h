// Tiling of a two-map nest as a composition of small rules (as in RISE & Shine's
// tiling strategy), used by tile/tileND for the nests it covers; see
// tile_composed.cpp and docs/strategies.md ("How tile is built").
#pragma once

#include <cstdint>

#include "elevate/strategy.h"

namespace risec::elevate {

// map(fun(a => map(fun(b => e))(ys)))(xs), ys independent of a or a view of it (with
// e not reading a), tiled by n x m: splitJoin on both maps, the inner block map moved
// outside the outer element map (an interchange of independent maps, or through the
// transposed views), and the joins and transposes moved out. Fails (with the reason of
// the step that failed) on any other nest; reports one step named `name` to the tracer.
Strategy composed_tile2(const std::string& name, int64_t n, int64_t m);

}  // namespace risec::elevate
