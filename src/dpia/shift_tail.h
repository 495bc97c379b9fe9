// Shifted tails: a short innermost sequential loop of a constant trip count n that is
// not a multiple of the vector width V runs as blocks of V iterations whose last block is
// shifted inwards to start at n - V, so it overlaps the block before it and runs some
// iterations twice:
//   for (b = 0; b < n; b += V) { base = b < n - V ? b : n - V; for l in [0, V): body(base + l) }
// The C compiler then vectorises one loop of V iterations without the narrower vector
// epilogue and scalar iterations it emits for the remainder of n / V (short rows of
// image tiles spend much of their time there). Running an iteration twice must not
// change the result, so a loop qualifies only when its body is idempotent: no memory
// variable it writes is also read by it (by name; variables it declares are private),
// which leaves out accumulators, in-place updates and reductions, and it calls nothing
// that may have effects (foreign functions, integer division reporting a fault). Writes
// of different iterations to one location stay in order: the last iteration writing it
// still runs last. The C printer (codegen/c) asks this for its sequential loops, the
// interior part of a loop split by split_loop included.
#pragma once

#include <cstdint>
#include <optional>

#include "dpia/imperative.h"
#include "dpia/split_loop.h"

namespace risec::dpia {

// The vector width in bytes the blocks are sized for: 64 (AVX-512, and four 16-byte
// vectors elsewhere). A constant, so that the generated code is the same on every CPU.
constexpr int64_t kShiftTailBytes = 64;
// Loops of at most this many blocks: in longer ones the remainder is a small part of
// the work, and the blocked form measured 5-12% slower than GCC's own long loop (rows
// of 2044 to 4094 floats on Zen 4; 8-18% faster at 124 to 510;
// bench/results/journal/2026-11-27-shifted-tails.md).
constexpr int64_t kShiftTailMaxBlocks = 32;

// The block width V for running `loop` with a shifted tail, or none when it does not
// qualify: a sequential loop without early exit, with a constant trip count n that V
// does not divide, V < n <= kShiftTailMaxBlocks * V, whose body has no loop left (it
// is innermost once unrolled), stores scalars only (V = kShiftTailBytes / the widest
// of them) and is idempotent (see above). `body_accesses` is asked only for a loop
// that passes the other checks.
std::optional<int64_t> shifted_tail_width(const Command& loop, const BodyIndices& body_accesses);

}  // namespace risec::dpia
