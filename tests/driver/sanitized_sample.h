// The driver's property tests (every candidate of a space computes what the
// interpreter computes) build spaces by rewriting a program many times, which
// AddressSanitizer makes about 8 times slower, and compile the candidates' C, which
// GCC compiles uninstrumented in both builds. Under the sanitizers they check a
// smaller sample of the same property: fewer random programs, and each program's
// space on one CPU target (c and openmp in turn) rather than both. Every space still
// built there is built whole, so every rewrite the sanitizers watch still runs; the
// Release run checks the full sample (docs/testing.md, "The sanitizer tests").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "build_info.h"

namespace risec::driver {

using risec::test::per_build;  // `release` in the Release build, `sanitized` under the sanitizers

// The CPU targets the `index`-th program of a property test is checked on: both, or
// under the sanitizers one of them, alternating with the index.
inline std::vector<std::string> cpu_targets(size_t index) {
  if (test::sanitized_sample()) return {index % 2 ? "openmp" : "c"};
  return {"c", "openmp"};
}

}  // namespace risec::driver
