// Memory placement: each temporary array (New) and each double buffer
// (NewDoubleBuffer) is put on the stack or on the heap, and the decision is recorded
// in the command (Command::placement) so that every backend prints the same choice.
// Small buffers of constant size go on the stack; the rest is allocated.
#pragma once

#include <cstdint>

#include "dpia/imperative.h"

namespace risec::dpia {

// The most bytes a temporary may take on the stack. Elements are counted at 8 bytes
// (the widest scalar), so an array of at most 8192 elements of any type fits: a tile's
// intermediate results (Harris's 46 x 126 gradients, two arrays of 23 KB) stay on the
// stack, where the loops address them from the stack pointer instead of keeping a base
// pointer per array in a register (5% faster than heap arrays allocated once per
// chunk). Thread stacks (8 MB, or 2 MB for OpenMP workers without a limit) hold them.
inline constexpr int64_t kStackLimitBytes = 65536;

// The placement of an array of data type `dt` (arrays of arrays count all elements).
Placement place(const Type& dt, int64_t stack_limit_bytes = kStackLimitBytes);

// Every New of an array and every NewDoubleBuffer, placed.
CommandP place_memory(const CommandP& c, int64_t stack_limit_bytes = kStackLimitBytes);

// Heap arrays allocated at the top of a sequential loop's body, whose size does not
// depend on the loop variable, allocated once around the loop instead: a fresh array
// holds nothing the body may read, so one array serves every iteration. Parallel and
// GPU loops keep theirs (each iteration needs its own), as do loops that may exit
// early and arrays in other address spaces. Per-tile buffers (a 2-D tiled stencil's
// intermediate tile) then cost one allocation per thread instead of one per tile.
CommandP hoist_allocations(const CommandP& c);

}  // namespace risec::dpia
