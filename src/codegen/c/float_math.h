// risec's own f32 elementary functions for the C and OpenMP backends: C text of
// branch-free `static inline` helpers that GCC inlines into loops and vectorises (the
// C library's expf and logf are calls it cannot vectorise; glibc declares their
// vector variants only under -ffast-math). docs/codegen.md, "Elementary functions".
#pragma once

#include <optional>
#include <string>

#include "rise/primitives.h"

namespace risec::codegen {

struct FloatMathHelper {
  std::string name;  // the C function: risec_exp_f32
  std::string text;  // its definition (needs <stdint.h>, <string.h>, <math.h>)
};

// The helper computing primitive `id` on scalars of kind `k`, or nullopt where the
// generated code calls the C library (every other function, and f64).
std::optional<FloatMathHelper> float_math_helper(rise::PrimId id, rise::ScalarKind k);

// The accuracy the helpers promise: the largest distance, in units in the last place
// of the correctly rounded result, over every finite f32 argument (measured over all
// 2^32 inputs by tests/codegen/float_math_test.cpp's full sweep).
inline constexpr double kFloatMathMaxUlp = 2.0;

}  // namespace risec::codegen
