// Row panels of a network of products (docs/tuning.md, "Without a template"): the
// autoscheduler's candidates for programs whose output rows each depend on the same
// rows of every stage before them (a multi-layer perceptron: each row of the batch
// goes through both layers on its own). The output rows are cut into panels of P
// rows, the panels pushed through every stage to the input (the strips' plan,
// schedule_strips.h, without a window: no halo), and the maps over panels fused, so
// that one loop over the panels computes, per panel, its rows of the first layer
// (bias and activation included) into a buffer of its own and then its rows of the
// next; inside a panel every product is register-blocked (schedule_blocked.h, the
// block a divisor of P), and under openmp the panel loop is the program's only
// parallel loop: one fork and join per call instead of one per layer, packing step
// and epilogue, and no layer's result leaves the panel's buffer.
//
// The points are ranked by the register-block model (rank_block_points) on one
// panel's product, single-threaded (the panels are the parallel loop), with the
// panel loop's fork and join charged once (BlockMachine::fork_join_cycles).
#pragma once

#include <cstdint>
#include <vector>

#include "driver/schedule_blocked.h"
#include "driver/schedule_space.h"
#include "rise/check.h"

namespace risec::driver {

// The panel heights tried: those of {8, 16, 32, 64} that divide the rows into at least
// `threads` panels (at least two).
std::vector<int64_t> row_panel_heights(int64_t rows, int threads);

// The row-panel candidates of `high` (structure "row panels"), lowered, best first by
// the model, at most `keep`; empty when the program has no product or its output is
// not a map over rows. Each candidate's `block_score` is the model's estimate, in the
// same unit as rank_block_points's, so the space can interleave them with the
// whole-product blocked candidates. A rule's refusal counts in space.dropped.
std::vector<ScheduleCandidate> row_panel_candidates(const rise::Checked& high,
                                                    const Contraction& product,
                                                    const BlockMachine& machine,
                                                    const std::string& target, size_t keep,
                                                    ScheduleSpace& space);

}  // namespace risec::driver
