// The default lowering: the strategy `compile` and `run` apply without --strategy
// (docs/cli.md, "The default lowering"), built in one place so that the driver and the
// tuner (which always measures it as a candidate) apply the same one.
#pragma once

#include <cstdint>
#include <string>

#include "elevate/strategy.h"

namespace risec::elevate {

// The taps of a stencil window (and other short reductions) the default unrolls: a
// 5 x 5 window.
inline constexpr int64_t kDefaultUnrollTaps = 25;

struct DefaultLowering {
  bool simplify = true;  // simplify first (small programs; --no-simplify)
  // try(parallelOutput(32768)) before lowerToC and try(parallelStages) after it: --target openmp
  bool parallel = false;
  // try(globalOutput(n)), n = 1 or 2: --target opencl (1) and cuda (2) (0 leaves it
  // out: the program is one work item's)
  int64_t global_dims = 0;
  // try(unrollReductions(n)) after lowerToC (the CPU targets); 0 leaves it out
  int64_t unroll_taps = kDefaultUnrollTaps;
};

// simplify ; try(parallelOutput(32768)) ; try(globalOutput(n)) ; lowerToC ; try(parallelStages) ;
// try(unrollReductions(n)), each step as `d` asks.
Strategy default_lowering(const DefaultLowering& d);

// The same strategy as text ("simplify ; lowerToC ; try(unrollReductions(25))"), built
// from the same list of steps: parsed, it rewrites exactly as default_lowering(d) (the
// autoscheduler writes it when the default wins, so that --tuned compiles what was
// measured).
std::string default_lowering_text(const DefaultLowering& d);

// unrollReductions(n): every reduceSeq over a constant length L whose unrolled code
// (L times the copies the unrolled loops in its operator make) is at most n copies of
// its body becomes reduceSeqUnroll, inner ones first; fails when none does.
Strategy unroll_reductions(int64_t max_copies);

}  // namespace risec::elevate
