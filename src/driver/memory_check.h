// Before eval or run allocates inputs, outputs or the interpreter's values, the bytes
// they need at the given sizes are computed (without overflow, whatever the sizes)
// and compared with the memory limit (support/memory.h), so that `--size
// n=1000000000000` is refused at once with a clear message instead of exhausting the
// machine (issue 11).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rise/check.h"

namespace risec::driver {

// Bytes of one value of data type `t` (arrays: all elements), saturating at
// UINT64_MAX; nullopt when a size in `t` is not a constant.
std::optional<uint64_t> data_bytes(const rise::Type& t);

// Throws a Usage error (exit 2) when the checked entry, specialised to its sizes,
// needs more memory than the limit: its inputs and result together, or the largest
// value any of its subterms computes (which the interpreter may hold while
// evaluating). `with_interpreter` counts the latter (eval, run --check).
void check_memory_needs(const rise::Checked& checked, bool with_interpreter);

// Throws a Usage error (exit 2) when a value of the checked entry, at its sizes, needs
// 2^63 bytes or more: no 64-bit index of the generated code could address it (the
// flat index of n.m.f32 with n = m = 2^32 would overflow). `compile` checks it.
void check_addressable(const rise::Checked& checked);

}  // namespace risec::driver
