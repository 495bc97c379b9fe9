// Distributed private arrays: a private array allocated at work-group level (inside a
// mapWorkGroup, outside its mapLocals) whose elements each work item touches only
// inside mapLocals, at indices that contain its local id (the register blocks of a
// tiled matrix multiplication: a 32 x 32 accumulator of which each of 8 x 8 work items
// updates its own 4 x 4 block). The address-space check accepts such an accumulator
// (every work item keeps a copy); this pass, before memory placement, shrinks each
// work item's copy to its own part: the dimensions indexed by a local id are dropped
// from the allocation, and backends read and write the part through work_item_path.
// Backend-neutral: every C-family GPU printer declares the part and indexes it alike.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dpia/imperative.h"
#include "rise/primitives.h"

namespace risec::dpia {

struct Distribution {
  struct Dim {
    int local_dim = -1;  // the local dimension whose id selects the part; -1: kept whole
    arith::Nat stride;   // the coefficient of that id's loop variable in the index
    arith::Nat extent;   // the part's length in this dimension
  };
  std::vector<Dim> dims;  // per dimension of the original array
  struct Loop {
    int dim;       // the local dimension
    arith::Nat n;  // the iterations
  };
  std::map<std::string, Loop> work_item_vars;  // the mapLocal loop variables inside
  // Per local dimension, the iterations of the mapLocals that distribute the array: a
  // launch needs at least that many work items there (one iteration each).
  std::map<int, arith::Nat> work_items;
};

// Every distributable private array of `program` shrunk to one work item's part (New's
// dt, with Command::distribution saying how).
CommandP distribute_private(const CommandP& program);

// The element at `path` of the distributed array `name`, as a path into the work
// item's part (the local ids' terms dropped). An internal error when the access does
// not have the form the pass checked on the writes.
rise::Path work_item_path(const Distribution& d, const rise::Path& path, const std::string& name);

}  // namespace risec::dpia
