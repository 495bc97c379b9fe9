// Register blocks in DPIA's translation (docs/codegen.md, "Destination views"): an
// array reduction whose accumulator is a block of rows times columns (two dimensions
// or more, the columns possibly vectors) of at most kRegisterBlockScalars scalars, a
// constant size (AVX-512's 32 vector registers of 16 floats), run sequentially on a
// CPU. Kept in its destination, such an accumulator is loaded and stored at every
// step where the destination is memory the C compiler does not keep in registers (a
// row panel's buffer, the output); translate.cpp gives it a temporary of its own
// instead, whose indices are constants once the C compiler unrolls the block's loops,
// so it stays in registers across the reduction, and writes it out once, through what
// reads the reduction's result (a layer's bias and activation: the epilogue applied
// at the block's store). A one-dimensional accumulator (a row of column sums) stays
// in place, and so does one whose destination is a whole variable: the accumulator of
// the reduction it continues (k.i inside k.o), already a temporary of its own.
#pragma once

#include <cstdint>
#include <optional>

#include "rise/primitives.h"
#include "rise/type.h"

namespace risec::dpia {

inline constexpr int64_t kRegisterBlockScalars = 512;

// Whether a reduction of loop kind `loop` with an accumulator of type `t` updates a
// register block (the caller knows it is outside every GPU loop).
inline bool register_block(rise::LoopKind loop, const rise::Type& t) {
  if (loop != rise::LoopKind::Seq && loop != rise::LoopKind::SeqUnroll) return false;
  if (!t || t->kind != rise::TypeKind::Array || !t->a || t->a->kind != rise::TypeKind::Array)
    return false;
  int64_t scalars = 1;
  for (rise::Type x = t; x; x = x->a) {
    if (x->kind == rise::TypeKind::Scalar) return true;
    if (x->kind != rise::TypeKind::Array && x->kind != rise::TypeKind::Vector) return false;
    const std::optional<int64_t> n = x->size.as_const();
    if (!n || *n < 1) return false;
    scalars *= *n;
    if (scalars > kRegisterBlockScalars) return false;
  }
  return false;
}

}  // namespace risec::dpia
