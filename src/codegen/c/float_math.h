// risec's own f32 elementary functions (exp, log, tanh) for the C and OpenMP backends:
// C text of branch-free `static inline` helpers that GCC inlines into loops and
// vectorises (the C library's expf, logf and tanhf are calls it cannot vectorise;
// glibc declares their vector variants only under -ffast-math). docs/codegen.md,
// "Elementary functions".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rise/primitives.h"

namespace risec::codegen {

struct FloatMathHelper {
  std::string name;                  // the C function: risec_exp_f32
  std::string text;                  // its definition (needs <stdint.h>, <string.h>, <math.h>)
  std::vector<rise::PrimId> uses{};  // the helpers it calls, to be defined before it
};

// The helper computing primitive `id` on scalars of kind `k`, or nullopt where the
// generated code calls the C library (every other function, and f64).
std::optional<FloatMathHelper> float_math_helper(rise::PrimId id, rise::ScalarKind k);
// The definitions of that helper and of those it uses, in order ("" when there is none).
std::string float_math_definitions(rise::PrimId id, rise::ScalarKind k);

// A helper computing primitive `id` on a whole vector of `lanes` lanes of kind `k` (C
// type `type`, function `fn`) with x86 intrinsics, to be compiled where `guard` (a
// preprocessor condition) holds, in place of the lane loop calling the scalar helper;
// it returns the scalar helper's results, bit for bit (as compiled with risec's
// -ffp-contract=fast, which makes FMAs of the helper's products). Several, each with its
// guard, the first that holds taken (`#if`, `#elif`). Today f32 exp on 16 lanes
// (AVX-512F), 8 and 4 (AVX-512VL, then AVX2 with FMA); none for everything else.
struct FloatMathVector {
  std::string guard;  // `defined(__AVX512F__) && ...`
  std::string text;   // the definition (needs <immintrin.h>)
};
std::vector<FloatMathVector> float_math_vector(rise::PrimId id, rise::ScalarKind k, int64_t lanes,
                                               const std::string& type, const std::string& fn);

// The accuracy the helpers promise: the largest distance, in units in the last place
// of the correctly rounded result, over every finite f32 argument (measured over all
// 2^32 inputs by tests/codegen/float_math_test.cpp's full sweep).
inline constexpr double kFloatMathMaxUlp = 2.0;

}  // namespace risec::codegen
