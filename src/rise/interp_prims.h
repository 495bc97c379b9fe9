// Interpreter semantics of every primitive of the table in rise/primitives.cpp: one
// function per row, receiving the saturated call (all type-level and value arguments
// collected, the instantiated function type, the span for errors). The scalar
// helpers below are shared with the interpreter's fast paths (interp.cpp), so a
// primitive means the same whether it is reached through the table or inlined.
// The meaning of each primitive is documented at its definition in interp_prims.cpp
// and in value.h (scalar semantics).
#pragma once

#include <optional>
#include <string>

#include "rise/primitives.h"
#include "rise/value.h"

namespace risec::rise {

// scalar
Value eval_id(const PrimCall& call);  // also toMem, oclToMem
// neg, add, ..., equal, not and every math builtin (the default eval of family Math)
Value eval_scalar_op(const PrimCall& call);
Value eval_select(const PrimCall& call);
Value eval_any(const PrimCall& call);
Value eval_all(const PrimCall& call);
Value eval_cast(const PrimCall& call);
Value eval_indexAsNat(const PrimCall& call);
Value eval_natAsIndex(const PrimCall& call);
// memory
Value eval_let(const PrimCall& call);
// arrays
Value eval_makeArray(const PrimCall& call);
Value eval_generate(const PrimCall& call);
Value eval_idx(const PrimCall& call);
Value eval_gather(const PrimCall& call);
Value eval_scatter(const PrimCall& call);
Value eval_update(const PrimCall& call);
Value eval_padEmpty(const PrimCall& call);
Value eval_unzip(const PrimCall& call);
// pairs
Value eval_makePair(const PrimCall& call);
Value eval_fst(const PrimCall& call);
Value eval_snd(const PrimCall& call);
Value eval_mapFst(const PrimCall& call);
Value eval_mapSnd(const PrimCall& call);
// vectors
Value eval_vectorFromScalar(const PrimCall& call);
Value eval_asVector(const PrimCall& call);  // also asVectorAligned
// patterns
// map, mapSeq, mapSeqUnroll, mapPar, mapGlobal, mapWorkGroup, mapLocal
Value eval_map(const PrimCall& call);
// reduce, reduceSeq(Unroll), reducePar, oclReduceSeq(Unroll)
Value eval_reduce(const PrimCall& call);
// iterate, oclIterate
Value eval_iterate(const PrimCall& call);
Value eval_scanSeq(const PrimCall& call);
Value eval_iterateWhile(const PrimCall& call);
Value eval_circularBuffer(const PrimCall& call);
Value eval_rotateValues(const PrimCall& call);

// ---- shared scalar helpers ----

// A scalar operation: a row of the primitive table whose eval is eval_scalar_op
// (arithmetic, comparisons, math builtins); null for any other primitive.
using ScalarOp = const PrimitiveInfo*;
ScalarOp scalar_op_of(const PrimitiveInfo* p);
inline bool is_unary(ScalarOp op) {
  return op->arity == 1;
}

// The operation on two (unary: one; `b` is ignored) data values of the same type:
// scalars, indices, natType values, lane-wise on vectors; `equal` on any data.
// Errors (division by zero, ...) carry `span`.
Value scalar_op(ScalarOp op, const Value& a, const Value& b, const Span& span);
// cast to the scalar, index, natType or vector type `to`.
Value cast_value(const Value& v, const Type& to, const Span& span);
// select on a mask: lane i of a (or of each vector of a pair) where lane i of the mask
// is true, else of b.
Value blend(const Value& mask, const Value& a, const Value& b);
// x[i] with a range check.
Value index_array(const Value& arr, const Value& i, const Span& span);

}  // namespace risec::rise
