// Unrolling: a SeqUnroll loop with a constant trip count of at most kMaxUnroll, and
// any loop of one iteration, is replaced by copies of its body with the loop
// variable substituted. Each copy is a Block, a scope of its own, because a copy may
// declare names (temporaries) that the next copy declares again.
#pragma once

#include <cstdint>
#include <optional>

#include "dpia/imperative.h"

namespace risec::dpia {

// The most iterations a SeqUnroll loop is unrolled to; longer ones stay loops.
inline constexpr int64_t kMaxUnroll = 64;

// The copies that replace the loop `loop` (a For), as a Seq of Blocks, or none when
// it is not unrolled. A loop of zero iterations is not unrolled (it is dropped by
// whoever prints it).
std::optional<CommandP> unroll_loop(const Command& loop);

// Every unrollable loop in `c`, unrolled (inner loops of the copies too).
CommandP unroll(const CommandP& c);

}  // namespace risec::dpia
