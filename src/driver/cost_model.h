// The autoscheduler's analytical cost model (docs/tuning.md, "Without a template"):
// a candidate's lowered program is walked once, counting what its loops execute, and
// the counts become one number, lower is better, that ranks candidates before any is
// measured. It is a start (the issue asks for a model learned from the tuning
// database's measurements later): it knows loops, arithmetic, stores, vectors,
// parallel loops and their OpenMP schedules (a dynamic schedule's chunks cost; a static
// one loses where iterations are uneven), and of caches only a tile's footprint and
// whether a stored array fits a core's L2 cache (then its traffic costs a quarter: a
// strip's buffers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/explore.h"
#include "rise/check.h"

namespace risec::driver {

struct CostMachine {
  int threads = 1;     // OpenMP threads (OMP_NUM_THREADS, else the cores)
  int64_t lanes = 8;   // floats per vector register (support/cpu.h)
  int64_t l1 = 32768;  // data cache per core, bytes
  int64_t l2 = 524288;
  // What starting and ending a parallel loop (a fork and a join) costs, in cycles
  // (the score's operation units): measured by bench/autoschedule/forkjoin.sh, more
  // under OMP_WAIT_POLICY=passive, whose idle threads sleep and are woken by the
  // kernel, than with libgomp's default, which spins a while first.
  double fork_join_cycles = 2600;
};

// The machine the model assumes for `target` (threads 1 for c).
CostMachine host_cost_machine(const std::string& target);

struct CostFeatures {
  double ops = 0;               // scalar or vector arithmetic operations executed
  double elements = 0;          // the floats they compute (a vector operation: its lanes)
  double iterations = 0;        // loop iterations (an unrolled loop's count a quarter)
  double parallel_ops = 0;      // ops executed inside a parallel loop
  double parallel_regions = 0;  // parallel loops started (each costs a fork/join)
  double chunks = 0;            // chunks handed out by dynamic or guided schedules
  double imbalance = 0;         // ops (a thread's share) of statically scheduled uneven loops
  MemoryCost memory;            // explore's stores: traffic and allocation
  int64_t tile_footprint = 0;   // bytes a tile reads and writes (0: no tile)
  double score = 0;             // the estimated time, in operation units
  double vector_fraction() const { return elements > 0 ? 1.0 - ops_scalar / elements : 0; }
  double parallel_fraction() const { return ops > 0 ? parallel_ops / ops : 0; }
  // Reductions' operators passed as bare primitives (reduce(add)): not in `ops`.
  double operator_ops = 0;
  double parallel_operator_ops = 0;
  // The share of all arithmetic, those operators included, run in parallel loops.
  double arithmetic_parallel_fraction() const {
    const double all = ops + operator_ops;
    return all > 0 ? (parallel_ops + parallel_operator_ops) / all : 0;
  }
  double ops_scalar = 0;             // ops on scalars (elements - ops_scalar: lanes of vector ops)
  double autovec_elements = 0;       // scalar ops in plain inner loops the C compiler vectorises
  std::vector<std::string> reasons;  // the model's reasons, in words
  // Vector reads whose lanes are not consecutive in memory (gathered lane by lane).
  double gathers = 0;
};

// The features and the score of a lowered program; `tile` is the candidate's tile
// size (0 none) and `inputs` the number of arrays a tile reads.
CostFeatures estimate_cost(const rise::Checked& lowered, const CostMachine& m, int64_t tile = 0,
                           int inputs = 1);

}  // namespace risec::driver
