// The machine risec runs on, as strategies see it: `lanes` (spec/strategies.md,
// "Tunable parameters"), the float lanes of its widest vector registers.
#pragma once

#include <cstdint>
#include <string>

namespace risec {

// $RISEC_LANES when set to a number from 1 to kMaxLanes (cross-compiling for another machine),
// else detected at run time: 16 with AVX-512F, 8 with AVX or AVX2 (256-bit float
// registers), 4 otherwise (SSE, NEON, or an unknown CPU). A malformed $RISEC_LANES is
// a Usage error.
int64_t machine_lanes();

// The widest vector width risec accepts, from $RISEC_LANES, `--param lanes=N` or a
// vectorising rule's argument: wider vector types make C compilers take minutes
// (GCC pads them to a power of two and splits every operation).
constexpr int64_t kMaxLanes = 256;

// The CPU's model, as /proc/cpuinfo names it ("AMD EPYC 7B13"; on ARM, its
// implementer and part numbers), or "unknown CPU". Tuning records are kept per model
// (driver/tuned.h): a time measured on one CPU says nothing about another.
std::string cpu_model();

}  // namespace risec
