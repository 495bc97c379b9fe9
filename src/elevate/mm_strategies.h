// The seven matrix-multiplication strategies of the ELEVATE paper (Hagedorn et al.,
// ICFP 2020) that reproduce TVM's CPU schedule for C = A * B (examples/mm/mm.rise),
// built from the strategy library exactly as the files examples/mm/<step>.elv write
// them, so that they can be used (and tested) without the .elv parser.
//
//   baseline          DFNF, then the dot product's map fused into its reduction
//   blocking          32x32 tiles, the reduction split by 4, loops reordered to
//                     i.o, j.o, k.o, k.i, i.i, j.i (reorder([1, 2, 5, 6, 3, 4]))
//   vectorization     blocking with the innermost loop (j.i) vectorised by 32
//   loopPermutation   loops i.o, j.o, k.o, i.i, k.i, j.i (reorder([1, 2, 5, 3, 6, 4])),
//                     j.i vectorised
//   arrayPacking      B stored once, in parallel, in the blocked layout
//                     (m/32).k.32 (TVM's packedB), then loopPermutation
//   cacheBlocks       arrayPacking with the k.i reduction unrolled
//   parallel          arrayPacking with the outer loop (i.o) parallel and k.i unrolled
//
// Each function returns the high-level strategy; `lowered(s)` appends `lowerToC`
// (every remaining map a mapSeq, reduce a reduceSeq), as every .elv file does.
#pragma once

#include <string>
#include <vector>

#include "elevate/strategy.h"

namespace risec::elevate::mm {

Strategy baseline();
Strategy blocking();
Strategy vectorization();
Strategy loop_permutation();
Strategy array_packing();
Strategy cache_blocks();
Strategy parallel();

// s ; lowerToC
Strategy lowered(const Strategy& s);

struct Step {
  const char* name;  // as in the paper
  const char* file;  // examples/mm/<file>
  Strategy (*make)();
};
// The seven steps in the paper's order.
const std::vector<Step>& steps();

}  // namespace risec::elevate::mm
