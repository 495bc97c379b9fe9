// The autoscheduler's space for the GPU targets, opencl and cuda (docs/tuning.md, "GPU
// targets"): the candidate schedules of one program, each an ordinary strategy text,
// built from the program's result shape, reductions and structure:
//   global 1-D        the outermost map over mapGlobal(0) (a work item per element);
//   global 2-D        the two outer maps over mapGlobal(1) x mapGlobal(0) (and the
//                     transposed mapping, dimension 0 on the outer map);
//   work groups 1-D   the outer map split into groups of w work items (splitJoin(w),
//                     mapWorkGroup(0), mapLocal(0)), w = 32 .. 256 dividing it;
//   work groups 2-D   the two outer maps tiled ty x tx (tile(ty, tx), mapWorkGroup(1),
//                     mapWorkGroup(0), mapLocal(1), mapLocal(0)), 64 .. 256 work items;
//   chunked reduction a scalar result's reduction split into chunks of c
//                     (blockedReduce(c)), a work item per chunk (mapGlobal(0)), the
//                     chunks' sums added by a second kernel;
//   local tiles       a matrix product (schedule_blocked.h's find_contraction): a work
//                     group per T x T block of the result, the reduction in k-tiles of K
//                     whose operands' tiles the group copies into local memory, each
//                     work item an R x R register block (examples/mm/cuda_tiled.elv's
//                     steps with the numbers chosen from the sizes and the device);
// everything else sequential inside a work item (lowerToC), the reductions' accumulators
// private. Every candidate is rewritten and lowered here; one a
// rule refuses is dropped (counted), and the autoscheduler skips those the
// disjoint-writes or address-space checks refuse when it compiles them.
//
// The model (gpu_cost) ranks them: the candidate's work (the CPU model's operation
// count, sequentially) over the parallelism it exposes (work items, at most the
// device's lanes: compute units x lock-step width, fewer when work groups are smaller
// than a warp or fewer than the compute units), times a coalescing penalty (work items
// adjacent in dimension 0 that write elements `stride` apart) and, for local tiles, the
// share of global loads left (2 / T per multiply-add instead of 2), plus a cost per work
// item started (small on a GPU, larger on a CPU device that loops over them). Each
// mapping is built from two structures: DFNF with fused reductions, and simplify (the
// default lowering's start); then lowerToC and reductions of up to 25 taps unrolled.
#pragma once

#include <string>
#include <vector>

#include "driver/cost_model.h"
#include "driver/gpu_device.h"
#include "driver/schedule_space.h"

namespace risec::driver {

struct GpuSpaceOptions {
  std::vector<int64_t> groups = {32, 64, 128, 256};  // 1-D work-group sizes tried
  size_t max_candidates = 80;
};

struct GpuSpace {
  ScheduleSpace space;              // the default lowering first
  std::vector<CostFeatures> costs;  // per candidate: the GPU model's score and reasons
};

GpuSpace build_gpu_space(const rise::Checked& high, const std::string& target,
                         const GpuDevice& device, const GpuSpaceOptions& options = {});

}  // namespace risec::driver
